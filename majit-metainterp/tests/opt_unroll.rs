//! The JIT primer's worked example (Aheui countdown by two, section 6) and
//! loop peeling: text in, text out, both traces run on refexec.

mod opt_support;

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
        "
        [p0]
        label(p0, descr=Loop)
        p1 = getfield_gc_r(p0, descr=Stack.head)
        i3 = getfield_gc_i(p1, descr=Node.value)
        p4 = getfield_gc_r(p1, descr=Node.next)
        i5 = int_sub(i3, 2)
        i8 = int_is_zero(i5)
        guard_false(i8) [p0, i5, p4]
        p6 = new(descr=Node)
        setfield_gc(p6, i5, descr=Node.value)
        setfield_gc(p6, p4, descr=Node.next)
        setfield_gc(p0, p6, descr=Stack.head)
        jump(p0, descr=Loop)",
    );
    // v0 = Node{i5, p4}; pending p0.head := v0
    let rd = &out.resume[&0];
    assert_eq!(rd.values, vec![Tagged::Box(0), Tagged::Box(1)]);
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
        "
        descr Loop.peeled = target()
        [p0]
        label(p0, descr=Loop)
        p1 = getfield_gc_r(p0, descr=Stack.head)
        i3 = getfield_gc_i(p1, descr=Node.value)
        p4 = getfield_gc_r(p1, descr=Node.next)
        i5 = int_sub(i3, 2)
        i8 = int_is_zero(i5)
        guard_false(i8) [p0, i5, p4]
        p6 = new(descr=Node)
        setfield_gc(p6, p4, descr=Node.next)
        setfield_gc(p6, i5, descr=Node.value)
        setfield_gc(p0, p6, descr=Stack.head)
        label(p0, i5, p4, descr=Loop.peeled)
        i10 = int_sub(i5, 2)
        i11 = int_is_zero(i10)
        guard_false(i11) [p0, i10, p4]
        p12 = new(descr=Node)
        setfield_gc(p12, p4, descr=Node.next)
        setfield_gc(p12, i10, descr=Node.value)
        setfield_gc(p0, p12, descr=Stack.head)
        jump(p0, i10, p4, descr=Loop.peeled)",
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
        jump(i6, i3, descr=Loop.peeled)",
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
