//! Random valid traces (`majit_ir::fuzzing`) on the executor: every trace
//! the verifier accepts compiles, runs to an exit or the step limit
//! (never an error: the generator only touches memory it allocated), and
//! runs the same way on a fresh executor and after a text round trip.
//! The generator's fake call addresses are mapped to real helpers.

use majit_ir::fuzzing::{random_trace, Knobs, SplitMix64, CALL_DESCRS, CALL_TARGET_BASE};
use majit_ir::{parse_with, print, Const, Kind, Trace, Value};
use majit_metainterp::refexec::{self, RefExec};
use majit_metainterp::{Backend, DeadFrame, ExecError};

extern "C" fn ii_i(a: i64, b: i64) -> i64 {
    a.wrapping_mul(31) ^ b
}

extern "C" fn i_v(a: i64) {
    if a.rem_euclid(5) == 3 {
        refexec::raise(0x5150);
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
    let refs = (p ^ q) as i64;
    let floats = (x + 2.0 * y + 3.0 * z) as i64;
    ints.wrapping_add(refs).wrapping_add(floats)
}

extern "C" fn r_r(p: usize) -> usize {
    p
}

extern "C" fn force_i(a: i64) -> i64 {
    if a < 0 {
        refexec::force_frame();
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

/// The run's outcome without ref values (addresses differ between runs).
fn outcome(result: Result<DeadFrame, ExecError>) -> Result<(u32, Vec<Option<u64>>), ExecError> {
    let frame = result?;
    let values = frame.values.iter().map(|v| match v {
        Value::Ref(_) => None,
        other => Some(other.to_bits()),
    });
    Ok((frame.exit.op_index, values.collect()))
}

fn run(trace: &Trace, inputs: &[Value]) -> Result<(u32, Vec<Option<u64>>), ExecError> {
    let mut exec = RefExec::new();
    exec.set_step_limit(20_000);
    let code = exec
        .compile_loop(trace)
        .unwrap_or_else(|e| panic!("does not compile: {e}\n{}", print(trace)));
    outcome(exec.execute(code, inputs))
}

#[test]
fn random_traces_run_deterministically_and_survive_text() {
    let ns = majit_ir::fuzzing::test_namespace();
    let (mut exits, mut limits) = (0, 0);
    for seed in 0..300 {
        let knobs = if seed % 2 == 0 {
            Knobs::all()
        } else {
            Knobs {
                loops: false,
                ..Knobs::all()
            }
        };
        let mut trace = random_trace(seed, &knobs);
        bind_calls(&mut trace);
        let inputs = inputs(&trace, seed);
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
