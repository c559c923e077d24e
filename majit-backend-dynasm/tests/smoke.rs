#![cfg(target_arch = "x86_64")]
use majit_backend_dynasm::HostBackend;
use majit_ir::{Const, Descr, Kind, Op, OpCode, TargetDescr, Trace, Value};
use majit_metainterp::Backend;

#[test]
fn add_one() {
    let mut t = Trace::new(&[Kind::Int]);
    let one = t.add_const(Const::Int(1));
    let sum = t.push(Op::new(OpCode::IntAdd, &[t.input(0), one]));
    t.push(Op::new(OpCode::Finish, &[sum]));
    let mut b = HostBackend::new().unwrap();
    let code = b.compile_loop(&t).unwrap();
    assert_eq!(b.execute(code, &[Value::Int(41)]).unwrap().int(0), 42);
}

#[test]
fn count_loop() {
    let mut t = Trace::new(&[Kind::Int, Kind::Int]);
    let one = t.add_const(Const::Int(1));
    let zero = t.add_const(Const::Int(0));
    let l: Descr = TargetDescr { name: "L".into() }.into();
    t.push(Op::new(OpCode::Label, &[t.input(0), t.input(1)]).with_descr(l.clone()));
    let i2 = t.push(Op::new(OpCode::IntSub, &[t.input(0), one]));
    let i3 = t.push(Op::new(OpCode::IntAdd, &[t.input(1), t.input(0)]));
    let c = t.push(Op::new(OpCode::IntGt, &[i2, zero]));
    t.push(Op::new(OpCode::GuardTrue, &[c]).with_fail_args(&[i2, i3]));
    t.push(Op::new(OpCode::Jump, &[i2, i3]).with_descr(l));
    let mut b = HostBackend::new().unwrap();
    let code = b.compile_loop(&t).unwrap();
    let d = b.execute(code, &[Value::Int(10), Value::Int(0)]).unwrap();
    assert_eq!(d.values, vec![Value::Int(0), Value::Int(55)]);
    assert_eq!(d.exit.op_index, 4);
}
