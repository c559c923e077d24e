//! The JIT primer's worked example (Aheui countdown by two, section 6) and
//! loop peeling: text in, text out, both traces run on refexec.

mod opt_support;

use majit_ir::{expect, Const};
use majit_metainterp::resume::{PendingField, Slot, Tagged};
use opt_support::{assert_opt, exec::check_equivalent, optimize_checked, parse};

/// `L: PUSH 2; SUB; DUP; BRZ exit; JMP L` as recorded, heap cache applied.
const AHEUI: &str = "
    [p0]
    label(p0, descr=Loop)
    p1 = getfield_gc_r(p0, descr=Stack.head)
    p2 = new(descr=Node)
    setfield_gc(p2, 2, descr=Node.value)
    setfield_gc(p2, p1, descr=Node.next)
    setfield_gc(p0, p2, descr=Stack.head)
    setfield_gc(p0, p1, descr=Stack.head)
    i3 = getfield_gc_i(p1, descr=Node.value)
    p4 = getfield_gc_r(p1, descr=Node.next)
    setfield_gc(p0, p4, descr=Stack.head)
    i5 = int_sub(i3, 2)
    p6 = new(descr=Node)
    setfield_gc(p6, i5, descr=Node.value)
    setfield_gc(p6, p4, descr=Node.next)
    setfield_gc(p0, p6, descr=Stack.head)
    p7 = new(descr=Node)
    setfield_gc(p7, i5, descr=Node.value)
    setfield_gc(p7, p6, descr=Node.next)
    setfield_gc(p0, p7, descr=Stack.head)
    setfield_gc(p0, p6, descr=Stack.head)
    i8 = int_is_zero(i5)
    guard_false(i8, descr=g0) [p0, i5]
    jump(p0, descr=Loop)";

#[test]
fn aheui_without_unroll_is_the_primers_preamble() {
    let out = assert_opt(
        "intbounds:rewrite:virtualize:heap:pure",
        AHEUI,
        expect![
            r"
            [p0]
            label(p0, descr=Loop)
            p2 = getfield_gc_r(p0, descr=Stack.head)
            i3 = getfield_gc_i(p2, descr=Node.value)
            p4 = getfield_gc_r(p2, descr=Node.next)
            i5 = int_sub(i3, 2)
            guard_true(i5) [p0, i5, p4]
            p7 = new(descr=Node)
            setfield_gc(p7, i5, descr=Node.value)
            setfield_gc(p7, p4, descr=Node.next)
            setfield_gc(p0, p7, descr=Stack.head)
            jump(p0, descr=Loop)
            "
        ],
    );
    // v0 = Node{i5, p4}; pending p0.head := v0; i5 is 0 whenever
    // guard_true(i5) fails.
    let rd = &out.resume[&0];
    assert_eq!(
        rd.values,
        vec![Tagged::Box(0), Tagged::Const(Const::Int(0))]
    );
    assert_eq!(rd.virtuals.len(), 1);
    assert_eq!(
        rd.virtuals[0]
            .fields
            .iter()
            .map(|(_, t)| t.clone())
            .collect::<Vec<_>>(),
        vec![Tagged::Box(1), Tagged::Box(2)]
    );
    assert!(matches!(
        &rd.pending[..],
        [PendingField { target: Tagged::Box(0), slot: Slot::Field(f), value: Tagged::Virtual(0) }]
            if f.name == "Stack.head"
    ));
    // Three allocations per iteration became one; the ledger says why.
    let allocs: Vec<_> = out.ledger.allocations().collect();
    assert_eq!(allocs.len(), 1, "{:?}", out.ledger);
    assert_eq!(allocs[0].op_index, Some(11));
}

#[test]
fn aheui_with_unroll_reads_no_memory_in_the_loop() {
    let out = assert_opt(
        "intbounds:rewrite:virtualize:heap:pure:unroll",
        AHEUI,
        expect![
            r"
            descr Loop.peeled = target()
            [p0]
            label(p0, descr=Loop)
            p2 = getfield_gc_r(p0, descr=Stack.head)
            i3 = getfield_gc_i(p2, descr=Node.value)
            p4 = getfield_gc_r(p2, descr=Node.next)
            i5 = int_sub(i3, 2)
            guard_true(i5) [p0, i5, p4]
            p7 = new(descr=Node)
            setfield_gc(p7, p4, descr=Node.next)
            setfield_gc(p7, i5, descr=Node.value)
            setfield_gc(p0, p7, descr=Stack.head)
            label(p0, i5, p4, descr=Loop.peeled)
            i12 = int_sub(i5, 2)
            guard_true(i12) [p0, i12, p4]
            p14 = new(descr=Node)
            setfield_gc(p14, p4, descr=Node.next)
            setfield_gc(p14, i12, descr=Node.value)
            setfield_gc(p0, p14, descr=Stack.head)
            jump(p0, i12, p4, descr=Loop.peeled)
            "
        ],
    );
    let copy = out
        .resume
        .iter()
        .find(|(id, _)| **id != 0)
        .expect("peeled guard");
    assert_eq!(copy.1.original, 0);
    assert_eq!(copy.1.pending.len(), 1);
    let short = out.short_preamble.as_ref().expect("short preamble");
    assert!(majit_ir::verify(short).is_ok());
}

/// A stack whose head value is even and positive counts down to zero, so
/// the guard fails after a few iterations: compare the rebuilt state.
#[test]
fn aheui_guard_failure_matches_with_and_without_unroll() {
    let t = parse(AHEUI);
    for opts in [
        "intbounds:rewrite:virtualize:heap:pure",
        "intbounds:rewrite:virtualize:heap:pure:unroll",
    ] {
        let out = optimize_checked(opts, &t);
        let exits = check_equivalent(&t, &out, 24);
        assert!(exits >= 3, "{opts}: only {exits} guard exits");
    }
}

#[test]
fn invariant_pure_and_load_move_out_of_the_loop() {
    assert_opt(
        "intbounds:rewrite:virtualize:heap:pure:unroll",
        "
        [p0, i1]
        label(p0, i1, descr=Loop)
        i2 = getfield_gc_i(p0, descr=Node.value)
        i3 = int_mul(i2, 3)
        i4 = int_add(i1, i3)
        i5 = int_lt(i4, 1000)
        guard_true(i5) [i4]
        jump(p0, i4, descr=Loop)",
        expect![
            "
            descr Loop.peeled = target()
            [p0, i1]
            label(p0, i1, descr=Loop)
            i2 = getfield_gc_i(p0, descr=Node.value)
            i3 = int_mul(i2, 3)
            i4 = int_add(i1, i3)
            i5 = int_lt(i4, 1000)
            guard_true(i5) [i4]
            label(i4, i3, descr=Loop.peeled)
            i6 = int_add(i4, i3)
            i7 = int_lt(i6, 1000)
            guard_true(i7) [i6]
            jump(i6, i3, descr=Loop.peeled)"
        ],
    );
}

/// A tag the preamble guarded is a label fact: the peeled loop, where the
/// repeated `ptr_is_tagged` is the preamble's, still knows the word is no
/// small float (Lua tests both tags of every operand it loads).
#[test]
fn a_guarded_tag_holds_in_the_peeled_loop() {
    assert_opt(
        "intbounds:rewrite:virtualize:heap:pure:unroll",
        "
        [p0, i1]
        label(p0, i1, descr=Loop)
        i2 = ptr_is_tagged(p0)
        guard_true(i2) [p0]
        i3 = ptr_is_float_tagged(p0)
        guard_false(i3) [p0]
        i4 = int_untag(p0)
        i5 = int_add(i1, i4)
        jump(p0, i5, descr=Loop)",
        expect![
            r"
            descr Loop.peeled = target()
            [p0, i1]
            label(p0, i1, descr=Loop)
            i3 = ptr_is_tagged(p0)
            guard_true(i3) [p0]
            i5 = int_untag(p0)
            i6 = int_add(i1, i5)
            label(i6, i5, descr=Loop.peeled)
            i8 = int_add(i6, i5)
            jump(i8, i5, descr=Loop.peeled)
        "
        ],
    );
}

/// Values kept tagged in a loop (a VM's numbers in `Obj`s): each jump
/// argument the preamble tags travels as the number, so the peeled loop
/// tests no tag, untags nothing and tags nothing nobody reads. A bridge
/// entering it through the short preamble untags after testing the tags.
/// (The executor's ref inputs are objects, so the tag tests fail at once
/// there.)
#[test]
fn tagged_values_travel_untagged_through_the_label() {
    let out = assert_opt(
        "intbounds:rewrite:virtualize:heap:pure:unroll",
        "
        [p0, p1, f2]
        label(p0, p1, f2, descr=Loop)
        i3 = ptr_is_float_tagged(p0)
        guard_true(i3) [p0]
        i4 = ptr_is_tagged(p1)
        guard_true(i4) [p1]
        f5 = float_untag(p0)
        f6 = float_mul(f5, f2)
        i7 = float_fits_tag(f6)
        guard_true(i7) [f6]
        p8 = float_tag(f6)
        i9 = int_untag(p1)
        i10 = int_and(i9, 1023)
        p11 = int_tag(i10)
        jump(p8, p11, f2, descr=Loop)",
        expect![
            r"
            descr Loop.peeled = target()
            [p0, p1, f2]
            label(p0, p1, f2, descr=Loop)
            i4 = ptr_is_float_tagged(p0)
            guard_true(i4) [p0]
            i6 = ptr_is_tagged(p1)
            guard_true(i6) [p1]
            f8 = float_untag(p0)
            f9 = float_mul(f8, f2)
            i10 = float_fits_tag(f9)
            guard_true(i10) [f9]
            i12 = int_untag(p1)
            i13 = int_and(i12, 1023)
            label(f9, i13, f2, descr=Loop.peeled)
            f15 = float_mul(f9, f2)
            i16 = float_fits_tag(f15)
            guard_true(i16) [f15]
            i18 = int_and(i13, 1023)
            jump(f15, i18, f2, descr=Loop.peeled)
            "
        ],
    );
    let short = out.short_preamble.as_ref().expect("short preamble");
    assert!(majit_ir::verify(short).is_ok());
    expect![
        r"
        descr entry0 = fail(id=0)
        descr entry1 = fail(id=1)
        descr entry2 = fail(id=2)
        descr entry3 = fail(id=3)
        descr entry4 = fail(id=4)
        descr entry5 = fail(id=5)
        descr Loop.peeled = target()
        [p0, p1, f2]
        i3 = ptr_is_float_tagged(p0)
        guard_true(i3, descr=entry0) [p0, p1, f2]
        f5 = float_untag(p0)
        i6 = float_fits_tag(f5)
        guard_true(i6, descr=entry1) [p0, p1, f2]
        i8 = ptr_is_tagged(p1)
        guard_true(i8, descr=entry2) [p0, p1, f2]
        i10 = int_untag(p1)
        i11 = int_ge(i10, 0)
        guard_true(i11, descr=entry3) [p0, p1, f2]
        i13 = int_le(i10, 1023)
        guard_true(i13, descr=entry4) [p0, p1, f2]
        i15 = float_fits_tag(f5)
        i16 = int_eq(i15, 1)
        guard_true(i16, descr=entry5) [p0, p1, f2]
        jump(f5, i10, f2, descr=Loop.peeled)
        "
    ]
    .assert_eq(&majit_ir::text::print(short));
}

/// The preamble exports `i0 & 255` and its shifts as short values; the
/// peeled loop needs only the first, so the others leave the label, and
/// the preamble stops computing them (nothing else reads them: the range
/// check folded).
#[test]
fn pruned_short_values_are_not_computed_in_the_preamble() {
    assert_opt(
        majit_metainterp::opt::DEFAULT_OPTS,
        "
        [i0, i1]
        label(i0, i1, descr=Loop)
        i2 = int_and(i0, 255)
        i3 = int_lshift(i2, 1)
        i4 = int_rshift(i3, 1)
        i5 = int_eq(i4, i2)
        guard_true(i5) [i1]
        i6 = int_add(i1, i2)
        jump(i0, i6, descr=Loop)",
        expect![
            r"
            descr Loop.peeled = target()
            [i0, i1]
            label(i0, i1, descr=Loop)
            i3 = int_and(i0, 255)
            i4 = int_add(i1, i3)
            label(i4, i3, descr=Loop.peeled)
            i6 = int_add(i4, i3)
            jump(i6, i3, descr=Loop.peeled)
        "
        ],
    );
}

#[test]
fn unroll_disabled_leaves_the_loop_unpeeled() {
    let out = optimize_checked("heap:pure", &parse(AHEUI));
    assert!(out.short_preamble.is_none());
    assert_eq!(
        out.trace
            .ops
            .iter()
            .filter(|o| o.opcode == majit_ir::OpCode::Label)
            .count(),
        1
    );
}

/// The primer's variant where the interpreter keeps the head in a red
/// local: the head is a virtual `Node{int, NotVirtual}` in the label state
/// and travels unboxed, so the peeled loop allocates nothing.
const RED_HEAD: &str = "
    [p0]
    label(p0, descr=Loop)
    i1 = getfield_gc_i(p0, descr=Node.value)
    p2 = getfield_gc_r(p0, descr=Node.next)
    i3 = int_sub(i1, 2)
    p4 = new(descr=Node)
    setfield_gc(p4, i3, descr=Node.value)
    setfield_gc(p4, p2, descr=Node.next)
    i5 = int_is_zero(i3)
    guard_false(i5, descr=g0) [p4]
    jump(p4, descr=Loop)";

#[test]
fn red_head_travels_unboxed_through_the_label() {
    let out = assert_opt(
        "intbounds:rewrite:virtualize:heap:pure:unroll",
        RED_HEAD,
        expect![
            r"
            descr Loop.peeled = target()
            [p0]
            label(p0, descr=Loop)
            i2 = getfield_gc_i(p0, descr=Node.value)
            p3 = getfield_gc_r(p0, descr=Node.next)
            i4 = int_sub(i2, 2)
            guard_true(i4) [i4, p3]
            label(i4, p3, descr=Loop.peeled)
            i7 = int_sub(i4, 2)
            guard_true(i7) [i7, p3]
            jump(i7, p3, descr=Loop.peeled)
            "
        ],
    );
    assert_eq!(out.ledger.allocations().count(), 0, "{:?}", out.ledger);
    let copy = out
        .resume
        .iter()
        .find(|(id, _)| **id != 0)
        .expect("peeled guard");
    // frame register head = v0 = Node{i10, p4}
    assert_eq!(copy.1.values, vec![Tagged::Virtual(0)]);
    assert!(out.short_preamble.is_none());
    let t = parse(RED_HEAD);
    assert!(check_equivalent(&t, &out, 24) >= 3);
}

/// A loop that grows the stack ends in `Node{_, Node{_, NotVirtual}}`: the
/// retry forces the inner node, so exactly the node that persists is
/// allocated per iteration. (The counter reaches the label twice, as the
/// head's value and as itself: the label keeps both.)
#[test]
fn growing_stack_allocates_exactly_the_persisting_node() {
    let input = "
        [p0, i1]
        label(p0, i1, descr=Loop)
        i2 = int_add(i1, 1)
        p3 = new(descr=Node)
        setfield_gc(p3, i2, descr=Node.value)
        setfield_gc(p3, p0, descr=Node.next)
        i4 = int_lt(i2, 5)
        guard_true(i4, descr=g0) [p3, i2]
        jump(p3, i2, descr=Loop)";
    let out = assert_opt(
        "intbounds:rewrite:virtualize:heap:pure:unroll",
        input,
        expect![
            "
            descr Loop.peeled = target()
            [p0, i1]
            label(p0, i1, descr=Loop)
            i2 = int_add(i1, 1)
            i4 = int_lt(i2, 5)
            guard_true(i4) [i2, p0]
            i5 = same_as_i(i2)
            label(i2, p0, i5, descr=Loop.peeled)
            i6 = int_add(i5, 1)
            i7 = int_lt(i6, 5)
            guard_true(i7) [i6, i2, p0]
            p8 = new(descr=Node)
            setfield_gc(p8, p0, descr=Node.next)
            setfield_gc(p8, i2, descr=Node.value)
            jump(i6, p8, i6, descr=Loop.peeled)"
        ],
    );
    let t = parse(input);
    assert!(check_equivalent(&t, &out, 8) >= 4);
}

/// The preamble proves `i1 <= 99`; the peeled loop assumes it of its label
/// argument (and re-proves it at its end), so its overflow check goes.
#[test]
fn label_bounds_remove_the_overflow_check_in_the_loop() {
    let input = "
        [i0]
        label(i0, descr=Loop)
        i1 = int_add_ovf(i0, 1)
        guard_no_overflow(descr=g0) [i0]
        i2 = int_lt(i1, 100)
        guard_true(i2, descr=g1) [i1]
        jump(i1, descr=Loop)";
    let out = assert_opt(
        majit_metainterp::opt::DEFAULT_OPTS,
        input,
        expect![
            "
            descr Loop.peeled = target()
            [i0]
            label(i0, descr=Loop)
            i1 = int_add_ovf(i0, 1)
            guard_no_overflow() [i0]
            i2 = int_lt(i1, 100)
            guard_true(i2) [i1]
            label(i1, descr=Loop.peeled)
            i3 = int_add(i1, 1)
            i4 = int_lt(i3, 100)
            guard_true(i4) [i3]
            jump(i3, descr=Loop.peeled)"
        ],
    );
    assert!(check_equivalent(&parse(input), &out, 8) >= 8);
}

/// The preamble proves the counter is 6 at the back edge, which makes the
/// loop's `guard_value(i, 5)` always fail under that fact: the fact is
/// dropped (the loop legitimately runs its body at most once) and the
/// peeled loop keeps the guard.
#[test]
fn label_facts_the_loop_contradicts_are_dropped() {
    let input = "
        [i0]
        label(i0, descr=Loop)
        guard_value(i0, 5, descr=g0) [i0]
        i1 = int_add(i0, 1)
        jump(i1, descr=Loop)";
    let out = assert_opt(
        majit_metainterp::opt::DEFAULT_OPTS,
        input,
        expect![
            "
            descr Loop.peeled = target()
            [i0]
            label(i0, descr=Loop)
            guard_value(i0, 5) [i0]
            i2 = same_as_i(6)
            label(i2, descr=Loop.peeled)
            guard_value(i2, 5) [i2]
            jump(6, descr=Loop.peeled)"
        ],
    );
    check_equivalent(&parse(input), &out, 40);
}

/// Found by `opt_alloc_fuzz` (seed 333): at the peeled loop's jump two
/// virtuals are forced; heap, storing the first one's fields, flushed a
/// delayed store naming the second before its allocation was emitted.
/// Forcing now emits every allocation before any field store.
#[test]
fn forced_jump_arguments_are_allocated_before_delayed_stores_name_them() {
    let input = "
        [p0, p1, i2, i3]
        label(p0, p1, i2, i3, descr=Loop)
        i4 = getfield_gc_i(p0, descr=Stack.len)
        i5 = int_ne(1, i3)
        guard_false(i5, descr=g1) [p0, i3, i2, p1]
        p6 = getfield_gc_r(p0, descr=Stack.head)
        i7 = getfield_gc_i(p6, descr=Node.value)
        setfield_gc(p0, p6, descr=Stack.head)
        i8 = int_add(i2, i2)
        setfield_gc(p6, i2, descr=Node.value)
        p9 = new(descr=Node)
        setfield_gc(p9, 5, descr=Node.value)
        setfield_gc(p9, p6, descr=Node.next)
        setfield_gc(p6, p9, descr=Node.next)
        i10 = ptr_eq(p1, p6)
        p11 = new(descr=Node)
        setfield_gc(p11, i3, descr=Node.value)
        setfield_gc(p11, p1, descr=Node.next)
        setfield_gc(p0, p6, descr=Stack.head)
        p12 = new(descr=Node)
        setfield_gc(p12, -2, descr=Node.value)
        setfield_gc(p12, p9, descr=Node.next)
        p13 = new(descr=Node)
        setfield_gc(p13, i10, descr=Node.value)
        setfield_gc(p13, p12, descr=Node.next)
        i14 = int_sub(i3, 1)
        i15 = int_gt(i14, -3)
        guard_true(i15, descr=g2) [p0, p11, i7]
        jump(p0, p11, i7, i14, descr=Loop)";
    let t = parse(input);
    let out = optimize_checked(majit_metainterp::opt::DEFAULT_OPTS, &t);
    assert!(out.short_preamble.is_none(), "p11 travels unboxed");
    check_equivalent(&t, &out, 8);
}

/// A bridge entering the peeled loop replays the short preamble: it
/// re-checks the facts the peeled loop assumes about its label arguments
/// (here `i1 < 1000` from the guard) and the loads' objects, then computes
/// the label's extra values and checks what the preamble knew of them
/// (that `i1 < 1000` held).
#[test]
fn the_short_preamble_guards_the_label_facts() {
    let t = parse(
        "
        [p0, i1]
        label(p0, i1, descr=Loop)
        i2 = getfield_gc_i(p0, descr=Node.value)
        i3 = int_mul(i2, 3)
        i4 = int_add(i1, i3)
        i5 = int_lt(i4, 1000)
        guard_true(i5) [i4]
        jump(p0, i4, descr=Loop)",
    );
    let out = optimize_checked(majit_metainterp::opt::DEFAULT_OPTS, &t);
    let short = out.short_preamble.as_ref().expect("short preamble");
    assert!(majit_ir::verify(short).is_ok());
    let expected = "\
descr entry0 = fail(id=0)
descr entry1 = fail(id=1)
descr Node.value = field(owner=Node, offset=0, size=8, kind=int, signed)
descr entry2 = fail(id=2)
descr Loop.peeled = target()
[p0, i1]
guard_nonnull(p0, descr=entry0) [p0, i1]
i3 = int_le(i1, 999)
guard_true(i3, descr=entry1) [p0, i1]
i5 = getfield_gc_i(p0, descr=Node.value)
i6 = int_mul(i5, 3)
i7 = int_lt(i1, 1000)
i8 = int_eq(i7, 1)
guard_true(i8, descr=entry2) [p0, i1]
jump(i1, i6, descr=Loop.peeled)
";
    assert_eq!(majit_ir::text::print(short), expected);
}

/// `i1` is a temporary the loop writes (7) before reading it again: only
/// its guard's resume data reads the old value. A bridge leaving another
/// value there may still enter the peeled loop: the short preamble checks
/// nothing about it (the loop body assumes nothing).
#[test]
fn the_short_preamble_checks_nothing_about_a_slot_the_loop_only_overwrites() {
    let t = parse(
        "
        [i0, i1]
        label(i0, i1, descr=Loop)
        i2 = int_add(i0, 1)
        i3 = int_lt(i2, 100)
        guard_true(i3) [i2, i1]
        jump(i2, 7, descr=Loop)",
    );
    let out = optimize_checked(majit_metainterp::opt::DEFAULT_OPTS, &t);
    let short = out.short_preamble.as_ref().expect("short preamble");
    expect![
        r"
        descr entry0 = fail(id=0)
        descr entry1 = fail(id=1)
        descr Loop.peeled = target()
        [i0, i1]
        i2 = int_le(i0, 99)
        guard_true(i2, descr=entry0) [i0, i1]
        i4 = int_lt(i0, 100)
        i5 = int_eq(i4, 1)
        guard_true(i5, descr=entry1) [i0, i1]
        jump(i0, i1, descr=Loop.peeled)
        "
    ]
    .assert_eq(&majit_ir::text::print(short));
}

/// A value the short preamble loads (`p2`, the head of `p0`) is non-null
/// and a `Stack` in the preamble: the peeled loop assumes both (it kept a
/// `guard_nonnull_class` per iteration before), so a bridge entering it
/// checks them right after the load.
#[test]
fn the_short_preamble_guards_its_loaded_values() {
    let input = "
        [p0, i1]
        label(p0, i1, descr=Loop)
        p2 = getfield_gc_r(p0, descr=Stack.head)
        guard_nonnull_class(p2, 0x5700, descr=g0) [p0, i1]
        i3 = getfield_gc_i(p2, descr=Stack.len)
        i4 = int_add(i1, i3)
        jump(p0, i4, descr=Loop)";
    let out = assert_opt(
        majit_metainterp::opt::DEFAULT_OPTS,
        input,
        expect![
            r"
            descr Loop.peeled = target()
            [p0, i1]
            label(p0, i1, descr=Loop)
            p3 = getfield_gc_r(p0, descr=Stack.head)
            guard_nonnull_class(p3, 22272) [p0, i1]
            i5 = getfield_gc_i(p3, descr=Stack.len)
            i6 = int_add(i1, i5)
            label(i6, i5, descr=Loop.peeled)
            i8 = int_add(i6, i5)
            jump(i8, i5, descr=Loop.peeled)
        "
        ],
    );
    let short = out.short_preamble.as_ref().expect("short preamble");
    assert!(majit_ir::verify(short).is_ok());
    let expected = "\
descr entry0 = fail(id=0)
descr Stack.head = field(owner=Stack, offset=8, size=8, kind=ref)
descr entry1 = fail(id=1)
descr entry2 = fail(id=2)
descr Stack.len = field(owner=Stack, offset=16, size=8, kind=int, signed)
descr Loop.peeled = target()
[p0, i1]
guard_nonnull(p0, descr=entry0) [p0, i1]
p3 = getfield_gc_r(p0, descr=Stack.head)
guard_nonnull(p3, descr=entry1) [p0, i1]
guard_class(p3, 22272, descr=entry2) [p0, i1]
i6 = getfield_gc_i(p3, descr=Stack.len)
jump(i1, i6, descr=Loop.peeled)
";
    assert_eq!(majit_ir::text::print(short), expected);
    check_equivalent(&parse(input), &out, 8);
}

/// The node a red carries is virtual in the label state, and escapes in
/// the peeled loop (stored into `p1`): its allocation there is the only
/// one left, and the ledger counts it once (it once counted it twice: as
/// escaped, and again as "virtualize is not enabled", since the rebuilt
/// virtual has no input op).
#[test]
fn a_label_virtual_forced_in_the_peeled_loop_is_counted_once() {
    let t = parse(
        "
        [p0, p1]
        label(p0, p1, descr=Loop)
        i2 = getfield_gc_i(p0, descr=Node.value)
        setfield_gc(p1, p0, descr=Node.next)
        i3 = int_sub(i2, 1)
        p4 = new(descr=Node)
        setfield_gc(p4, i3, descr=Node.value)
        i5 = int_is_zero(i3)
        guard_false(i5, descr=g0) [p4, p1]
        jump(p4, p1, descr=Loop)",
    );
    let out = optimize_checked("intbounds:rewrite:virtualize:heap:pure:unroll", &t);
    let news = out
        .trace
        .ops
        .iter()
        .filter(|o| o.opcode.is_allocation())
        .count();
    assert_eq!(news, 1, "{}", majit_ir::print(&out.trace));
    let kept: Vec<String> = out.ledger.allocations().map(|e| e.to_string()).collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(kept[0].contains("escaped"), "{kept:?}");
    check_equivalent(&t, &out, 8);
}

/// The peeled loop's guard copies take the ids right after the trace's
/// own: a trace whose guards are numbered from a large base does not push
/// the next ids to twice that base (ids once doubled with every peeled
/// loop and overflowed after a few dozen loops).
#[test]
fn guard_copies_take_the_ids_after_the_traces_own() {
    let t = parse(
        "
        [i0]
        label(i0, descr=Loop)
        i1 = int_sub(i0, 1)
        i2 = int_gt(i1, 0)
        guard_true(i2) [i1]
        i3 = int_lt(i1, 1000)
        guard_true(i3) [i1]
        jump(i1, descr=Loop)",
    );
    let ids = |t: &majit_ir::Trace| -> Vec<u32> {
        let fail = |o: &majit_ir::Op| o.descr.as_ref().and_then(|d| d.as_fail()).map(|d| d.id);
        t.ops.iter().filter_map(fail).collect()
    };
    let own = ids(&t);
    let out = optimize_checked(majit_metainterp::opt::DEFAULT_OPTS, &t);
    let (lo, hi) = (own[0], own[own.len() - 1]);
    assert!(lo >= 1000, "a large base: {own:?}");
    for id in ids(&out.trace) {
        assert!(
            id <= hi + (hi - lo) + 1,
            "{id} beyond the copies' range of {own:?}"
        );
    }
}

/// A retrace whose bridge leaves a `Stack` (class 0x5700, its `head`
/// cached) in a slot the loop overwrites with a `Node`: the short preamble
/// loads `Stack.head` from that slot, and replaying the load at the loop's
/// end would read a `Node` as a `Stack` (found by a Lua program whose
/// frame reuses a dead register for a boolean; it crashed). The load needs
/// its object's class there, so the retrace gives up. (The loop tests `p0`
/// here: a slot the body only overwrites gets no short ops at all.)
#[test]
fn short_loads_are_not_replayed_on_an_object_of_another_class() {
    let loop_trace = parse(
        "
        [p0, p1, i2]
        label(p0, p1, i2, descr=Loop)
        guard_nonnull(p0, descr=g1) [p1, i2]
        i3 = getfield_gc_i(p1, descr=Node.value)
        p4 = getfield_gc_r(p1, descr=Node.next)
        guard_nonnull_class(p4, 0x6600, descr=g0) [p1, i2]
        i5 = int_add(i2, i3)
        p6 = new(descr=Node)
        setfield_gc(p6, i5, descr=Node.value)
        setfield_gc(p6, p4, descr=Node.next)
        jump(p4, p6, i5, descr=Loop)",
    );
    let bridge = parse(
        "
        [p0, p1, i2]
        guard_nonnull_class(p0, 0x5700, descr=g9) [p0, p1, i2]
        i3 = getfield_gc_i(p0, descr=Stack.len)
        p4 = getfield_gc_r(p0, descr=Stack.head)
        guard_nonnull_class(p1, 0x6600, descr=g10) [p0, p1, i2]
        p5 = new(descr=Node)
        setfield_gc(p5, i3, descr=Node.value)
        setfield_gc(p5, p1, descr=Node.next)
        jump(p0, p5, i2, descr=Loop)",
    );
    let end = majit_metainterp::opt::BridgeEnd::Retrace {
        loop_trace: &loop_trace,
        name: "Loop.peeled.1",
        first_copy_id: 100,
    };
    let user = majit_metainterp::opt::UserPasses::default();
    let out = majit_metainterp::opt::optimize_bridge(
        &bridge,
        end,
        majit_metainterp::opt::DEFAULT_OPTS,
        &user,
    )
    .expect("optimizes");
    match out {
        Err(why) => assert!(why.contains("cannot prove safe"), "{why}"),
        Ok(o) => panic!(
            "retraced with a load of Stack.head from a Node:\n{}",
            majit_ir::text::print(&o.trace)
        ),
    }
}
