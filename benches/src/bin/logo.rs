//! The logo benchmark harness: runs an Aheui program (default
//! `examples/aheui/bench/logo.aheui`) with the JIT and with the plain
//! interpreter (`--no-jit`), alternating, in one process, checks every
//! run's output against the expected file, and prints min/median times and
//! the JIT's speedup.
//!
//! `cargo run --release -p majit-benches --bin logo -- [--runs N] [FILE [EXPECTED]]`

use aheui::cli::JitConfig;
use aheui::code::CodeSpace;
use aheui::engine::{self, Engine, SharedBuf};
use majit_benches::{exit_code, min_median};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

fn main() -> ExitCode {
    exit_code("logo", bench())
}

fn bench() -> Result<(), String> {
    let (runs, file, expected) = args()?;
    let source = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    let expected = match expected {
        Some(p) => Some(std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?),
        None => None,
    };
    let code = CodeSpace::build(&source).map_err(|e| e.to_string())?;
    // The aheui command's defaults (and the MAJIT_* environment).
    let params = JitConfig::default().params().map_err(|e| e.to_string())?;
    let (mut with_jit, mut plain) = (Vec::new(), Vec::new());
    for round in 1..=runs {
        with_jit.push(once(
            &code,
            Engine::Jit(params.clone()),
            expected.as_deref(),
        )?);
        plain.push(once(&code, Engine::Plain, expected.as_deref())?);
        eprintln!(
            "round {round}/{runs}: jit {:.3} s, no-jit {:.3} s",
            with_jit[round - 1].as_secs_f64(),
            plain[round - 1].as_secs_f64()
        );
    }
    let (jm, jmed) = min_median(&mut with_jit);
    let (pm, pmed) = min_median(&mut plain);
    println!("program: {}  runs: {runs}", file.display());
    println!("jit     min {:8.3} s  median {:8.3} s", jm, jmed);
    println!("no-jit  min {:8.3} s  median {:8.3} s", pm, pmed);
    println!("speedup min {:8.1}x   median {:8.1}x", pm / jm, pmed / jmed);
    Ok(())
}

/// `--runs N`, the program and its expected output (logo's by default).
fn args() -> Result<(usize, PathBuf, Option<PathBuf>), String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/aheui/bench");
    let (mut runs, mut files) = (3, Vec::new());
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        if a == "--runs" {
            runs = it
                .next()
                .and_then(|n| n.parse().ok())
                .filter(|&n| n > 0)
                .ok_or("--runs needs a positive integer")?;
        } else {
            files.push(PathBuf::from(a));
        }
    }
    match files.len() {
        0 => Ok((runs, root.join("logo.aheui"), Some(root.join("logo.out")))),
        1 => Ok((runs, files.remove(0), None)),
        2 => Ok((runs, files.remove(0), Some(files.remove(0)))),
        _ => Err("usage: logo [--runs N] [FILE [EXPECTED]]".into()),
    }
}

/// One run; its wall time. The output must match `expected`.
fn once(code: &CodeSpace, engine: Engine, expected: Option<&[u8]>) -> Result<Duration, String> {
    let out = SharedBuf::default();
    let name = match engine {
        Engine::Jit(_) => "jit",
        Engine::Plain => "no-jit",
    };
    let start = Instant::now();
    engine::run(code, Box::new(&b""[..]), Box::new(out.clone()), engine)
        .map_err(|e| format!("{name}: {e}"))?;
    let took = start.elapsed();
    if expected.is_some_and(|e| e != out.take()) {
        return Err(format!("{name}: the output differs from the expected file"));
    }
    Ok(took)
}
