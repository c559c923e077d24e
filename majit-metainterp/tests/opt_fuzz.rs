//! Random traces: the optimized trace verifies and behaves like the input
//! on the reference executor (results, memory, and at failing guards the
//! rebuilt virtuals and pending fields). `MAJIT_FUZZ_SEED=n` replays one
//! seed; a failure prints its seed and trace.

mod opt_support;

use majit_ir::fuzzing::{random_trace, Knobs};
use majit_ir::{Descr, FailDescr, Trace};
use majit_metainterp::opt::OptError;
use majit_metainterp::testing::{fuzz_seeds, replaying};
use opt_support::exec::{check_equivalent, exit_index};
use opt_support::{try_optimize_checked, AUTO_FAIL_BASE};

/// Random traces the executor can run: no calls to the generator's fake
/// addresses, no lowered GC forms.
fn knobs() -> Knobs {
    Knobs {
        calls: false,
        lowered: false,
        ..Knobs::default()
    }
}

/// Gives every guard a fail descr with a unique id.
fn with_fail_descrs(mut t: Trace) -> Trace {
    let mut next = AUTO_FAIL_BASE;
    let mut seen = std::collections::HashSet::new();
    for op in &mut t.ops {
        if !op.opcode.is_guard() {
            continue;
        }
        let unique = matches!(&op.descr, Some(Descr::Fail(d)) if seen.insert(d.id));
        if !unique {
            op.descr = Some(Descr::from(FailDescr {
                name: format!("f{next}"),
                id: next,
                returns: false,
            }));
            next += 1;
        }
    }
    t
}

fn check(opts: &str, range: std::ops::Range<u64>) -> usize {
    let mut guard_exits = 0;
    for seed in fuzz_seeds(range) {
        let t = with_fail_descrs(random_trace(seed, &knobs()));
        let result = std::panic::catch_unwind(|| match try_optimize_checked(opts, &t) {
            Ok(out) => check_equivalent(&t, &out, 3),
            Err(OptError::Invalid { op_index, .. }) => {
                // The optimizer proved a guard always fails: the trace
                // must leave at or before it.
                for run in 0..3 {
                    if let Some(exit) = exit_index(&t, run) {
                        assert!(exit <= op_index, "exit at {exit}, invalid at {op_index}");
                    }
                }
                0
            }
            Err(e) => panic!("{e}"),
        });
        match result {
            Ok(n) => guard_exits += n,
            Err(e) => {
                eprintln!("seed {seed} ({opts}) failed on:\n{}", majit_ir::print(&t));
                std::panic::resume_unwind(e);
            }
        }
    }
    guard_exits
}

#[test]
fn random_traces_default_pipeline() {
    let exits = check("intbounds:rewrite:virtualize:heap:pure", 0..60);
    assert!(
        replaying() || exits > 12,
        "only {exits} guard exits exercised"
    );
}

#[test]
fn random_traces_single_passes() {
    for opts in ["intbounds", "rewrite", "virtualize", "heap", "pure"] {
        check(opts, 1000..1010);
    }
}

#[test]
fn random_traces_with_unroll() {
    let opts = majit_metainterp::opt::DEFAULT_OPTS;
    check(opts, 2000..2050);
    let peeled = (2000..2050)
        .filter_map(|seed| {
            let t = with_fail_descrs(random_trace(seed, &knobs()));
            majit_metainterp::opt::optimize(&t, opts).ok()
        })
        .filter(|out| out.short_preamble.is_some())
        .count();
    assert!(
        replaying() || peeled >= 8,
        "only {peeled} loops were peeled"
    );
}
