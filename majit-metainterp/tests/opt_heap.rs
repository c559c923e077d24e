//! heap: load caching, store elimination, lazy sets, invalidation by calls
//! and aliasing stores. Text in, text out, both traces run on refexec.

mod opt_support;

use majit_ir::expect;
use opt_support::assert_opt;

#[test]
fn repeated_load_is_reused() {
    assert_opt(
        "heap",
        "
        [p0]
        i1 = getfield_gc_i(p0, descr=Node.value)
        i2 = getfield_gc_i(p0, descr=Node.value)
        i3 = int_add(i1, i2)
        finish(i3)",
        expect![
            "
            [p0]
            i1 = getfield_gc_i(p0, descr=Node.value)
            i3 = int_add(i1, i1)
            finish(i3)"
        ],
    );
}

#[test]
fn load_after_store_reads_the_stored_value_and_the_store_is_delayed() {
    assert_opt(
        "heap",
        "
        [p0, i1]
        setfield_gc(p0, i1, descr=Node.value)
        i2 = getfield_gc_i(p0, descr=Node.value)
        i3 = int_add(i2, 1)
        finish(i3)",
        expect![
            "
            [p0, i1]
            i3 = int_add(i1, 1)
            setfield_gc(p0, i1, descr=Node.value)
            finish(i3)"
        ],
    );
}

#[test]
fn storing_the_known_value_is_removed() {
    assert_opt(
        "heap",
        "
        [p0]
        i1 = getfield_gc_i(p0, descr=Node.value)
        setfield_gc(p0, i1, descr=Node.value)
        finish(i1)",
        expect![
            "
            [p0]
            i1 = getfield_gc_i(p0, descr=Node.value)
            finish(i1)"
        ],
    );
}

#[test]
fn second_store_to_the_same_field_overwrites_the_lazy_set() {
    assert_opt(
        "heap",
        "
        [p0, i1, i2]
        setfield_gc(p0, i1, descr=Node.value)
        setfield_gc(p0, i2, descr=Node.value)
        finish()",
        expect![
            "
            [p0, i1, i2]
            setfield_gc(p0, i2, descr=Node.value)
            finish()"
        ],
    );
}

#[test]
fn restoring_the_value_memory_holds_cancels_the_lazy_set() {
    assert_opt(
        "heap",
        "
        [p0, p1]
        p2 = getfield_gc_r(p0, descr=Stack.head)
        setfield_gc(p0, p1, descr=Stack.head)
        setfield_gc(p0, p2, descr=Stack.head)
        finish(p2)",
        expect![
            "
            [p0, p1]
            p2 = getfield_gc_r(p0, descr=Stack.head)
            finish(p2)"
        ],
    );
}

#[test]
fn store_through_a_possibly_aliasing_object_invalidates_and_flushes() {
    assert_opt(
        "heap",
        "
        [p0, p1, i2]
        i3 = getfield_gc_i(p0, descr=Node.value)
        setfield_gc(p1, i2, descr=Node.value)
        i4 = getfield_gc_i(p0, descr=Node.value)
        finish(i3, i4)",
        expect![
            "
            [p0, p1, i2]
            i3 = getfield_gc_i(p0, descr=Node.value)
            setfield_gc(p1, i2, descr=Node.value)
            i4 = getfield_gc_i(p0, descr=Node.value)
            finish(i3, i4)"
        ],
    );
}

#[test]
fn a_fresh_object_does_not_alias_older_ones() {
    assert_opt(
        "heap",
        "
        [p0, i2]
        i3 = getfield_gc_i(p0, descr=Node.value)
        p1 = new(descr=Node)
        setfield_gc(p1, i2, descr=Node.value)
        i4 = getfield_gc_i(p0, descr=Node.value)
        finish(i3, i4, p1)",
        expect![
            "
            [p0, i2]
            i3 = getfield_gc_i(p0, descr=Node.value)
            p1 = new(descr=Node)
            setfield_gc(p1, i2, descr=Node.value)
            finish(i3, i3, p1)"
        ],
    );
}

#[test]
fn random_call_flushes_lazy_sets_and_forgets_loads() {
    assert_opt(
        "heap",
        "
        [p0, i1]
        i2 = getfield_gc_i(p0, descr=Node.value)
        setfield_gc(p0, i1, descr=Node.value)
        p3 = call_r(@id_ref, p0, descr=Call.r_r)
        i4 = getfield_gc_i(p0, descr=Node.value)
        finish(i2, i4)",
        expect![
            "
            [p0, i1]
            i2 = getfield_gc_i(p0, descr=Node.value)
            setfield_gc(p0, i1, descr=Node.value)
            p3 = call_r(@id_ref, p0, descr=Call.r_r)
            i4 = getfield_gc_i(p0, descr=Node.value)
            finish(i2, i4)"
        ],
    );
}

#[test]
fn elidable_call_keeps_the_cache_and_the_lazy_set() {
    assert_opt(
        "heap",
        "
        [p0, i1]
        setfield_gc(p0, i1, descr=Node.value)
        i3 = call_i(@add_ints, i1, 2, descr=Call.ii_i)
        i4 = getfield_gc_i(p0, descr=Node.value)
        finish(i3, i4)",
        expect![
            "
            [p0, i1]
            i3 = call_i(@add_ints, i1, 2, descr=Call.ii_i)
            setfield_gc(p0, i1, descr=Node.value)
            finish(i3, i1)"
        ],
    );
}

#[test]
fn declared_call_invalidates_only_what_it_writes() {
    assert_opt(
        "heap",
        "
        descr Call.w = call(args=[int, int], result=int, effect=declared, writes=[Node.next])
        [p0, i1]
        i2 = getfield_gc_i(p0, descr=Node.value)
        p5 = getfield_gc_r(p0, descr=Node.next)
        i3 = call_i(@add_ints, i1, 2, descr=Call.w)
        i4 = getfield_gc_i(p0, descr=Node.value)
        p6 = getfield_gc_r(p0, descr=Node.next)
        finish(i3, i4, p6)",
        expect![
            "
            descr Call.w = call(args=[int, int], result=int, effect=declared, writes=[Node.next])
            [p0, i1]
            i2 = getfield_gc_i(p0, descr=Node.value)
            i3 = call_i(@add_ints, i1, 2, descr=Call.w)
            p6 = getfield_gc_r(p0, descr=Node.next)
            finish(i3, i2, p6)"
        ],
    );
}

#[test]
fn lazy_set_of_a_real_value_is_emitted_before_a_guard() {
    assert_opt(
        "heap",
        "
        [p0, i1]
        setfield_gc(p0, i1, descr=Node.value)
        i2 = int_lt(i1, 3)
        guard_true(i2) [i1]
        finish()",
        expect![
            "
            [p0, i1]
            i2 = int_lt(i1, 3)
            setfield_gc(p0, i1, descr=Node.value)
            guard_true(i2) [i1]
            finish()"
        ],
    );
}

#[test]
fn lazy_sets_stay_before_an_overflow_check_and_its_guard() {
    assert_opt(
        "heap",
        "
        [p0, i1]
        setfield_gc(p0, i1, descr=Node.value)
        i2 = int_add_ovf(i1, 9223372036854775800)
        guard_no_overflow() [i1]
        finish(i2)",
        expect![
            "
            [p0, i1]
            setfield_gc(p0, i1, descr=Node.value)
            i2 = int_add_ovf(i1, 9223372036854775800)
            guard_no_overflow() [i1]
            finish(i2)"
        ],
    );
}

#[test]
fn constant_index_array_items_are_cached_and_delayed() {
    assert_opt(
        "heap",
        "
        [p0, i1, i5]
        setarrayitem_gc(p0, 2, i1, descr=IntArray)
        i2 = getarrayitem_gc_i(p0, 2, descr=IntArray)
        i3 = getarrayitem_gc_i(p0, 3, descr=IntArray)
        i4 = getarrayitem_gc_i(p0, 3, descr=IntArray)
        i6 = int_and(i5, 3)
        i7 = getarrayitem_gc_i(p0, i6, descr=IntArray)
        finish(i2, i3, i4, i7)",
        expect![
            "
            [p0, i1, i5]
            i3 = getarrayitem_gc_i(p0, 3, descr=IntArray)
            i6 = int_and(i5, 3)
            setarrayitem_gc(p0, 2, i1, descr=IntArray)
            i7 = getarrayitem_gc_i(p0, i6, descr=IntArray)
            finish(i1, i3, i3, i7)"
        ],
    );
}

#[test]
fn guard_not_invalidated_is_kept_once_between_calls() {
    // The second guard tests the same word with no call between: dropped;
    // after a call with effects (which may write a quasi-immutable
    // field) it is needed again; an elidable call writes nothing.
    assert_opt(
        "heap",
        "
        descr Call.w = call(args=[int, int], result=int, effect=declared, writes=[Node.next])
        [p0, i1]
        guard_not_invalidated(p0) [i1]
        guard_not_invalidated(p0) [i1]
        i2 = call_pure_i(@add_ints, i1, 2, descr=Call.ii_i)
        guard_not_invalidated(p0) [i2]
        i3 = call_i(@add_ints, i2, 2, descr=Call.w)
        guard_not_invalidated(p0) [i3]
        finish(i3)",
        expect![
            "
            descr Call.w = call(args=[int, int], result=int, effect=declared, writes=[Node.next])
            [p0, i1]
            guard_not_invalidated(p0) [i1]
            i3 = call_pure_i(@add_ints, i1, 2, descr=Call.ii_i)
            i4 = call_i(@add_ints, i3, 2, descr=Call.w)
            guard_not_invalidated(p0) [i4]
            finish(i4)"
        ],
    );
}
