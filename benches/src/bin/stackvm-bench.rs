//! The stackvm benchmark harness (named `stackvm-bench`: the example owns
//! the binary name `stackvm`): runs stackvm programs (by default every
//! program of `examples/stackvm/programs/` but `errors` and `deep`, at
//! their default size) with the JIT (native backend) and with the plain
//! interpreter, alternating, in one process; checks that both print the
//! same; prints min/median times and the JIT's speedup per program.
//!
//! `cargo run --release -p majit-benches --bin stackvm-bench -- [--runs N] [NAME..]`

use majit_benches::{exit_code, min_median};
use stackvm::{Engine, Program};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

const DEFAULT: &[&str] = &[
    "count",
    "nested",
    "calls",
    "points",
    "fib",
    "ackermann",
    "even_odd",
];

fn main() -> ExitCode {
    exit_code("stackvm bench", bench())
}

fn bench() -> Result<(), String> {
    let (runs, names) = args()?;
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/stackvm/programs");
    let mut rows = Vec::new();
    for name in &names {
        let file = dir.join(format!("{name}.svm"));
        let text =
            std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let prog = stackvm::assemble(&text).map_err(|e| format!("{name}: {e}"))?;
        let jit = Engine::Jit {
            native: true,
            threshold: None,
        };
        let (mut with_jit, mut plain) = (Vec::new(), Vec::new());
        for round in 1..=runs {
            let (j, jout) = once(&prog, jit)?;
            let (p, pout) = once(&prog, Engine::Plain)?;
            if jout != pout {
                return Err(format!("{name}: the JIT's output differs from --no-jit's"));
            }
            eprintln!(
                "{name} round {round}/{runs}: jit {:.3} s, no-jit {:.3} s",
                j.as_secs_f64(),
                p.as_secs_f64()
            );
            with_jit.push(j);
            plain.push(p);
        }
        rows.push((
            name.clone(),
            min_median(&mut with_jit),
            min_median(&mut plain),
        ));
    }
    println!("runs: {runs} each, alternating; wall time in seconds");
    println!(
        "{:<10} {:>9} {:>9} {:>9} {:>9} {:>8} {:>8}",
        "program", "jit min", "jit med", "plain min", "plain med", "x min", "x med"
    );
    for (name, (jm, jmed), (pm, pmed)) in rows {
        println!(
            "{name:<10} {jm:>9.3} {jmed:>9.3} {pm:>9.3} {pmed:>9.3} {:>7.1}x {:>7.1}x",
            pm / jm,
            pmed / jmed
        );
    }
    Ok(())
}

/// `--runs N` and the programs to run.
fn args() -> Result<(usize, Vec<String>), String> {
    let (mut runs, mut names) = (3, Vec::new());
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        if a == "--runs" {
            runs = it
                .next()
                .and_then(|n| n.parse().ok())
                .filter(|&n| n > 0)
                .ok_or("--runs needs a positive integer")?;
        } else {
            names.push(a);
        }
    }
    if names.is_empty() {
        names = DEFAULT.iter().map(|s| s.to_string()).collect();
    }
    Ok((runs, names))
}

/// One run: its wall time and output.
fn once(prog: &Program, engine: Engine) -> Result<(Duration, String), String> {
    let start = Instant::now();
    let run = stackvm::execute(prog, engine, None)?;
    Ok((start.elapsed(), format!("{}{}", run.output, run.ending)))
}
