//! Random valid traces (`majit_ir::fuzzing`) on the executor. Every trace
//! the verifier accepts compiles and runs to an exit or the step limit
//! (never an error: the generator only touches memory it allocated), the
//! same way on a fresh executor and after a text round trip. After the GC
//! rewrite (`majit_gc::rewrite`) it runs on a majit-gc heap in stress mode
//! (a collection at every allocation) to the same exit with the same
//! values. The generator's fake call addresses are mapped to real helpers.
//! `MAJIT_FUZZ_SEED=n` replays one seed, `MAJIT_FUZZ_CASES=n` runs n.

use crate::refexec::gc::heap;
use majit_gc::rewrite::RewriteConfig;
use majit_gc::testing::rewrite_test_trace;
use majit_ir::fuzzing::{fuzz_seeds, replaying, test_namespace, Knobs};
use majit_ir::{parse_with, print, Trace, Value};
use majit_metainterp::refexec::RefExec;
use majit_metainterp::runtime::GcAllocator;
use majit_metainterp::testing::{random_case, RefArgs};
use majit_metainterp::{Backend, DeadFrame, ExecError};
use std::rc::Rc;

/// How a run ended: which exit (counted among the trace's guards and
/// final ops, so a rewritten trace can be compared) and its non-ref
/// values (addresses differ between runs and allocators).
type Outcome = Result<(usize, Vec<Option<u64>>), ExecError>;

fn outcome(trace: &Trace, result: Result<DeadFrame, ExecError>) -> Outcome {
    let frame = result?;
    let ops = &trace.ops[..frame.exit.op_index as usize];
    let exit = ops
        .iter()
        .filter(|op| op.opcode.is_guard() || op.opcode.is_final())
        .count();
    let values = frame.values.iter().map(|v| match v {
        Value::Ref(_) => None,
        other => Some(other.to_bits()),
    });
    Ok((exit, values.collect()))
}

/// Runs `trace` on `exec` (which must not have compiled it yet).
fn run_on(mut exec: RefExec, trace: &Trace, inputs: &[Value], steps: u64) -> Outcome {
    exec.set_step_limit(steps);
    let code = exec
        .compile_loop(trace)
        .unwrap_or_else(|e| panic!("does not compile: {e}\n{}", print(trace)));
    outcome(trace, exec.execute(code, inputs))
}

fn run(trace: &Trace, inputs: &[Value]) -> Outcome {
    run_on(RefExec::new(), trace, inputs, 20_000)
}

/// A random trace of `seed` with its calls bound, and inputs for it.
/// `Call.many` sees only the nullness of refs: the GC comparison runs on
/// a heap whose addresses differ.
fn case(seed: u64, knobs: &Knobs) -> (Trace, Vec<Value>) {
    random_case(seed, knobs, RefArgs::Nullness)
}

#[test]
fn random_traces_run_deterministically_and_survive_text() {
    let ns = test_namespace();
    let (mut exits, mut limits) = (0, 0);
    for seed in fuzz_seeds(0..300) {
        let knobs = Knobs {
            loops: seed % 2 == 0,
            ..Knobs::all()
        };
        let (trace, inputs) = case(seed, &knobs);
        let first = run(&trace, &inputs);
        let text = print(&trace);
        match &first {
            Ok(_) => exits += 1,
            Err(ExecError::StepLimit) => limits += 1,
            Err(e) => panic!("seed {seed}: {e}\n{text}"),
        }
        assert_eq!(
            run(&trace, &inputs),
            first,
            "seed {seed}: not deterministic\n{text}"
        );
        let reparsed = parse_with(&text, &ns).unwrap();
        assert_eq!(
            run(&reparsed, &inputs),
            first,
            "seed {seed}: differs after a text round trip\n{text}"
        );
    }
    assert!(
        replaying() || exits > 100,
        "most random traces reach an exit ({exits} exits, {limits} step limits)"
    );
}

#[test]
fn gc_rewritten_random_traces_agree_on_a_stress_mode_heap() {
    let ns = test_namespace();
    let mut compared = 0;
    for seed in fuzz_seeds(0..200) {
        let (trace, inputs) = case(seed, &Knobs::default());
        let expected = run(&trace, &inputs);
        if expected == Err(ExecError::StepLimit) {
            continue;
        }
        let lowered = rewrite_test_trace(&trace, &RewriteConfig::default()).unwrap();
        let gc = heap(true);
        let mut exec = RefExec::with_allocator(Box::new(GcAllocator::new(Rc::clone(&gc))));
        for d in ns.descrs() {
            if let Some(layout) = d.as_size() {
                exec.register_layout(layout);
            }
        }
        // The rewritten trace has more ops per iteration.
        let got = run_on(exec, &lowered, &inputs, 200_000);
        assert_eq!(
            got,
            expected,
            "seed {seed}\n{}\nrewritten:\n{}",
            print(&trace),
            print(&lowered)
        );
        compared += 1;
    }
    assert!(
        replaying() || compared > 100,
        "only {compared} traces compared"
    );
}
