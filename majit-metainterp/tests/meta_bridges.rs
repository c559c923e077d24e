//! Where bridges end: a bridge that reaches a peeled loop's merge point
//! jumps into the loop body through the loop's short preamble instead of
//! re-running the preamble; a bridge whose state cannot enter the body
//! falls back to the loop's start. Results equal the plain interpreter.

mod meta_support;

use majit_metainterp::driver::JitDriver;
use majit_metainterp::opt::DEFAULT_OPTS;
use majit_metainterp::params::JitParams;
use majit_metainterp::refexec::RefExec;
use meta_support::*;

/// Runs `name` with bridges on the reference executor; checks the result
/// and output against the plain interpreter and returns the driver.
fn run(name: &str, boxed: bool) -> JitDriver<RefExec> {
    let prog = programs().into_iter().find(|p| p.0 == name).unwrap().1;
    take_output();
    let expected = (run_plain(&prog, boxed, &mut |_| false), take_output());
    let (set, portal) = interp_jitcode(boxed);
    let p = JitParams::default()
        .with_threshold(3)
        .with_opts(DEFAULT_OPTS)
        .unwrap()
        .with_bridge_threshold(5);
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
        let jit = run(name, false);
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
fn bridges_into_a_label_carrying_virtuals_end_at_the_loop_start() {
    // Boxed, the peeled loop's label carries the box's fields unboxed: a
    // bridge holding a real box cannot enter the body.
    for name in ["odd_even", "mix", "alloc_then_branch"] {
        let jit = run(name, true);
        let s = jit.stats();
        assert!(s.bridges_to_loop_start >= 1, "{name}\n{s}");
        assert_eq!(s.bridges_into_body, 0, "{name}\n{s}");
        for end in ends(&jit) {
            assert_eq!(end, "Loop0", "{name}");
        }
    }
}
