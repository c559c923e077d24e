//! rewrite, intbounds and pure: folding, algebra, guard cleanup, ranges and
//! CSE. Text in, text out, both traces run on refexec.

mod opt_support;

use majit_ir::expect;
use majit_metainterp::opt::{optimize, OptError};
use opt_support::{assert_opt, parse};

#[test]
fn constants_fold_and_identities_apply() {
    assert_opt(
        "rewrite",
        "
        [i0]
        i1 = int_add(3, 4)
        i2 = int_mul(i0, i1)
        i3 = int_add(i2, 0)
        i4 = int_sub(i3, i3)
        i5 = int_mul(i0, 8)
        i6 = int_xor(i5, 0)
        finish(i3, i4, i6)",
        expect![
            "
            [i0]
            i2 = int_mul(i0, 7)
            i5 = int_lshift(i0, 3)
            finish(i2, 0, i5)"
        ],
    );
}

#[test]
fn unsigned_division_by_powers_of_two_shifts_and_masks() {
    assert_opt(
        "rewrite",
        "
        [i0]
        i1 = uint_floordiv(i0, 8)
        i2 = uint_mod(i0, 16)
        i3 = uint_floordiv(i0, 1)
        i4 = uint_floordiv(i0, 10)
        finish(i1, i2, i3, i4)",
        expect![
            "
            [i0]
            i1 = uint_rshift(i0, 3)
            i2 = int_and(i0, 15)
            i4 = uint_floordiv(i0, 10)
            finish(i1, i2, i0, i4)"
        ],
    );
}

#[test]
fn unsigned_remainders_and_quotients_are_bounded() {
    assert_opt(
        "intbounds",
        "
        [i0]
        i1 = uint_mod(i0, 10)
        i2 = int_lt(i1, 10)
        i3 = int_ge(i1, 0)
        i4 = uint_floordiv(i0, 3)
        i5 = int_ge(i4, 0)
        i6 = uint_floordiv(i0, -1)
        i7 = int_le(i6, 1)
        finish(i2, i3, i5, i7)",
        expect![
            "
            [i0]
            finish(1, 1, 1, 1)"
        ],
    );
}

#[test]
fn constants_move_right_and_additions_reassociate() {
    assert_opt(
        "rewrite",
        "
        [i0]
        i1 = int_add(2, i0)
        i2 = int_add(i1, 5)
        i3 = int_lt(10, i2)
        finish(i3)",
        expect![
            "
            [i0]
            i2 = int_add(i0, 7)
            i3 = int_gt(i2, 10)
            finish(i3)"
        ],
    );
}

#[test]
fn is_zero_of_a_comparison_becomes_its_negation() {
    assert_opt(
        "rewrite",
        "
        [i0, i1]
        i2 = int_lt(i0, i1)
        i3 = int_is_zero(i2)
        guard_true(i3) [i0]
        finish()",
        expect![
            "
            [i0, i1]
            i3 = int_ge(i0, i1)
            guard_true(i3) [i0]
            finish()"
        ],
    );
}

#[test]
fn a_guard_on_is_zero_tests_the_operand_itself() {
    let out = assert_opt(
        "rewrite",
        "
        [p0, i1, i7]
        i2 = ptr_is_tagged(p0)
        i3 = int_is_zero(i2)
        guard_true(i3) [p0, i3]
        i4 = int_is_zero(i1)
        guard_false(i4) [p0, i4]
        i5 = int_is_zero(i7)
        i6 = int_is_zero(i5)
        guard_true(i6) [p0]
        finish(i3)",
        expect![
            "
            [p0, i1, i7]
            i2 = ptr_is_tagged(p0)
            i3 = int_is_zero(i2)
            guard_false(i2) [p0]
            guard_true(i1) [p0]
            guard_true(i7) [p0]
            finish(i3)"
        ],
    );
    // The `int_is_zero` results the fail args keep resume as the constants
    // a failure implies (guard_true(i3) failed: i3 == 0; guard_false(i4)
    // failed: i4 == 1), so the trace need not compute them.
    let values = |k: u32| out.resume[&(opt_support::AUTO_FAIL_BASE + k)].to_string();
    assert_eq!(values(0).lines().next(), Some("values [BOX0, 0]"));
    assert_eq!(values(1).lines().next(), Some("values [BOX0, 1]"));
}

#[test]
fn a_float_comparison_tested_against_one_is_guarded_the_other_way() {
    // A float comparison has no one-op negation (NaN is unordered), so
    // `(x > y) != 1` becomes `int_is_zero`, and its guard the opposite
    // guard on the comparison, which the backend fuses with it; the
    // negation a fail arg keeps resumes as the constant a failure implies.
    let out = assert_opt(
        "rewrite",
        "
        [f0, f1]
        i2 = float_gt(f0, f1)
        i3 = int_ne(i2, 1)
        guard_true(i3) [f0, i3]
        i4 = float_lt(f0, f1)
        i5 = int_eq(i4, 0)
        guard_false(i5) [f0]
        finish()",
        expect![
            "
            [f0, f1]
            i2 = float_gt(f0, f1)
            guard_false(i2) [f0]
            i4 = float_lt(f0, f1)
            guard_true(i4) [f0]
            finish()"
        ],
    );
    let values = |k: u32| out.resume[&(opt_support::AUTO_FAIL_BASE + k)].to_string();
    assert_eq!(values(0).lines().next(), Some("values [BOX0, 0]"));
}

#[test]
fn a_comparison_tested_against_one_or_zero_is_itself_or_its_negation() {
    // An interpreter's `(a < b) != k` with the constant `k` of a Lua `LT`.
    assert_opt(
        "rewrite",
        "
        [i0, i1]
        i2 = int_lt(i0, i1)
        i3 = int_ne(i2, 1)
        guard_true(i3) [i0]
        i4 = uint_le(i0, i1)
        i5 = int_eq(i4, 0)
        guard_false(i5) [i0]
        i6 = int_eq(i2, 1)
        i7 = int_ne(i4, 0)
        finish(i6, i7)",
        expect![
            r"
            [i0, i1]
            i2 = int_lt(i0, i1)
            i3 = int_ge(i0, i1)
            guard_true(i3) [i0]
            i5 = uint_le(i0, i1)
            i6 = uint_gt(i0, i1)
            guard_false(i6) [i0]
            finish(i2, i5)
            "
        ],
    );
}

#[test]
fn a_ref_tested_against_null_needs_no_null_guard_after() {
    assert_opt(
        "rewrite",
        "
        [p0, p1]
        i2 = ptr_ne(p0, null)
        guard_true(i2) [p0]
        guard_nonnull(p0) [p0]
        i3 = ptr_eq(p1, null)
        guard_false(i3) [p1]
        guard_nonnull(p1) [p1]
        finish()",
        expect![
            r"
            [p0, p1]
            i2 = ptr_ne(p0, null)
            guard_true(i2) [p0]
            i4 = ptr_eq(p1, null)
            guard_false(i4) [p1]
            finish()
        "
        ],
    );
}

#[test]
fn duplicate_guards_go() {
    assert_opt(
        "rewrite",
        "
        [i0, p1]
        i2 = int_gt(i0, 0)
        guard_true(i2) [i0]
        guard_true(i2) [i0]
        guard_nonnull(p1) [i0]
        guard_nonnull(p1) [i0]
        finish()",
        expect![
            "
            [i0, p1]
            i2 = int_gt(i0, 0)
            guard_true(i2) [i0]
            guard_nonnull(p1) [i0]
            finish()"
        ],
    );
}

#[test]
fn guard_value_turns_its_value_into_a_constant_after_it() {
    let out = assert_opt(
        "rewrite",
        "
        [i0]
        guard_value(i0, 5) [i0]
        i1 = int_add(i0, 1)
        guard_value(i0, 5) [i0]
        finish(i1)",
        expect![
            "
            [i0]
            guard_value(i0, 5) [i0]
            finish(6)"
        ],
    );
    // The guard's own resume data keeps the run-time value, not 5.
    let rd = &out.resume[&opt_support::AUTO_FAIL_BASE];
    assert_eq!(rd.values, vec![majit_metainterp::resume::Tagged::Box(0)]);
}

#[test]
fn a_tag_only_failures_read_is_made_by_the_resume_data() {
    // p1 is read by the guard's resume data only: the guard keeps i0 and
    // its resume data tags it when the guard fails (every run below 10
    // exits there and compares the rebuilt ref).
    let out = assert_opt(
        majit_metainterp::opt::DEFAULT_OPTS,
        "
        [i0]
        p1 = int_tag(i0)
        i2 = int_lt(i0, 10)
        guard_false(i2) [p1]
        finish(i0)",
        expect![
            "
            [i0]
            i2 = int_lt(i0, 10)
            guard_false(i2) [i0]
            finish(i0)"
        ],
    );
    let rd = &out.resume[&opt_support::AUTO_FAIL_BASE];
    let tag = majit_metainterp::resume::Tagged::Tag(0, majit_ir::OpCode::IntTag);
    assert_eq!(rd.values, vec![tag]);
    assert_eq!(
        rd.to_string().lines().next(),
        Some("values [int_tag(BOX0)]")
    );
    let t = parse("[i0]\np1 = int_tag(i0)\ni2 = int_lt(i0, 10)\nguard_false(i2) [p1]\nfinish(i0)");
    assert!(
        opt_support::exec::check_equivalent(&t, &out, 16) > 0,
        "no run failed the guard"
    );
}

#[test]
fn a_guards_own_tested_value_resumes_as_the_constant_it_failed_with() {
    // Failing guard_true(i1) means i1 == 0; failing guard_false of a
    // boolean means 1: the fail args need not carry it (so the comparison
    // fuses into its branch).
    let out = assert_opt(
        "intbounds:rewrite",
        "
        [i0]
        i1 = int_lt(i0, 10)
        guard_true(i1) [i0, i1]
        i2 = int_gt(i0, 3)
        guard_false(i2) [i2, i0]
        finish(i0)",
        expect![
            "
            [i0]
            i1 = int_lt(i0, 10)
            guard_true(i1) [i0]
            i2 = int_gt(i0, 3)
            guard_false(i2) [i0]
            finish(i0)"
        ],
    );
    let values = |k: u32| out.resume[&(opt_support::AUTO_FAIL_BASE + k)].to_string();
    assert_eq!(values(0).lines().next(), Some("values [BOX0, 0]"));
    assert_eq!(values(1).lines().next(), Some("values [1, BOX0]"));
}

#[test]
fn int_fits_tag_bounds_its_operand_and_folds_once_it_is_known() {
    assert_opt(
        "intbounds:rewrite",
        "
        [i0]
        i1 = int_fits_tag(i0)
        guard_true(i1) [i0]
        p2 = int_tag(i0)
        i3 = int_untag(p2)
        i4 = int_and(i0, 1023)
        i5 = int_fits_tag(i4)
        guard_true(i5) [i0]
        finish(i3, i4)",
        expect![
            "
            [i0]
            i1 = int_fits_tag(i0)
            guard_true(i1) [i0]
            i4 = int_and(i0, 1023)
            finish(i0, i4)"
        ],
    );
}

#[test]
fn a_guard_that_always_fails_makes_the_trace_invalid() {
    let t = parse(
        "
        [i0]
        i1 = int_lt(3, 2)
        guard_true(i1) [i0]
        finish(i0)",
    );
    match optimize(&t, "rewrite") {
        Err(OptError::Invalid { op_index: 1, .. }) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn unknown_pass_names_are_reported_with_the_valid_ones() {
    let t = parse("[i0]\nfinish(i0)");
    let err = optimize(&t, "rewrite:bogus").unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("bogus") && text.contains("intbounds") && text.contains("unroll"),
        "{text}"
    );
}

#[test]
fn folded_overflow_check_takes_its_guard_along() {
    assert_opt(
        "rewrite",
        "
        [i0]
        i1 = int_add_ovf(i0, 0)
        guard_no_overflow() [i0]
        i2 = int_mul_ovf(3, 4)
        guard_no_overflow() [i0]
        finish(i1, i2)",
        expect![
            "
            [i0]
            finish(i0, 12)"
        ],
    );
}

#[test]
fn bounds_from_a_guard_decide_later_comparisons() {
    assert_opt(
        "intbounds:rewrite",
        "
        [i0]
        i1 = int_lt(i0, 10)
        guard_true(i1) [i0]
        i2 = int_ge(i0, 0)
        guard_true(i2) [i0]
        i3 = int_lt(i0, 20)
        guard_true(i3) [i0]
        i4 = int_add(i0, 5)
        i5 = int_le(i4, 14)
        finish(i5)",
        expect![
            "
            [i0]
            i1 = int_lt(i0, 10)
            guard_true(i1) [i0]
            i2 = int_ge(i0, 0)
            guard_true(i2) [i0]
            finish(1)"
        ],
    );
}

#[test]
fn unsigned_guards_on_non_negative_values_bound_both_sides() {
    // How a `call_assembler`'s status word is read back: at most 1, above
    // 0, then not below 1 (known).
    assert_opt(
        "intbounds:rewrite",
        "
        [i0]
        i1 = uint_gt(i0, 1)
        guard_false(i1) [i0]
        i2 = uint_gt(i0, 0)
        guard_true(i2) [i0]
        i3 = uint_lt(i0, 1)
        guard_false(i3) [i0]
        finish(i0)",
        expect![
            r"
            [i0]
            i1 = uint_gt(i0, 1)
            guard_false(i1) [i0]
            i3 = uint_gt(i0, 0)
            guard_true(i3) [i0]
            finish(i0)
        "
        ],
    );
}

#[test]
fn overflow_check_proven_by_bounds_is_removed() {
    assert_opt(
        "intbounds",
        "
        [i0]
        i1 = int_and(i0, 255)
        i2 = int_add_ovf(i1, 1)
        guard_no_overflow() [i0]
        i3 = int_mul_ovf(i0, 2)
        guard_no_overflow() [i0]
        finish(i2, i3)",
        expect![
            "
            [i0]
            i1 = int_and(i0, 255)
            i2 = int_add(i1, 1)
            i3 = int_mul_ovf(i0, 2)
            guard_no_overflow() [i0]
            finish(i2, i3)"
        ],
    );
}

#[test]
fn narrow_loads_have_bounds() {
    assert_opt(
        "intbounds:rewrite",
        "
        [p0]
        i0 = cast_ptr_to_int(p0)
        i1 = getarrayitem_raw_i(i0, 0, descr=RawU8)
        i2 = int_lt(i1, 256)
        guard_true(i2) [i1]
        finish(i1)",
        expect![
            "
            [p0]
            i0 = cast_ptr_to_int(p0)
            i1 = getarrayitem_raw_i(i0, 0, descr=RawU8)
            finish(i1)"
        ],
    );
}

#[test]
fn pure_ops_and_elidable_calls_are_shared() {
    assert_opt(
        "pure",
        "
        [i0, i1]
        i2 = int_add(i0, i1)
        i3 = int_add(i1, i0)
        i4 = call_pure_i(@add_ints, i2, 1, descr=Call.ii_i)
        i5 = call_pure_i(@add_ints, i3, 1, descr=Call.ii_i)
        i6 = int_mul(i4, i5)
        i7 = int_sub(10, 4)
        finish(i6, i7)",
        expect![
            "
            [i0, i1]
            i2 = int_add(i0, i1)
            i4 = call_pure_i(@add_ints, i2, 1, descr=Call.ii_i)
            i6 = int_mul(i4, i4)
            finish(i6, 6)"
        ],
    );
}

/// A `loop_invariant` call runs once per iteration: a repeat before the
/// loop's `label` reuses the first result, the peeled loop calls it again.
#[test]
fn a_loop_invariant_call_runs_once_per_iteration() {
    assert_opt(
        "heap:pure:unroll",
        "
        descr Call.li = call(args=[int, int], result=int, effect=loop_invariant)
        [i0]
        label(i0, descr=Loop)
        i1 = call_i(@add_ints, 5, 1, descr=Call.li)
        i2 = call_i(@add_ints, 5, 1, descr=Call.li)
        i3 = int_add(i1, i2)
        i4 = int_add(i0, i3)
        i5 = int_lt(i4, 1000)
        guard_true(i5) [i4]
        jump(i4, descr=Loop)",
        expect![
            r"
            descr Call.li = call(args=[int, int], result=int, effect=loop_invariant, reads=[], writes=[])
            descr Loop.peeled = target()
            [i0]
            label(i0, descr=Loop)
            i2 = call_i(@add_ints, 5, 1, descr=Call.li)
            i3 = int_add(i2, i2)
            i4 = int_add(i0, i3)
            i5 = int_lt(i4, 1000)
            guard_true(i5) [i4]
            label(i4, descr=Loop.peeled)
            i8 = call_i(@add_ints, 5, 1, descr=Call.li)
            i9 = int_add(i8, i8)
            i10 = int_add(i4, i9)
            i11 = int_lt(i10, 1000)
            guard_true(i11) [i10]
            jump(i10, descr=Loop.peeled)
            "
        ],
    );
}

#[test]
fn default_pipeline_on_a_straight_trace() {
    assert_opt(
        "intbounds:rewrite:virtualize:heap:pure",
        "
        [p0, i1]
        p2 = new(descr=Node)
        i3 = int_add(i1, 0)
        setfield_gc(p2, i3, descr=Node.value)
        i4 = getfield_gc_i(p2, descr=Node.value)
        i5 = int_mul(i4, 2)
        i6 = int_mul(i1, 2)
        i7 = int_sub(i5, i6)
        guard_value(i7, 0) [p2]
        finish(i6)",
        expect![
            "
            [p0, i1]
            i5 = int_lshift(i1, 1)
            finish(i5)"
        ],
    );
}

#[test]
fn the_ledger_reports_kept_overflow_checks_and_unpeeled_traces() {
    let out = assert_opt(
        majit_metainterp::opt::DEFAULT_OPTS,
        "
        [i0]
        i1 = int_add_ovf(i0, 1)
        guard_no_overflow() [i0]
        finish(i1)",
        expect![
            "
            [i0]
            i1 = int_add_ovf(i0, 1)
            guard_no_overflow() [i0]
            finish(i1)"
        ],
    );
    let text: Vec<String> = out.ledger.entries.iter().map(|e| e.to_string()).collect();
    assert!(
        text.iter()
            .any(|e| e.contains("[unroll]") && e.contains("not peeled")),
        "{text:?}"
    );
    assert!(
        text.iter()
            .any(|e| e.contains("[intbounds] op 0") && e.contains("int_add_ovf")),
        "{text:?}"
    );
}

#[test]
fn guards_get_their_cheaper_forms() {
    assert_opt(
        "rewrite",
        "
        [i0, p1]
        i2 = int_lt(i0, 4)
        guard_value(i2, 1) [i0]
        guard_nonnull(p1) [i0]
        guard_nonnull_class(p1, 0x5700) [i0]
        guard_class(p1, 0x5700) [i0]
        finish()",
        expect![
            "
            [i0, p1]
            i2 = int_lt(i0, 4)
            guard_true(i2) [i0]
            guard_nonnull(p1) [i0]
            guard_class(p1, 0x5700) [i0]
            finish()"
        ],
    );
}

#[test]
fn products_of_booleans_become_ands_and_two_bounds_one_range_test() {
    assert_opt(
        "intbounds:rewrite:pure",
        "
        [i0, i1]
        i2 = int_ge(i0, 10)
        i3 = int_ge(20, i0)
        i4 = int_mul(i2, i3)
        i5 = int_gt(i1, 0)
        i6 = int_mul(i4, i5)
        i7 = int_lt(i0, 5)
        i8 = int_and(i2, i7)
        i9 = int_le(i0, 3)
        i10 = int_mul(i7, i9)
        i11 = int_mul(i2, i0)
        finish(i6, i8, i10, i11)",
        expect![
            r"
            [i0, i1]
            i2 = int_ge(i0, 10)
            i3 = int_sub(i0, 10)
            i4 = uint_le(i3, 10)
            i5 = int_gt(i1, 0)
            i6 = int_and(i4, i5)
            i7 = int_le(i0, 3)
            i8 = int_mul(i2, i0)
            finish(i6, 0, i7, i8)
        "
        ],
    );
}

#[test]
fn a_small_int_round_trip_folds_once_the_value_fits() {
    // The check a tracer records before `int_tag` (`Obj::small_int`):
    // x == (x << 1) >> 1 bounds x to 63 bits, so untag(tag(x)) is x.
    assert_opt(
        "intbounds:rewrite",
        "
        [i0]
        i1 = int_lshift(i0, 1)
        i2 = int_rshift(i1, 1)
        i3 = int_eq(i2, i0)
        guard_true(i3) [i0]
        p4 = int_tag(i0)
        i5 = ptr_is_tagged(p4)
        guard_true(i5) [i0]
        i6 = int_untag(p4)
        i7 = int_add(i6, 1)
        finish(i7, p4)",
        expect![
            "
            [i0]
            i1 = int_lshift(i0, 1)
            i2 = int_rshift(i1, 1)
            i3 = int_eq(i2, i0)
            guard_true(i3) [i0]
            p4 = int_tag(i0)
            i7 = int_add(i0, 1)
            finish(i7, p4)"
        ],
    );
}

#[test]
fn a_small_int_check_of_a_bounded_value_folds() {
    // x % 1000 is within 63 bits: the check before tagging it is decided;
    // a value of unknown range keeps its check.
    assert_opt(
        "intbounds:rewrite",
        "
        [i0]
        i1 = int_mod(i0, 1000)
        i2 = int_lshift(i1, 1)
        i3 = int_rshift(i2, 1)
        i4 = int_eq(i3, i1)
        guard_true(i4) [i0]
        i5 = int_lshift(i0, 1)
        i6 = int_rshift(i5, 1)
        i7 = int_eq(i6, i0)
        guard_true(i7) [i0]
        finish(i1)",
        expect![
            "
            [i0]
            i1 = int_mod(i0, 1000)
            i2 = int_lshift(i0, 1)
            i3 = int_rshift(i2, 1)
            i4 = int_eq(i3, i0)
            guard_true(i4) [i0]
            finish(i1)"
        ],
    );
}

#[test]
fn unchecked_round_trips_are_kept() {
    // Without the check, tagging may drop an integer's top bit, and a
    // double that does not fit (NaN, -0.0, 1e300) tags to another
    // double's word: no fold; a failed check proves nothing either.
    assert_opt(
        "intbounds:rewrite",
        "
        [i0, f3]
        p1 = int_tag(i0)
        i2 = int_untag(p1)
        p4 = float_tag(f3)
        f5 = float_untag(p4)
        i6 = float_fits_tag(f3)
        guard_false(i6) [f3]
        f7 = float_untag(p4)
        finish(i2, f5, f7)",
        expect![
            "
            [i0, f1]
            p2 = int_tag(i0)
            i3 = int_untag(p2)
            p4 = float_tag(f1)
            f5 = float_untag(p4)
            i6 = float_fits_tag(f1)
            guard_false(i6) [f1]
            f7 = float_untag(p4)
            finish(i3, f5, f7)"
        ],
    );
}

#[test]
fn an_object_of_known_class_is_no_small_int_or_float() {
    assert_opt(
        "intbounds:rewrite",
        "
        [p0]
        guard_nonnull_class(p0, 22272) [p0]
        i1 = ptr_is_tagged(p0)
        guard_false(i1) [p0]
        i2 = ptr_is_float_tagged(p0)
        guard_false(i2) [p0]
        finish(p0)",
        expect![
            "
            [p0]
            guard_nonnull_class(p0, 22272) [p0]
            finish(p0)"
        ],
    );
}

#[test]
fn a_guarded_tag_answers_the_other_tag_test_and_null_check() {
    // The tags are disjoint: a word known to hold a small int is no small
    // float (Lua's arithmetic tests both of each operand loaded from a
    // register), a small float is no small int, and neither is null.
    assert_opt(
        "intbounds:rewrite",
        "
        [p0, p1]
        i2 = ptr_is_tagged(p0)
        guard_true(i2) [p0]
        i3 = ptr_is_float_tagged(p0)
        guard_false(i3) [p0]
        guard_nonnull(p0) [p0]
        i4 = ptr_is_float_tagged(p1)
        guard_true(i4) [p1]
        i5 = ptr_is_tagged(p1)
        guard_nonnull(p1) [p1]
        finish(i5)",
        expect![
            "
            [p0, p1]
            i2 = ptr_is_tagged(p0)
            guard_true(i2) [p0]
            i4 = ptr_is_float_tagged(p1)
            guard_true(i4) [p1]
            finish(0)"
        ],
    );
}

#[test]
fn a_small_float_round_trip_folds_once_the_fit_is_guarded() {
    // The check a tracer records before `float_tag` (`Obj::small_float`):
    // after it, untag(tag(x)) is x and the tag tests are known; a second
    // check of x, or of an untagged value, is 1.
    assert_opt(
        "intbounds:rewrite",
        "
        [f0, p1]
        i2 = float_fits_tag(f0)
        guard_true(i2) [f0]
        p3 = float_tag(f0)
        i4 = ptr_is_float_tagged(p3)
        guard_true(i4) [f0]
        i5 = ptr_is_tagged(p3)
        guard_false(i5) [f0]
        f6 = float_untag(p3)
        i7 = float_fits_tag(f6)
        guard_true(i7) [f0]
        f8 = float_untag(p1)
        i9 = float_fits_tag(f8)
        p10 = int_tag(i9)
        i11 = ptr_is_float_tagged(p10)
        finish(f6, p3, i9, i11)",
        expect![
            "
            [f0, p1]
            i2 = float_fits_tag(f0)
            guard_true(i2) [f0]
            p3 = float_tag(f0)
            finish(f0, p3, 1, 0)"
        ],
    );
}
