//! The interpreter: one function runs one call of the program's functions
//! on its frame, a GC struct holding the operand stack and the locals (the
//! virtualizable `frame`). `CALL` makes the callee's frame, copies the
//! arguments into it and runs the callee by calling [`run`] itself; the
//! callee leaves its result (or the exception it raises) in its frame's
//! `result` and returns a status ([`OK`], [`RAISED`], [`OVERFLOW`],
//! [`TYPE_ERROR`]). Values are objects: [`Int`], [`Float`] and [`Point`].
//!
//! An instruction is two words: `op | a << 8 | b << 16` and an argument
//! (see `asm.rs`).

use majit::prelude::*;
use std::cell::RefCell;
use std::fmt::Write;

/// Calls nested deeper than this end the program with [`OVERFLOW`] (the
/// VM's "stack overflow", in both modes; see `lib.rs` for the native
/// stack it runs on).
pub const MAX_DEPTH: i64 = 20_000;

/// `ENTER locals` (a = the arguments): the locals past the arguments are
/// `0`, the operand stack starts above the locals.
pub const ENTER: i64 = 0;
pub const PUSH: i64 = 1;
/// Pushes the float whose bits are the argument.
pub const PUSHF: i64 = 2;
pub const POP: i64 = 3;
pub const DUP: i64 = 4;
pub const LOAD: i64 = 5;
pub const STORE: i64 = 6;
pub const ADD: i64 = 7;
pub const SUB: i64 = 8;
pub const MUL: i64 = 9;
/// Division, always a float.
pub const DIV: i64 = 10;
pub const LT: i64 = 11;
pub const LE: i64 = 12;
pub const EQ: i64 = 13;
pub const JMP: i64 = 14;
/// Pops; jumps when zero.
pub const JZ: i64 = 15;
/// Pops; jumps when not zero.
pub const JNZ: i64 = 16;
/// `CALL target` (a = the arguments, b = the callee's frame size).
pub const CALL: i64 = 17;
pub const RET: i64 = 18;
pub const PRINT: i64 = 19;
/// Pops y and x, pushes a point.
pub const POINT: i64 = 20;
pub const PX: i64 = 21;
pub const PY: i64 = 22;
/// Exceptions raised from here on (by `RAISE` or a callee) go to the
/// argument, with the exception as the only operand.
pub const TRY: i64 = 23;
pub const ENDTRY: i64 = 24;
/// Pops a value and raises it.
pub const RAISE: i64 = 25;
/// The remainder of integers (the sign of the dividend).
pub const MOD: i64 = 26;

/// The function returned; its result is in its frame.
pub const OK: i64 = 0;
/// The function raised an exception no handler caught; it is in its frame.
pub const RAISED: i64 = 1;
/// Calls nested deeper than [`MAX_DEPTH`].
pub const OVERFLOW: i64 = 2;
/// An operation on values of the wrong type.
pub const TYPE_ERROR: i64 = 3;
/// `mod` by zero.
pub const ZERO_DIVISION: i64 = 4;

thread_local! {
    static OUTPUT: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Prints an integer (into this thread's output).
pub fn print_int(v: i64) {
    OUTPUT.with(|o| writeln!(o.borrow_mut(), "{v}").expect("a String takes writes"));
}

/// Prints a float.
pub fn print_float(v: f64) {
    OUTPUT.with(|o| writeln!(o.borrow_mut(), "{v:?}").expect("a String takes writes"));
}

/// Prints a point.
pub fn print_point(x: i64, y: i64) {
    OUTPUT.with(|o| writeln!(o.borrow_mut(), "point({x}, {y})").expect("a String takes writes"));
}

/// Takes this thread's output.
pub fn take_output() -> String {
    OUTPUT.with(|o| std::mem::take(&mut *o.borrow_mut()))
}

/// Runs the function whose `ENTER` is at `start` on `frame` (its
/// arguments in the first slots) to its return: the status, with the
/// result or exception in `frame.result`.
#[jit_interp(
    greens = [pc, code],
    reds = [frame],
    helpers = [
        residual fn print_int(v: i64),
        residual fn print_float(v: f64),
        residual fn print_point(x: i64, y: i64),
    ],
    structs = [
        Frame { sp: i64, base: i64, depth: i64, handler: i64, result: Obj, stack: Array<Obj> },
        #[headered] Int { v: i64 },
        #[headered] Float { v: f64 },
        #[headered] Point { x: i64, y: i64 },
    ],
    virtualizable = frame,
)]
pub fn run(code: &[i64], start: usize, mut frame: Frame) -> i64 {
    let mut pc: usize = start;
    loop {
        jit_merge_point!();
        let word = code[2 * pc];
        let arg = code[2 * pc + 1];
        pc += 1;
        let op = word & 0xff;
        let sp = frame.sp as usize;
        match op {
            ENTER => {
                let mut i = ((word >> 8) & 0xff) as usize;
                while i < arg as usize {
                    frame.stack[i] = Obj::from(Int::new(0));
                    i += 1;
                }
                frame.sp = arg;
                frame.base = arg;
            }
            PUSH => {
                frame.stack[sp] = Obj::from(Int::new(arg));
                frame.sp += 1;
            }
            PUSHF => {
                frame.stack[sp] = Obj::from(Float::new(f64::from_bits(arg as u64)));
                frame.sp += 1;
            }
            POP => frame.sp -= 1,
            DUP => {
                frame.stack[sp] = frame.stack[sp - 1];
                frame.sp += 1;
            }
            LOAD => {
                frame.stack[sp] = frame.stack[arg as usize];
                frame.sp += 1;
            }
            STORE => {
                frame.stack[arg as usize] = frame.stack[sp - 1];
                frame.sp -= 1;
            }
            ADD | SUB | MUL | DIV | LT | LE | EQ => {
                let a: Obj = frame.stack[sp - 2];
                let b: Obj = frame.stack[sp - 1];
                let r: Obj = if a.is::<Int>() && b.is::<Int>() && op != DIV {
                    let x: i64 = a.cast::<Int>().v;
                    let y: i64 = b.cast::<Int>().v;
                    match op {
                        ADD => Obj::from(Int::new(x.wrapping_add(y))),
                        SUB => Obj::from(Int::new(x.wrapping_sub(y))),
                        MUL => Obj::from(Int::new(x.wrapping_mul(y))),
                        LT => Obj::from(Int::new((x < y) as i64)),
                        LE => Obj::from(Int::new((x <= y) as i64)),
                        _ => Obj::from(Int::new((x == y) as i64)),
                    }
                } else if (a.is::<Int>() || a.is::<Float>()) && (b.is::<Int>() || b.is::<Float>()) {
                    let x: f64 = if a.is::<Int>() {
                        a.cast::<Int>().v as f64
                    } else {
                        a.cast::<Float>().v
                    };
                    let y: f64 = if b.is::<Int>() {
                        b.cast::<Int>().v as f64
                    } else {
                        b.cast::<Float>().v
                    };
                    match op {
                        ADD => Obj::from(Float::new(x + y)),
                        SUB => Obj::from(Float::new(x - y)),
                        MUL => Obj::from(Float::new(x * y)),
                        DIV => Obj::from(Float::new(x / y)),
                        LT => Obj::from(Int::new((x < y) as i64)),
                        LE => Obj::from(Int::new((x <= y) as i64)),
                        _ => Obj::from(Int::new((x == y) as i64)),
                    }
                } else {
                    return TYPE_ERROR;
                };
                frame.stack[sp - 2] = r;
                frame.sp -= 1;
            }
            MOD => {
                let a: Obj = frame.stack[sp - 2];
                let b: Obj = frame.stack[sp - 1];
                if !a.is::<Int>() || !b.is::<Int>() {
                    return TYPE_ERROR;
                }
                let y: i64 = b.cast::<Int>().v;
                if y == 0 {
                    return ZERO_DIVISION;
                }
                let x: i64 = a.cast::<Int>().v;
                // `i64::MIN % -1` would overflow.
                let r = if y == -1 { 0 } else { x % y };
                frame.stack[sp - 2] = Obj::from(Int::new(r));
                frame.sp -= 1;
            }
            JMP => {
                let back = (arg as usize) < pc;
                pc = arg as usize;
                if back {
                    can_enter_jit!();
                    continue;
                }
            }
            JZ | JNZ => {
                let c: Obj = frame.stack[sp - 1];
                frame.sp -= 1;
                if !c.is::<Int>() {
                    return TYPE_ERROR;
                }
                if (c.cast::<Int>().v != 0) == (op == JNZ) {
                    let back = (arg as usize) < pc;
                    pc = arg as usize;
                    if back {
                        can_enter_jit!();
                        continue;
                    }
                }
            }
            CALL => {
                if frame.depth >= MAX_DEPTH {
                    return OVERFLOW;
                }
                let nargs = ((word >> 8) & 0xff) as usize;
                let size = (word >> 16) as usize;
                let stack = Array::<Obj>::new(size);
                let callee = Frame::new(0, 0, frame.depth + 1, -1, Obj::null(), stack);
                let mut i: usize = 0;
                while i < nargs {
                    callee.stack[i] = frame.stack[sp - nargs + i];
                    i += 1;
                }
                frame.sp -= nargs as i64;
                let status = run(code, arg as usize, callee);
                if status == OK {
                    let top = frame.sp as usize;
                    frame.stack[top] = callee.result;
                    frame.sp += 1;
                } else if status == RAISED && frame.handler >= 0 {
                    pc = frame.handler as usize;
                    frame.handler = -1;
                    let base = frame.base as usize;
                    frame.stack[base] = callee.result;
                    frame.sp = frame.base + 1;
                } else {
                    frame.result = callee.result;
                    return status;
                }
            }
            RET => {
                frame.result = frame.stack[sp - 1];
                return OK;
            }
            PRINT => {
                let v: Obj = frame.stack[sp - 1];
                frame.sp -= 1;
                if v.is::<Int>() {
                    print_int(v.cast::<Int>().v);
                } else if v.is::<Float>() {
                    print_float(v.cast::<Float>().v);
                } else if v.is::<Point>() {
                    let p = v.cast::<Point>();
                    print_point(p.x, p.y);
                } else {
                    return TYPE_ERROR;
                }
            }
            POINT => {
                let x: Obj = frame.stack[sp - 2];
                let y: Obj = frame.stack[sp - 1];
                if !x.is::<Int>() || !y.is::<Int>() {
                    return TYPE_ERROR;
                }
                let p = Point::new(x.cast::<Int>().v, y.cast::<Int>().v);
                frame.stack[sp - 2] = Obj::from(p);
                frame.sp -= 1;
            }
            PX | PY => {
                let p: Obj = frame.stack[sp - 1];
                if !p.is::<Point>() {
                    return TYPE_ERROR;
                }
                let q = p.cast::<Point>();
                let v = if op == PX { q.x } else { q.y };
                frame.stack[sp - 1] = Obj::from(Int::new(v));
            }
            TRY => frame.handler = arg,
            ENDTRY => frame.handler = -1,
            RAISE => {
                let v: Obj = frame.stack[sp - 1];
                if frame.handler < 0 {
                    frame.result = v;
                    return RAISED;
                }
                pc = frame.handler as usize;
                frame.handler = -1;
                let base = frame.base as usize;
                frame.stack[base] = v;
                frame.sp = frame.base + 1;
            }
            _ => return TYPE_ERROR,
        }
    }
}

/// A value as the VM prints it (`null` for no value).
pub fn describe(v: Obj) -> String {
    if v.is::<Int>() {
        v.cast::<Int>().v().to_string()
    } else if v.is::<Float>() {
        format!("{:?}", v.cast::<Float>().v())
    } else if v.is::<Point>() {
        let p = v.cast::<Point>();
        format!("point({}, {})", p.x(), p.y())
    } else {
        "null".into()
    }
}
