//! Longer runs: loops heavy on push/pop that outlive many collections, and
//! the logo benchmark with the JIT.

mod common;

use common::{programs_dir, run};
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
        let minors: u64 = r
            .stderr
            .split("gc: ")
            .nth(1)
            .and_then(|s| s.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .expect("gc stats line");
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

/// The benchmark with the JIT (as `aheui --stats logo.aheui`): 1.8e9 steps,
/// 996310 bytes of PBM, status 42, its loop compiled and entered.
#[test]
fn logo_runs_with_the_jit() {
    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench");
    let logo = bench.join("logo.aheui").to_string_lossy().into_owned();
    let expected = std::fs::read(bench.join("logo.out")).unwrap();
    let r = run(&["--stats", &logo], b"", &[], Duration::from_secs(600));
    assert_eq!(r.status, Some(42), "{}", r.stderr);
    assert!(
        r.stdout == expected,
        "logo output differs ({} bytes)",
        r.stdout.len()
    );
    let stat = |name: &str| -> u64 {
        r.stderr
            .lines()
            .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
            .unwrap_or_else(|| panic!("no {name:?} in\n{}", r.stderr))
    };
    assert!(stat("loops compiled:") >= 1, "{}", r.stderr);
    assert!(stat("loop entries:") >= 1, "{}", r.stderr);
}
