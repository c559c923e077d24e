//! Floats and GC arrays through the tracer, the blackhole and deopt: a
//! one-loop interpreter whose reds are an int array, an index and a float
//! accumulator. The JIT's result and the array's final contents must equal
//! the plain Rust loop's.

mod meta_support;

use majit_ir::{Kind, OpCode, Value};
use majit_metainterp::driver::{JitAction, JitDriver};
use majit_metainterp::jitcode::{Arg, FuncId, JitCodeBuilder, JitCodeSet};
use majit_metainterp::params::JitParams;
use majit_metainterp::refexec::RefExec;
use meta_support::int_array;

/// A GC-array-shaped block: header, length, items.
fn make_array(items: &[i64]) -> Vec<i64> {
    let mut v = vec![5, items.len() as i64];
    v.extend_from_slice(items);
    v
}

/// One step of the loop body in Rust: the oracle.
fn body(arr: &mut [i64], i: usize, acc: f64) -> f64 {
    let v = arr[i];
    let mut acc = acc + v as f64 * 0.5;
    if acc > 1000.0 {
        acc /= 3.0;
    }
    arr[i] = v.wrapping_add(i as i64);
    acc
}

/// `loop { merge(pc; arr, i, acc, n); acc = body(arr, i, acc); i += 1;
/// if i >= len(arr) { i = 0 }; n -= 1; if n == 0 { return acc };
/// can_enter_jit }`
fn jitcode() -> (JitCodeSet, FuncId) {
    let mut b = JitCodeBuilder::new("vec_loop");
    let pc = b.param(Kind::Int);
    let arr = b.param(Kind::Ref);
    let i = b.param(Kind::Int);
    let acc = b.param(Kind::Float);
    let n = b.param(Kind::Int);
    let (v, t, f) = (b.reg(Kind::Int), b.reg(Kind::Int), b.reg(Kind::Float));
    let d = majit_ir::Descr::from(int_array());
    let (top, small, wrap, next, done) = (b.label(), b.label(), b.label(), b.label(), b.label());
    b.bind(top);
    b.jit_merge_point(&[pc], &[arr, i, acc, n]);
    b.getarrayitem(arr.into(), i.into(), d.clone(), v);
    b.op(OpCode::CastIntToFloat, &[v.into()], f);
    b.op(OpCode::FloatMul, &[f.into(), Arg::Float(0.5)], f);
    b.op(OpCode::FloatAdd, &[acc.into(), f.into()], acc);
    b.op(OpCode::FloatGt, &[acc.into(), Arg::Float(1000.0)], t);
    b.goto_if_not(t.into(), small);
    b.op(OpCode::FloatTrueDiv, &[acc.into(), Arg::Float(3.0)], acc);
    b.bind(small);
    b.op(OpCode::IntAdd, &[v.into(), i.into()], v);
    b.setarrayitem(arr.into(), i.into(), v.into(), d.clone());
    b.op(OpCode::IntAdd, &[i.into(), Arg::Int(1)], i);
    b.arraylen(arr.into(), d, t);
    b.op(OpCode::IntLt, &[i.into(), t.into()], t);
    b.goto_if_not(t.into(), wrap);
    b.goto(next);
    b.bind(wrap);
    b.copy(Arg::Int(0), i);
    b.bind(next);
    b.op(OpCode::IntSub, &[n.into(), Arg::Int(1)], n);
    b.goto_if_not(n.into(), done);
    b.can_enter_jit(&[pc], &[arr, i, acc, n]);
    b.goto(top);
    b.bind(done);
    b.ret(Some(acc.into()));
    let mut set = JitCodeSet::new();
    let id = set.add(b.finish().unwrap());
    (set, id)
}

/// Runs `steps` iterations; with `jit`, calls `can_enter_jit` at each back
/// edge. Returns the accumulator's bits, the array's items and the number
/// of guard failures.
fn run(items: &[i64], steps: i64, jit: Option<JitParams>) -> (u64, Vec<i64>, u64) {
    let mut block = make_array(items);
    let addr = block.as_mut_ptr() as usize;
    let mut driver = jit.map(|p| {
        let (set, id) = jitcode();
        JitDriver::new(set, id, RefExec::new(), p).unwrap()
    });
    let (mut i, mut acc, mut n) = (0usize, 0.0f64, steps);
    loop {
        acc = body(&mut block[2..], i, acc);
        i = if i + 1 >= items.len() { 0 } else { i + 1 };
        n -= 1;
        if n == 0 {
            break;
        }
        if let Some(d) = driver.as_mut() {
            let mut g = [Value::Int(0)];
            let mut r = [
                Value::Ref(addr),
                Value::Int(i as i64),
                Value::Float(acc),
                Value::Int(n),
            ];
            match d.can_enter_jit(&mut g, &mut r).unwrap() {
                JitAction::Interpret => {}
                JitAction::Continue => {
                    i = r[1].as_int().unwrap() as usize;
                    acc = r[2].as_float().unwrap();
                    n = r[3].as_int().unwrap();
                }
                JitAction::Raised(e) => panic!("raised {e:?}"),
                JitAction::Finished(v) => {
                    acc = v.unwrap().as_float().unwrap();
                    break;
                }
            }
        }
    }
    let failures = driver.map(|d| d.stats().guard_failures).unwrap_or(0);
    (acc.to_bits(), block[2..].to_vec(), failures)
}

#[test]
fn floats_and_arrays_match_the_plain_loop() {
    let items: Vec<i64> = (0..7).map(|k| k * 37 - 50).collect();
    let steps = 700;
    let expected = run(&items, steps, None);
    for opts in ["", majit_metainterp::opt::DEFAULT_OPTS] {
        for threshold in [1, 3] {
            let p = JitParams::default()
                .with_threshold(threshold)
                .with_bridge_threshold(u32::MAX)
                .with_opts(opts)
                .unwrap();
            let got = run(&items, steps, Some(p));
            assert_eq!(
                (got.0, &got.1),
                (expected.0, &expected.1),
                "opts={opts:?} threshold={threshold}"
            );
            assert!(got.2 > 0, "the JIT ran and its guards failed");
        }
    }
}
