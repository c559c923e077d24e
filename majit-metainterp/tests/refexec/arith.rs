//! Integer and float arithmetic, comparisons and casts, including the
//! defined edge cases of `backend.rs` (division, shifts, overflow, NaN).

use crate::{float, int, reference, run};
use majit_metainterp::DeadFrame;

const MIN: i64 = i64::MIN;
const MAX: i64 = i64::MAX;

/// Runs `r = op(a, b)` with both operands as inputs, and again with `b`
/// as a constant, and returns `r` (both runs must agree).
fn binary(op: &str, a: i64, b: i64) -> i64 {
    let r = run(
        &format!("[i0, i1]\ni2 = {op}(i0, i1)\nfinish(i2)"),
        &[int(a), int(b)],
    )
    .int(0);
    let k = run(&format!("[i0]\ni2 = {op}(i0, {b})\nfinish(i2)"), &[int(a)]).int(0);
    assert_eq!(r, k, "{op}({a}, {b}): inputs vs constant");
    r
}

fn unary(op: &str, a: i64) -> i64 {
    run(&format!("[i0]\ni1 = {op}(i0)\nfinish(i1)"), &[int(a)]).int(0)
}

#[test]
fn int_arithmetic_wraps() {
    let cases: &[(&str, i64, i64, i64)] = &[
        ("int_add", 2, 3, 5),
        ("int_add", MAX, 1, MIN),
        ("int_sub", 2, 3, -1),
        ("int_sub", MIN, 1, MAX),
        ("int_mul", -4, 5, -20),
        ("int_mul", MAX, 2, -2),
        ("int_and", 0b1100, 0b1010, 0b1000),
        ("int_or", 0b1100, 0b1010, 0b1110),
        ("int_xor", 0b1100, 0b1010, 0b0110),
    ];
    for &(op, a, b, want) in cases {
        assert_eq!(binary(op, a, b), want, "{op}({a}, {b})");
    }
    assert_eq!(unary("int_neg", 5), -5);
    assert_eq!(unary("int_neg", MIN), MIN);
    assert_eq!(unary("int_invert", 0), -1);
    assert_eq!(unary("int_is_zero", 0), 1);
    assert_eq!(unary("int_is_zero", MIN), 0);
    assert_eq!(unary("int_is_true", -7), 1);
    assert_eq!(unary("int_is_true", 0), 0);
}

#[test]
fn division_truncates_and_has_defined_edge_cases() {
    let cases: &[(&str, i64, i64, i64)] = &[
        ("int_floordiv", 7, 2, 3),
        ("int_floordiv", -7, 2, -3),
        ("int_floordiv", 7, -2, -3),
        ("int_floordiv", -7, -2, 3),
        ("int_floordiv", 5, 0, 0),
        ("int_floordiv", MIN, -1, MIN),
        ("int_mod", 7, 2, 1),
        ("int_mod", -7, 2, -1),
        ("int_mod", 7, -2, 1),
        ("int_mod", -7, -2, -1),
        ("int_mod", 5, 0, 5),
        ("int_mod", -5, 0, -5),
        ("int_mod", MIN, -1, 0),
    ];
    for &(op, a, b, want) in cases {
        assert_eq!(binary(op, a, b), want, "{op}({a}, {b})");
    }
}

#[test]
fn shift_counts_are_taken_modulo_64() {
    let cases: &[(&str, i64, i64, i64)] = &[
        ("int_lshift", 1, 3, 8),
        ("int_lshift", 1, 63, MIN),
        ("int_lshift", 1, 64, 1),
        ("int_lshift", 1, 65, 2),
        ("int_lshift", 1, -1, MIN),
        ("int_rshift", -8, 1, -4),
        ("int_rshift", MIN, 63, -1),
        ("int_rshift", 16, 68, 1),
        ("uint_rshift", -8, 1, 0x7fff_ffff_ffff_fffc),
        ("uint_rshift", MIN, 63, 1),
        ("uint_rshift", -1, 64, -1),
    ];
    for &(op, a, b, want) in cases {
        assert_eq!(binary(op, a, b), want, "{op}({a}, {b})");
    }
}

/// `r = op_ovf(a, b)` followed by `guard_no_overflow`: `Ok(r)` when it
/// passes, `Err(wrapped result)` read from the guard's fail args.
fn checked(op: &str, a: i64, b: i64) -> Result<i64, i64> {
    let text = format!(
        "[i0, i1]
         i2 = {op}(i0, i1)
         guard_no_overflow(descr=g1) [i2, i0]
         finish(i2, descr=done)"
    );
    let frame = run(&text, &[int(a), int(b)]);
    match frame
        .descr
        .as_ref()
        .map(|d| d.name().to_string())
        .as_deref()
    {
        Some("done") => Ok(frame.int(0)),
        Some("g1") => {
            assert_eq!(frame.int(1), a, "fail args in order");
            Err(frame.int(0))
        }
        other => panic!("unexpected exit {other:?}"),
    }
}

#[test]
fn overflow_ops_set_the_flag_their_guard_tests() {
    assert_eq!(checked("int_add_ovf", 2, 3), Ok(5));
    assert_eq!(checked("int_add_ovf", MAX, 1), Err(MIN));
    assert_eq!(checked("int_add_ovf", MIN, -1), Err(MAX));
    assert_eq!(checked("int_sub_ovf", MIN, 1), Err(MAX));
    assert_eq!(checked("int_sub_ovf", 0, MIN), Err(MIN));
    assert_eq!(checked("int_sub_ovf", -3, 4), Ok(-7));
    assert_eq!(checked("int_mul_ovf", 1 << 31, 1 << 31), Ok(1 << 62));
    assert_eq!(checked("int_mul_ovf", 1 << 32, 1 << 31), Err(MIN));
    assert_eq!(checked("int_mul_ovf", 1 << 32, 1 << 32), Err(0));
    assert_eq!(checked("int_mul_ovf", MIN, -1), Err(MIN));
    assert_eq!(checked("int_mul_ovf", -3, 5), Ok(-15));
}

#[test]
fn guard_overflow_passes_only_on_overflow() {
    let text = "[i0]
        i1 = int_add_ovf(i0, 1)
        guard_overflow(descr=g0) [i1]
        finish(i1, descr=done)";
    let wrapped = run(text, &[int(MAX)]);
    assert_eq!(wrapped.descr.as_ref().unwrap().name(), "done");
    assert_eq!(wrapped.int(0), MIN);
    let failed = run(text, &[int(1)]);
    assert_eq!(failed.descr.as_ref().unwrap().name(), "g0");
    assert_eq!(failed.int(0), 2);
}

#[test]
fn int_comparisons_signed_and_unsigned() {
    let pairs = [(-1, 1), (1, 1), (MIN, MAX), (3, -3), (0, 0)];
    type Truth = fn(i64, i64) -> bool;
    let ops: &[(&str, Truth)] = &[
        ("int_lt", |a, b| a < b),
        ("int_le", |a, b| a <= b),
        ("int_eq", |a, b| a == b),
        ("int_ne", |a, b| a != b),
        ("int_gt", |a, b| a > b),
        ("int_ge", |a, b| a >= b),
        ("uint_lt", |a, b| (a as u64) < b as u64),
        ("uint_le", |a, b| a as u64 <= b as u64),
        ("uint_gt", |a, b| a as u64 > b as u64),
        ("uint_ge", |a, b| a as u64 >= b as u64),
    ];
    for &(op, truth) in ops {
        for (a, b) in pairs {
            assert_eq!(binary(op, a, b), i64::from(truth(a, b)), "{op}({a}, {b})");
        }
    }
    // Spot checks that fix the unsigned reading independently of Rust casts.
    assert_eq!(binary("uint_lt", -1, 1), 0);
    assert_eq!(binary("int_lt", -1, 1), 1);
}

fn float_binary(op: &str, a: f64, b: f64) -> DeadFrame {
    run(
        &format!("[f0, f1]\ni2 = {op}(f0, f1)\nfinish(i2)"),
        &[float(a), float(b)],
    )
}

fn float_result(op: &str, a: f64, b: f64) -> u64 {
    let text = format!("[f0, f1]\nf2 = {op}(f0, f1)\nfinish(f2)");
    run(&text, &[float(a), float(b)]).float(0).to_bits()
}

#[test]
fn float_arithmetic_is_ieee() {
    assert_eq!(f64::from_bits(float_result("float_add", 1.5, 2.25)), 3.75);
    assert_eq!(f64::from_bits(float_result("float_sub", 1.5, 2.25)), -0.75);
    assert_eq!(f64::from_bits(float_result("float_mul", -1.5, 4.0)), -6.0);
    assert_eq!(
        f64::from_bits(float_result("float_truediv", 1.0, 4.0)),
        0.25
    );
    assert_eq!(
        f64::from_bits(float_result("float_truediv", 1.0, 0.0)),
        f64::INFINITY
    );
    assert_eq!(
        f64::from_bits(float_result("float_truediv", 1.0, -0.0)),
        f64::NEG_INFINITY
    );
    assert!(f64::from_bits(float_result("float_truediv", 0.0, 0.0)).is_nan());
    assert_eq!(float_result("float_add", -0.0, -0.0), (-0.0f64).to_bits());
    let neg = |x: f64| run("[f0]\nf1 = float_neg(f0)\nfinish(f1)", &[float(x)]).float(0);
    let abs = |x: f64| run("[f0]\nf1 = float_abs(f0)\nfinish(f1)", &[float(x)]).float(0);
    assert_eq!(neg(0.0).to_bits(), (-0.0f64).to_bits());
    assert_eq!(neg(-2.5), 2.5);
    assert_eq!(abs(-0.0).to_bits(), 0.0f64.to_bits());
    assert_eq!(abs(-3.0), 3.0);
    assert!(neg(f64::NAN).is_nan());
    let sqrt = |x: f64| run("[f0]\nf1 = float_sqrt(f0)\nfinish(f1)", &[float(x)]).float(0);
    assert_eq!(sqrt(2.25), 1.5);
    assert_eq!(sqrt(-0.0).to_bits(), (-0.0f64).to_bits());
    assert!(sqrt(-1.0).is_nan());
}

#[test]
fn float_comparisons_with_nan_are_false_except_ne() {
    let ops = [
        "float_lt", "float_le", "float_eq", "float_ne", "float_gt", "float_ge",
    ];
    let nan_truth = [0, 0, 0, 1, 0, 0];
    let less_truth = [1, 1, 0, 1, 0, 0];
    let zeros_truth = [0, 1, 1, 0, 0, 1]; // -0.0 vs 0.0 compare equal
    for (k, op) in ops.iter().enumerate() {
        assert_eq!(
            float_binary(op, f64::NAN, 1.0).int(0),
            nan_truth[k],
            "{op}(nan, 1)"
        );
        assert_eq!(
            float_binary(op, f64::NAN, f64::NAN).int(0),
            nan_truth[k],
            "{op}(nan, nan)"
        );
        assert_eq!(
            float_binary(op, 1.0, 2.0).int(0),
            less_truth[k],
            "{op}(1, 2)"
        );
        assert_eq!(
            float_binary(op, -0.0, 0.0).int(0),
            zeros_truth[k],
            "{op}(-0, 0)"
        );
    }
}

#[test]
fn casts_truncate_saturate_and_keep_bits() {
    let to_int = |x: f64| run("[f0]\ni1 = cast_float_to_int(f0)\nfinish(i1)", &[float(x)]).int(0);
    assert_eq!(to_int(-2.7), -2);
    assert_eq!(to_int(2.7), 2);
    assert_eq!(to_int(f64::NAN), 0);
    assert_eq!(to_int(1e300), MAX);
    assert_eq!(to_int(-1e300), MIN);
    assert_eq!(to_int(f64::NEG_INFINITY), MIN);
    let to_float = |x: i64| run("[i0]\nf1 = cast_int_to_float(i0)\nfinish(f1)", &[int(x)]).float(0);
    assert_eq!(to_float(-3), -3.0);
    assert_eq!(to_float(MIN), -(2f64.powi(63)));
    let bits = run(
        "[f0]
         i1 = convert_float_bytes_to_longlong(f0)
         f2 = convert_longlong_bytes_to_float(i1)
         finish(i1, f2)",
        &[float(-0.0)],
    );
    assert_eq!(bits.int(0), MIN, "-0.0 is the sign bit alone");
    assert_eq!(bits.float(1).to_bits(), (-0.0f64).to_bits());
    let nan = f64::from_bits(0x7ff8_0000_0000_0001);
    let text = "[f0]\ni1 = convert_float_bytes_to_longlong(f0)\nfinish(i1)";
    assert_eq!(run(text, &[float(nan)]).int(0), 0x7ff8_0000_0000_0001);
}

#[test]
fn pointer_ops_and_copies() {
    let frame = run(
        "[p0, p1, i2, f3]
         i4 = ptr_eq(p0, p1)
         i5 = ptr_ne(p0, p1)
         i6 = cast_ptr_to_int(p0)
         p7 = cast_int_to_ptr(i2)
         i8 = same_as_i(i2)
         p9 = same_as_r(p1)
         f10 = same_as_f(f3)
         i11 = ptr_eq(p0, p0)
         finish(i4, i5, i6, p7, i8, p9, f10, i11)",
        &[
            reference(0x1000),
            reference(0x2000),
            int(0x3000),
            float(-1.5),
        ],
    );
    assert_eq!(frame.int(0), 0);
    assert_eq!(frame.int(1), 1);
    assert_eq!(frame.int(2), 0x1000);
    assert_eq!(frame.reference(3), 0x3000);
    assert_eq!(frame.int(4), 0x3000);
    assert_eq!(frame.reference(5), 0x2000);
    assert_eq!(frame.float(6), -1.5);
    assert_eq!(frame.int(7), 1);
}

#[test]
fn constants_of_every_kind_reach_the_frame() {
    let frame = run("[]\nfinish(-5, 0x10, 2.5, nan, -0.0, null, ptr(0x40))", &[]);
    assert_eq!(frame.int(0), -5);
    assert_eq!(frame.int(1), 16);
    assert_eq!(frame.float(2), 2.5);
    assert!(frame.float(3).is_nan());
    assert_eq!(frame.float(4).to_bits(), (-0.0f64).to_bits());
    assert_eq!(frame.reference(5), 0);
    assert_eq!(frame.reference(6), 0x40);
}
