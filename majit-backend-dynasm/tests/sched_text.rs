//! Scheduling as text: a trace in, the ops in the order the scheduler
//! emits them out, one per line (`MAJIT_BLESS=1` rewrites the expected
//! text, see `majit_ir::testing`). Architecture-independent: scheduling
//! runs before register allocation. Inputs use the printer's names (op
//! `k`'s result is numbered after the inputs, guards and stores count), so
//! the listing's names match them.

use majit_backend_dynasm::sched::{schedule, NativeSched, RandomSched, SchedStrategy};
use majit_ir::fuzzing::test_namespace;
use majit_ir::testing::Expect;
use majit_ir::text::op_text;
use majit_ir::{expect, parse_with};

/// Schedules `input` with `strategy` and compares the listing.
#[track_caller]
fn assert_schedule(strategy: &mut dyn SchedStrategy, input: &str, expected: Expect) {
    let trace = parse_with(input, &test_namespace()).unwrap_or_else(|e| panic!("{e}"));
    let order = schedule(&trace, strategy).unwrap_or_else(|e| panic!("{e}"));
    let listing: Vec<String> = order.iter().map(|&i| op_text(&trace, i)).collect();
    expected.assert_eq(&listing.join("\n"));
}

const GUARDED: &str = "
    [i0, i1]
    i2 = int_lt(i0, i1)
    i3 = int_add(i0, 1)
    i4 = int_mul(i1, i1)
    guard_true(i2) [i3]
    i6 = int_sub(i3, i4)
    finish(i6)";

#[test]
fn native_puts_the_tested_comparison_before_its_guard() {
    assert_schedule(
        &mut NativeSched,
        GUARDED,
        expect![
            r"
            i3 = int_add(i0, 1)
            i4 = int_mul(i1, i1)
            i2 = int_lt(i0, i1)
            guard_true(i2) [i3]
            i6 = int_sub(i3, i4)
            finish(i6)
            "
        ],
    );
}

#[test]
fn random_schedules_keep_guards_and_stores_in_place() {
    assert_schedule(
        &mut RandomSched::new(7),
        "
        [p0, i1]
        i2 = getfield_gc_i(p0, descr=Node.value)
        i3 = int_add(i2, i1)
        setfield_gc(p0, i3, descr=Node.value)
        i5 = int_mul(i1, 3)
        i6 = getfield_gc_i(p0, descr=Node.value)
        i7 = int_add(i5, i6)
        finish(i7)",
        expect![
            r"
            i2 = getfield_gc_i(p0, descr=Node.value)
            i3 = int_add(i2, i1)
            setfield_gc(p0, i3, descr=Node.value)
            i6 = getfield_gc_i(p0, descr=Node.value)
            i5 = int_mul(i1, 3)
            i7 = int_add(i5, i6)
            finish(i7)
            "
        ],
    );
}
