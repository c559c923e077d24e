//! A `finish` stores only the registers its values are in before leaving
//! (the exit routine's stores of every register are skipped): values in
//! registers, in spill slots and constants all come back, ints and floats.

use majit_backend_dynasm::HostBackend;
use majit_ir::{Const, Kind, Op, OpCode, Trace, Value};
use majit_metainterp::Backend;

#[test]
fn a_finish_returns_values_from_registers_slots_and_constants() {
    let mut t = Trace::new(&[Kind::Int]);
    let x = t.input(0);
    // More values than either register bank holds, so some live in slots.
    let ints: Vec<_> = (1..=24)
        .map(|k| {
            let c = t.add_const(Const::Int(k));
            t.push(Op::new(OpCode::IntMul, &[x, c]))
        })
        .collect();
    let xf = t.push(Op::new(OpCode::CastIntToFloat, &[x]));
    let floats: Vec<_> = (1..=20)
        .map(|k| {
            let c = t.add_const(Const::Float((k as f64 / 2.0).to_bits()));
            t.push(Op::new(OpCode::FloatAdd, &[xf, c]))
        })
        .collect();
    let seven = t.add_const(Const::Int(7));
    let mut out = ints.clone();
    out.extend(&floats);
    out.push(seven);
    t.push(Op::new(OpCode::Finish, &out));
    let mut b = HostBackend::new().unwrap();
    let code = b.compile_loop(&t).unwrap();
    let d = b.execute(code, &[Value::Int(3)]).unwrap();
    let mut want: Vec<Value> = (1..=24).map(|k| Value::Int(3 * k)).collect();
    want.extend((1..=20).map(|k| Value::Float(3.0 + k as f64 / 2.0)));
    want.push(Value::Int(7));
    assert_eq!(d.values, want);
}
