//! A register machine with calls, for the tests of calls of the
//! interpreted program (`portal.rs`): a plain recursive Rust interpreter
//! (the oracle), the same interpreter as hand-written jitcode (an entry
//! function and the portal), and the interpreter the JIT runs, which calls
//! `enter_portal` at its first merge point, `can_enter_jit` at back edges
//! and itself for `CALL`.
//!
//! A function runs with greens `pc`, `prog` and reds `a` (accumulator),
//! `n` (argument, counter) and `t` (a temporary); a call starts the callee
//! at `pc = target` with `n` = the caller's `a` and `a = t = 0`, and puts
//! the callee's result in the caller's `a`. Output goes through a residual
//! call to [`emit`] into a thread-local buffer.

#![allow(dead_code)]

use majit_ir::{CallDescr, CallEffect, Descr, EffectInfo, Kind, OpCode, ResultKind, Value};
use majit_metainterp::driver::{JitAction, JitDriver, JitError};
use majit_metainterp::jitcode::{Arg, FuncId, JitCodeBuilder, JitCodeSet, Reg};
use majit_metainterp::portal::{self, PortalRunner};
use majit_metainterp::Backend;
use std::cell::RefCell;

/// `return a`.
pub const RET: i64 = 0;
pub const LOADA: i64 = 1;
pub const ADDA: i64 = 2;
/// `a = n`.
pub const NTOA: i64 = 3;
/// `t = a`.
pub const ATOT: i64 = 4;
/// `a += t`.
pub const ADDT: i64 = 5;
/// `a += n`.
pub const ADDN: i64 = 6;
/// `n -= 1`.
pub const DECN: i64 = 7;
/// A back edge: jump to the argument when `n` is not zero.
pub const JNZ: i64 = 8;
/// Jump to the argument when `n < 2` (no back edge).
pub const JLT2: i64 = 9;
/// Jump to the argument when `n == 0` (no back edge).
pub const JZ: i64 = 10;
/// `a = call(arg)` with the callee's `n` = `a`.
pub const CALL: i64 = 11;
/// `n = arg`.
pub const LOADN: i64 = 12;
/// Prints `a`.
pub const PRINT: i64 = 13;
/// `a = a / 0`: the plain interpreter panics; jitcode calls [`boom`].
pub const BOOM: i64 = 14;
/// Jump to the argument when `n` is odd (no back edge).
pub const JODD: i64 = 15;
const OPS: i64 = 16;

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

/// A residual helper that panics (through `catch_panic`, as the macro's
/// shims do).
pub extern "C" fn boom(a: i64) -> i64 {
    majit_metainterp::runtime::catch_panic("helper `boom`", || {
        assert!(a < 0, "boom at {a}");
        a
    })
}

/// Elidable: the opcode at `pc` of the program at `prog`.
pub extern "C" fn op_at(prog: i64, pc: i64) -> i64 {
    // SAFETY: `prog` is the address of a live `Program`'s code and `pc` is
    // in range (checked by `Program::new`).
    unsafe { *(prog as *const i64).add(2 * pc as usize) }
}

/// Elidable: the argument at `pc` of the program at `prog`.
pub extern "C" fn arg_at(prog: i64, pc: i64) -> i64 {
    // SAFETY: as in `op_at`.
    unsafe { *(prog as *const i64).add(2 * pc as usize + 1) }
}

/// A program: `(opcode, argument)` pairs at a stable address.
pub struct Program {
    code: Box<[[i64; 2]]>,
}

impl Program {
    /// Checks the opcodes and that jumps and calls stay inside.
    pub fn new(code: &[(i64, i64)]) -> Program {
        for &(op, arg) in code {
            assert!((0..OPS).contains(&op), "bad opcode {op}");
            if matches!(op, JNZ | JLT2 | JZ | JODD | CALL) {
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
}

/// One function's state (greens `pc`, `prog`; reds `a`, `n`, `t`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct State {
    pub pc: i64,
    pub a: i64,
    pub n: i64,
    pub t: i64,
}

impl State {
    /// A callee's state at its start.
    pub fn call(target: i64, arg: i64) -> State {
        State {
            pc: target,
            a: 0,
            n: arg,
            t: 0,
        }
    }
}

/// What one instruction did.
enum Step {
    Next,
    /// A taken back edge (`pc` already set).
    BackEdge,
    Call(i64),
    Return(i64),
}

/// Executes the instruction at `st.pc` of the program whose code is at
/// `prog`, but calls.
fn step(prog: i64, st: &mut State) -> Step {
    let (op, arg) = (op_at(prog, st.pc), arg_at(prog, st.pc));
    st.pc += 1;
    match op {
        RET => return Step::Return(st.a),
        LOADA => st.a = arg,
        ADDA => st.a = st.a.wrapping_add(arg),
        NTOA => st.a = st.n,
        ATOT => st.t = st.a,
        ADDT => st.a = st.a.wrapping_add(st.t),
        ADDN => st.a = st.a.wrapping_add(st.n),
        DECN => st.n = st.n.wrapping_sub(1),
        LOADN => st.n = arg,
        PRINT => emit(st.a),
        BOOM => st.a = boom(st.a),
        JNZ if st.n != 0 => {
            st.pc = arg;
            return Step::BackEdge;
        }
        JLT2 if st.n < 2 => st.pc = arg,
        JZ if st.n == 0 => st.pc = arg,
        JODD if st.n & 1 != 0 => st.pc = arg,
        CALL => return Step::Call(arg),
        _ => {}
    }
    Step::Next
}

/// The plain interpreter: runs the function at `st.pc` of the program at
/// `prog` to its return.
pub fn run_plain(prog: i64, mut st: State) -> i64 {
    loop {
        match step(prog, &mut st) {
            Step::Return(v) => return v,
            Step::Call(target) => st.a = run_plain(prog, State::call(target, st.a)),
            Step::Next | Step::BackEdge => {}
        }
    }
}

/// The interpreter with the JIT: `enter_portal` at its first merge point,
/// `can_enter_jit` at back edges, itself for calls. Runs the function at
/// `st.pc` (or from a merge point inside it) to its return.
pub fn run_jit<B: Backend>(jit: &JitDriver<B>, prog: i64, mut st: State) -> Result<i64, JitError> {
    let mut action = visit(jit, prog, &mut st, true)?;
    loop {
        if let Some(v) = action {
            return Ok(v);
        }
        let next = step(prog, &mut st);
        if let Some(p) = majit_metainterp::runtime::take_panic() {
            return Err(p.into());
        }
        action = match next {
            Step::Return(v) => Some(v),
            Step::Call(target) => {
                st.a = run_jit(jit, prog, State::call(target, st.a))?;
                None
            }
            Step::BackEdge => visit(jit, prog, &mut st, false)?,
            Step::Next => None,
        };
    }
}

/// A visit of the JIT at the merge point: the function's result when it
/// returned inside the JIT.
fn visit<B: Backend>(
    jit: &JitDriver<B>,
    prog: i64,
    st: &mut State,
    entry: bool,
) -> Result<Option<i64>, JitError> {
    let mut g = [Value::Int(st.pc), Value::Int(prog)];
    let mut r = [Value::Int(st.a), Value::Int(st.n), Value::Int(st.t)];
    let action = if entry {
        jit.enter_portal(&mut g, &mut r)?
    } else {
        jit.can_enter_jit(&mut g, &mut r)?
    };
    Ok(match action {
        JitAction::Interpret => None,
        JitAction::Continue => {
            *st = state_of(&g, &r);
            None
        }
        JitAction::Finished(v) => Some(v.and_then(|v| v.as_int()).unwrap_or(0)),
        JitAction::Raised(e) => {
            return Err(JitError::BadState(format!("the call machine raised {e:?}")))
        }
    })
}

fn state_of(g: &[Value], r: &[Value]) -> State {
    let int = |v: &Value| v.as_int().unwrap_or(0);
    State {
        pc: int(&g[0]),
        a: int(&r[0]),
        n: int(&r[1]),
        t: int(&r[2]),
    }
}

/// The portal runner's interpreter: [`run_jit`] from a merge point.
fn run_from<B: Backend>(
    jit: &JitDriver<B>,
    g: &[Value],
    r: &[Value],
) -> Result<Option<Value>, JitError> {
    let prog = g[1].as_int().unwrap_or(0);
    run_jit(jit, prog, state_of(g, r)).map(|v| Some(Value::Int(v)))
}

/// The portal runner trampoline.
pub extern "C" fn trampoline(token: i64, pc: i64, prog: i64, a: i64, n: i64, t: i64) -> i64 {
    let g = [Value::Int(pc), Value::Int(prog)];
    let r = [Value::Int(a), Value::Int(n), Value::Int(t)];
    portal::call(token, &g, &r)
        .and_then(|v| v.as_int())
        .unwrap_or(0)
}

/// The runner of this machine on a driver of backend `B`.
pub fn runner<B: Backend>() -> PortalRunner<B> {
    PortalRunner {
        trampoline: trampoline as *const () as usize,
        result: ResultKind::Int,
        run: run_from::<B>,
    }
}

/// A run's result and output.
pub type Outcome = (i64, Vec<i64>);

/// Runs `prog`'s function at 0 with `n` on the plain interpreter and with
/// `jit`: both results and outputs.
pub fn both<B: Backend>(
    jit: &JitDriver<B>,
    prog: &Program,
    n: i64,
) -> Result<(Outcome, Outcome), JitError> {
    take_output();
    let plain = run_plain(prog.addr(), State::call(0, n));
    let plain = (plain, take_output());
    let jitted = run_jit(jit, prog.addr(), State::call(0, n));
    let jitted = (jitted?, take_output());
    Ok((plain, jitted))
}

fn call_descr(name: &str, args: &[Kind], result: ResultKind, effect: CallEffect) -> Descr {
    CallDescr {
        name: name.into(),
        args: args.to_vec(),
        result,
        effect: EffectInfo {
            effect,
            can_raise: name == "boom",
            ..EffectInfo::default()
        },
    }
    .into()
}

/// The registers of the portal: greens, then reds.
struct Regs {
    pc: Reg,
    prog: Reg,
    a: Reg,
    n: Reg,
    t: Reg,
}

/// The machine's jitcode: the entry function (`pc`, `prog`, `arg` → the
/// callee's state → `inline_call` of the portal) and the portal. Returns
/// the set and the portal's id.
pub fn jitcode() -> (JitCodeSet, FuncId) {
    let mut set = JitCodeSet::new();
    let entry = set.declare("entry");
    let portal = set.declare("portal");
    set.define(entry, entry_jitcode(portal)).unwrap();
    set.define(portal, portal_jitcode(entry)).unwrap();
    (set, portal)
}

fn entry_jitcode(portal: FuncId) -> majit_metainterp::jitcode::JitCode {
    let mut b = JitCodeBuilder::new("entry");
    let (pc, prog, arg) = (b.param(Kind::Int), b.param(Kind::Int), b.param(Kind::Int));
    let r = b.reg(Kind::Int);
    let args = [pc.into(), prog.into(), Arg::Int(0), arg.into(), Arg::Int(0)];
    b.inline_call(portal, &args, Some(r));
    b.ret(Some(r.into()));
    b.finish().unwrap()
}

fn portal_jitcode(entry: FuncId) -> majit_metainterp::jitcode::JitCode {
    let mut b = JitCodeBuilder::new("portal");
    let r = Regs {
        pc: b.param(Kind::Int),
        prog: b.param(Kind::Int),
        a: b.param(Kind::Int),
        n: b.param(Kind::Int),
        t: b.param(Kind::Int),
    };
    let (op, arg, c) = (b.reg(Kind::Int), b.reg(Kind::Int), b.reg(Kind::Int));
    let ii_i = [Kind::Int, Kind::Int];
    let fetch = call_descr("op_at", &ii_i, ResultKind::Int, CallEffect::Elidable);
    let fetch_arg = call_descr("arg_at", &ii_i, ResultKind::Int, CallEffect::Elidable);
    let print = call_descr("emit", &[Kind::Int], ResultKind::Void, CallEffect::Random);
    let boom_d = call_descr("boom", &[Kind::Int], ResultKind::Int, CallEffect::Random);
    let labels: Vec<_> = (0..OPS).map(|_| b.label()).collect();
    let top = b.label();
    let func = |f: usize| Arg::Int(f as i64);

    b.bind(top);
    b.jit_merge_point(&[r.pc, r.prog], &[r.a, r.n, r.t]);
    let at = [r.prog.into(), r.pc.into()];
    b.call(fetch, func(op_at as *const () as usize), &at, Some(op));
    b.call(
        fetch_arg,
        func(arg_at as *const () as usize),
        &at,
        Some(arg),
    );
    b.op(OpCode::IntAdd, &[r.pc.into(), Arg::Int(1)], r.pc);
    let cases: Vec<(i64, _)> = (0..OPS).map(|k| (k, labels[k as usize])).collect();
    b.switch(op.into(), &cases);
    b.goto(top);
    let (l, a, n, t) = (|k: i64| labels[k as usize], r.a, r.n, r.t);

    b.bind(l(RET));
    b.ret(Some(a.into()));
    b.bind(l(LOADA));
    b.copy(arg.into(), a);
    b.goto(top);
    b.bind(l(ADDA));
    b.op(OpCode::IntAdd, &[a.into(), arg.into()], a);
    b.goto(top);
    b.bind(l(NTOA));
    b.copy(n.into(), a);
    b.goto(top);
    b.bind(l(ATOT));
    b.copy(a.into(), t);
    b.goto(top);
    b.bind(l(ADDT));
    b.op(OpCode::IntAdd, &[a.into(), t.into()], a);
    b.goto(top);
    b.bind(l(ADDN));
    b.op(OpCode::IntAdd, &[a.into(), n.into()], a);
    b.goto(top);
    b.bind(l(DECN));
    b.op(OpCode::IntSub, &[n.into(), Arg::Int(1)], n);
    b.goto(top);
    b.bind(l(LOADN));
    b.copy(arg.into(), n);
    b.goto(top);
    b.bind(l(PRINT));
    b.call(print, func(emit as *const () as usize), &[a.into()], None);
    b.goto(top);
    b.bind(l(BOOM));
    b.call(
        boom_d,
        func(boom as *const () as usize),
        &[a.into()],
        Some(a),
    );
    b.goto(top);
    b.bind(l(JNZ));
    b.goto_if_not(n.into(), top);
    b.copy(arg.into(), r.pc);
    b.can_enter_jit(&[r.pc, r.prog], &[a, n, t]);
    b.goto(top);
    b.bind(l(JLT2));
    b.op(OpCode::IntLt, &[n.into(), Arg::Int(2)], c);
    b.goto_if_not(c.into(), top);
    b.copy(arg.into(), r.pc);
    b.goto(top);
    b.bind(l(JZ));
    b.op(OpCode::IntEq, &[n.into(), Arg::Int(0)], c);
    b.goto_if_not(c.into(), top);
    b.copy(arg.into(), r.pc);
    b.goto(top);
    b.bind(l(JODD));
    b.op(OpCode::IntAnd, &[n.into(), Arg::Int(1)], c);
    b.goto_if_not(c.into(), top);
    b.copy(arg.into(), r.pc);
    b.goto(top);
    b.bind(l(CALL));
    b.inline_call(entry, &[arg.into(), r.prog.into(), a.into()], Some(a));
    b.goto(top);
    b.finish().unwrap()
}

/// The programs, each with its name and argument: the function at 0 is
/// called with `n` = the argument.
pub fn programs() -> Vec<(&'static str, Program, i64)> {
    vec![
        // fib(n), recursive: two calls per level
        (
            "fib",
            Program::new(&[
                (JLT2, 10),
                (NTOA, 0),
                (ADDA, -1),
                (CALL, 0),
                (ATOT, 0),
                (NTOA, 0),
                (ADDA, -2),
                (CALL, 0),
                (ADDT, 0),
                (RET, 0),
                (NTOA, 0),
                (RET, 0),
            ]),
            20,
        ),
        // a loop calling a small function (sq(i) = i * i by addition) and
        // printing the sum every iteration
        (
            "loop_calls",
            Program::new(&[
                (NTOA, 0),
                (CALL, 8),
                (ADDT, 0),
                (ATOT, 0),
                (PRINT, 0),
                (DECN, 0),
                (JNZ, 0),
                (RET, 0),
                // sq(n): n + n + n (small, no loop)
                (ADDN, 0),
                (ADDN, 0),
                (ADDN, 0),
                (RET, 0),
            ]),
            300,
        ),
        // a loop calling a function that loops itself (tri(i) = 1 + .. + i)
        (
            "loop_calls_loop",
            Program::new(&[
                (NTOA, 0),
                (CALL, 8),
                (ADDT, 0),
                (ATOT, 0),
                (PRINT, 0),
                (DECN, 0),
                (JNZ, 0),
                (RET, 0),
                // tri(n)
                (ADDN, 0),
                (DECN, 0),
                (JNZ, 8),
                (RET, 0),
            ]),
            120,
        ),
        // a loop calling a long function without a loop (thirty(n) = 30 * n
        // by addition)
        ("loop_calls_long", loop_calls_long(), 120),
        // mutual recursion in a loop: the sum of even(i) for i = n..1,
        // even(i) at 7 and odd(i) at 14
        (
            "even_odd",
            Program::new(&[
                (NTOA, 0),
                (CALL, 7),
                (ADDT, 0),
                (ATOT, 0),
                (DECN, 0),
                (JNZ, 0),
                (RET, 0),
                (JZ, 12),
                (NTOA, 0),
                (ADDA, -1),
                (CALL, 14),
                (RET, 0),
                (LOADA, 1),
                (RET, 0),
                (JZ, 19),
                (NTOA, 0),
                (ADDA, -1),
                (CALL, 7),
                (RET, 0),
                (LOADA, 0),
                (RET, 0),
            ]),
            150,
        ),
        // a loop calling a long function on odd `n` only:
        // a = sum over i = n..1 of (i odd ? 20 * i : i), t saving a
        ("odd_calls", odd_calls(), 400),
    ]
}

/// The program `loop_calls_long` of [`programs`]: `loop_calls` with a
/// callee, at 8, of 30 additions.
fn loop_calls_long() -> Program {
    let mut code = vec![
        (NTOA, 0),
        (CALL, 8),
        (ADDT, 0),
        (ATOT, 0),
        (PRINT, 0),
        (DECN, 0),
        (JNZ, 0),
        (RET, 0),
    ];
    code.extend([(ADDN, 0); 30]);
    code.push((RET, 0));
    Program::new(&code)
}

/// The program `odd_calls` of [`programs`]; its callee, at 12, is
/// `twenty(n) = 20 * n` by addition.
fn odd_calls() -> Program {
    let mut code = vec![
        (JODD, 5),
        (ADDN, 0),
        (DECN, 0),
        (JNZ, 0),
        (RET, 0),
        (ATOT, 0),
        (NTOA, 0),
        (CALL, 12),
        (ADDT, 0),
        (DECN, 0),
        (JNZ, 0),
        (RET, 0),
    ];
    code.extend([(ADDN, 0); 20]);
    code.push((RET, 0));
    Program::new(&code)
}
