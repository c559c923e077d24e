//! Test support (feature `testing`), for the tests of every crate that
//! runs traces: the real `extern "C"` helpers behind the call descrs of
//! the shared test namespace (`Call.ii_i`, `Call.many`, ...), random
//! cases with those helpers bound, the seeds a fuzz test runs
//! (`MAJIT_FUZZ_SEED`, `MAJIT_FUZZ_CASES`), and the command that runs a
//! binary under test (through `MAJIT_TEST_RUNNER` when cross-testing).

use crate::runtime;
/// The seed convention of every fuzz test (it lives with the trace
/// generator, which cannot depend on this crate).
pub use majit_ir::fuzzing::{fuzz_seeds, replaying};
use majit_ir::fuzzing::{random_trace, Knobs, SplitMix64, CALL_DESCRS, CALL_TARGET_BASE};
use majit_ir::{Const, Kind, Trace, Value};
use std::process::Command;

/// `Call.ii_i`: `a * 31 ^ b`.
pub extern "C" fn ii_i(a: i64, b: i64) -> i64 {
    a.wrapping_mul(31) ^ b
}

/// `Call.i_v`: raises the int exception `a` ([`runtime::raise_int`])
/// when `a % 5 == 3`.
pub extern "C" fn i_v(a: i64) {
    if a.rem_euclid(5) == 3 {
        runtime::raise_int(a);
    }
}

/// `Call.ff_f`: `a * b + 1`.
pub extern "C" fn ff_f(a: f64, b: f64) -> f64 {
    a * b + 1.0
}

/// `Call.ff_v`: does nothing.
pub extern "C" fn ff_v(_a: f64, _b: f64) {}

/// `Call.many`: mixes every argument (ints, refs and floats interleaved,
/// some ints on the stack), so a misplaced one shows. Refs count by
/// address.
#[allow(clippy::too_many_arguments)]
pub extern "C" fn many(
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

/// [`many`] counting refs only by whether they are null (for executions
/// whose objects live at different addresses).
#[allow(clippy::too_many_arguments)]
pub extern "C" fn many_nullness(
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
    let (p, q) = (usize::from(p != 0), 2 * usize::from(q != 0));
    many(a, p, x, b, q, y, c, d, z)
}

/// `Call.r_r`: returns its argument.
pub extern "C" fn r_r(p: usize) -> usize {
    p
}

/// `Call.force_i`: forces the calling frame ([`runtime::force_frame`])
/// when `a < 0`; returns `a + 1`.
pub extern "C" fn force_i(a: i64) -> i64 {
    if a < 0 {
        runtime::force_frame();
    }
    a.wrapping_add(1)
}

/// What `Call.many` makes of its ref arguments.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RefArgs {
    /// Their addresses: every execution compared sees the same objects.
    Addresses,
    /// Only whether they are null: the executions compared allocate on
    /// different heaps (or one moves objects).
    Nullness,
}

/// The address of the helper for call descr `name` of
/// [`CALL_DESCRS`].
///
/// # Panics
/// For a name that is not in [`CALL_DESCRS`].
pub fn helper(name: &str, refs: RefArgs) -> usize {
    match (name, refs) {
        ("Call.ii_i", _) => ii_i as *const () as usize,
        ("Call.i_v", _) => i_v as *const () as usize,
        ("Call.ff_f", _) => ff_f as *const () as usize,
        ("Call.ff_v", _) => ff_v as *const () as usize,
        ("Call.many", RefArgs::Addresses) => many as *const () as usize,
        ("Call.many", RefArgs::Nullness) => many_nullness as *const () as usize,
        ("Call.r_r", _) => r_r as *const () as usize,
        ("Call.force_i", _) => force_i as *const () as usize,
        (other, _) => panic!("no helper for {other}"),
    }
}

/// Replaces the fake call addresses of a random trace
/// ([`CALL_TARGET_BASE`]) by the real helpers.
pub fn bind_calls(trace: &mut Trace, refs: RefArgs) {
    for i in 0..trace.ops.len() {
        if !trace.ops[i].opcode.is_call() {
            continue;
        }
        let Some(Const::Int(fake)) = trace.get_const(trace.ops[i].args[0]) else {
            continue;
        };
        let n = ((fake - CALL_TARGET_BASE) / 16) as usize;
        let real = helper(CALL_DESCRS[n], refs);
        trace.ops[i].args[0] = trace.add_const(Const::Int(real as i64));
    }
}

/// Inputs for `trace` from `seed`: small ints, floats, null refs.
pub fn random_inputs(trace: &Trace, seed: u64) -> Vec<Value> {
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

/// The random trace of `seed` and `knobs` with its calls bound.
pub fn bound_random_trace(seed: u64, knobs: &Knobs, refs: RefArgs) -> Trace {
    let mut trace = random_trace(seed, knobs);
    bind_calls(&mut trace, refs);
    trace
}

/// [`bound_random_trace`] and [`random_inputs`] for it.
pub fn random_case(seed: u64, knobs: &Knobs, refs: RefArgs) -> (Trace, Vec<Value>) {
    let trace = bound_random_trace(seed, knobs, refs);
    let inputs = random_inputs(&trace, seed);
    (trace, inputs)
}

/// A command that runs the binary `bin` (a test's `CARGO_BIN_EXE_*`).
/// When the tests are cross-compiled (`scripts/test-aarch64.sh`),
/// `MAJIT_TEST_RUNNER` names the emulator that runs it, as cargo's
/// target runner does for the test executables themselves.
pub fn bin_command(bin: &str) -> Command {
    match std::env::var_os("MAJIT_TEST_RUNNER") {
        Some(runner) if !runner.is_empty() => {
            let mut cmd = Command::new(runner);
            cmd.arg(bin);
            cmd
        }
        _ => Command::new(bin),
    }
}
