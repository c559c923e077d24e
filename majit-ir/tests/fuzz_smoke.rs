//! Bounded smoke runs of the fuzzing checks: thousands of random traces
//! verify and round-trip, mutated text never panics the parser, and the
//! generator reaches every opcode. `MAJIT_FUZZ_SEED=n` replays one seed,
//! `MAJIT_FUZZ_CASES=n` runs n per check.

use majit_ir::fuzzing::{
    check_corruption, check_mutation, check_seed, corrupt_trace, fuzz_seeds, random_trace,
    replaying, Knobs,
};
use majit_ir::verify;
use majit_ir::{print, OpCode};
use std::collections::BTreeSet;

#[test]
fn random_traces_verify_and_round_trip() {
    let small = Knobs {
        max_ops: 12,
        ..Knobs::default()
    };
    let straight = Knobs {
        loops: false,
        floats: false,
        ..Knobs::default()
    };
    for seed in fuzz_seeds(0..700) {
        check_seed(seed, &Knobs::default());
        check_seed(seed, &small);
        check_seed(seed, &straight);
    }
    for seed in fuzz_seeds(0..120) {
        check_seed(
            seed,
            &Knobs {
                max_ops: 120,
                ..Knobs::all()
            },
        );
    }
}

#[test]
fn mutated_text_never_panics() {
    for seed in fuzz_seeds(0..1200) {
        check_mutation(
            seed,
            &Knobs {
                max_ops: 15,
                ..Knobs::all()
            },
        );
    }
}

#[test]
fn corrupted_traces_never_panic_the_verifier() {
    let (mut rejected, mut cases) = (0, 0);
    for seed in fuzz_seeds(0..1000) {
        check_corruption(
            seed,
            &Knobs {
                max_ops: 15,
                ..Knobs::all()
            },
        );
        let t = corrupt_trace(&random_trace(seed, &Knobs::default()), seed);
        rejected += usize::from(verify(&t).is_err());
        cases += 1;
    }
    // Most corruptions break a rule; the verifier must notice them.
    assert!(
        replaying() || rejected * 10 > cases * 8,
        "only {rejected} of {cases} corruptions rejected"
    );
}

#[test]
fn generation_is_deterministic() {
    for seed in 0..20 {
        let knobs = Knobs::all();
        assert_eq!(
            print(&random_trace(seed, &knobs)),
            print(&random_trace(seed, &knobs))
        );
    }
    assert_ne!(
        print(&random_trace(1, &Knobs::all())),
        print(&random_trace(2, &Knobs::all()))
    );
}

/// Ops the generator does not emit, and why.
const NOT_GENERATED: [(OpCode, &str); 10] = [
    (
        OpCode::SaveExceptionR,
        "the test namespace's raising helpers raise ints",
    ),
    (
        OpCode::CallPureR,
        "no elidable ref-returning call descr in the test namespace",
    ),
    (
        OpCode::CallPureN,
        "an elidable call without a result is pointless",
    ),
    (
        OpCode::CallMayForceR,
        "the only may-force descr returns int",
    ),
    (
        OpCode::CallMayForceF,
        "the only may-force descr returns int",
    ),
    (
        OpCode::CallMayForceN,
        "the only may-force descr returns int",
    ),
    (
        OpCode::CallAssemblerI,
        "calls a driver's portal runner with a token of that driver",
    ),
    (
        OpCode::CallAssemblerR,
        "calls a driver's portal runner with a token of that driver",
    ),
    (
        OpCode::CallAssemblerF,
        "calls a driver's portal runner with a token of that driver",
    ),
    (
        OpCode::CallAssemblerN,
        "calls a driver's portal runner with a token of that driver",
    ),
];

#[test]
fn generator_reaches_every_opcode() {
    let mut seen = BTreeSet::new();
    for seed in 0..400 {
        let knobs = Knobs {
            loops: seed % 2 == 0,
            ..Knobs::all()
        };
        for op in &random_trace(seed, &knobs).ops {
            seen.insert(op.opcode);
        }
    }
    let skipped: Vec<OpCode> = NOT_GENERATED.iter().map(|p| p.0).collect();
    let missing: Vec<&str> = OpCode::ALL
        .iter()
        .filter(|op| !seen.contains(op) && !skipped.contains(op))
        .map(|op| op.name())
        .collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
    for op in skipped {
        assert!(
            !seen.contains(&op),
            "{op} is generated now; drop it from NOT_GENERATED"
        );
    }
}
