//! Differential mode (`JitParams::diff`) with the native backend of this
//! machine (x86_64, or aarch64 under qemu-user through
//! `scripts/test-aarch64.sh`): the metainterp's register-machine programs
//! run with their first loop entries checked against the reference
//! executor in a forked child. The native backend agrees, results and
//! output are the plain interpreter's, and a wrapper that perturbs one
//! native result is reported as a divergence with both values.

// The register machine of the metainterp tests, shared rather than copied.
#[path = "../../majit-metainterp/tests/meta_support/mod.rs"]
mod meta_support;

use majit_backend_dynasm::HostBackend;
use majit_ir::{Trace, Value};
use majit_metainterp::driver::{JitDriver, JitError};
use majit_metainterp::params::JitParams;
use majit_metainterp::stats::Stats;
use majit_metainterp::{Backend, CodeId, CompileError, DeadFrame, ExecError, ExitId};
use meta_support::*;

/// The host backend, optionally adding 1 to the first int of every dead
/// frame (a miscompile).
struct Native {
    inner: HostBackend,
    perturb: bool,
}

impl Backend for Native {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn compile_loop(&mut self, trace: &Trace) -> Result<CodeId, CompileError> {
        self.inner.compile_loop(trace)
    }
    fn compile_bridge(&mut self, guard: ExitId, bridge: &Trace) -> Result<CodeId, CompileError> {
        self.inner.compile_bridge(guard, bridge)
    }
    fn execute(&mut self, code: CodeId, inputs: &[Value]) -> Result<DeadFrame, ExecError> {
        let mut df = self.inner.execute(code, inputs)?;
        if self.perturb {
            if let Some(v) = df.values.iter_mut().find(|v| v.as_int().is_some()) {
                *v = Value::Int(v.as_int().unwrap().wrapping_add(1));
            }
        }
        Ok(df)
    }
    fn free(&mut self, code: CodeId) {
        self.inner.free(code)
    }
}

/// Runs `prog` (unboxed) with diff mode on the native backend; the result
/// and output, or the driver's error, and the stats.
fn run(prog: &Program, opts: &str, perturb: bool) -> (Result<(i64, Vec<i64>), JitError>, Stats) {
    let (set, portal) = interp_jitcode(false);
    let backend = Native {
        inner: HostBackend::new().unwrap(),
        perturb,
    };
    let params = JitParams::default()
        .with_threshold(3)
        .with_bridge_threshold(5)
        .with_opts(opts)
        .unwrap()
        .with_diff(3);
    let mut jit = JitDriver::new(set, portal, backend, params).unwrap();
    let got = run_with_jit(&mut jit, prog, false);
    (got, jit.stats().clone())
}

const OPTS: [&str; 2] = ["", majit_metainterp::opt::DEFAULT_OPTS];

#[test]
fn the_native_backend_agrees_with_the_reference_executor() {
    let mut checks = 0;
    for opts in OPTS {
        for (name, prog) in programs() {
            take_output();
            let expected = (run_plain(&prog, false, &mut |_| false), take_output());
            let (got, stats) = run(&prog, opts, false);
            let got = got.unwrap_or_else(|e| panic!("{name} opts={opts:?}: {e}"));
            assert_eq!(got, expected, "{name} opts={opts:?}\n{stats}");
            assert_eq!(stats.diff_inconclusive, 0, "{name}\n{stats}");
            checks += stats.diff_checks;
        }
    }
    assert!(checks >= 10, "{checks} checked entries");
}

#[test]
fn a_perturbed_native_result_is_a_divergence_with_both_values() {
    let prog = programs().into_iter().find(|p| p.0 == "sum").unwrap().1;
    let (got, stats) = run(&prog, majit_metainterp::opt::DEFAULT_OPTS, true);
    let Err(JitError::Divergence(d)) = got else {
        panic!("expected a divergence, got {got:?}\n{stats}");
    };
    assert_eq!((d.loop_index, d.entry), (0, 1), "{d}");
    let v = d.value.clone().expect("a differing value");
    let (Some(Value::Int(n)), Some(Value::Int(r))) = (v.native, v.reference) else {
        panic!("{d}");
    };
    assert_eq!(n, r.wrapping_add(1), "{d}");
    assert_eq!(Ok(&d.native), d.reference.as_ref(), "same exit: {d}");
}

#[test]
fn a_long_native_entry_is_checked_in_budget_slices() {
    // One entry of 50,000 iterations: each checked entry leaves through
    // the budget guard after `ENTRY_BUDGET` iterations (in the peeled loop
    // with the default opts) and the driver re-enters the native loop.
    let prog = Program::new(&[
        (LOADA, 0),
        (LOADC, 50_000),
        (ADDC, 0),
        (DECC, 0),
        (JNZ, 2),
        (PRINT, 0),
        (HALT, 0),
    ]);
    for opts in OPTS {
        take_output();
        let expected = (run_plain(&prog, false, &mut |_| false), take_output());
        let (got, stats) = run(&prog, opts, false);
        assert_eq!(got.unwrap(), expected, "opts={opts:?}\n{stats}");
        assert_eq!(stats.loops_compiled, 1, "{stats}");
        assert_eq!(stats.loop_entries, 1, "{stats}");
        assert_eq!(stats.diff_checks, 3, "{stats}");
        assert_eq!(stats.diff_inconclusive, 0, "{stats}");
    }
}
