//! virtualize (with heap where stores into non-virtuals matter): text in,
//! text out, both traces run on the reference executor.

mod opt_support;

use majit_ir::expect;
use majit_metainterp::resume::{Layout, PendingField, Slot, Tagged};
use opt_support::{assert_opt, exec::check_equivalent, optimize_checked, parse};

#[test]
fn field_read_of_a_virtual_folds() {
    assert_opt(
        "virtualize:heap",
        "
        [i0]
        p1 = new(descr=Node)
        setfield_gc(p1, i0, descr=Node.value)
        i2 = getfield_gc_i(p1, descr=Node.value)
        finish(i2)",
        expect![
            "
            [i0]
            finish(i0)"
        ],
    );
}

#[test]
fn unset_fields_read_as_zero_and_null() {
    assert_opt(
        "virtualize",
        "
        [i0]
        p1 = new(descr=Node)
        i2 = getfield_gc_i(p1, descr=Node.value)
        p3 = getfield_gc_r(p1, descr=Node.next)
        finish(i2, p3)",
        expect![
            "
            [i0]
            finish(0, null)"
        ],
    );
}

#[test]
fn virtual_escaping_through_a_store_is_forced_at_the_store() {
    assert_opt(
        "virtualize",
        "
        [p0, i0]
        p1 = new(descr=Node)
        setfield_gc(p1, i0, descr=Node.value)
        i2 = int_add(i0, 1)
        setfield_gc(p0, p1, descr=Stack.head)
        finish(i2)",
        expect![
            "
            [p0, i0]
            i2 = int_add(i0, 1)
            p1 = new(descr=Node)
            setfield_gc(p1, i0, descr=Node.value)
            setfield_gc(p0, p1, descr=Stack.head)
            finish(i2)"
        ],
    );
}

#[test]
fn virtual_escaping_through_a_call_is_forced_before_it() {
    let out = assert_opt(
        "virtualize:heap",
        "
        [i0]
        p1 = new(descr=Node)
        setfield_gc(p1, i0, descr=Node.value)
        p2 = call_r(@id_ref, p1, descr=Call.r_r)
        i3 = getfield_gc_i(p2, descr=Node.value)
        finish(i3)",
        expect![
            "
            [i0]
            p1 = new(descr=Node)
            setfield_gc(p1, i0, descr=Node.value)
            p2 = call_r(@id_ref, p1, descr=Call.r_r)
            i3 = getfield_gc_i(p2, descr=Node.value)
            finish(i3)"
        ],
    );
    let escaped: Vec<_> = out.ledger.allocations().collect();
    assert_eq!(escaped.len(), 1, "{:?}", out.ledger);
    assert_eq!(escaped[0].op_index, Some(0));
    assert!(escaped[0].detail.contains("call"), "{}", escaped[0]);
}

#[test]
fn virtual_returned_by_finish_is_forced_with_its_fields() {
    let out = assert_opt(
        "virtualize:heap",
        "
        [i0]
        p1 = new(descr=Node)
        p2 = new(descr=Node)
        setfield_gc(p1, i0, descr=Node.value)
        setfield_gc(p1, p2, descr=Node.next)
        setfield_gc(p2, 7, descr=Node.value)
        finish(p1)",
        expect![
            "
            [i0]
            p1 = new(descr=Node)
            p2 = new(descr=Node)
            setfield_gc(p1, i0, descr=Node.value)
            setfield_gc(p1, p2, descr=Node.next)
            setfield_gc(p2, 7, descr=Node.value)
            finish(p1)"
        ],
    );
    assert_eq!(out.ledger.allocations().count(), 2);
}

#[test]
fn a_forced_virtual_stores_no_zero_or_null() {
    // The allocation is zeroed: fields set to 0 or null (even over an
    // earlier value) need no store when the virtual is forced.
    assert_opt(
        "virtualize:heap",
        "
        [i0, p0]
        p1 = new(descr=Node)
        setfield_gc(p1, i0, descr=Node.value)
        setfield_gc(p1, 0, descr=Node.value)
        setfield_gc(p1, p0, descr=Node.next)
        setfield_gc(p1, null, descr=Node.next)
        p2 = new(descr=Node)
        setfield_gc(p2, i0, descr=Node.value)
        setfield_gc(p2, null, descr=Node.next)
        setfield_gc(p1, p2, descr=Node.next)
        finish(p1)",
        expect![
            "
            [i0, p0]
            p1 = new(descr=Node)
            p2 = new(descr=Node)
            setfield_gc(p1, p2, descr=Node.next)
            setfield_gc(p2, i0, descr=Node.value)
            finish(p1)"
        ],
    );
}

#[test]
fn cyclic_virtuals_are_forced_once_each() {
    assert_opt(
        "virtualize",
        "
        [i0]
        p1 = new(descr=Node)
        p2 = new(descr=Node)
        setfield_gc(p1, p2, descr=Node.next)
        setfield_gc(p2, p1, descr=Node.next)
        finish(p1)",
        expect![
            "
            [i0]
            p1 = new(descr=Node)
            p2 = new(descr=Node)
            setfield_gc(p1, p2, descr=Node.next)
            setfield_gc(p2, p1, descr=Node.next)
            finish(p1)"
        ],
    );
}

#[test]
fn a_guard_does_not_force_its_virtuals_resume_data_describes_them() {
    let out = assert_opt(
        "virtualize:heap",
        "
        [i0, i1]
        p2 = new(descr=Node)
        setfield_gc(p2, i0, descr=Node.value)
        i3 = int_lt(i1, 5)
        guard_true(i3) [p2, i1]
        i4 = getfield_gc_i(p2, descr=Node.value)
        finish(i4)",
        expect![
            "
            [i0, i1]
            i3 = int_lt(i1, 5)
            guard_true(i3) [i0, i1]
            finish(i0)"
        ],
    );
    let rd = &out.resume[&opt_support::AUTO_FAIL_BASE];
    assert_eq!(rd.values, vec![Tagged::Virtual(0), Tagged::Box(1)]);
    assert_eq!(rd.virtuals.len(), 1);
    assert!(matches!(&rd.virtuals[0].layout, Layout::Struct { size, .. } if size.name == "Node"));
    assert!(
        matches!(&rd.virtuals[0].fields[..], [(Slot::Field(f), Tagged::Box(0))] if f.name == "Node.value")
    );
    assert_eq!(out.ledger.allocations().count(), 0);
}

#[test]
fn lazy_set_of_a_virtual_becomes_a_pending_field() {
    let out = assert_opt(
        "virtualize:heap",
        "
        [p0, i1]
        p2 = new(descr=Node)
        setfield_gc(p2, i1, descr=Node.value)
        setfield_gc(p0, p2, descr=Stack.head)
        i3 = int_lt(i1, 5)
        guard_true(i3) [p0]
        finish()",
        expect![
            "
            [p0, i1]
            i3 = int_lt(i1, 5)
            guard_true(i3) [p0, i1]
            p2 = new(descr=Node)
            setfield_gc(p2, i1, descr=Node.value)
            setfield_gc(p0, p2, descr=Stack.head)
            finish()"
        ],
    );
    let rd = &out.resume[&opt_support::AUTO_FAIL_BASE];
    assert_eq!(rd.values, vec![Tagged::Box(0)]);
    assert_eq!(rd.virtuals.len(), 1);
    assert!(matches!(
        &rd.pending[..],
        [PendingField { target: Tagged::Box(0), slot: Slot::Field(f), value: Tagged::Virtual(0) }]
            if f.name == "Stack.head"
    ));
}

#[test]
fn shared_virtual_keeps_its_identity_in_resume_data() {
    let out = assert_opt(
        "virtualize:heap",
        "
        [p0, i1]
        p2 = new(descr=Node)
        p3 = new(descr=Node)
        setfield_gc(p3, p2, descr=Node.next)
        setfield_gc(p0, p2, descr=Stack.head)
        i4 = int_gt(i1, 3)
        guard_false(i4) [p3, p2, p0]
        finish()",
        expect![
            "
            [p0, i1]
            i4 = int_gt(i1, 3)
            guard_false(i4) [p0]
            p2 = new(descr=Node)
            setfield_gc(p0, p2, descr=Stack.head)
            finish()"
        ],
    );
    let rd = &out.resume[&opt_support::AUTO_FAIL_BASE];
    assert_eq!(
        rd.values,
        vec![Tagged::Virtual(0), Tagged::Virtual(1), Tagged::Box(0)]
    );
    assert_eq!(rd.pending[0].value, Tagged::Virtual(1));
}

#[test]
fn virtual_arrays_fold_items_and_length() {
    assert_opt(
        "virtualize",
        "
        [i0]
        p1 = new_array_clear(3, descr=IntArray)
        setarrayitem_gc(p1, 1, i0, descr=IntArray)
        i2 = getarrayitem_gc_i(p1, 1, descr=IntArray)
        i3 = getarrayitem_gc_i(p1, 2, descr=IntArray)
        i4 = arraylen_gc(p1, descr=IntArray)
        finish(i2, i3, i4)",
        expect![
            "
            [i0]
            finish(i0, 0, 3)"
        ],
    );
}

#[test]
fn ptr_eq_of_a_virtual_is_known() {
    assert_opt(
        "virtualize",
        "
        [p0]
        p1 = new(descr=Node)
        i2 = ptr_eq(p1, p0)
        i3 = ptr_eq(p1, p1)
        finish(i2, i3)",
        expect![
            "
            [p0]
            finish(0, 1)"
        ],
    );
}

#[test]
fn guard_class_on_a_virtual_with_the_right_vtable_goes() {
    assert_opt(
        "virtualize",
        "
        [i0]
        p1 = new_with_vtable(descr=Stack)
        guard_nonnull_class(p1, 0x5700) []
        finish(i0)",
        expect![
            "
            [i0]
            finish(i0)"
        ],
    );
}

#[test]
fn guard_failure_rebuilds_virtuals_and_pending_fields() {
    // A guard that fails for most inputs: the oracle rebuilds the node and
    // performs the pending store, then compares both heaps.
    let t = parse(
        "
        [p0, i1]
        p2 = new(descr=Node)
        p3 = getfield_gc_r(p0, descr=Stack.head)
        setfield_gc(p2, i1, descr=Node.value)
        setfield_gc(p2, p3, descr=Node.next)
        setfield_gc(p0, p2, descr=Stack.head)
        i4 = int_gt(i1, 8)
        guard_true(i4) [p0, p2, i1]
        finish(i1)",
    );
    let out = optimize_checked("virtualize:heap", &t);
    let fails = check_equivalent(&t, &out, 20);
    assert!(fails >= 10, "only {fails} guard failures covered");
    let rd = &out.resume[&opt_support::AUTO_FAIL_BASE];
    assert_eq!(rd.pending.len(), 1);
    assert_eq!(rd.values[2], Tagged::Box(1));
}

#[test]
fn a_forced_object_keeps_its_known_class() {
    assert_opt(
        "rewrite:virtualize",
        "
        [i0]
        p1 = new_with_vtable(descr=Stack)
        setfield_gc(p1, i0, descr=Stack.len)
        p2 = call_r(@id_ref, p1, descr=Call.r_r)
        guard_class(p1, 0x5700) [i0]
        finish(p2)",
        expect![
            "
            [i0]
            p1 = new_with_vtable(descr=Stack)
            setfield_gc(p1, i0, descr=Stack.len)
            p2 = call_r(@id_ref, p1, descr=Call.r_r)
            finish(p2)"
        ],
    );
}

#[test]
fn a_virtual_is_not_tagged_and_stays_virtual() {
    // A class test of a virtual (`Obj::is`: the tag bits, then the class)
    // neither forces it nor leaves a guard; a small int or float stored
    // in it reads back as itself.
    assert_opt(
        "virtualize:rewrite:heap",
        "
        [i0, f5]
        p1 = new(descr=Node)
        p2 = int_tag(i0)
        setfield_gc(p1, p2, descr=Node.next)
        i3 = ptr_is_tagged(p1)
        guard_false(i3) [i0]
        i6 = ptr_is_float_tagged(p1)
        guard_false(i6) [i0]
        p4 = getfield_gc_r(p1, descr=Node.next)
        p7 = float_tag(f5)
        setfield_gc(p1, p7, descr=Node.next)
        p8 = getfield_gc_r(p1, descr=Node.next)
        finish(p4, p8)",
        expect![
            "
            [i0, f1]
            p2 = int_tag(i0)
            p3 = float_tag(f1)
            finish(p2, p3)"
        ],
    );
}
