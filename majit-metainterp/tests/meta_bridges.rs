//! Where bridges end: a bridge that reaches a peeled loop's merge point
//! jumps into the loop body (through the loop's short preamble, or with
//! its virtuals unboxed into a label of their shape) instead of re-running
//! the preamble; a bridge whose virtuals fit no label retraces the loop
//! behind it. Results equal the plain interpreter.

mod meta_support;

use majit_metainterp::driver::JitDriver;
use majit_metainterp::opt::DEFAULT_OPTS;
use majit_metainterp::params::JitParams;
use majit_metainterp::refexec::RefExec;
use meta_support::*;

/// Runs `name` with bridges on the reference executor; checks the result
/// and output against the plain interpreter and returns the driver.
fn run(name: &str, boxed: bool, retrace_limit: u32) -> JitDriver<RefExec> {
    let prog = programs().into_iter().find(|p| p.0 == name).unwrap().1;
    take_output();
    let expected = (run_plain(&prog, boxed, &mut |_| false), take_output());
    let (set, portal) = interp_jitcode(boxed);
    let p = JitParams::default()
        .with_threshold(3)
        .with_opts(DEFAULT_OPTS)
        .unwrap()
        .with_bridge_threshold(5)
        .with_retrace_limit(retrace_limit);
    let mut jit = JitDriver::new(set, portal, RefExec::new(), p).unwrap();
    let got = run_with_jit(&mut jit, &prog, boxed).unwrap();
    assert_eq!(got, expected, "{name} boxed={boxed}\n{}", jit.report());
    jit
}

/// The label each bridge's closing jump targets.
fn ends(jit: &JitDriver<RefExec>) -> Vec<String> {
    let last = |t: &majit_ir::Trace| t.ops.last()?.descr.clone()?.as_target().cloned();
    jit.bridges()
        .iter()
        .filter_map(|b| last(&b.trace).map(|t| t.name.clone()))
        .collect()
}

#[test]
fn bridges_of_unboxed_loops_enter_the_peeled_body() {
    for name in ["odd_even", "mix", "alloc_then_branch", "promote"] {
        let jit = run(name, false, 5);
        let s = jit.stats();
        assert!(s.bridges_into_body >= 1, "{name}\n{s}");
        assert_eq!(s.bridges_to_loop_start, 0, "{name}\n{s}");
        assert_eq!(s.merge_point_exits, 0, "{name}\n{s}");
        for end in ends(&jit) {
            assert_eq!(end, "Loop0.peeled", "{name}");
        }
    }
}

#[test]
fn bridges_carrying_virtuals_enter_a_label_of_the_same_shape() {
    // Boxed, the peeled loop's label carries the box's field unboxed; a
    // bridge ending with a virtual box jumps there without allocating.
    for name in ["odd_even", "mix", "alloc_then_branch"] {
        let jit = run(name, true, 5);
        let s = jit.stats();
        assert!(s.bridges_into_body >= 1, "{name}\n{s}");
        assert_eq!(s.bridges_to_loop_start, 0, "{name}\n{s}");
        assert_eq!(s.allocations_kept, 0, "{name}\n{s}");
        for end in ends(&jit) {
            assert_eq!(end, "Loop0.peeled", "{name}");
        }
    }
}

#[test]
fn a_bridge_whose_virtual_fits_no_label_retraces_the_loop() {
    // The loop passes the box through (its label takes it boxed); the
    // bridge makes a new one. The retrace keeps it virtual behind a new
    // label, and the retraced body's own bridge enters that label.
    let jit = run("even_box", true, 5);
    let s = jit.stats();
    assert_eq!(s.bridges_retraced, 1, "{s}");
    assert_eq!(s.allocations_kept, 0, "{s}");
    assert_eq!(s.bridges_to_loop_start, 0, "{s}");
    let ends = ends(&jit);
    assert!(ends.iter().all(|e| e == "Loop0.peeled.1"), "{ends:?}");
    assert!(ends.len() >= 2, "{ends:?}\n{s}");
    let retrace = &jit.bridges()[0];
    let labels = retrace
        .trace
        .ops
        .iter()
        .filter(|o| o.opcode == majit_ir::OpCode::Label);
    assert_eq!(labels.count(), 1, "{}", majit_ir::print(&retrace.trace));
}

#[test]
fn without_retraces_the_bridge_boxes_its_virtual_at_the_loop_start() {
    let jit = run("even_box", true, 0);
    let s = jit.stats();
    assert_eq!(s.bridges_retraced, 0, "{s}");
    assert!(s.allocations_kept >= 1, "{s}");
    assert_eq!(s.bridges_into_body, 1, "{s}");
    let bridges = jit.bridges();
    let why: Vec<&str> = bridges[0]
        .ledger
        .entries
        .iter()
        .map(|e| &*e.detail)
        .collect();
    assert!(why.iter().any(|d| d.contains("retrace_limit 0")), "{why:?}");
}
