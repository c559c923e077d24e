//! Random valid traces (`majit_ir::fuzzing`) on the executor. Every trace
//! the verifier accepts compiles and runs to an exit or the step limit
//! (never an error: the generator only touches memory it allocated), the
//! same way on a fresh executor and after a text round trip. After the GC
//! rewrite (`majit_gc::rewrite`) it runs on a majit-gc heap in stress mode
//! (a collection at every allocation) to the same exit with the same
//! values. The generator's fake call addresses are mapped to real helpers.

use crate::refexec::gc::heap;
use majit_gc::rewrite::{rewrite, RewriteConfig};
use majit_ir::fuzzing::{
    random_trace, test_namespace, Knobs, SplitMix64, CALL_DESCRS, CALL_TARGET_BASE,
};
use majit_ir::{parse_with, print, Const, Kind, Trace, Value};
use majit_metainterp::refexec::RefExec;
use majit_metainterp::runtime::{self, GcAllocator};
use majit_metainterp::{Backend, DeadFrame, ExecError};
use std::rc::Rc;

extern "C" fn ii_i(a: i64, b: i64) -> i64 {
    a.wrapping_mul(31) ^ b
}

extern "C" fn i_v(a: i64) {
    if a.rem_euclid(5) == 3 {
        runtime::raise(0x5150);
    }
}

extern "C" fn ff_f(a: f64, b: f64) -> f64 {
    a * b + 1.0
}

extern "C" fn ff_v(_a: f64, _b: f64) {}

#[allow(clippy::too_many_arguments)]
extern "C" fn many(
    a: i64,
    p: usize,
    x: f64,
    b: i64,
    q: usize,
    y: f64,
    c: i64,
    d: i64,
    z: f64,
) -> i64 {
    let ints = a ^ b.wrapping_mul(3) ^ c.wrapping_mul(5) ^ d.wrapping_mul(7);
    // Addresses differ between runs and allocators: only nullness counts.
    let refs = i64::from(p != 0) + 2 * i64::from(q != 0);
    let floats = (x + 2.0 * y + 3.0 * z) as i64;
    ints.wrapping_add(refs).wrapping_add(floats)
}

extern "C" fn r_r(p: usize) -> usize {
    p
}

extern "C" fn force_i(a: i64) -> i64 {
    if a < 0 {
        runtime::force_frame();
    }
    a.wrapping_add(1)
}

/// The real helper for each entry of `CALL_DESCRS`, by name.
fn helper(name: &str) -> usize {
    match name {
        "Call.ii_i" => ii_i as *const () as usize,
        "Call.i_v" => i_v as *const () as usize,
        "Call.ff_f" => ff_f as *const () as usize,
        "Call.ff_v" => ff_v as *const () as usize,
        "Call.many" => many as *const () as usize,
        "Call.r_r" => r_r as *const () as usize,
        "Call.force_i" => force_i as *const () as usize,
        other => panic!("no helper for {other}"),
    }
}

/// Replaces the generator's fake call addresses by real helpers.
fn bind_calls(trace: &mut Trace) {
    for i in 0..trace.ops.len() {
        if !trace.ops[i].opcode.is_call() {
            continue;
        }
        let Some(Const::Int(fake)) = trace.get_const(trace.ops[i].args[0]) else {
            continue;
        };
        let n = ((fake - CALL_TARGET_BASE) / 16) as usize;
        let real = trace.add_const(Const::Int(helper(CALL_DESCRS[n]) as i64));
        trace.ops[i].args[0] = real;
    }
}

/// Inputs for `trace` from `seed`: small ints, floats, null refs.
fn inputs(trace: &Trace, seed: u64) -> Vec<Value> {
    let mut rng = SplitMix64::new(seed ^ 0x5eed);
    let kinds = trace.inputs.iter();
    kinds
        .map(|k| match k {
            Kind::Int => Value::Int(rng.below(200) as i64 - 100),
            Kind::Float => Value::Float(rng.below(1000) as f64 / 8.0 - 60.0),
            Kind::Ref => Value::Ref(0),
        })
        .collect()
}

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
fn case(seed: u64, knobs: &Knobs) -> (Trace, Vec<Value>) {
    let mut trace = random_trace(seed, knobs);
    bind_calls(&mut trace);
    let inputs = inputs(&trace, seed);
    (trace, inputs)
}

#[test]
fn random_traces_run_deterministically_and_survive_text() {
    let ns = test_namespace();
    let (mut exits, mut limits) = (0, 0);
    for seed in 0..300 {
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
        exits > 100,
        "most random traces reach an exit ({exits} exits, {limits} step limits)"
    );
}

#[test]
fn gc_rewritten_random_traces_agree_on_a_stress_mode_heap() {
    let ns = test_namespace();
    let lookup = |name: &str| ns.descr(name).cloned();
    let mut compared = 0;
    for seed in 0..200 {
        let (trace, inputs) = case(seed, &Knobs::default());
        let expected = run(&trace, &inputs);
        if expected == Err(ExecError::StepLimit) {
            continue;
        }
        let lowered = rewrite(&trace, &RewriteConfig::default(), &lookup).unwrap();
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
    assert!(compared > 100, "only {compared} traces compared");
}
