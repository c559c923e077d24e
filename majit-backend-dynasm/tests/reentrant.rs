//! Re-entrant runs of the native backend (`Backend::execute_in`, what a
//! call of the interpreted program does): a helper called by running code
//! compiles and runs code of the same backend, whose borrow the outer run
//! does not hold. Code compiled while a frame runs must fit that frame's
//! spill slots (it may be entered from it); more is refused, and fits once
//! nothing runs.

use majit_backend_dynasm::HostBackend;
use majit_ir::{CallDescr, CallEffect, Const, Descr, EffectInfo, Kind, Op, OpCode, ResultKind};
use majit_ir::{Trace, Value};
use majit_metainterp::{Backend, CompileError};
use std::cell::RefCell;
use std::rc::Rc;

type Shared = Rc<RefCell<HostBackend>>;

thread_local! {
    static BACKEND: RefCell<Option<Shared>> = const { RefCell::new(None) };
    /// What the helper saw: the small and the large compilation.
    static SEEN: RefCell<Vec<(bool, Option<CompileError>)>> = const { RefCell::new(Vec::new()) };
}

/// `[i0] finish(i0 * 2)`.
fn double() -> Trace {
    let mut t = Trace::new(&[Kind::Int]);
    let two = t.add_const(Const::Int(2));
    let x = t.push(Op::new(OpCode::IntMul, &[t.input(0), two]));
    t.push(Op::new(OpCode::Finish, &[x]));
    t
}

/// A trace of `n` inputs (each in a spill slot at entry).
fn wide(n: usize) -> Trace {
    let mut t = Trace::new(&vec![Kind::Int; n]);
    t.push(Op::new(OpCode::Finish, &[t.input(0)]));
    t
}

/// Compiles a small and a wide trace, then runs the small one nested on
/// `n`: twice `n`.
extern "C" fn helper(n: i64) -> i64 {
    let cell = BACKEND.with(|b| b.borrow().clone()).expect("a backend");
    let small = cell.borrow_mut().compile_loop(&double());
    let large = cell.borrow_mut().compile_loop(&wide(600)).err();
    SEEN.with(|s| s.borrow_mut().push((small.is_ok(), large)));
    let code = small.expect("a small trace compiles while a frame runs");
    let df = HostBackend::execute_in(&cell, code, &[Value::Int(n)]).expect("a nested run");
    df.int(0)
}

/// `[i0] i1 = call_i(helper, i0) finish(i1 + 1)`.
fn outer() -> Trace {
    let mut t = Trace::new(&[Kind::Int]);
    let f = t.add_const(Const::Int(helper as *const () as usize as i64));
    let d = Descr::from(CallDescr {
        name: "helper".into(),
        args: vec![Kind::Int],
        result: ResultKind::Int,
        effect: EffectInfo {
            effect: CallEffect::Random,
            can_collect: true,
            ..EffectInfo::default()
        },
    });
    let r = t.push(Op::new(OpCode::CallI, &[f, t.input(0)]).with_descr(d));
    let one = t.add_const(Const::Int(1));
    let s = t.push(Op::new(OpCode::IntAdd, &[r, one]));
    t.push(Op::new(OpCode::Finish, &[s]));
    t
}

#[test]
fn a_helper_compiles_and_runs_code_while_the_outer_code_runs() {
    let cell: Shared = Rc::new(RefCell::new(HostBackend::new().unwrap()));
    BACKEND.with(|b| *b.borrow_mut() = Some(cell.clone()));
    let code = cell.borrow_mut().compile_loop(&outer()).unwrap();
    let df = HostBackend::execute_in(&cell, code, &[Value::Int(20)]).unwrap();
    assert_eq!(df.int(0), 41);
    let seen = SEEN.with(|s| s.take());
    assert_eq!(seen.len(), 1);
    assert!(seen[0].0, "the small trace compiled");
    match &seen[0].1 {
        Some(CompileError::ImplLimit(m)) => assert!(m.contains("running jitframe"), "{m}"),
        other => panic!("the wide trace while a frame runs: {other:?}"),
    }
    // Nothing runs now: the wide trace compiles, and runs.
    let wide_code = cell.borrow_mut().compile_loop(&wide(600)).unwrap();
    let inputs: Vec<Value> = (0..600).map(Value::Int).collect();
    assert_eq!(
        cell.borrow_mut()
            .execute(wide_code, &inputs)
            .unwrap()
            .int(0),
        0
    );
    // Frames are reused: many runs, same results.
    for n in 0..50 {
        let df = HostBackend::execute_in(&cell, code, &[Value::Int(n)]).unwrap();
        assert_eq!(df.int(0), 2 * n + 1);
    }
    BACKEND.with(|b| b.borrow_mut().take());
}
