//! A small register machine for the metainterp tests: a plain Rust
//! interpreter (the oracle) and the same interpreter as hand-written
//! jitcode (the portal the tracer and the blackhole run).
//!
//! State: greens `pc` and `prog` (the program's address), reds `acc` and
//! `cnt`. In the boxed variant `acc` is a ref to a headerless `IntBox`
//! (one i64 at offset 0) and every arithmetic op allocates a new box.
//! Output goes through a residual call to [`emit`], into a thread-local
//! buffer, so a side effect that happens twice is visible.

#![allow(dead_code)]

use majit_ir::{
    ArrayDescr, CallDescr, CallEffect, Descr, EffectInfo, FieldDescr, Kind, OpCode, ResultKind,
    SizeDescr, Value,
};
use majit_metainterp::driver::{JitAction, JitDriver, JitError};
use majit_metainterp::jitcode::{Arg, FuncId, JitCode, JitCodeBuilder, JitCodeSet, Reg};
use majit_metainterp::Backend;
use std::cell::RefCell;

pub const HALT: i64 = 0;
pub const LOADA: i64 = 1;
pub const LOADC: i64 = 2;
pub const ADDA: i64 = 3;
pub const ADDC: i64 = 4;
pub const DECC: i64 = 5;
pub const JNZ: i64 = 6;
pub const PRINT: i64 = 7;
/// `acc *= k`, or `acc = -1` when that overflows.
pub const MULA: i64 = 8;
/// `acc += k` when `cnt` is odd, else `acc -= 1`.
pub const ODD: i64 = 9;
/// `acc = mix(acc, cnt)` through an inline-called jitcode helper.
pub const MIX: i64 = 10;
pub const JMP: i64 = 11;
/// `acc += cnt >> 6`, with `cnt >> 6` promoted to a constant.
pub const PROMOTE: i64 = 12;
/// `acc += cnt`, with `cnt` promoted (a new value every iteration).
pub const PROMC: i64 = 13;
/// Jump to the argument when `acc` is not zero (a back edge).
pub const JNZA: i64 = 14;
/// `acc += k` when `cnt` is even, else `acc` unchanged (boxed: the same
/// box on the odd path, a new one on the even path).
pub const EVEN: i64 = 15;

thread_local! {
    static OUTPUT: RefCell<Vec<i64>> = const { RefCell::new(Vec::new()) };
}

/// The residual output call.
pub extern "C" fn emit(x: i64) {
    OUTPUT.with(|o| o.borrow_mut().push(x));
}

/// Takes and clears this thread's output.
pub fn take_output() -> Vec<i64> {
    OUTPUT.with(|o| std::mem::take(&mut *o.borrow_mut()))
}

/// Elidable: the opcode at `pc` of the program at `prog`.
pub extern "C" fn op_at(prog: i64, pc: i64) -> i64 {
    // SAFETY: `prog` is the address of a live `Program`'s code and `pc` is
    // in range (programs end in HALT and jump only inside themselves).
    unsafe { *(prog as *const i64).add(2 * pc as usize) }
}

/// Elidable: the argument at `pc` of the program at `prog`.
pub extern "C" fn arg_at(prog: i64, pc: i64) -> i64 {
    // SAFETY: as in `op_at`.
    unsafe { *(prog as *const i64).add(2 * pc as usize + 1) }
}

/// `mix` in Rust (the oracle of the jitcode helper).
pub fn mix(a: i64, c: i64) -> i64 {
    if a > c {
        a.wrapping_sub(c)
    } else {
        c.wrapping_mul(2).wrapping_add(a)
    }
}

/// A program: `(opcode, argument)` pairs, kept at a stable address.
pub struct Program {
    code: Box<[[i64; 2]]>,
}

impl Program {
    /// Checks that every jump stays inside and the program ends in HALT.
    pub fn new(code: &[(i64, i64)]) -> Program {
        assert_eq!(code.last().map(|c| c.0), Some(HALT));
        for &(op, arg) in code {
            if op == JNZ || op == JMP || op == JNZA {
                assert!((0..code.len() as i64).contains(&arg));
            }
        }
        Program {
            code: code.iter().map(|&(o, a)| [o, a]).collect(),
        }
    }
    pub fn addr(&self) -> i64 {
        self.code.as_ptr() as i64
    }
    pub fn at(&self, pc: i64) -> (i64, i64) {
        let [o, a] = self.code[pc as usize];
        (o, a)
    }
}

pub fn int_box_layout() -> SizeDescr {
    SizeDescr {
        name: "IntBox".into(),
        size: 8,
        type_id: 1,
        headerless: true,
        vtable: None,
        fields: vec!["IntBox.value".into()],
    }
}

pub fn int_box_value() -> FieldDescr {
    FieldDescr {
        name: "IntBox.value".into(),
        owner: "IntBox".into(),
        offset: 0,
        size: 8,
        signed: true,
        kind: Kind::Int,
        immutable: true,
        quasi_immutable: false,
    }
}

/// Boxes of the plain interpreter (never freed during a test). Each is a
/// separate `Box` so its address stays put while the vector grows.
#[derive(Default)]
#[allow(clippy::vec_box)]
pub struct Boxes(Vec<Box<i64>>);

impl Boxes {
    pub fn new_box(&mut self, v: i64) -> usize {
        let b = Box::new(v);
        let p = &*b as *const i64 as usize;
        self.0.push(b);
        p
    }
}

/// Reads an `IntBox`.
pub fn unbox(p: usize) -> i64 {
    // SAFETY: `p` is a live IntBox (8 bytes, i64 at offset 0) from the
    // plain interpreter's `Boxes` or the JIT's allocator.
    unsafe { *(p as *const i64) }
}

/// The interpreter state in the order the merge point declares it.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub pc: i64,
    pub acc: Value,
    pub cnt: i64,
}

/// What the plain interpreter does at a back edge: `None` to go on, or
/// a replacement state (the JIT ran) and whether the program finished.
pub type BackEdge<'a> = dyn FnMut(&mut State) -> bool + 'a;

/// The plain interpreter. `back_edge` is called at every taken `JNZ` and
/// `JMP` (after `pc` is set): it may replace the state (the JIT ran) and
/// returns true when the program finished inside the JIT. Returns the
/// final accumulator as an int.
pub fn run_plain(prog: &Program, boxed: bool, back_edge: &mut BackEdge<'_>) -> i64 {
    let mut boxes = Boxes::default();
    let mut st = State {
        pc: 0,
        acc: if boxed {
            Value::Ref(boxes.new_box(0))
        } else {
            Value::Int(0)
        },
        cnt: 0,
    };
    let get = |acc: Value| match acc {
        Value::Ref(p) => unbox(p),
        v => v.as_int().unwrap(),
    };
    loop {
        let (op, arg) = prog.at(st.pc);
        st.pc += 1;
        let a = get(st.acc);
        let new_acc = match op {
            HALT => return a,
            LOADA => Some(arg),
            LOADC => {
                st.cnt = arg;
                None
            }
            ADDA => Some(a.wrapping_add(arg)),
            ADDC => Some(a.wrapping_add(st.cnt)),
            DECC => {
                st.cnt = st.cnt.wrapping_sub(1);
                None
            }
            PRINT => {
                emit(a);
                None
            }
            MULA => Some(a.checked_mul(arg).unwrap_or(-1)),
            ODD => Some(if st.cnt & 1 != 0 {
                a.wrapping_add(arg)
            } else {
                a.wrapping_sub(1)
            }),
            EVEN => (st.cnt & 1 == 0).then(|| a.wrapping_add(arg)),
            MIX => Some(mix(a, st.cnt)),
            PROMOTE => Some(a.wrapping_add(st.cnt >> 6)),
            PROMC => Some(a.wrapping_add(st.cnt)),
            JNZ | JMP | JNZA => {
                let taken = match op {
                    JNZ => st.cnt != 0,
                    JNZA => a != 0,
                    _ => true,
                };
                if taken {
                    st.pc = arg;
                    if back_edge(&mut st) {
                        return get(st.acc);
                    }
                }
                None
            }
            _ => panic!("bad opcode {op}"),
        };
        if let Some(v) = new_acc {
            st.acc = if boxed {
                Value::Ref(boxes.new_box(v))
            } else {
                Value::Int(v)
            };
        }
    }
}

fn call_descr(name: &str, args: &[Kind], result: ResultKind, effect: CallEffect) -> Descr {
    CallDescr {
        name: name.into(),
        args: args.to_vec(),
        result,
        effect: EffectInfo {
            effect,
            ..EffectInfo::default()
        },
    }
    .into()
}

/// A GC array of i64 items: header word (type id 5), length word, items.
pub fn int_array() -> ArrayDescr {
    ArrayDescr {
        name: "IntArray".into(),
        base_offset: 16,
        len_offset: 8,
        item_size: 8,
        signed: true,
        kind: Kind::Int,
        type_id: 5,
    }
}

/// Runs `prog` on the plain interpreter with `jit` called at every back
/// edge: the result and this thread's output, or the driver's first error
/// (the program stops there).
pub fn run_with_jit<B: Backend>(
    jit: &mut JitDriver<B>,
    prog: &Program,
    boxed: bool,
) -> Result<(i64, Vec<i64>), JitError> {
    take_output();
    let mut error = None;
    let result = run_plain(prog, boxed, &mut |st| {
        let mut g = [Value::Int(st.pc), Value::Int(prog.addr())];
        let mut r = [st.acc, Value::Int(st.cnt)];
        match jit.can_enter_jit(&mut g, &mut r) {
            Ok(JitAction::Interpret) => false,
            Ok(JitAction::Continue) => {
                st.pc = g[0].as_int().unwrap();
                st.acc = r[0];
                st.cnt = r[1].as_int().unwrap();
                false
            }
            Ok(JitAction::Finished(v)) => {
                st.acc = v.unwrap();
                true
            }
            Ok(JitAction::Raised(e)) => panic!("the register machine raised {e:?}"),
            Err(e) => {
                error = Some(e);
                true
            }
        }
    });
    let out = take_output();
    error.map_or(Ok((result, out)), Err)
}

/// The jitcode of `mix(a, c)`.
pub fn mix_jitcode() -> JitCode {
    let mut b = JitCodeBuilder::new("mix");
    let a = b.param(Kind::Int);
    let c = b.param(Kind::Int);
    let t = b.reg(Kind::Int);
    let other = b.label();
    b.op(OpCode::IntGt, &[a.into(), c.into()], t);
    b.goto_if_not(t.into(), other);
    b.op(OpCode::IntSub, &[a.into(), c.into()], t);
    b.ret(Some(t.into()));
    b.bind(other);
    b.op(OpCode::IntMul, &[c.into(), Arg::Int(2)], t);
    b.op(OpCode::IntAdd, &[t.into(), a.into()], t);
    b.ret(Some(t.into()));
    b.finish().unwrap()
}

/// The registers of the portal.
pub struct PortalRegs {
    pub pc: Reg,
    pub prog: Reg,
    pub acc: Reg,
    pub cnt: Reg,
}

/// The interpreter's jitcode: `mix` and the portal. Returns the set and
/// the portal's id.
pub fn interp_jitcode(boxed: bool) -> (JitCodeSet, FuncId) {
    let mut set = JitCodeSet::new();
    let mix_id = set.add(mix_jitcode());
    let portal = portal_jitcode(boxed, mix_id);
    let id = set.add(portal);
    (set, id)
}

fn portal_jitcode(boxed: bool, mix_id: FuncId) -> JitCode {
    let mut b = JitCodeBuilder::new(if boxed { "portal_boxed" } else { "portal" });
    let acc_kind = if boxed { Kind::Ref } else { Kind::Int };
    let r = PortalRegs {
        pc: b.param(Kind::Int),
        prog: b.param(Kind::Int),
        acc: b.param(acc_kind),
        cnt: b.param(Kind::Int),
    };
    let (op, arg, a, t) = (
        b.reg(Kind::Int),
        b.reg(Kind::Int),
        b.reg(Kind::Int),
        b.reg(Kind::Int),
    );
    let fetch = call_descr(
        "op_at",
        &[Kind::Int, Kind::Int],
        ResultKind::Int,
        CallEffect::Elidable,
    );
    let fetch_arg = call_descr(
        "arg_at",
        &[Kind::Int, Kind::Int],
        ResultKind::Int,
        CallEffect::Elidable,
    );
    let print = call_descr("emit", &[Kind::Int], ResultKind::Void, CallEffect::Random);
    let layout: Descr = int_box_layout().into();
    let value: Descr = int_box_value().into();
    let labels: Vec<_> = (0..16).map(|_| b.label()).collect();
    let (top, set_acc, halt) = (b.label(), b.label(), b.label());

    b.bind(top);
    b.jit_merge_point(&[r.pc, r.prog], &[r.acc, r.cnt]);
    b.call(
        fetch,
        Arg::Int(op_at as *const () as usize as i64),
        &[r.prog.into(), r.pc.into()],
        Some(op),
    );
    b.call(
        fetch_arg,
        Arg::Int(arg_at as *const () as usize as i64),
        &[r.prog.into(), r.pc.into()],
        Some(arg),
    );
    b.op(OpCode::IntAdd, &[r.pc.into(), Arg::Int(1)], r.pc);
    // a = the accumulator's value
    if boxed {
        b.getfield(r.acc.into(), value.clone(), a);
    } else {
        b.copy(r.acc.into(), a);
    }
    let cases: Vec<(i64, _)> = (0..16).map(|k| (k, labels[k as usize])).collect();
    b.switch(op.into(), &cases);
    b.goto(halt);

    b.bind(labels[HALT as usize]);
    b.bind(halt);
    b.ret(Some(a.into()));

    b.bind(labels[LOADA as usize]);
    b.copy(arg.into(), t);
    b.goto(set_acc);

    b.bind(labels[LOADC as usize]);
    b.copy(arg.into(), r.cnt);
    b.goto(top);

    b.bind(labels[ADDA as usize]);
    b.op(OpCode::IntAdd, &[a.into(), arg.into()], t);
    b.goto(set_acc);

    b.bind(labels[ADDC as usize]);
    b.op(OpCode::IntAdd, &[a.into(), r.cnt.into()], t);
    b.goto(set_acc);

    b.bind(labels[DECC as usize]);
    b.op(OpCode::IntSub, &[r.cnt.into(), Arg::Int(1)], r.cnt);
    b.goto(top);

    b.bind(labels[PRINT as usize]);
    b.call(
        print,
        Arg::Int(emit as *const () as usize as i64),
        &[a.into()],
        None,
    );
    b.goto(top);

    b.bind(labels[MULA as usize]);
    let overflow = b.label();
    b.ovf(OpCode::IntMulOvf, a.into(), arg.into(), t, overflow);
    b.goto(set_acc);
    b.bind(overflow);
    b.copy(Arg::Int(-1), t);
    b.goto(set_acc);

    b.bind(labels[ODD as usize]);
    let even = b.label();
    b.op(OpCode::IntAnd, &[r.cnt.into(), Arg::Int(1)], t);
    b.goto_if_not(t.into(), even);
    b.op(OpCode::IntAdd, &[a.into(), arg.into()], t);
    b.goto(set_acc);
    b.bind(even);
    b.op(OpCode::IntSub, &[a.into(), Arg::Int(1)], t);
    b.goto(set_acc);

    b.bind(labels[EVEN as usize]);
    b.op(OpCode::IntAnd, &[r.cnt.into(), Arg::Int(1)], t);
    b.goto_if_not(t.into(), labels[ADDA as usize]);
    b.goto(top);

    b.bind(labels[MIX as usize]);
    b.inline_call(mix_id, &[a.into(), r.cnt.into()], Some(t));
    b.goto(set_acc);

    b.bind(labels[PROMOTE as usize]);
    b.op(OpCode::IntRshift, &[r.cnt.into(), Arg::Int(6)], t);
    b.promote(t.into());
    b.op(OpCode::IntAdd, &[a.into(), t.into()], t);
    b.goto(set_acc);

    b.bind(labels[PROMC as usize]);
    b.copy(r.cnt.into(), t);
    b.promote(t.into());
    b.op(OpCode::IntAdd, &[a.into(), t.into()], t);
    b.goto(set_acc);

    b.bind(labels[JNZA as usize]);
    b.goto_if_not(a.into(), top);
    b.goto(labels[JMP as usize]);

    b.bind(labels[JNZ as usize]);
    b.goto_if_not(r.cnt.into(), top);
    b.bind(labels[JMP as usize]);
    b.copy(arg.into(), r.pc);
    b.can_enter_jit(&[r.pc, r.prog], &[r.acc, r.cnt]);
    b.goto(top);

    // acc = t (boxed: a fresh IntBox holding t)
    b.bind(set_acc);
    if boxed {
        b.new_object(layout, r.acc);
        b.setfield(r.acc.into(), t.into(), value);
    } else {
        b.copy(t.into(), r.acc);
    }
    b.goto(top);
    b.finish().unwrap()
}

/// Some programs, each with a name.
pub fn programs() -> Vec<(&'static str, Program)> {
    vec![
        // sum of 1..=n, then print
        (
            "sum",
            Program::new(&[
                (LOADA, 0),
                (LOADC, 300),
                (ADDC, 0),
                (DECC, 0),
                (JNZ, 2),
                (PRINT, 0),
                (HALT, 0),
            ]),
        ),
        // print inside the loop: each output exactly once
        (
            "print_loop",
            Program::new(&[
                (LOADA, 5),
                (LOADC, 40),
                (ADDA, 3),
                (PRINT, 0),
                (DECC, 0),
                (JNZ, 2),
                (HALT, 0),
            ]),
        ),
        // a branch that flips every iteration (guard failures, bridges)
        (
            "odd_even",
            Program::new(&[
                (LOADA, 1),
                (LOADC, 500),
                (ODD, 7),
                (DECC, 0),
                (JNZ, 2),
                (PRINT, 0),
                (HALT, 0),
            ]),
        ),
        // overflow inside the loop after a while
        (
            "overflow",
            Program::new(&[
                (LOADA, 1),
                (LOADC, 100),
                (MULA, 3),
                (PRINT, 0),
                (DECC, 0),
                (JNZ, 2),
                (HALT, 0),
            ]),
        ),
        // inline-called helper with a data-dependent branch inside
        (
            "mix",
            Program::new(&[
                (LOADA, 1000),
                (LOADC, 200),
                (MIX, 0),
                (PRINT, 0),
                (DECC, 0),
                (JNZ, 2),
                (HALT, 0),
            ]),
        ),
        // an allocation (boxed) right before a flipping branch: the guard's
        // resume data holds a virtual
        (
            "alloc_then_branch",
            Program::new(&[
                (LOADA, 1),
                (LOADC, 400),
                (ADDA, 3),
                (ODD, 7),
                (DECC, 0),
                (JNZ, 2),
                (PRINT, 0),
                (HALT, 0),
            ]),
        ),
        // a branch that flips every iteration, one side boxing a new value:
        // the loop passes the box through, a bridge carries a virtual one
        (
            "even_box",
            Program::new(&[
                (LOADA, 1),
                (LOADC, 600),
                (EVEN, 3),
                (DECC, 0),
                (JNZ, 2),
                (PRINT, 0),
                (HALT, 0),
            ]),
        ),
        // a promoted value that changes three times
        (
            "promote",
            Program::new(&[
                (LOADA, 0),
                (LOADC, 250),
                (PROMOTE, 0),
                (DECC, 0),
                (JNZ, 2),
                (PRINT, 0),
                (HALT, 0),
            ]),
        ),
        // nested loops: cnt counts the inner one, acc the outer one
        (
            "nested",
            Program::new(&[
                (LOADA, 30),
                (LOADC, 5),
                (DECC, 0),
                (JNZ, 2),
                (ADDA, -1),
                (PRINT, 0),
                (JNZA, 1),
                (HALT, 0),
            ]),
        ),
        // two loops in sequence, the second with branches in its body
        (
            "two_loops",
            Program::new(&[
                (LOADA, 0),
                (LOADC, 30),
                (ADDC, 0),
                (DECC, 0),
                (JNZ, 2),
                (PRINT, 0),
                (ADDA, -5),
                (LOADC, 7),
                (MULA, 1),
                (ODD, 1),
                (DECC, 0),
                (JNZ, 9),
                (PRINT, 0),
                (HALT, 0),
            ]),
        ),
    ]
}

/// A command that runs this test binary again (through
/// `MAJIT_TEST_RUNNER`, e.g. qemu, when set), for tests whose other half
/// needs its own process.
pub fn this_test_binary() -> std::process::Command {
    let exe = std::env::current_exe().unwrap();
    match std::env::var_os("MAJIT_TEST_RUNNER") {
        Some(runner) => {
            let mut c = std::process::Command::new(runner);
            c.arg(exe);
            c
        }
        None => std::process::Command::new(exe),
    }
}
