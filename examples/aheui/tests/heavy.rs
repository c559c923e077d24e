//! Longer runs: loops heavy on push/pop that outlive many collections, and
//! the logo benchmark with the JIT (plainly it takes too long for a test:
//! `cargo run --release -p majit-benches --bin logo` checks its output).

mod common;

use common::{programs_dir, run, stat};
use std::path::Path;
use std::time::Duration;

fn program(name: &str) -> String {
    programs_dir()
        .join(format!("{name}.aheui"))
        .to_string_lossy()
        .into_owned()
}

/// Sums 1..=100000 through a stack loop and through a 100000-node queue
/// with a small nursery, plainly and with the JIT compiling at once:
/// nodes are promoted, the queue's old tail is linked to young nodes
/// (write barrier), heads move under collections.
#[test]
fn push_pop_loops_survive_many_collections() {
    let expected = (100_000u64 * 100_001 / 2).to_string();
    let engines: [&[&str]; 2] = [&["--no-jit"], &["--threshold", "1"]];
    for (name, engine) in ["loop_sum_to_n", "loop_queue_sum"]
        .into_iter()
        .flat_map(|n| engines.map(|e| (n, e)))
    {
        let prog = program(name);
        let args: Vec<&str> = engine.iter().copied().chain(["--stats", &prog]).collect();
        let r = run(
            &args,
            b"100000\n",
            &[("MAJIT_NURSERY_SIZE", "4096")],
            Duration::from_secs(120),
        );
        assert_eq!(r.status, Some(0), "{name}: {}", r.stderr);
        assert_eq!(String::from_utf8_lossy(&r.stdout), expected, "{name}");
        let minors = stat(&r.stderr, "gc:");
        // With the JIT, the stack loop's nodes are all virtual: nothing
        // is allocated, so only the queue loop must collect.
        if engine == ["--no-jit"] || name == "loop_queue_sum" {
            assert!(
                minors > 100,
                "{name} {engine:?}: only {minors} minor collections"
            );
        }
    }
}

/// Runs logo (1.8e9 cells) with the JIT and `env`: status 42, the
/// 996310 bytes of PBM in `logo.out`, a loop compiled and entered, and a
/// bridge that jumps into the peeled loop body.
fn assert_logo_with_the_jit(env: &[(&str, &str)]) {
    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench");
    let logo = bench.join("logo.aheui").to_string_lossy().into_owned();
    let expected = std::fs::read(bench.join("logo.out")).unwrap();
    let r = run(&["--stats", &logo], b"", env, Duration::from_secs(600));
    assert_eq!(r.status, Some(42), "{env:?}: {}", r.stderr);
    assert!(
        r.stdout == expected,
        "{env:?}: logo output differs ({} bytes)",
        r.stdout.len()
    );
    for counter in ["loops compiled:", "loop entries:", "into loop body:"] {
        assert!(stat(&r.stderr, counter) > 0, "{counter} 0: {}", r.stderr);
    }
}

#[test]
fn logo_with_the_jit() {
    assert_logo_with_the_jit(&[]);
}

/// Every 10th allocation collects at the next merge point: 168000 minor
/// collections, 9 s in a debug build (`MAJIT_GC_STRESS=1`: 1.7 million,
/// 20 s, several minutes under qemu).
#[test]
fn logo_with_the_jit_under_gc_stress() {
    assert_logo_with_the_jit(&[("MAJIT_GC_STRESS", "10")]);
}
