//! The dynamic-values harness: sums a list of boxed numbers (`Obj`s of
//! `examples/dynamic`) with the plain interpreter and with the JIT on the
//! native backend, alternating, in one process; checks every result
//! against Rust's sum and prints min/median times, the JIT's speedup and
//! its allocation statistics (the optimized loop allocates nothing).
//!
//! `cargo run --release -p majit-benches --bin dynamic_values -- [--runs N] [--len N] [--floats]`
//!
//! `--floats` sums `Float`s (`k + 0.5`) instead of `Int`s (`k`). A run
//! times `run` / `run_jit` alone (the JIT's includes making the driver,
//! tracing and compiling), not building the list nor the collection that
//! moves it out of the nursery.

use dynamic::{float, int, list, run, run_driver, run_jit, SUM};
use majit::gc::thread_heap;
use majit::prelude::*;
use majit_benches::{exit_code, min_median};
use std::process::ExitCode;
use std::time::{Duration, Instant};

fn main() -> ExitCode {
    exit_code("dynamic_values", bench())
}

/// The harness's options.
struct Args {
    runs: usize,
    len: usize,
    floats: bool,
}

fn bench() -> Result<(), String> {
    let a = args()?;
    let want: f64 = (1..=a.len)
        .map(|k| k as f64 + if a.floats { 0.5 } else { 0.0 })
        .sum();
    let params = JitParams::from_env().map_err(|e| e.to_string())?;
    let (mut with_jit, mut plain, mut stats) = (Vec::new(), Vec::new(), String::new());
    for round in 1..=a.runs {
        let xs = settled(&a)?;
        let start = Instant::now();
        let mut driver = run_driver::<HostBackend>(params.clone()).map_err(|e| e.to_string())?;
        let r = run_jit(&mut driver, &SUM, xs).map_err(|e| e.to_string())?;
        with_jit.push(checked("jit", start.elapsed(), r, want)?);
        let s = driver.stats();
        stats = format!(
            "jit: {} loops, {} bridges; allocations removed {}, kept {}",
            s.loops_compiled, s.bridges_compiled, s.allocations_removed, s.allocations_kept
        );
        let xs = settled(&a)?;
        let start = Instant::now();
        let r = run(&SUM, xs);
        plain.push(checked("no-jit", start.elapsed(), r, want)?);
        eprintln!(
            "round {round}/{}: jit {:.4} s, no-jit {:.4} s",
            a.runs,
            with_jit[round - 1].as_secs_f64(),
            plain[round - 1].as_secs_f64()
        );
    }
    let (jm, jmed) = min_median(&mut with_jit);
    let (pm, pmed) = min_median(&mut plain);
    let kind = if a.floats { "Float" } else { "Int" };
    println!("sum of {} {kind}s  runs: {}", a.len, a.runs);
    println!("jit     min {jm:8.4} s  median {jmed:8.4} s");
    println!("no-jit  min {pm:8.4} s  median {pmed:8.4} s");
    println!("speedup min {:8.1}x   median {:8.1}x", pm / jm, pmed / jmed);
    println!("{stats}");
    Ok(())
}

/// The list of `k` or `k + 0.5` for `k` in `1..=len`, after the
/// collection its allocation asked for (so runs do not pay for it).
fn settled(a: &Args) -> Result<Obj, String> {
    let items: Vec<Obj> = (1..=a.len as i64)
        .map(|k| {
            if a.floats {
                float(k as f64 + 0.5)
            } else {
                int(k)
            }
        })
        .collect();
    let mut roots = [list(&items).to_raw()];
    thread_heap::safepoint(&mut roots).map_err(|e| e.to_string())?;
    Ok(Obj::from_raw(roots[0]))
}

/// `took`, if the result `r` is the expected sum.
fn checked(name: &str, took: Duration, r: f64, want: f64) -> Result<Duration, String> {
    if r != want {
        return Err(format!("{name}: the sum is {r}, not {want}"));
    }
    Ok(took)
}

/// `--runs N` (default 5), `--len N` (default 1 000 000), `--floats`.
fn args() -> Result<Args, String> {
    let mut a = Args {
        runs: 5,
        len: 1_000_000,
        floats: false,
    };
    let mut it = std::env::args().skip(1);
    let positive = |v: Option<String>, what: &str| {
        v.and_then(|n| n.parse().ok())
            .filter(|&n: &usize| n > 0)
            .ok_or(format!("{what} needs a positive integer"))
    };
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--runs" => a.runs = positive(it.next(), "--runs")?,
            "--len" => a.len = positive(it.next(), "--len")?,
            "--floats" => a.floats = true,
            _ => return Err("usage: dynamic_values [--runs N] [--len N] [--floats]".into()),
        }
    }
    Ok(a)
}
