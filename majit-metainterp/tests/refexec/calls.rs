//! Real calls to Rust `extern "C"` helpers of mixed signatures, through
//! the canonical call (up to 16 int/ref and 8 float arguments), plus the
//! exception and force signals and the call limits.

use crate::{compile, float, int, reference, run, symbol, trace, try_run};
use majit_ir::Namespace;
use majit_metainterp::refexec::RefExec;
use majit_metainterp::runtime::{self, Raised};
use majit_metainterp::{Backend, CompileError, ExecError};
use std::sync::atomic::{AtomicI64, Ordering};

extern "C" fn add(a: i64, b: i64) -> i64 {
    a + b
}

extern "C" fn mixed(a: i64, x: f64, b: i64) -> f64 {
    a as f64 * x - b as f64
}

/// Weights each argument by its position, so any reordering shows.
extern "C" fn nine(a: i64, b: i64, c: i64, d: i64, e: i64, f: i64, g: i64, h: i64, i: i64) -> i64 {
    [a, b, c, d, e, f, g, h, i]
        .iter()
        .enumerate()
        .map(|(k, v)| (k as i64 + 1) * v)
        .sum()
}

extern "C" fn ten(
    a: i64,
    b: i64,
    c: i64,
    d: i64,
    e: i64,
    f: i64,
    g: i64,
    h: i64,
    i: i64,
    j: i64,
) -> i64 {
    [a, b, c, d, e, f, g, h, i, j]
        .iter()
        .enumerate()
        .map(|(k, v)| (k as i64 + 1) * v)
        .sum()
}

/// Floats and ints interleaved, more ints than registers on both ABIs.
#[allow(clippy::too_many_arguments)]
extern "C" fn interleaved(
    f0: f64,
    i0: i64,
    f1: f64,
    i1: i64,
    i2: i64,
    f2: f64,
    i3: i64,
    i4: i64,
    i5: i64,
    f3: f64,
    i6: i64,
    i7: i64,
    i8: i64,
    i9: i64,
    f4: f64,
) -> f64 {
    let ints = [i0, i1, i2, i3, i4, i5, i6, i7, i8, i9];
    let fs = [f0, f1, f2, f3, f4];
    let a: i64 = ints
        .iter()
        .enumerate()
        .map(|(k, v)| (k as i64 + 1) * v)
        .sum();
    let b: f64 = fs
        .iter()
        .enumerate()
        .map(|(k, v)| (k as f64 + 1.0) * v)
        .sum();
    a as f64 + b
}

/// The canonical maximum: 16 ints and 8 floats.
#[allow(clippy::too_many_arguments)]
extern "C" fn widest(
    i0: i64,
    i1: i64,
    i2: i64,
    i3: i64,
    i4: i64,
    i5: i64,
    i6: i64,
    i7: i64,
    i8: i64,
    i9: i64,
    i10: i64,
    i11: i64,
    i12: i64,
    i13: i64,
    i14: i64,
    i15: i64,
    f0: f64,
    f1: f64,
    f2: f64,
    f3: f64,
    f4: f64,
    f5: f64,
    f6: f64,
    f7: f64,
) -> i64 {
    let ints = [
        i0, i1, i2, i3, i4, i5, i6, i7, i8, i9, i10, i11, i12, i13, i14, i15,
    ];
    let fs = [f0, f1, f2, f3, f4, f5, f6, f7];
    let a: i64 = ints
        .iter()
        .enumerate()
        .map(|(k, v)| (k as i64 + 1) * v)
        .sum();
    let b: f64 = fs
        .iter()
        .enumerate()
        .map(|(k, v)| (k as f64 + 1.0) * v)
        .sum();
    a * 1000 + b as i64
}

extern "C" fn identity_ref(p: usize) -> usize {
    p
}

extern "C" fn halve(x: f64) -> f64 {
    x / 2.0
}

static SINK: AtomicI64 = AtomicI64::new(0);

extern "C" fn store_sink(x: i64) {
    SINK.store(x, Ordering::SeqCst);
}

/// Raises its argument as the exception object when it is not 0.
extern "C" fn maybe_raise(x: i64) -> i64 {
    if x != 0 {
        runtime::raise(x as usize);
    }
    x + 1
}

/// Forces the calling frame when `x` is negative.
extern "C" fn maybe_force(x: i64) -> i64 {
    if x < 0 {
        runtime::force_frame();
    }
    x * 2
}

/// Registers the helpers as `@symbols`.
pub fn add_symbols(ns: &mut Namespace) {
    symbol(ns, "add", add as *const () as usize);
    symbol(ns, "mixed", mixed as *const () as usize);
    symbol(ns, "nine", nine as *const () as usize);
    symbol(ns, "ten", ten as *const () as usize);
    symbol(ns, "interleaved", interleaved as *const () as usize);
    symbol(ns, "widest", widest as *const () as usize);
    symbol(ns, "identity_ref", identity_ref as *const () as usize);
    symbol(ns, "halve", halve as *const () as usize);
    symbol(ns, "store_sink", store_sink as *const () as usize);
    symbol(ns, "maybe_raise", maybe_raise as *const () as usize);
    symbol(ns, "maybe_force", maybe_force as *const () as usize);
}

fn weighted(values: &[i64]) -> i64 {
    values
        .iter()
        .enumerate()
        .map(|(k, v)| (k as i64 + 1) * v)
        .sum()
}

#[test]
fn int_call() {
    let text = "descr C.ii_i = call(args=[int, int], result=int, effect=elidable)
        [i0, i1]
        i2 = call_i(@add, i0, i1, descr=C.ii_i)
        i3 = call_pure_i(@add, i2, 100, descr=C.ii_i)
        finish(i2, i3)";
    let frame = run(text, &[int(40), int(2)]);
    assert_eq!(frame.int(0), 42);
    assert_eq!(frame.int(1), 142);
}

#[test]
fn mixed_int_float_call() {
    let text = "descr C.ifi_f = call(args=[int, float, int], result=float, effect=elidable)
        [i0, f1, i2]
        f3 = call_f(@mixed, i0, f1, i2, descr=C.ifi_f)
        finish(f3)";
    assert_eq!(
        run(text, &[int(3), float(1.5), int(7)]).float(0),
        3.0 * 1.5 - 7.0
    );
}

#[test]
fn nine_and_ten_int_args_reach_the_stack_in_order() {
    let nine_text = "descr C.9 = call(args=[int, int, int, int, int, int, int, int, int], result=int, effect=random)
        [i0]
        i1 = call_i(@nine, i0, 2, 3, 4, 5, 6, 7, 8, 9, descr=C.9)
        finish(i1)";
    assert_eq!(
        run(nine_text, &[int(-1)]).int(0),
        weighted(&[-1, 2, 3, 4, 5, 6, 7, 8, 9])
    );
    let ten_text = "descr C.10 = call(args=[int, int, int, int, int, int, int, int, int, int], result=int, effect=random)
        [i0, i1]
        i2 = call_i(@ten, 1, 2, 3, 4, 5, 6, 7, 8, i0, i1, descr=C.10)
        finish(i2)";
    let want = weighted(&[1, 2, 3, 4, 5, 6, 7, 8, 90, 100]);
    assert_eq!(run(ten_text, &[int(90), int(100)]).int(0), want);
}

#[test]
fn interleaved_floats_and_ints() {
    let text = "descr C.mix = call(args=[float, int, float, int, int, float, int, int, int, float, int, int, int, int, float], result=float, effect=random)
        [f0]
        f1 = call_f(@interleaved, f0, 1, 0.25, 2, 3, 0.5, 4, 5, 6, 0.75, 7, 8, 9, 10, 1.0, descr=C.mix)
        finish(f1)";
    let ints = weighted(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) as f64;
    let floats = 0.125 + 2.0 * 0.25 + 3.0 * 0.5 + 4.0 * 0.75 + 5.0 * 1.0;
    assert_eq!(run(text, &[float(0.125)]).float(0), ints + floats);
}

#[test]
fn sixteen_ints_and_eight_floats() {
    let ints: Vec<String> = (1..=16).map(|k| (k * 3).to_string()).collect();
    let floats: Vec<String> = (1..=8).map(|k| format!("{k}.0")).collect();
    let kinds = ["int"; 16]
        .iter()
        .chain(&["float"; 8])
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    let text = format!(
        "descr C.wide = call(args=[{kinds}], result=int, effect=random)
        []
        i0 = call_i(@widest, {}, {}, descr=C.wide)
        finish(i0)",
        ints.join(", "),
        floats.join(", ")
    );
    let int_part = weighted(&(1..=16).map(|k| k * 3).collect::<Vec<_>>());
    let float_part: i64 = (1..=8).map(|k| k * k).sum();
    assert_eq!(run(&text, &[]).int(0), int_part * 1000 + float_part);
}

#[test]
fn ref_float_and_void_calls() {
    SINK.store(0, Ordering::SeqCst);
    let text = "descr C.r_r = call(args=[ref], result=ref, effect=random)
        descr C.f_f = call(args=[float], result=float, effect=elidable)
        descr C.i_v = call(args=[int], result=void, effect=random)
        [p0, f1]
        p2 = call_r(@identity_ref, p0, descr=C.r_r)
        f3 = call_pure_f(@halve, f1, descr=C.f_f)
        call_n(@store_sink, 77, descr=C.i_v)
        finish(p2, f3)";
    let frame = run(text, &[reference(0x1230), float(5.0)]);
    assert_eq!(frame.reference(0), 0x1230);
    assert_eq!(frame.float(1), 2.5);
    assert_eq!(SINK.load(Ordering::SeqCst), 77);
}

const RAISING: &str = "descr C.raise = call(args=[int], result=int, effect=random, can_raise)
    [i0]
    i1 = call_i(@maybe_raise, i0, descr=C.raise)
    guard_no_exception(descr=g0) [i1]
    finish(i1, descr=done)";

#[test]
fn a_raising_helper_fails_guard_no_exception() {
    let mut exec = RefExec::new();
    let code = compile(&mut exec, RAISING);
    let ok = exec.execute(code, &[int(0)]).unwrap();
    assert_eq!(ok.descr.as_ref().unwrap().name(), "done");
    assert_eq!(ok.exception, None);
    let raised = exec.execute(code, &[int(0x4440)]).unwrap();
    assert_eq!(raised.descr.as_ref().unwrap().name(), "g0");
    assert_eq!(raised.int(0), 0x4441, "the call's result is still written");
    assert_eq!(raised.exception, Some(Raised::Value(reference(0x4440))));
    let again = exec.execute(code, &[int(0)]).unwrap();
    assert_eq!(again.exception, None, "each run starts with none pending");
}

#[test]
fn a_bridge_on_guard_no_exception_takes_the_exception() {
    let mut exec = RefExec::new();
    let code = compile(&mut exec, RAISING);
    let bridge = trace(
        "[i0]
        guard_exception(descr=g2) [i0]
        p1 = save_exception_r()
        guard_no_exception(descr=g3) [i0]
        finish(i0, p1, descr=g1)",
    );
    let guard = majit_metainterp::ExitId { code, op_index: 1 };
    exec.compile_bridge(guard, &bridge).unwrap();
    let frame = exec.execute(code, &[int(8)]).unwrap();
    assert_eq!(frame.descr.as_ref().unwrap().name(), "g1");
    assert_eq!((frame.int(0), frame.reference(1)), (9, 8));
    assert_eq!(frame.exception, None, "taken");
}

#[test]
fn save_exception_of_the_other_kind_is_an_error() {
    let text = "descr C.raise = call(args=[int], result=int, effect=random, can_raise)
        [i0]
        i1 = call_i(@maybe_raise, i0, descr=C.raise)
        guard_exception(descr=g0) [i1]
        i2 = save_exception_i()
        finish(i2, descr=done)";
    let mut exec = RefExec::new();
    let code = compile(&mut exec, text);
    let e = exec.execute(code, &[int(5)]).unwrap_err();
    assert!(e.to_string().contains("save_exception_i"), "{e}");
    let missed = exec.execute(code, &[int(0)]).unwrap();
    assert_eq!(missed.descr.as_ref().unwrap().name(), "g0", "none raised");
}

#[test]
fn a_forcing_helper_fails_guard_not_forced() {
    let text = "descr C.force = call(args=[int], result=int, effect=random, can_raise, can_collect, may_force)
        [i0]
        i1 = call_may_force_i(@maybe_force, i0, descr=C.force)
        guard_not_forced(descr=g0) [i1, i0]
        finish(i1, descr=done)";
    let ok = run(text, &[int(4)]);
    assert_eq!((ok.descr.as_ref().unwrap().name(), ok.int(0)), ("done", 8));
    let forced = run(text, &[int(-4)]);
    assert_eq!(forced.descr.as_ref().unwrap().name(), "g0");
    assert_eq!((forced.int(0), forced.int(1)), (-8, -4));
}

#[test]
fn signatures_beyond_the_canonical_call_are_an_impl_limit() {
    let ints = ["int"; 17].join(", ");
    let args = ["1"; 17].join(", ");
    let text = format!("descr C.17 = call(args=[{ints}], result=int, effect=random)\n[]\ni0 = call_i(@add, {args}, descr=C.17)\nfinish(i0)");
    let err = RefExec::new().compile_loop(&trace(&text)).unwrap_err();
    assert!(matches!(err, CompileError::ImplLimit(_)), "{err:?}");
    let floats = ["float"; 9].join(", ");
    let args = ["1.0"; 9].join(", ");
    let text = format!("descr C.9f = call(args=[{floats}], result=int, effect=random)\n[]\ni0 = call_i(@add, {args}, descr=C.9f)\nfinish(i0)");
    let err = RefExec::new().compile_loop(&trace(&text)).unwrap_err();
    assert!(matches!(err, CompileError::ImplLimit(_)), "{err:?}");
}

#[test]
fn call_arguments_must_match_the_descr() {
    let text = "descr C.ii_i = call(args=[int, int], result=int, effect=elidable)
        [f0]
        i2 = call_i(@add, f0, 1, descr=C.ii_i)
        finish(i2)";
    let err = RefExec::new().compile_loop(&trace(text)).unwrap_err();
    assert!(matches!(err, CompileError::Invalid(_)), "{err:?}");
}

#[test]
fn calling_null_is_a_null_pointer_error() {
    let text = "descr C.ii_i = call(args=[int, int], result=int, effect=elidable)
        [i0]
        i2 = call_i(i0, 1, 2, descr=C.ii_i)
        finish(i2)";
    assert_eq!(
        try_run(text, &[int(0)]),
        Err(ExecError::NullPointer { op_index: 0 })
    );
}

#[test]
fn call_extern_is_the_same_shim_for_other_callers() {
    use majit_ir::{ResultKind, Value};
    use runtime::{call_extern, CallError};
    let args: Vec<Value> = (1..=10).map(Value::Int).collect();
    let r = unsafe { call_extern(ten as *const () as usize, &args, ResultKind::Int) };
    assert_eq!(
        r,
        Ok(Some(Value::Int(weighted(&(1..=10).collect::<Vec<_>>()))))
    );
    let r = unsafe {
        call_extern(
            add as *const () as usize,
            &[Value::Int(3), Value::Int(4)],
            ResultKind::Void,
        )
    };
    assert_eq!(r, Ok(None));
    let floats = vec![Value::Float(1.0); 9];
    let r = unsafe { call_extern(halve as *const () as usize, &floats, ResultKind::Float) };
    assert_eq!(r, Err(CallError::TooManyArgs { ints: 0, floats: 9 }));
    let r = unsafe { call_extern(0, &[], ResultKind::Int) };
    assert_eq!(r, Err(CallError::NullFunction));
}
