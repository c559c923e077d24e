//! The Lua benchmark harness (issue #20): runs every program of
//! `examples/lua/bench/` (or those named) with four engines, alternating
//! within each round: `lua5.4`, ours with `--no-jit` ("plain"), ours with
//! the JIT ("jit") and `luajit`. Each run's stdout and exit status must
//! equal those of the reference (`lua5.4`, or ours `--no-jit` when
//! `lua5.4` is not on PATH). It prints min/median wall times per program
//! and engine, the ratios lua5.4/jit, plain/lua5.4 and jit/luajit, and
//! their geometric means.
//!
//! `cargo run --release -p majit-benches --bin lua-bench -- [--runs N] [--quick] [--timeout S] [--lua PATH] [NAME..]`
//!
//! Named `lua-bench`, not `lua` as issue #20 writes it: the binary of the
//! package `lua` is also called `lua`, and cargo puts both at
//! `target/release/lua` (an "output filename collision"), so one would
//! overwrite the other, and this harness would run itself as "ours".
//!
//! Ours is the `lua` next to this harness's executable (cargo builds both
//! into the same target directory), or the one named by `--lua`. `--quick`
//! passes each program the small size of `check.sh`'s table, which is also
//! where the list of programs comes from; otherwise a program runs at its
//! own default size. A run longer than `--timeout` (default 60 s) is stopped and
//! that engine is not run again on that program.

use majit_benches::{exit_code, min_median};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const USAGE: &str = "usage: lua-bench [--runs N] [--quick] [--timeout S] [--lua PATH] [NAME..]";

/// Which ratios of minimum times are printed, `(numerator, denominator)`,
/// with what a ratio above 1 means.
const RATIOS: &[(&str, &str, &str)] = &[
    ("lua5.4", "jit", "our JIT is faster than lua5.4"),
    ("plain", "lua5.4", "ours --no-jit is slower than lua5.4"),
    ("jit", "luajit", "our JIT is slower than luajit"),
];

fn main() -> ExitCode {
    exit_code("lua-bench", bench())
}

fn bench() -> Result<(), String> {
    let opts = args()?;
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/lua/bench");
    let programs = select(programs(&dir)?, &opts.names)?;
    let engines = engines(ours(&opts)?);
    let mut rows = Vec::new();
    for (name, small) in &programs {
        let file = dir.join(format!("{name}.lua"));
        let size = opts.quick.then_some(small.as_str());
        rows.push((name.as_str(), measure(name, &file, size, &engines, &opts)?));
    }
    print_table(&rows, &engines, &opts);
    Ok(())
}

struct Options {
    runs: usize,
    quick: bool,
    timeout: Duration,
    lua: Option<PathBuf>,
    names: Vec<String>,
}

fn args() -> Result<Options, String> {
    let mut opts = Options {
        runs: 3,
        quick: false,
        timeout: Duration::from_secs(60),
        lua: None,
        names: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--runs" => {
                opts.runs = it
                    .next()
                    .and_then(|n| n.parse().ok())
                    .filter(|&n| n > 0)
                    .ok_or("--runs needs a positive integer")?
            }
            "--timeout" => {
                opts.timeout = it
                    .next()
                    .and_then(|s| s.parse().ok())
                    .and_then(|s| Duration::try_from_secs_f64(s).ok())
                    .filter(|s| !s.is_zero())
                    .ok_or("--timeout needs a positive number of seconds")?
            }
            "--lua" => opts.lua = Some(it.next().ok_or("--lua needs a path")?.into()),
            "--quick" => opts.quick = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0)
            }
            _ if a.starts_with('-') => return Err(format!("unknown option '{a}'\n{USAGE}")),
            _ => opts.names.push(a),
        }
    }
    Ok(opts)
}

/// The programs and their small sizes, from the `small=(..)` table of
/// `check.sh` (one `NAME N` a line), so that the list lives in one place.
fn programs(dir: &Path) -> Result<Vec<(String, String)>, String> {
    let script = dir.join("check.sh");
    let text =
        std::fs::read_to_string(&script).map_err(|e| format!("{}: {e}", script.display()))?;
    let table: Vec<(String, String)> = text
        .lines()
        .skip_while(|l| l.trim() != "small=(")
        .skip(1)
        .take_while(|l| l.trim() != ")")
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            Some((words.next()?.to_string(), words.next()?.to_string()))
        })
        .collect();
    if table.is_empty() {
        return Err(format!("{}: no `small=(..)` table", script.display()));
    }
    Ok(table)
}

/// The programs named (all when none is), in the order named.
fn select(all: Vec<(String, String)>, names: &[String]) -> Result<Vec<(String, String)>, String> {
    if names.is_empty() {
        return Ok(all);
    }
    names
        .iter()
        .map(|n| {
            all.iter().find(|(p, _)| p == n).cloned().ok_or_else(|| {
                let valid: Vec<&str> = all.iter().map(|(p, _)| p.as_str()).collect();
                format!("unknown program '{n}'; the programs: {}", valid.join(" "))
            })
        })
        .collect()
}

/// Our `lua`: `--lua PATH`, or the one cargo built next to this harness.
fn ours(opts: &Options) -> Result<PathBuf, String> {
    if let Some(path) = &opts.lua {
        if !path.is_file() {
            return Err(format!("--lua {}: no such file", path.display()));
        }
        return Ok(path.clone());
    }
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let path = exe.with_file_name("lua");
    if !path.is_file() {
        return Err(format!(
            "no {} (our lua, expected next to this harness): run \
             `cargo build --release -p lua` first, or name one with --lua PATH",
            path.display()
        ));
    }
    Ok(path)
}

struct Engine {
    name: &'static str,
    exe: PathBuf,
    flags: &'static [&'static str],
}

/// The engines in the order they run in each round; the first one is the
/// reference whose outputs all others must match. An engine not on PATH is
/// skipped with a note.
fn engines(ours: PathBuf) -> Vec<Engine> {
    let on_path = |name: &str| {
        let found = std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join(name))
                .find(|p| p.is_file())
        });
        if found.is_none() {
            eprintln!("note: {name} is not on PATH: skipped");
        }
        found
    };
    let engine = |name, exe, flags| Engine { name, exe, flags };
    let mut all = Vec::new();
    all.extend(on_path("lua5.4").map(|exe| engine("lua5.4", exe, &[][..])));
    all.push(engine("plain", ours.clone(), &["--no-jit"]));
    all.push(engine("jit", ours, &[]));
    all.extend(on_path("luajit").map(|exe| engine("luajit", exe, &[][..])));
    eprintln!("note: outputs are checked against {}'s", all[0].name);
    all
}

/// What one engine did on one program: min and median seconds, or a
/// timeout.
enum Cell {
    Times(f64, f64),
    Over,
}

/// Runs one program `opts.runs` rounds, each engine once a round (unless it
/// timed out before), checking every output against the first finished run
/// (the reference's, unless it timed out).
fn measure(
    name: &str,
    file: &Path,
    size: Option<&str>,
    engines: &[Engine],
    opts: &Options,
) -> Result<Vec<Cell>, String> {
    let what = format!("{name} (N = {})", size.unwrap_or("default"));
    let mut times: Vec<Option<Vec<Duration>>> = engines.iter().map(|_| Some(vec![])).collect();
    let mut expected: Option<(&str, Output)> = None;
    for round in 1..=opts.runs {
        let mut line = format!("{what} round {round}/{}:", opts.runs);
        for (engine, samples) in engines.iter().zip(&mut times) {
            let Some(list) = samples else { continue };
            match once(engine, file, size, opts.timeout)? {
                Some((t, out)) => {
                    match &expected {
                        Some((by, want)) => compare(&what, engine.name, &out, by, want)
                            .map_err(|e| format!("{e}\n  rerun: {}", shown(engine, file, size)))?,
                        None => expected = Some((engine.name, out)),
                    }
                    line += &format!(" {} {:.3} s", engine.name, t.as_secs_f64());
                    list.push(t);
                }
                None => {
                    line += &format!(" {} {}", engine.name, over(opts.timeout));
                    *samples = None;
                }
            }
        }
        eprintln!("{line}");
    }
    let cell = |samples: Option<Vec<Duration>>| match samples {
        Some(mut t) => {
            let (min, med) = min_median(&mut t);
            Cell::Times(min, med)
        }
        None => Cell::Over,
    };
    Ok(times.into_iter().map(cell).collect())
}

fn over(timeout: Duration) -> String {
    format!("> {} s", timeout.as_secs_f64())
}

/// The command line of a run, to rerun it by hand.
fn shown(engine: &Engine, file: &Path, size: Option<&str>) -> String {
    let mut words = vec![engine.exe.display().to_string()];
    words.extend(engine.flags.iter().map(|f| f.to_string()));
    words.push(file.display().to_string());
    words.extend(size.map(str::to_string));
    words.join(" ")
}

struct Output {
    stdout: Vec<u8>,
    status: ExitStatus,
}

/// One run of `engine` on `file`: its wall time and output, or `None` if
/// it ran longer than `timeout` (it is killed then).
fn once(
    engine: &Engine,
    file: &Path,
    size: Option<&str>,
    timeout: Duration,
) -> Result<Option<(Duration, Output)>, String> {
    let start = Instant::now();
    let mut child = Command::new(&engine.exe)
        .args(engine.flags)
        .arg(file)
        .args(size)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("{}: {e}", engine.exe.display()))?;
    // The child's stdout is read on a thread (a full pipe would block it);
    // its end tells the child finished, which waits with a timeout.
    let mut pipe = child.stdout.take().expect("stdout is piped");
    let (send, done) = mpsc::channel();
    std::thread::spawn(move || {
        let mut stdout = Vec::new();
        let _ = send.send(pipe.read_to_end(&mut stdout).map(|_| stdout));
    });
    let fail = |e: std::io::Error| format!("{}: {e}", engine.exe.display());
    let Ok(stdout) = done.recv_timeout(timeout) else {
        // Too long: stopped (a kill fails only if it has just exited).
        let _ = child.kill();
        child.wait().map_err(fail)?;
        return Ok(None);
    };
    let status = child.wait().map_err(fail)?;
    let elapsed = start.elapsed();
    Ok(Some((
        elapsed,
        Output {
            stdout: stdout.map_err(fail)?,
            status,
        },
    )))
}

/// An error naming the program, the engine and the first difference, if
/// `got` differs from `want` (what engine `by` printed).
fn compare(what: &str, engine: &str, got: &Output, by: &str, want: &Output) -> Result<(), String> {
    let prefix = format!("{what}: {engine}'s output differs from {by}'s");
    if got.status != want.status {
        return Err(format!("{prefix}: {} against {}", got.status, want.status));
    }
    if got.stdout == want.stdout {
        return Ok(());
    }
    let (got, want) = (
        String::from_utf8_lossy(&got.stdout),
        String::from_utf8_lossy(&want.stdout),
    );
    let (mut g, mut w) = (got.lines(), want.lines());
    let (n, a, b) = (1..)
        .map(|n| (n, g.next(), w.next()))
        .find(|(_, a, b)| a != b || a.is_none())
        .expect("an endless range");
    if a == b {
        // `lines()` hides a difference in line ends or the last newline.
        return Err(format!("{prefix}: in line ends or the final newline"));
    }
    let show = |l: Option<&str>| l.map_or("(end of output)".into(), |l| format!("`{l}`"));
    Err(format!(
        "{prefix}: line {n}: {} against {}",
        show(a),
        show(b)
    ))
}

/// The ratio columns whose two engines both run: the engines' indices, the
/// label and what a ratio above 1 means.
fn ratio_columns(engines: &[Engine]) -> Vec<(usize, usize, String, &'static str)> {
    let at = |name| engines.iter().position(|e| e.name == name);
    RATIOS
        .iter()
        .filter_map(|&(num, den, meaning)| {
            Some((at(num)?, at(den)?, format!("{num}/{den}"), meaning))
        })
        .collect()
}

fn print_table(rows: &[(&str, Vec<Cell>)], engines: &[Engine], opts: &Options) {
    let ratios = ratio_columns(engines);
    let sizes = if opts.quick {
        "check.sh's small sizes (--quick)"
    } else {
        "the programs' default sizes"
    };
    println!(
        "runs: {} each, engines alternating; {sizes}; wall time in seconds",
        opts.runs
    );
    println!("plain = ours --no-jit, jit = ours with the JIT; ratios are of minimum times:");
    for (_, _, label, meaning) in &ratios {
        println!("  {label:<12} above 1: {meaning}");
    }
    let mut head = format!("{:<12}", "program");
    for e in engines {
        head += &format!(
            " {:>10} {:>10}",
            format!("{} min", e.name),
            format!("{} med", e.name)
        );
    }
    for (_, _, label, _) in &ratios {
        head += &format!(" {label:>12}");
    }
    println!("{head}");
    for (name, cells) in rows {
        let mut line = format!("{name:<12}");
        for cell in cells {
            line += &match cell {
                Cell::Times(min, med) => format!(" {min:>10.3} {med:>10.3}"),
                Cell::Over => format!(" {:>10} {:>10}", over(opts.timeout), over(opts.timeout)),
            };
        }
        for &(num, den, ..) in &ratios {
            line += &match ratio(&cells[num], &cells[den]) {
                Some(r) => format!(" {r:>12.2}"),
                None => format!(" {:>12}", "-"),
            };
        }
        println!("{line}");
    }
    print_geomeans(rows, engines.len(), &ratios);
}

fn ratio(num: &Cell, den: &Cell) -> Option<f64> {
    match (num, den) {
        (Cell::Times(n, _), Cell::Times(d, _)) => Some(n / d),
        _ => None,
    }
}

/// The geometric-mean row under the ratio columns, then a note for each
/// ratio that leaves out programs because one of its engines timed out.
fn print_geomeans(
    rows: &[(&str, Vec<Cell>)],
    engines: usize,
    ratios: &[(usize, usize, String, &str)],
) {
    if ratios.is_empty() {
        return;
    }
    // Blank under the time columns: 22 characters an engine.
    let mut line = format!("{:<12}{}", "geomean", " ".repeat(22 * engines));
    let mut notes = Vec::new();
    for (num, den, label, _) in ratios {
        let (mut logs, mut left_out) = (Vec::new(), Vec::new());
        for (name, cells) in rows {
            match ratio(&cells[*num], &cells[*den]) {
                Some(r) => logs.push(r.ln()),
                None => left_out.push(*name),
            }
        }
        let mean = (logs.iter().sum::<f64>() / logs.len() as f64).exp();
        line += &if logs.is_empty() {
            format!(" {:>12}", "-")
        } else {
            format!(" {mean:>12.2}")
        };
        if !left_out.is_empty() {
            let left_out = left_out.join(" ");
            notes.push(format!(
                "note: the geomean of {label} leaves out (timed out): {left_out}"
            ));
        }
    }
    println!("{line}");
    for note in notes {
        println!("{note}");
    }
}
