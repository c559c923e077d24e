//! The GC rewrite pass: trace text in, trace text out.
//!
//! Traces use the shared test namespace of majit-ir (`Node`, `Stack`,
//! `Box`, `RefArray`, calls) plus the header descr `Gc.header`. Each case
//! checks the exact output and that it passes the IR verifier.

use majit_gc::rewrite::{RewriteConfig, RewriteError};
use majit_gc::testing::{rewrite_namespace as namespace, rewrite_test_trace};
use majit_ir::{parse_with, print_with, verify};

fn run(config: &RewriteConfig, input: &str) -> Result<majit_ir::Trace, RewriteError> {
    let trace = parse_with(input, &namespace()).unwrap_or_else(|e| panic!("input: {e}"));
    verify(&trace).unwrap_or_else(|e| panic!("input does not verify: {e:?}"));
    rewrite_test_trace(&trace, config)
}

fn assert_rewrite_with(config: &RewriteConfig, input: &str, expected: &str) {
    let ns = namespace();
    let out = run(config, input).unwrap();
    let want = parse_with(expected, &ns).unwrap_or_else(|e| panic!("expected: {e}"));
    assert!(
        out == want,
        "rewrite output:\n{}\nexpected:\n{}",
        print_with(&out, &ns),
        print_with(&want, &ns)
    );
    verify(&out).unwrap_or_else(|e| panic!("output does not verify: {e:?}"));
}

fn assert_rewrite(input: &str, expected: &str) {
    assert_rewrite_with(&RewriteConfig::default(), input, expected);
}

#[test]
fn headerless_new_and_barrier_on_a_maybe_old_target() {
    assert_rewrite(
        "
        [p0, i10, p4]
        p12 = new(descr=Node)
        setfield_gc(p12, i10, descr=Node.value)
        setfield_gc(p12, p4, descr=Node.next)
        setfield_gc(p0, p12, descr=Stack.head)
        finish(p0)",
        "
        [p0, i10, p4]
        p12 = call_malloc_nursery_headerless(16, descr=Node)
        setfield_gc(p12, i10, descr=Node.value)
        setfield_gc(p12, p4, descr=Node.next)
        cond_call_gc_wb(p0)
        setfield_gc(p0, p12, descr=Stack.head)
        finish(p0)",
    );
}

#[test]
fn headered_new_gets_a_header_store_and_unwritten_refs_stay_zero() {
    assert_rewrite(
        "
        [i0]
        p1 = new_with_vtable(descr=Stack)
        setfield_gc(p1, i0, descr=Stack.len)
        guard_true(i0) [p1]
        finish(p1)",
        "
        [i0]
        p1 = call_malloc_nursery(24)
        setfield_gc(p1, 3, descr=Gc.header)
        setfield_gc(p1, i0, descr=Stack.len)
        guard_true(i0) [p1]
        finish(p1)",
    );
}

#[test]
fn zero_stores_into_fresh_unwritten_fields_go() {
    // The allocation is zero-filled: a constructor's explicit 0 and null
    // change nothing until the field was written, or an op that writes
    // memory some other way (a raw store, any call) may have written it.
    assert_rewrite(
        "
        [i0, p9]
        p1 = new_with_vtable(descr=Stack)
        setfield_gc(p1, 0, descr=Stack.len)
        setfield_gc(p1, null, descr=Stack.head)
        setfield_gc(p1, i0, descr=Stack.len)
        setfield_gc(p1, 0, descr=Stack.len)
        p2 = new_with_vtable(descr=Stack)
        setfield_raw(i0, i0, descr=RawCell.int)
        setfield_gc(p2, null, descr=Stack.head)
        call_n(1048592, i0, descr=Call.i_v)
        setfield_gc(p1, null, descr=Stack.head)
        setfield_gc(p9, 0, descr=Stack.len)
        finish(p1, p2)",
        "
        [i0, p9]
        p1 = call_malloc_nursery(48)
        setfield_gc(p1, 3, descr=Gc.header)
        setfield_gc(p1, i0, descr=Stack.len)
        setfield_gc(p1, 0, descr=Stack.len)
        p2 = nursery_ptr_increment(p1, 24)
        setfield_gc(p2, 3, descr=Gc.header)
        setfield_raw(i0, i0, descr=RawCell.int)
        setfield_gc(p2, null, descr=Stack.head)
        call_n(1048592, i0, descr=Call.i_v)
        setfield_gc(p1, null, descr=Stack.head)
        setfield_gc(p9, 0, descr=Stack.len)
        finish(p1, p2)",
    );
}

#[test]
fn consecutive_headered_allocations_share_one_bump() {
    assert_rewrite(
        "
        [i0]
        p1 = new(descr=Box)
        setfield_gc(p1, i0, descr=Box.value)
        p2 = new_with_vtable(descr=Stack)
        setfield_gc(p2, p1, descr=Stack.head)
        setfield_gc(p2, i0, descr=Stack.len)
        guard_true(i0) [p2]
        p3 = new(descr=Box)
        finish(p3)",
        "
        [i0]
        p1 = call_malloc_nursery(56)
        setfield_gc(p1, 9, descr=Gc.header)
        setfield_gc(p1, i0, descr=Box.value)
        p2 = nursery_ptr_increment(p1, 16)
        setfield_gc(p2, 3, descr=Gc.header)
        setfield_gc(p2, p1, descr=Stack.head)
        setfield_gc(p2, i0, descr=Stack.len)
        guard_true(i0) [p2]
        p3 = nursery_ptr_increment(p1, 40)
        setfield_gc(p3, 9, descr=Gc.header)
        finish(p3)",
    );
}

#[test]
fn batching_stops_at_the_size_limit_and_at_collection_points() {
    let config = RewriteConfig {
        max_batch_bytes: 32,
    };
    assert_rewrite_with(
        &config,
        "
        [i0]
        p1 = new(descr=Box)
        p2 = new(descr=Box)
        p3 = new(descr=Box)
        call_n(1048592, i0, descr=Call.i_v)
        p4 = new(descr=Box)
        p5 = new(descr=Node)
        p6 = new(descr=Box)
        finish(p1, p2, p3, p4, p5, p6)",
        "
        [i0]
        p1 = call_malloc_nursery(32)
        setfield_gc(p1, 9, descr=Gc.header)
        p2 = nursery_ptr_increment(p1, 16)
        setfield_gc(p2, 9, descr=Gc.header)
        p3 = call_malloc_nursery(16)
        setfield_gc(p3, 9, descr=Gc.header)
        call_n(1048592, i0, descr=Call.i_v)
        p4 = call_malloc_nursery(16)
        setfield_gc(p4, 9, descr=Gc.header)
        p5 = call_malloc_nursery_headerless(16, descr=Node)
        p6 = call_malloc_nursery(16)
        setfield_gc(p6, 9, descr=Gc.header)
        finish(p1, p2, p3, p4, p5, p6)",
    );
}

#[test]
fn an_allocation_ends_freshness_of_earlier_objects() {
    assert_rewrite(
        "
        [p0]
        p1 = new(descr=Node)
        p2 = new(descr=Node)
        setfield_gc(p1, p2, descr=Node.next)
        setfield_gc(p2, p1, descr=Node.next)
        finish(p1)",
        "
        [p0]
        p1 = call_malloc_nursery_headerless(16, descr=Node)
        p2 = call_malloc_nursery_headerless(16, descr=Node)
        cond_call_gc_wb(p1)
        setfield_gc(p1, p2, descr=Node.next)
        setfield_gc(p2, p1, descr=Node.next)
        finish(p1)",
    );
}

#[test]
fn one_barrier_per_object_until_a_collecting_call() {
    assert_rewrite(
        "
        [p0, p1, p2, i3]
        setfield_gc(p0, p1, descr=Stack.head)
        setfield_gc(p0, p2, descr=Stack.head)
        i4 = call_pure_i(1048576, i3, i3, descr=Call.ii_i)
        setfield_gc(p0, p1, descr=Stack.head)
        call_n(1048592, i4, descr=Call.i_v)
        setfield_gc(p0, p1, descr=Stack.head)
        setfield_gc(p2, null, descr=Stack.head)
        setfield_gc(p2, i3, descr=Stack.len)
        finish()",
        "
        [p0, p1, p2, i3]
        cond_call_gc_wb(p0)
        setfield_gc(p0, p1, descr=Stack.head)
        setfield_gc(p0, p2, descr=Stack.head)
        i4 = call_pure_i(1048576, i3, i3, descr=Call.ii_i)
        setfield_gc(p0, p1, descr=Stack.head)
        call_n(1048592, i4, descr=Call.i_v)
        cond_call_gc_wb(p0)
        setfield_gc(p0, p1, descr=Stack.head)
        setfield_gc(p2, null, descr=Stack.head)
        setfield_gc(p2, i3, descr=Stack.len)
        finish()",
    );
}

#[test]
fn arrays_use_varsize_allocation_and_the_array_barrier() {
    assert_rewrite(
        "
        [i0, p1, p5]
        p2 = new_array(i0, descr=RefArray)
        setarrayitem_gc(p2, 0, p1, descr=RefArray)
        setarrayitem_gc(p5, 1, p1, descr=RefArray)
        setarrayitem_gc(p5, 2, p1, descr=RefArray)
        i3 = arraylen_gc(p5, descr=RefArray)
        p6 = new_array_clear(i3, descr=IntArray)
        setarrayitem_gc(p6, 1, i0, descr=IntArray)
        setarrayitem_gc(p5, 0, null, descr=RefArray)
        finish(p2, p6)",
        "
        [i0, p1, p5]
        p2 = call_malloc_nursery_varsize(i0, descr=RefArray)
        setarrayitem_gc(p2, 0, p1, descr=RefArray)
        cond_call_gc_wb_array(p5, 1)
        setarrayitem_gc(p5, 1, p1, descr=RefArray)
        setarrayitem_gc(p5, 2, p1, descr=RefArray)
        i3 = arraylen_gc(p5, descr=RefArray)
        p6 = call_malloc_nursery_varsize(i3, descr=IntArray)
        setarrayitem_gc(p6, 1, i0, descr=IntArray)
        setarrayitem_gc(p5, 0, null, descr=RefArray)
        finish(p2, p6)",
    );
}

#[test]
fn constant_length_arrays_are_bumped_with_their_neighbours() {
    assert_rewrite(
        "
        [p1]
        p2 = new_array(3, descr=RefArray)
        setarrayitem_gc(p2, 0, p1, descr=RefArray)
        p3 = new(descr=Box)
        p4 = new_array_clear(100, descr=IntArray)
        finish(p2, p3, p4)",
        "
        [p1]
        p2 = call_malloc_nursery(56)
        setfield_gc(p2, 5, descr=Gc.header)
        setfield_gc(p2, 3, descr=Gc.array_length)
        setarrayitem_gc(p2, 0, p1, descr=RefArray)
        p3 = nursery_ptr_increment(p2, 40)
        setfield_gc(p3, 9, descr=Gc.header)
        p4 = call_malloc_nursery_varsize(100, descr=IntArray)
        finish(p2, p3, p4)",
    );
}

#[test]
fn a_label_empties_the_fresh_set() {
    assert_rewrite(
        "
        [i0]
        p1 = new(descr=Node)
        label(p1, i0, descr=Loop)
        setfield_gc(p1, p1, descr=Node.next)
        jump(p1, i0, descr=Loop)",
        "
        [i0]
        p1 = call_malloc_nursery_headerless(16, descr=Node)
        label(p1, i0, descr=Loop)
        cond_call_gc_wb(p1)
        setfield_gc(p1, p1, descr=Node.next)
        jump(p1, i0, descr=Loop)",
    );
}

/// Random valid traces (majit-ir's generator, every op family) rewrite
/// without error into traces the verifier accepts, with no high-level
/// allocation left.
#[test]
fn random_traces_rewrite_into_valid_traces() {
    use majit_ir::OpCode::{CallMallocNursery, CallMallocNurseryHeaderless, CondCallGcWb};
    let ns = namespace();
    let knobs = majit_ir::fuzzing::Knobs::all();
    let mut seen = [0usize; 3];
    for seed in majit_ir::fuzzing::fuzz_seeds(0..300) {
        let trace = majit_ir::fuzzing::random_trace(seed, &knobs);
        let out = rewrite_test_trace(&trace, &RewriteConfig::default())
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", print_with(&trace, &ns)));
        verify(&out).unwrap_or_else(|e| {
            panic!("seed {seed}: {e:?}\n{}", print_with(&out, &ns));
        });
        for op in &out.ops {
            assert!(
                !op.opcode.is_allocation(),
                "seed {seed}: `{}` left in the output",
                op.opcode
            );
            let family = [CallMallocNursery, CallMallocNurseryHeaderless, CondCallGcWb];
            if let Some(k) = family.iter().position(|&f| f == op.opcode) {
                seen[k] += 1;
            }
        }
    }
    assert!(
        majit_ir::fuzzing::replaying() || seen.iter().all(|&n| n > 0),
        "the generator exercised too little: {seen:?}"
    );
}

#[test]
fn a_loop_body_with_a_call_polls_for_a_collection_before_its_jump() {
    // The preamble's call does not count for the body behind the label;
    // the body's call does (a bridge without a label counts from its
    // start). A body without calls gets no poll.
    assert_rewrite(
        "
        [i0]
        call_n(1048592, i0, descr=Call.i_v)
        label(i0, descr=Loop)
        i1 = int_add(i0, 1)
        call_n(1048592, i1, descr=Call.i_v)
        jump(i1, descr=Loop)",
        "
        [i0]
        call_n(1048592, i0, descr=Call.i_v)
        label(i0, descr=Loop)
        i1 = int_add(i0, 1)
        call_n(1048592, i1, descr=Call.i_v)
        cond_call_gc_collect()
        jump(i1, descr=Loop)",
    );
    assert_rewrite(
        "
        [i0]
        call_n(1048592, i0, descr=Call.i_v)
        label(i0, descr=Loop)
        i1 = int_add(i0, 1)
        jump(i1, descr=Loop)",
        "
        [i0]
        call_n(1048592, i0, descr=Call.i_v)
        label(i0, descr=Loop)
        i1 = int_add(i0, 1)
        jump(i1, descr=Loop)",
    );
}
