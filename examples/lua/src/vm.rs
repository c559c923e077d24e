//! The interpreter: one function runs one call of a Lua function on its
//! frame (the virtualizable red), instruction by instruction
//! (`bytecode.rs`); a Lua call runs it again on a new frame, so a
//! recursive Lua function becomes `call_assembler` in compiled code.
//! Without the JIT (`run_plain`) a plain `CALL` of a Lua function instead
//! switches to the callee's frame in the same activation, and its
//! `RETURN` switches back (`Frame::call_kind`). Values are `Obj` handles
//! (nil is null); an error is `Err(value)`.
//!
//! Every call the interpreter makes (`CALL`, the generic `for`'s iterator,
//! a metamethod) goes through one sequence after the instruction's
//! handler: the handler lays the function and its arguments out in
//! registers from `call_at` and says what to do with the results
//! (`call_mode`): keep them there (`CALL`), move the first to a register
//! (a metamethod's value), or jump on its truth (a comparison
//! metamethod). Metamethod calls use the frame's scratch registers past
//! the compiler's `maxstack`. The sequence first resolves the callee: a
//! `pcall` however reached (called, stored, a `__call` handler, through
//! another `pcall`) makes a protected call of its first argument, and a
//! value that is no function is called through its `__call`; then it makes
//! one call, a builtin's or a Lua function's on a new frame.
//!
//! `return f(x)` is a proper tail call (`TAILCALL`): a Lua function takes
//! the frame over and runs in the same activation of the interpreter, a
//! jump to its entry (so tail recursion is a loop the JIT compiles).
//! Frames grow (a new register array) when results, arguments or `...` do
//! not fit: rare, and a trace that meets it aborts.

use crate::arith::{
    self, exact_int, float_floor_div, float_mod, for_limit, lt_int_float, shift_left, to_number,
};
use crate::builtins::fast::{self, ffloor, kind as fast_kind, str_byte, str_sub};
use crate::builtins::{call_builtin, PCALL};
use crate::bytecode::op::*;
use crate::bytecode::IMM;
use crate::code::insn;
use crate::compile::{FALSE_K, STRINGS_K, TRUE_K};
use crate::errors::{
    arith_error, call_error, chain_error, compare_error, concat_error, for_error, index_error,
    key_error, len_error, overflow_error, protected_error,
};
use crate::meta::metamethod;
use crate::proto::{entry, is_vararg, maxstack, nparams, nupvals, upval, widen};
use crate::shape::{
    field_next, field_slot, len as shape_len, slot as shape_slot, DICT, INDEX_NAME,
};
use crate::strings::{concat2, equal as str_eq, less as str_less};
use crate::table::{
    self, get as table_get, len as table_len, new_table, replace as table_replace, set as table_set,
};
use crate::value;
use majit::prelude::*;
use std::cell::Cell;

/// Lua calls nested deeper than this raise "stack overflow" (see
/// `STACK_BYTES` in lib.rs for the native stack this needs).
pub const MAX_DEPTH: i64 = 20_000;

/// Registers a frame has past its prototype's `maxstack`: where a
/// metamethod call is laid out (the handler and up to three arguments).
pub const SCRATCH: usize = 4;

/// `__index` and `__newindex` tables followed for one access before
/// giving up on a likely loop (lua5.4's `MAXTAGLOOP`).
const MAX_CHAIN: i64 = 2000;

/// What the call sequence does after the call (see the module docs).
const KEEP: i64 = 0;
const TO_REG: i64 = 1;
const BRANCH: i64 = 2;
const NO_CALL: usize = usize::MAX;

/// `pcall`s one call sequence peels before "C stack overflow" (lua5.4's
/// C stack limit, counted as its `pcall(pcall, ..., f)` reaches it).
const MAX_PCALLS: usize = 197;

/// How a frame was called (`Frame::call_kind`): by a call of the
/// interpreter, in its caller's activation ([`run_plain`]), or by a
/// `pcall` (a C level for error positions and tracebacks). Kept in the
/// callee because compiled code keeps its frame's registers, the called
/// function among them, out of memory while the callee runs (the frame
/// is `opaque_to_callees`).
pub const CALLED: i64 = 0;
pub const INLINE: i64 = 1;
pub const PCALLED: i64 = 2;

/// `__call` handlers one call goes through before "stack overflow".
const MAX_LINKS: usize = 1000;

/// The most registers a frame grows to (lua5.4's `LUAI_MAXSTACK`).
const MAX_REGS: usize = 1_000_000;

thread_local! {
    static SERIAL: Cell<i64> = const { Cell::new(0) };
    static INLINE_CALLS: Cell<bool> = const { Cell::new(false) };
}

/// Whether Lua calls run in the caller's activation of the interpreter
/// (see [`run_plain`]). Elidable: false for a whole JIT run.
pub fn calls_inline() -> bool {
    INLINE_CALLS.with(Cell::get)
}

/// [`run`] without the JIT: a `CALL` of a Lua function (not protected,
/// not a metamethod's) then runs the callee in the caller's activation, a
/// jump to its entry, and its `RETURN` jumps back (`Frame::call_kind`), as
/// lua5.4 runs Lua calls; no native stack frame, rooting or `Result` per
/// call. With the JIT every Lua call stays a call of the interpreter
/// (`call_assembler` in compiled code): its driver returns a portal's
/// result from the activation that entered it.
pub fn run_plain(start: usize, frame: Frame) -> Result<i64, Obj> {
    let was = INLINE_CALLS.with(|c| c.replace(true));
    let r = run(start, frame);
    INLINE_CALLS.with(|c| c.set(was));
    r
}

/// A fresh serial number: the identity (and hash) of a table or closure,
/// since the collector moves objects.
pub fn next_serial() -> i64 {
    SERIAL.with(|s| {
        s.set(s.get() + 1);
        s.get()
    })
}

/// Runs the Lua function whose first instruction is at `start` on `frame`
/// (its parameters in the first registers) until it returns: `Ok(n)` with
/// its `n` results in `frame.regs[frame.ret..]`, or `Err(value)` raised.
#[jit_interp(
    greens = [pc],
    reds = [frame],
    helpers = [
        elidable fn insn(pc: i64) -> i64,
        elidable fn entry(p: i64) -> i64,
        elidable fn calls_inline() -> bool,
        elidable fn nparams(p: i64) -> i64,
        elidable fn maxstack(p: i64) -> i64,
        elidable fn is_vararg(p: i64) -> bool,
        elidable fn nupvals(p: i64) -> i64,
        elidable fn upval(p: i64, i: i64) -> i64,
        elidable fn float_floor_div(a: f64, b: f64) -> f64,
        elidable fn float_mod(a: f64, b: f64) -> f64,
        elidable fn lt_int_float(i: i64, f: f64, flip: bool, or_equal: bool) -> bool,
        elidable fn shift_left(a: i64, n: i64) -> i64,
        elidable fn str_eq(a: Str, b: Str) -> bool,
        elidable fn str_less(a: Str, b: Str, or_equal: bool) -> bool,
        elidable fn fast_kind(id: i64) -> i64,
        elidable fn ffloor(f: f64) -> f64,
        elidable fn str_byte(s: Str, i: i64) -> i64,
        residual(no_force) fn str_sub(s: Str, i: i64, j: i64) -> Str,
        elidable fn field_slot(shape: i64, pc: i64) -> i64,
        elidable fn field_next(shape: i64, pc: i64) -> i64,
        elidable fn shape_len(shape: i64) -> i64,
        elidable fn shape_slot(shape: i64, name: i64) -> i64,
        residual(no_force) fn to_number(o: Obj) -> Obj,
        residual(no_force) fn concat2(x: Obj, y: Obj) -> Obj,
        residual fn next_serial() -> i64,
        residual fn widen(p: i64, regs: i64),
        residual fn new_table(narr: i64, nhash: i64) -> Table,
        residual(no_force) fn table_get(t: Table, k: Obj) -> Obj,
        residual(no_force) fn table_set(t: Table, k: Obj, v: Obj) -> i64,
        residual(no_force) fn table_len(t: Table) -> i64,
        residual(no_force) fn table_replace(t: Table, k: Obj, v: Obj) -> bool,
        residual(no_force) fn metamethod(o: Obj, event: i64) -> Obj,
        residual fn call_builtin(id: i64, frame: Frame, base: i64, nargs: i64, pc: i64, from_c: bool) -> Result<i64, Obj>,
        residual fn arith_error(frame: Frame, pc: i64, x: Obj, y: Obj) -> Obj,
        residual fn compare_error(frame: Frame, pc: i64, x: Obj, y: Obj) -> Obj,
        residual fn concat_error(frame: Frame, pc: i64, x: Obj, y: Obj) -> Obj,
        residual fn index_error(frame: Frame, pc: i64, x: Obj) -> Obj,
        residual fn key_error(frame: Frame, pc: i64, why: i64) -> Obj,
        residual fn len_error(frame: Frame, pc: i64, x: Obj) -> Obj,
        residual fn call_error(frame: Frame, pc: i64, f: Obj) -> Obj,
        residual(no_force) fn protected_error(why: i64, f: Obj) -> Obj,
        residual fn chain_error(frame: Frame, pc: i64, event: i64) -> Obj,
        residual fn for_error(frame: Frame, pc: i64, what: i64, v: Obj) -> Obj,
        residual fn for_limit(frame: Frame, pc: i64, limit: Obj, step: i64) -> Result<Obj, Obj>,
        residual(no_force) fn exact_int(o: Obj) -> Obj,
        residual fn overflow_error(frame: Frame, pc: i64) -> Obj,
    ],
    structs = [
        #[headered] Frame { regs: Array<Obj>, cl: Closure, va: Args, top: i64, ret: i64, depth: i64, parent: Frame, call_pc: i64, spill: Args, call_kind: i64 },
        #[headered] Args { items: Array<Obj> },
        #[headered] Int { #[immutable] v: i64 },
        #[headered] Float { #[immutable] v: f64 },
        #[headered] Bool { #[immutable] v: bool },
        #[headered] Str { #[immutable] hash: i64, #[immutable] bytes: Array<u8> },
        #[headered] Table { serial: i64, arr: Array<Obj>, keys: Array<Obj>, vals: Array<Obj>, used: i64, meta: Obj, shape: i64 },
        #[headered] Closure { #[immutable] serial: i64, #[immutable] proto: i64, #[immutable] k: Array<Obj>, #[immutable] up: Array<UpVal> },
        #[headered] Builtin { #[immutable] serial: i64, #[immutable] id: i64 },
        #[headered] UpVal { v: Obj },
    ],
    traced = [
        value::int_obj,
        value::is_int,
        value::int_of,
        arith::int_mod,
        arith::int_floor_div,
        value::float_obj,
        value::is_float,
        value::float_of,
        value::is_num,
        value::to_f64,
        value::truthy,
        value::immediate,
        grow,
        table::first_slot,
        fast::applies,
        fast::call,
        fast::results,
        index_handler,
        take_args,
        take_results,
        copy_results,
    ],
    virtualizable = frame(opaque_to_callees),
)]
pub fn run(start: usize, mut frame: Frame) -> Result<i64, Obj> {
    let mut pc: usize = start;
    loop {
        jit_merge_point!();
        let mut w = insn(pc as i64);
        pc += 1;
        let mut op = w & 0xff;
        // The commonest arithmetic, comparisons and jumps before the
        // dispatch table, in the interpreter only: two small integers
        // under `+ - *` (wrapping) or compared, two small floats under
        // `+ - * /` or compared, a jump or test that goes forward. Traces
        // take the handlers below (the optimizer removes their redundant
        // tests), which bridge far less often (queens.lua 11: 37 bridges
        // against 144 with these paths traced). A run of such
        // instructions stays here: they neither call nor leave, and
        // allocate only a float too large for a handle (which ends the run
        // at its next use); so the merge point (a safepoint, and nothing
        // else outside traces) can wait for the run's end. A jump back
        // ends the run: its handler is a loop's back edge.
        // (`JMP..=DIV` is one unsigned comparison.)
        if !we_are_jitted() {
            while ((op - JMP) as u64) <= (DIV - JMP) as u64 {
                let a = ((w >> 8) & 0xffff) as usize;
                if op <= TESTJMP {
                    let target: usize = if op == JMP {
                        (w >> 24) as usize
                    } else {
                        insn(pc as i64) as usize
                    };
                    let next: usize = if op == JMP { pc } else { pc + 1 };
                    // (TESTJMP's c, decoded apart: decoding b and c before
                    // the jumps are told apart cost mandelbrot 2% more
                    // instructions.)
                    let when: bool = (w >> 44) & 0xf_ffff != 0;
                    let taken: bool = op == JMP || value::truthy(frame.regs[a]) == when;
                    if taken && target < next {
                        break;
                    }
                    pc = if taken { target } else { next };
                } else {
                    let b = ((w >> 24) & 0xf_ffff) as usize;
                    let c = ((w >> 44) & 0xf_ffff) as usize;
                    // An operand is a register or an immediate (bytecode::IMM).
                    let x: Obj = if b < IMM {
                        frame.regs[b]
                    } else {
                        value::immediate(b)
                    };
                    let y: Obj = if c < IMM {
                        frame.regs[c]
                    } else {
                        value::immediate(c)
                    };
                    if op < ADD {
                        let holds: bool = if x.is_small_int() && y.is_small_int() {
                            let i: i64 = x.to_small_int();
                            let j: i64 = y.to_small_int();
                            if op == EQ {
                                i == j
                            } else if op == LT {
                                i < j
                            } else {
                                i <= j
                            }
                        } else if x.is_small_float() && y.is_small_float() {
                            let f: f64 = x.to_small_float();
                            let g: f64 = y.to_small_float();
                            if op == EQ {
                                f == g
                            } else if op == LT {
                                f < g
                            } else {
                                f <= g
                            }
                        } else {
                            break;
                        };
                        let target = insn(pc as i64) as usize;
                        pc += 1;
                        if holds != (a != 0) {
                            pc = target;
                        }
                    } else if op <= MUL && x.is_small_int() && y.is_small_int() {
                        let i: i64 = x.to_small_int();
                        let j: i64 = y.to_small_int();
                        let r: i64 = if op == ADD {
                            i.wrapping_add(j)
                        } else if op == SUB {
                            i.wrapping_sub(j)
                        } else {
                            i.wrapping_mul(j)
                        };
                        frame.regs[a] = value::int_obj(r);
                    } else if x.is_small_float() && y.is_small_float() {
                        let f: f64 = x.to_small_float();
                        let g: f64 = y.to_small_float();
                        let r: f64 = if op == ADD {
                            f + g
                        } else if op == SUB {
                            f - g
                        } else if op == MUL {
                            f * g
                        } else {
                            f / g
                        };
                        frame.regs[a] = value::float_obj(r);
                    } else {
                        break;
                    }
                }
                w = insn(pc as i64);
                pc += 1;
                op = w & 0xff;
            }
        }
        let a = ((w >> 8) & 0xffff) as usize;
        let b = ((w >> 24) & 0xf_ffff) as usize;
        let c = ((w >> 44) & 0xf_ffff) as usize;
        // The call this instruction asks for, if any (module docs).
        let mut call_at: usize = NO_CALL;
        let mut call_nargs: usize = 0;
        let mut call_c: usize = 0;
        let mut call_mode: i64 = KEEP;
        let mut call_dest: usize = 0;
        let mut call_jump: usize = NO_CALL;
        let scratch: usize = frame.regs.len() - SCRATCH;
        match op {
            MOVE => frame.regs[a] = frame.regs[b],
            LOADK => frame.regs[a] = frame.cl.k[b | c << 20],
            LOADI => {
                frame.regs[a] = value::int_obj(insn(pc as i64));
                pc += 1;
            }
            LOADF => {
                frame.regs[a] = value::float_obj(f64::from_bits(insn(pc as i64) as u64));
                pc += 1;
            }
            LOADNIL => {
                let mut i: usize = a;
                while i <= a + b {
                    frame.regs[i] = Obj::null();
                    i += 1;
                }
            }
            LOADBOOL => frame.regs[a] = frame.cl.k[if b != 0 { TRUE_K } else { FALSE_K }],
            GETUPVAL => frame.regs[a] = frame.cl.up[b].v,
            SETUPVAL => {
                let cell = frame.cl.up[b];
                cell.v = frame.regs[a];
            }
            NEWCELL => frame.regs[a] = Obj::from(UpVal::new(frame.regs[b])),
            GETCELL => frame.regs[a] = frame.regs[b].cast::<UpVal>().v,
            SETCELL => {
                let cell = frame.regs[a].cast::<UpVal>();
                cell.v = frame.regs[b];
            }
            GETTABLE | GETFIELD | GETTABUP | SELF => {
                let mut x: Obj = if op == GETTABUP {
                    frame.cl.up[b].v
                } else {
                    frame.regs[b]
                };
                let key: Obj = if op == GETTABLE {
                    frame.regs[c]
                } else {
                    frame.cl.k[c]
                };
                if op == SELF {
                    frame.regs[a + 1] = x;
                }
                let mut v: Obj = Obj::null();
                let mut chain: i64 = 0;
                while chain < MAX_CHAIN {
                    let handler: Obj = if x.is::<Table>() {
                        let t = x.cast::<Table>();
                        // The array part inline; the rest in the helper.
                        let mut found: bool = false;
                        if value::is_int(key) {
                            let i: i64 = value::int_of(key);
                            if i >= 1 && i <= t.arr.len() as i64 {
                                v = t.arr[(i - 1) as usize];
                                found = true;
                            }
                        }
                        if !found && op != GETTABLE {
                            if t.shape != DICT {
                                // A shaped table: the slot of this
                                // instruction's key depends on the shape
                                // only (a constant in traces).
                                let s: i64 = field_slot(promote(t.shape), pc as i64 - 1);
                                if s >= 0 {
                                    v = t.vals[s as usize];
                                }
                                found = true;
                            } else if !we_are_jitted() {
                                // A constant key: the object a `t.name = v`
                                // of this chunk stored, in its first slot.
                                let s: i64 = table::first_slot(t, key);
                                if s >= 0 {
                                    v = t.vals[s as usize];
                                    found = true;
                                }
                            }
                        }
                        if !found {
                            v = table_get(t, key);
                        }
                        if !v.is_null() || t.meta.is_null() {
                            break;
                        }
                        index_handler(t)
                    } else if x.is::<Str>() {
                        frame.cl.k[STRINGS_K]
                    } else {
                        metamethod(x, 0)
                    };
                    if handler.is_null() {
                        if x.is::<Table>() {
                            break;
                        }
                        return Err(index_error(frame, pc as i64 - 1, x));
                    }
                    if handler.is::<Closure>() || handler.is::<Builtin>() {
                        frame.regs[scratch] = handler;
                        frame.regs[scratch + 1] = x;
                        frame.regs[scratch + 2] = key;
                        call_at = scratch;
                        call_nargs = 2;
                        call_c = 2;
                        call_mode = TO_REG;
                        call_dest = a;
                        break;
                    }
                    x = handler;
                    chain += 1;
                }
                if chain == MAX_CHAIN {
                    return Err(chain_error(frame, pc as i64 - 1, 0));
                }
                if call_at == NO_CALL {
                    frame.regs[a] = v;
                }
            }
            SETTABLE | SETFIELD | SETTABUP => {
                let mut x: Obj = if op == SETTABUP {
                    frame.cl.up[a].v
                } else {
                    frame.regs[a]
                };
                let key: Obj = if op == SETTABLE {
                    frame.regs[b]
                } else {
                    frame.cl.k[b]
                };
                let v: Obj = frame.regs[c];
                let mut chain: i64 = 0;
                while chain < MAX_CHAIN {
                    let mut handler: Obj = Obj::null();
                    if x.is::<Table>() {
                        let t = x.cast::<Table>();
                        let mut done: bool = false;
                        if value::is_int(key) {
                            let i: i64 = value::int_of(key);
                            if i >= 1
                                && i <= t.arr.len() as i64
                                && (t.meta.is_null() || !t.arr[(i - 1) as usize].is_null())
                            {
                                t.arr[(i - 1) as usize] = v;
                                done = true;
                            }
                        }
                        if op != SETTABLE {
                            // As in GETFIELD; a `nil` there may have a
                            // `__newindex` to call.
                            let mut s: i64 = -1;
                            if t.shape != DICT {
                                let sh: i64 = promote(t.shape);
                                s = field_slot(sh, pc as i64 - 1);
                                if s < 0 && t.meta.is_null() {
                                    // A new key (no `__newindex` to ask):
                                    // into the next slot if there is room,
                                    // as `table::set` would.
                                    let next: i64 = field_next(sh, pc as i64 - 1);
                                    let n: i64 = shape_len(sh);
                                    if next != DICT && n < t.keys.len() as i64 {
                                        t.keys[n as usize] = key;
                                        t.vals[n as usize] = v;
                                        t.used = n + 1;
                                        t.shape = next;
                                        break;
                                    }
                                }
                            } else if !we_are_jitted() {
                                s = table::first_slot(t, key);
                            }
                            if s >= 0 && (t.meta.is_null() || !t.vals[s as usize].is_null()) {
                                t.vals[s as usize] = v;
                                break;
                            }
                        }
                        if done {
                            break;
                        }
                        if !t.meta.is_null() {
                            if table_replace(t, key, v) {
                                break;
                            }
                            handler = metamethod(x, 1);
                        }
                        if handler.is_null() {
                            let why: i64 = table_set(t, key, v);
                            if why != 0 {
                                return Err(key_error(frame, pc as i64 - 1, why));
                            }
                            break;
                        }
                    } else {
                        handler = metamethod(x, 1);
                        if handler.is_null() {
                            return Err(index_error(frame, pc as i64 - 1, x));
                        }
                    }
                    if handler.is::<Closure>() || handler.is::<Builtin>() {
                        frame.regs[scratch] = handler;
                        frame.regs[scratch + 1] = x;
                        frame.regs[scratch + 2] = key;
                        frame.regs[scratch + 3] = v;
                        call_at = scratch;
                        call_nargs = 3;
                        call_c = 1;
                        break;
                    }
                    x = handler;
                    chain += 1;
                }
                if chain == MAX_CHAIN {
                    return Err(chain_error(frame, pc as i64 - 1, 1));
                }
            }
            NEWTABLE => frame.regs[a] = Obj::from(new_table(b as i64, c as i64)),
            SETLIST => {
                let t = frame.regs[a].cast::<Table>();
                let first: i64 = insn(pc as i64);
                pc += 1;
                let n: usize = if b == 0 {
                    frame.top as usize - a - 1
                } else {
                    b
                };
                let mut i: usize = 0;
                while i < n {
                    // Into the array part `NEWTABLE` sized, inline.
                    let k: i64 = first + i as i64;
                    if k >= 1 && k <= t.arr.len() as i64 {
                        t.arr[(k - 1) as usize] = frame.regs[a + 1 + i];
                    } else {
                        table_set(t, value::int_obj(k), frame.regs[a + 1 + i]);
                    }
                    i += 1;
                }
            }
            ADD | SUB | MUL | MOD | IDIV | DIV | POW | BAND | BOR | BXOR | SHL | SHR => {
                // An operand is a register or an immediate (bytecode::IMM).
                let x0: Obj = if b < IMM {
                    frame.regs[b]
                } else {
                    value::immediate(b)
                };
                let y0: Obj = if c < IMM {
                    frame.regs[c]
                } else {
                    value::immediate(c)
                };
                let mut x: Obj = x0;
                let mut y: Obj = y0;
                // Strings convert for arithmetic, integral floats for the
                // bitwise operators (two small integers need neither, nor
                // two small numbers for arithmetic).
                let x_small: bool = x.is_small_int() || x.is_small_float();
                let y_small: bool = y.is_small_int() || y.is_small_float();
                let plain: bool =
                    x.is_small_int() && y.is_small_int() || op < BAND && x_small && y_small;
                if !plain {
                    if op < BAND && x.is::<Str>() {
                        x = to_number(x);
                    }
                    if op < BAND && y.is::<Str>() {
                        y = to_number(y);
                    }
                    if op >= BAND && value::is_float(x) {
                        x = exact_int(x);
                    }
                    if op >= BAND && value::is_float(y) {
                        y = exact_int(y);
                    }
                }
                // (A small float is no integer: no class tests for it.)
                let floats: bool = x.is_small_float() || y.is_small_float();
                if !floats && value::is_int(x) && value::is_int(y) && op != DIV && op != POW {
                    let i: i64 = value::int_of(x);
                    let j: i64 = value::int_of(y);
                    if (op == MOD || op == IDIV) && j == 0 {
                        return Err(arith_error(frame, pc as i64 - 1, x0, y0));
                    }
                    let r: i64 = match op {
                        ADD => i.wrapping_add(j),
                        SUB => i.wrapping_sub(j),
                        MUL => i.wrapping_mul(j),
                        MOD => arith::int_mod(i, j),
                        IDIV => arith::int_floor_div(i, j),
                        BAND => i & j,
                        BOR => i | j,
                        BXOR => i ^ j,
                        SHL => shift_left(i, j),
                        _ => shift_left(i, j.wrapping_neg()),
                    };
                    frame.regs[a] = value::int_obj(r);
                } else if value::is_num(x) && value::is_num(y) && op < BAND {
                    let f: f64 = value::to_f64(x);
                    let g: f64 = value::to_f64(y);
                    let r: f64 = match op {
                        ADD => f + g,
                        SUB => f - g,
                        MUL => f * g,
                        DIV => f / g,
                        POW => f.powf(g),
                        MOD => float_mod(f, g),
                        _ => float_floor_div(f, g),
                    };
                    frame.regs[a] = value::float_obj(r);
                } else {
                    let mut handler: Obj = metamethod(x0, 10 + op - ADD);
                    if handler.is_null() {
                        handler = metamethod(y0, 10 + op - ADD);
                    }
                    if handler.is_null() {
                        return Err(arith_error(frame, pc as i64 - 1, x0, y0));
                    }
                    frame.regs[scratch] = handler;
                    frame.regs[scratch + 1] = x0;
                    frame.regs[scratch + 2] = y0;
                    call_at = scratch;
                    call_nargs = 2;
                    call_c = 2;
                    call_mode = TO_REG;
                    call_dest = a;
                }
            }
            UNM | BNOT | LEN => {
                let mut x: Obj = frame.regs[b];
                if op == BNOT && value::is_float(x) {
                    x = exact_int(x);
                }
                let mut handled: bool = true;
                if op == UNM && value::is_int(x) {
                    frame.regs[a] = value::int_obj(value::int_of(x).wrapping_neg());
                } else if op == UNM && value::is_float(x) {
                    frame.regs[a] = value::float_obj(-value::float_of(x));
                } else if op == BNOT && value::is_int(x) {
                    frame.regs[a] = value::int_obj(!value::int_of(x));
                } else if op == LEN && x.is::<Str>() {
                    frame.regs[a] = value::int_obj(x.cast::<Str>().bytes.len() as i64);
                } else if op == LEN && x.is::<Table>() && x.cast::<Table>().meta.is_null() {
                    frame.regs[a] = value::int_obj(table_len(x.cast::<Table>()));
                } else {
                    handled = false;
                }
                if !handled {
                    let event: i64 = match op {
                        UNM => 22,
                        BNOT => 23,
                        _ => 24,
                    };
                    let handler: Obj = metamethod(x, event);
                    if handler.is_null() {
                        if op == LEN && x.is::<Table>() {
                            frame.regs[a] = value::int_obj(table_len(x.cast::<Table>()));
                        } else if op == LEN {
                            return Err(len_error(frame, pc as i64 - 1, x));
                        } else {
                            // Strings convert for `-` only (lua5.4's string
                            // metatable has no bitwise metamethods).
                            let n: Obj = if op == UNM && x.is::<Str>() {
                                to_number(x)
                            } else {
                                Obj::null()
                            };
                            if n.is_null() {
                                return Err(arith_error(frame, pc as i64 - 1, x, x));
                            }
                            frame.regs[b] = n;
                            pc -= 1; // again, on the number
                        }
                    } else {
                        frame.regs[scratch] = handler;
                        frame.regs[scratch + 1] = x;
                        frame.regs[scratch + 2] = x;
                        call_at = scratch;
                        call_nargs = 2;
                        call_c = 2;
                        call_mode = TO_REG;
                        call_dest = a;
                    }
                }
            }
            NOT => {
                let k: usize = if value::truthy(frame.regs[b]) {
                    FALSE_K
                } else {
                    TRUE_K
                };
                frame.regs[a] = frame.cl.k[k];
            }
            CONCAT => {
                let x: Obj = frame.regs[b];
                let y: Obj = frame.regs[c];
                let r: Obj = concat2(x, y);
                if r.is_null() {
                    let mut handler: Obj = metamethod(x, 25);
                    if handler.is_null() {
                        handler = metamethod(y, 25);
                    }
                    if handler.is_null() {
                        return Err(concat_error(frame, pc as i64 - 1, x, y));
                    }
                    frame.regs[scratch] = handler;
                    frame.regs[scratch + 1] = x;
                    frame.regs[scratch + 2] = y;
                    call_at = scratch;
                    call_nargs = 2;
                    call_c = 2;
                    call_mode = TO_REG;
                    call_dest = a;
                } else {
                    frame.regs[a] = r;
                }
            }
            JMP => {
                let target = (w >> 24) as usize;
                let back = target < pc;
                pc = target;
                if back {
                    can_enter_jit!();
                    continue;
                }
            }
            TESTJMP => {
                let target = insn(pc as i64) as usize;
                pc += 1;
                if value::truthy(frame.regs[a]) == (c != 0) {
                    let back = target < pc;
                    pc = target;
                    if back {
                        can_enter_jit!();
                        continue;
                    }
                }
            }
            EQ | LT | LE => {
                let target = insn(pc as i64) as usize;
                pc += 1;
                let x: Obj = if b < IMM {
                    frame.regs[b]
                } else {
                    value::immediate(b)
                };
                let y: Obj = if c < IMM {
                    frame.regs[c]
                } else {
                    value::immediate(c)
                };
                let mut holds: bool = false;
                if value::is_int(x) && value::is_int(y) {
                    let i: i64 = value::int_of(x);
                    let j: i64 = value::int_of(y);
                    holds = match op {
                        EQ => i == j,
                        LT => i < j,
                        _ => i <= j,
                    };
                } else if value::is_float(x) && value::is_float(y) {
                    let f: f64 = value::float_of(x);
                    let g: f64 = value::float_of(y);
                    holds = match op {
                        EQ => f == g,
                        LT => f < g,
                        _ => f <= g,
                    };
                } else if value::is_num(x) && value::is_num(y) {
                    // An integer and a float: compared exactly.
                    let flip: bool = value::is_float(x);
                    let i: i64 = if flip {
                        value::int_of(y)
                    } else {
                        value::int_of(x)
                    };
                    let f: f64 = if flip {
                        value::float_of(x)
                    } else {
                        value::float_of(y)
                    };
                    holds = if op == EQ {
                        !lt_int_float(i, f, false, false) && lt_int_float(i, f, false, true)
                    } else {
                        lt_int_float(i, f, flip, op == LE)
                    };
                } else if x.is::<Str>() && y.is::<Str>() {
                    holds = if op == EQ {
                        str_eq(x.cast::<Str>(), y.cast::<Str>())
                    } else {
                        str_less(x.cast::<Str>(), y.cast::<Str>(), op == LE)
                    };
                } else if op == EQ && x.is::<Bool>() && y.is::<Bool>() {
                    holds = x.cast::<Bool>().v == y.cast::<Bool>().v;
                } else if op == EQ && !(x.is::<Table>() && y.is::<Table>()) {
                    holds = x == y;
                } else if op == EQ && x == y {
                    holds = true;
                } else {
                    let event: i64 = match op {
                        EQ => 26,
                        LT => 27,
                        _ => 28,
                    };
                    let mut handler: Obj = metamethod(x, event);
                    if handler.is_null() {
                        handler = metamethod(y, event);
                    }
                    // lua5.4 as built with LUA_COMPAT_LT_LE (Debian's, the
                    // oracle): `x <= y` without `__le` is `not (y < x)`.
                    let mut swap: bool = false;
                    if handler.is_null() && op == LE {
                        handler = metamethod(y, 27);
                        if handler.is_null() {
                            handler = metamethod(x, 27);
                        }
                        swap = !handler.is_null();
                    }
                    if handler.is_null() {
                        if op != EQ {
                            return Err(compare_error(frame, pc as i64 - 2, x, y));
                        }
                    } else {
                        frame.regs[scratch] = handler;
                        frame.regs[scratch + 1] = if swap { y } else { x };
                        frame.regs[scratch + 2] = if swap { x } else { y };
                        call_at = scratch;
                        call_nargs = 2;
                        call_c = 2;
                        call_mode = BRANCH;
                        call_dest = a;
                        if swap {
                            // `not`: branch on the opposite truth.
                            call_dest = if a == 0 { 1 } else { 0 };
                        }
                        call_jump = target;
                    }
                }
                if call_at == NO_CALL && holds != (a != 0) {
                    pc = target;
                }
            }
            FORPREP => {
                let init: Obj = frame.regs[a];
                let limit: Obj = frame.regs[a + 1];
                let step: Obj = frame.regs[a + 2];
                let skip = (w >> 24) as usize;
                if value::is_int(init) && value::is_int(step) {
                    // An integer loop (lua5.4's forprep): the limit is
                    // clipped to an integer, and the iterations are counted
                    // unsigned so that loops up to the integer limits never
                    // overflow.
                    let i: i64 = value::int_of(init);
                    let s: i64 = value::int_of(step);
                    if s == 0 {
                        return Err(for_error(frame, pc as i64 - 1, 0, step));
                    }
                    let clipped: Obj = if value::is_int(limit) {
                        limit
                    } else {
                        for_limit(frame, pc as i64 - 1, limit, s)?
                    };
                    if clipped.is_null() {
                        pc = skip;
                    } else {
                        let l: i64 = value::int_of(clipped);
                        if (s > 0 && i > l) || (s < 0 && i < l) {
                            pc = skip;
                        } else {
                            let span: u64 = if s > 0 {
                                (l as u64).wrapping_sub(i as u64)
                            } else {
                                (i as u64).wrapping_sub(l as u64)
                            };
                            let stride: u64 = if s > 0 {
                                s as u64
                            } else {
                                (s.wrapping_add(1).wrapping_neg() as u64) + 1
                            };
                            frame.regs[a + 1] = value::int_obj((span / stride) as i64);
                            frame.regs[a + 3] = init;
                        }
                    }
                } else {
                    // A float loop; numeric strings convert. lua5.4 checks
                    // the limit, then the step, then the initial value.
                    let limit_n: Obj = if limit.is::<Str>() {
                        to_number(limit)
                    } else {
                        limit
                    };
                    let step_n: Obj = if step.is::<Str>() {
                        to_number(step)
                    } else {
                        step
                    };
                    let init_n: Obj = if init.is::<Str>() {
                        to_number(init)
                    } else {
                        init
                    };
                    if !value::is_num(limit_n) {
                        return Err(for_error(frame, pc as i64 - 1, 2, limit));
                    }
                    if !value::is_num(step_n) {
                        return Err(for_error(frame, pc as i64 - 1, 3, step));
                    }
                    if !value::is_num(init_n) {
                        return Err(for_error(frame, pc as i64 - 1, 1, init));
                    }
                    let i: f64 = value::to_f64(init_n);
                    let lf: f64 = value::to_f64(limit_n);
                    let s: f64 = value::to_f64(step_n);
                    if s == 0.0 {
                        return Err(for_error(frame, pc as i64 - 1, 0, step));
                    }
                    frame.regs[a] = value::float_obj(i);
                    frame.regs[a + 1] = value::float_obj(lf);
                    frame.regs[a + 2] = value::float_obj(s);
                    // NaN bounds run no iteration.
                    let runs: bool = if s > 0.0 { i <= lf } else { i >= lf };
                    if !runs {
                        pc = skip;
                    } else {
                        frame.regs[a + 3] = value::float_obj(i);
                    }
                }
            }
            FORLOOP => {
                let body = (w >> 24) as usize;
                let idx: Obj = frame.regs[a];
                if value::is_int(idx) {
                    // The count is unsigned (FORPREP): up to 2^64 - 1.
                    let left: i64 = value::int_of(frame.regs[a + 1]);
                    if left != 0 {
                        let step: i64 = value::int_of(frame.regs[a + 2]);
                        let next: Obj = value::int_obj(value::int_of(idx).wrapping_add(step));
                        frame.regs[a + 1] = value::int_obj(left - 1);
                        frame.regs[a] = next;
                        frame.regs[a + 3] = next;
                        pc = body;
                        can_enter_jit!();
                        continue;
                    }
                } else {
                    let s: f64 = value::float_of(frame.regs[a + 2]);
                    let l: f64 = value::float_of(frame.regs[a + 1]);
                    let next: f64 = value::float_of(idx) + s;
                    if (s > 0.0 && next <= l) || (s < 0.0 && next >= l) {
                        let v: Obj = value::float_obj(next);
                        frame.regs[a] = v;
                        frame.regs[a + 3] = v;
                        pc = body;
                        can_enter_jit!();
                        continue;
                    }
                }
            }
            TFORCALL => {
                frame.regs[a + 4] = frame.regs[a];
                frame.regs[a + 5] = frame.regs[a + 1];
                frame.regs[a + 6] = frame.regs[a + 2];
                call_at = a + 4;
                call_nargs = 2;
                call_c = c + 1;
            }
            TFORLOOP => {
                if !frame.regs[a + 4].is_null() {
                    frame.regs[a + 2] = frame.regs[a + 4];
                    pc = (w >> 24) as usize;
                    can_enter_jit!();
                    continue;
                }
            }
            CALL | TAILCALL => {
                call_at = a;
                call_nargs = if b == 0 {
                    frame.top as usize - a - 1
                } else {
                    b - 1
                };
                call_c = c;
                // A tail call of anything but a Lua function is a call
                // here (lua5.4's C functions too run above the caller),
                // and the `RETURN` after it returns its results.
                if op == TAILCALL && frame.regs[a].is::<Closure>() {
                    // A Lua function runs in this frame's place (a loop,
                    // which the JIT compiles as one), keeping its caller
                    // and depth.
                    let cl = frame.regs[a].cast::<Closure>();
                    let p: i64 = promote(cl.proto);
                    let size: usize = maxstack(p) as usize + SCRATCH;
                    if size > frame.regs.len() {
                        widen(frame.cl.proto, maxstack(p));
                        if !grow(frame, size) {
                            return Err(overflow_error(frame, pc as i64 - 1));
                        }
                    }
                    let np: i64 = nparams(p);
                    take_args(frame, frame.regs, a, call_nargs, np, is_vararg(p));
                    let mut i: usize = if call_nargs < np as usize {
                        call_nargs
                    } else {
                        np as usize
                    };
                    while i < frame.regs.len() {
                        frame.regs[i] = Obj::null();
                        i += 1;
                    }
                    frame.cl = cl;
                    frame.top = 0;
                    pc = entry(p) as usize;
                    can_enter_jit!();
                    continue;
                }
            }
            RETURN => {
                let n: i64 = if b == 0 {
                    frame.top - a as i64
                } else {
                    b as i64 - 1
                };
                frame.ret = a as i64;
                if calls_inline() && frame.call_kind == INLINE {
                    // Back to the caller in this activation (`run_plain`),
                    // after its `CALL`, with the results it asked for.
                    let callee: Frame = frame;
                    frame = callee.parent;
                    pc = callee.call_pc as usize + 1;
                    if !take_results(frame, callee, n as usize) {
                        return Err(overflow_error(frame, pc as i64 - 1));
                    }
                    continue;
                }
                return Ok(n);
            }
            CLOSURE => {
                let p = w >> 24;
                let nu = nupvals(p);
                // Typed cells: an upvalue access is a load, no class guard.
                let mut up = Array::<UpVal>::new(nu as usize);
                let mut i: i64 = 0;
                while i < nu {
                    let d: i64 = upval(p, i);
                    let at = (d & 0xffff_ffff) as usize;
                    up[i as usize] = if d >> 32 != 0 {
                        frame.regs[at].cast::<UpVal>()
                    } else {
                        frame.cl.up[at]
                    };
                    i += 1;
                }
                let made = Closure::new(next_serial(), p, frame.cl.k, up);
                frame.regs[a] = Obj::from(made);
            }
            VARARG => {
                let n: usize = frame.va.items.len();
                let want: usize = if c == 0 { n } else { c - 1 };
                if a + want > frame.regs.len() && !grow(frame, a + want) {
                    return Err(overflow_error(frame, pc as i64 - 1));
                }
                let mut i: usize = 0;
                while i < want {
                    frame.regs[a + i] = if i < n {
                        frame.va.items[i]
                    } else {
                        Obj::null()
                    };
                    i += 1;
                }
                if c == 0 {
                    frame.top = (a + want) as i64;
                }
            }
            _ => return Err(call_error(frame, pc as i64 - 1, Obj::null())),
        }
        if call_at == NO_CALL {
            continue;
        }
        // The call sequence (module docs): `f(args)` laid out from call_at.
        // First the callee: each `pcall` is a protected call of its first
        // argument (`protect` of them, their `true`s before the results),
        // and a value that is no function is called through its `__call`
        // (the value its first argument), as often as that takes.
        let mut base: usize = call_at;
        let mut nargs: usize = call_nargs;
        let mut protect: usize = 0;
        let mut failed: bool = false;
        let mut err: Obj = Obj::null();
        let mut links: usize = 0;
        // Resolved to a Lua function (the common case, which skips the
        // loop), or to a builtin.
        let mut lua: bool = frame.regs[base].is::<Closure>();
        let mut resolved: bool = lua;
        while !failed && !resolved {
            let g: Obj = frame.regs[base];
            if g.is::<Closure>() {
                lua = true;
                resolved = true;
            } else if g.is::<Builtin>() {
                if g.cast::<Builtin>().id != PCALL || nargs == 0 {
                    resolved = true;
                } else {
                    if protect == MAX_PCALLS {
                        // This `pcall`'s call fails: its `false` comes last.
                        err = protected_error(1, g);
                        failed = true;
                    }
                    protect += 1;
                    base += 1;
                    nargs -= 1;
                }
            } else {
                let handler: Obj = metamethod(g, 29);
                if handler.is_null() || links == MAX_LINKS {
                    err = if protect == 0 && handler.is_null() {
                        call_error(frame, pc as i64 - 1, g)
                    } else if protect == 0 {
                        overflow_error(frame, pc as i64 - 1)
                    } else if handler.is_null() {
                        protected_error(0, g)
                    } else {
                        protected_error(2, g)
                    };
                    failed = true;
                } else {
                    links += 1;
                    if base + nargs + 2 > frame.regs.len() && !grow(frame, base + nargs + 2) {
                        return Err(overflow_error(frame, pc as i64 - 1));
                    }
                    let mut i: usize = base + nargs + 1;
                    while i > base {
                        frame.regs[i] = frame.regs[i - 1];
                        i -= 1;
                    }
                    frame.regs[base] = handler;
                    nargs += 1;
                }
            }
        }
        // Then the call, its results from `base` on; how many it asked for
        // (`want` counts the `true`s too).
        let want: usize = if call_c == 0 { usize::MAX } else { call_c - 1 };
        let mut room: usize = 0;
        if want > protect {
            room = want - protect;
        }
        let mut got: usize = 0;
        if !failed && !lua {
            // The builtin is a constant in traces: its inline path, if
            // any, folds in (`builtins/fast.rs`).
            let id: i64 = promote(frame.regs[base].cast::<Builtin>().id);
            let kind: i64 = fast_kind(id);
            let mut done: bool = false;
            if kind != fast::NONE && nargs <= 3 {
                let x: Obj = if nargs >= 1 {
                    frame.regs[base + 1]
                } else {
                    Obj::null()
                };
                let y: Obj = if nargs >= 2 {
                    frame.regs[base + 2]
                } else {
                    Obj::null()
                };
                let z: Obj = if nargs >= 3 {
                    frame.regs[base + 3]
                } else {
                    Obj::null()
                };
                if fast::applies(kind, nargs as i64, x, y, z) {
                    frame.regs[base] = fast::call(kind, nargs as i64, x, y, z);
                    got = fast::results(kind) as usize;
                    done = true;
                }
            }
            if !done {
                match call_builtin(
                    id,
                    frame,
                    base as i64,
                    nargs as i64,
                    pc as i64 - 1,
                    protect > 0,
                ) {
                    Ok(r) => got = r as usize,
                    Err(e) => {
                        err = e;
                        failed = true;
                    }
                }
            }
            // Results past the registers are in `frame.spill`.
            if !failed && base + got > frame.regs.len() {
                let keep: usize = if room < got { room } else { got };
                if base + keep > frame.regs.len() && !grow(frame, base + keep) {
                    return Err(overflow_error(frame, pc as i64 - 1));
                }
                let mut k: usize = 0;
                while k < keep {
                    frame.regs[base + k] = frame.spill.items[k];
                    k += 1;
                }
                frame.spill = Args::null();
                got = keep;
            }
        } else if !failed && frame.depth >= MAX_DEPTH {
            err = overflow_error(frame, pc as i64 - 1);
            failed = true;
        } else if !failed {
            // A Lua function, on a new frame (`take_args` sets its `...`),
            // made in a block: the fewer handles in scope at the call, the
            // fewer the call roots.
            let callee: Frame = {
                let cl = frame.regs[base].cast::<Closure>();
                // A trace specializes on the callee's prototype, as
                // LuaJIT's does: its size, entry and parameters fold, so
                // the frame's registers are a constant-size allocation.
                let p: i64 = promote(cl.proto);
                let regs = Array::<Obj>::new(maxstack(p) as usize + SCRATCH);
                let mut kind: i64 = CALLED;
                if protect > 0 {
                    kind = PCALLED;
                } else if op == CALL && calls_inline() {
                    kind = INLINE;
                }
                let made = Frame::new(
                    regs,
                    cl,
                    Args::null(),
                    0,
                    0,
                    frame.depth + 1,
                    frame,
                    pc as i64 - 1,
                    Args::null(),
                    kind,
                );
                take_args(made, frame.regs, base, nargs, nparams(p), is_vararg(p));
                made
            };
            if callee.call_kind == INLINE {
                frame = callee;
                pc = entry(frame.cl.proto) as usize;
                continue;
            }
            match run(entry(callee.cl.proto) as usize, callee) {
                Ok(r) => {
                    got = if room < r as usize { room } else { r as usize };
                    if base + got > frame.regs.len() && !grow(frame, base + got) {
                        return Err(overflow_error(frame, pc as i64 - 1));
                    }
                    copy_results(frame, callee, base, got);
                }
                Err(e) => {
                    err = e;
                    failed = true;
                }
            }
        }
        // A failure: raised, or the innermost `pcall`'s `false, error`.
        if failed && protect == 0 {
            return Err(err);
        }
        let mut n: usize = protect + got;
        if failed {
            frame.regs[base - 1] = frame.cl.k[FALSE_K];
            frame.regs[base] = err;
            n = protect + 1;
            protect -= 1;
        }
        let mut t: usize = 0;
        while t < protect {
            frame.regs[call_at + t] = frame.cl.k[TRUE_K];
            t += 1;
        }
        // `n` results are at call_at: adjust them to what was asked.
        let fill: usize = if call_c == 0 { n } else { want };
        let mut k: usize = n;
        while k < fill {
            frame.regs[call_at + k] = Obj::null();
            k += 1;
        }
        if call_c == 0 {
            frame.top = (call_at + n) as i64;
        }
        if call_mode == TO_REG {
            frame.regs[call_dest] = frame.regs[call_at];
        } else if call_mode == BRANCH && value::truthy(frame.regs[call_at]) != (call_dest != 0) {
            pc = call_jump;
        }
    }
}

/// The `__index` handler of table `t`, which has a metatable: in a shaped
/// metatable at the slot its shape gives (a guard and a load in traces),
/// else [`metamethod`] looks it up.
#[majit::traced]
fn index_handler(t: Table) -> Obj {
    if t.meta.is::<Table>() {
        let m: Table = t.meta.cast::<Table>();
        if m.shape != DICT {
            let s: i64 = shape_slot(promote(m.shape), INDEX_NAME);
            if s < 0 {
                return Obj::null();
            }
            return m.vals[s as usize];
        }
    }
    metamethod(Obj::from(t), 0)
}

/// Grows `frame`'s registers to hold `need` (and the scratch registers
/// after them): for results, arguments or `...` past the compiler's
/// `maxstack`. False past lua5.4's stack limit. Rare: a trace replacing
/// the frame's array aborts (the loop is traced again with the new one).
#[majit::traced]
fn grow(frame: Frame, need: usize) -> bool {
    if need > MAX_REGS {
        return false;
    }
    let old: Array<Obj> = frame.regs;
    let mut len: usize = old.len() * 2;
    if len < need + SCRATCH {
        len = need + SCRATCH;
    }
    let mut regs = Array::<Obj>::new(len);
    let mut i: usize = 0;
    while i < old.len() {
        regs[i] = old[i];
        i += 1;
    }
    frame.regs = regs;
    true
}

/// Finishes a `CALL` whose callee ran inline (`run_plain`): its `n`
/// results, at `callee.regs[callee.ret..]`, go to the call's registers
/// in `frame`, adjusted to the count the call asked for (all of them,
/// setting `top`, when its `c` is 0). False if they do not fit under
/// lua5.4's stack limit.
#[majit::traced]
#[inline(always)]
fn take_results(frame: Frame, callee: Frame, n: usize) -> bool {
    let w = insn(callee.call_pc);
    let at = ((w >> 8) & 0xffff) as usize;
    let c = ((w >> 44) & 0xf_ffff) as usize;
    let got: usize = if c != 0 && c - 1 < n { c - 1 } else { n };
    let fill: usize = if c == 0 { got } else { c - 1 };
    if at + fill > frame.regs.len() && !grow(frame, at + fill) {
        return false;
    }
    copy_results(frame, callee, at, got);
    let mut regs: Array<Obj> = frame.regs;
    let mut k: usize = got;
    while k < fill {
        regs[at + k] = Obj::null();
        k += 1;
    }
    if c == 0 {
        frame.top = (at + got) as i64;
    }
    true
}

/// Copies `got` results of a returned call, at `callee.regs[callee.ret..]`,
/// to `frame.regs[at..]` (which holds them).
#[majit::traced]
#[inline(always)]
fn copy_results(frame: Frame, callee: Frame, at: usize, got: usize) {
    let mut dst: Array<Obj> = frame.regs;
    let src: Array<Obj> = callee.regs;
    let from = callee.ret as usize;
    let mut k: usize = 0;
    while k < got {
        dst[at + k] = src[from + k];
        k += 1;
    }
}

/// Puts the `n` arguments after `src[at]` where a call of a prototype with
/// `np` parameters (and `...` if `vararg`) finds them in `frame`: the
/// parameters in its first registers, the rest in its varargs (taken
/// first: `src` may be the frame's own registers, for a tail call).
#[majit::traced]
#[inline(always)]
fn take_args(frame: Frame, src: Array<Obj>, at: usize, n: usize, np: i64, vararg: bool) {
    let np = np as usize;
    if vararg {
        // (`saturating_sub` is not traced.)
        let nva: usize = if n > np { n } else { np } - np;
        let mut va = Array::<Obj>::new(nva);
        let mut j: usize = 0;
        while j < nva {
            va[j] = src[at + 1 + np + j];
            j += 1;
        }
        frame.va = Args::new(va);
    } else {
        // Only a vararg function reads `...` (a compile-time rule): no
        // allocation per call of a fixed-arity one.
        frame.va = Args::null();
    }
    let mut regs: Array<Obj> = frame.regs;
    let mut i: usize = 0;
    while i < np && i < n {
        regs[i] = src[at + 1 + i];
        i += 1;
    }
}
