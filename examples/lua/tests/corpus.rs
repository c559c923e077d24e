//! The Lua test corpus: small programs in `tests/corpus/NAME.lua`, each stored with what the
//! real PUC-Rio Lua 5.4 does with it in `NAME.expected` (written by `tests/corpus/bless.sh`).
//!
//! The corpus itself is checked against `lua5.4`, so every expectation is known to be the
//! reference behaviour and stays so in CI; then our own `lua` binary runs every program
//! plain, with the JIT at `--threshold 1` (also with a bridge for every guard at its first
//! failure) and at `--threshold 3`, and plain under `MAJIT_GC_STRESS=1`. The
//! programs ours does not get right yet are listed in `corpus/NOT_YET` (`NAME: why`): a
//! listed program that starts passing fails the test too, so the list only shrinks.
//!
//! A program is run exactly as `bless.sh` runs it:
//! - from inside `tests/corpus/`, as `INTERPRETER... NAME.lua ARGS...`, where ARGS are the
//!   lines of `NAME.args` (one argument per line) if that file exists;
//! - with stdin from `NAME.stdin` if it exists, else empty;
//! - with `LC_ALL=C` and without `LUA_INIT`, `LUA_PATH`, `LUA_CPATH` (and their `_5_4` forms);
//! - killed after 60 s, which counts as a failure.
//!
//! Its outcome is written as:
//!
//! ```text
//! <stdout, verbatim>
//! \ no newline at end of stdout   (only if stdout is non-empty and lacks a final newline)
//! --- stderr:
//! <first line of stderr; a leading "lua5.4: " is written "lua: ">   (only if stderr is non-empty)
//! --- exit: <status>
//! ```
//!
//! `mod_*.lua` files are helper modules for `require`, not programs. `DIVERGENT` lists the
//! programs on which our implementation deliberately differs from lua5.4, one
//! `NAME: our behaviour: ...` per line; their `.expected` still holds lua5.4's output.

use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(60);
const THREADS: usize = 2;
const LUA54_MISSING: &str = "lua5.4 not found: install Debian's lua5.4 (apt-get install lua5.4)";
const NO_NEWLINE: &[u8] = b"\\ no newline at end of stdout\n";
/// Environment variables that would make lua5.4 run or find code outside the corpus.
const LUA_ENV: [&str; 6] = [
    "LUA_INIT",
    "LUA_INIT_5_4",
    "LUA_PATH",
    "LUA_PATH_5_4",
    "LUA_CPATH",
    "LUA_CPATH_5_4",
];

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("corpus")
}

/// What one run of a program produced.
#[derive(Debug)]
struct Outcome {
    stdout: Vec<u8>,
    /// First line of stderr without its newline; `None` if stderr was empty.
    stderr_first_line: Option<Vec<u8>>,
    /// The exit code, or `signal N`, `timeout after 60 s`, `spawn failed: ...`.
    status: String,
}

impl Outcome {
    /// The outcome in the `.expected` file format.
    fn render(&self) -> Vec<u8> {
        let mut out = self.stdout.clone();
        if !out.is_empty() && !out.ends_with(b"\n") {
            out.push(b'\n');
            out.extend_from_slice(NO_NEWLINE);
        }
        out.extend_from_slice(b"--- stderr:\n");
        if let Some(line) = &self.stderr_first_line {
            match line.strip_prefix(b"lua5.4: ") {
                Some(rest) => {
                    out.extend_from_slice(b"lua: ");
                    out.extend_from_slice(rest);
                }
                None => out.extend_from_slice(line),
            }
            out.push(b'\n');
        }
        out.extend_from_slice(format!("--- exit: {}\n", self.status).as_bytes());
        out
    }
}

/// Runs corpus program `name` (without `.lua`) with `interpreter`, e.g. `&["lua5.4"]` or
/// `&[path_to_our_lua, "--threshold", "1"]`. Leading `VAR=value` items set environment
/// variables for the run, as env(1) does: `&["MAJIT_GC_STRESS=1", path_to_our_lua]`.
fn run_program(interpreter: &[&str], name: &str) -> Outcome {
    let dir = corpus_dir();
    let n_env = interpreter
        .iter()
        .take_while(|item| is_env_assignment(item))
        .count();
    let (env, command_line) = interpreter.split_at(n_env);
    let (program, interpreter_args) = command_line
        .split_first()
        .expect("interpreter command is empty");

    let mut command = Command::new(program);
    command
        .args(interpreter_args)
        .arg(format!("{name}.lua"))
        .args(program_args(&dir, name))
        .current_dir(&dir)
        .env("LC_ALL", "C")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for var in LUA_ENV {
        command.env_remove(var);
    }
    for assignment in env {
        let (var, value) = assignment.split_once('=').unwrap();
        command.env(var, value);
    }
    let stdin_path = dir.join(format!("{name}.stdin"));
    command.stdin(if stdin_path.exists() {
        Stdio::from(File::open(&stdin_path).expect("cannot open .stdin file"))
    } else {
        Stdio::null()
    });

    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(err) => {
            return Outcome {
                stdout: Vec::new(),
                stderr_first_line: None,
                status: format!("spawn failed: {program}: {err}"),
            }
        }
    };
    // Read both pipes while waiting, so a chatty program cannot block on a full pipe.
    let stdout = read_in_background(child.stdout.take().unwrap());
    let stderr = read_in_background(child.stderr.take().unwrap());
    let deadline = Instant::now() + TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().expect("cannot wait for child") {
            break exit_status_text(status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            break format!("timeout after {} s", TIMEOUT.as_secs());
        }
        thread::sleep(Duration::from_millis(2));
    };
    let stderr = stderr.join().unwrap();
    Outcome {
        stdout: stdout.join().unwrap(),
        stderr_first_line: (!stderr.is_empty())
            .then(|| stderr.split(|&b| b == b'\n').next().unwrap().to_vec()),
        status,
    }
}

fn is_env_assignment(item: &str) -> bool {
    match item.split_once('=') {
        Some((var, _)) => {
            !var.is_empty()
                && !var.starts_with(|c: char| c.is_ascii_digit())
                && var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    }
}

/// The arguments in `NAME.args`, one per line (an empty line is an empty argument).
fn program_args(dir: &Path, name: &str) -> Vec<String> {
    match fs::read_to_string(dir.join(format!("{name}.args"))) {
        Ok(text) if !text.is_empty() => text
            .strip_suffix('\n')
            .unwrap_or(&text)
            .split('\n')
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

fn read_in_background(mut pipe: impl Read + Send + 'static) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = pipe.read_to_end(&mut buf);
        buf
    })
}

fn exit_status_text(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => code.to_string(),
        (None, Some(signal)) => format!("signal {signal}"),
        (None, None) => "unknown".to_owned(),
    }
}

/// File names in the corpus directory ending in `suffix`, with the suffix removed, sorted.
fn names_with_suffix(suffix: &str) -> BTreeSet<String> {
    fs::read_dir(corpus_dir())
        .expect("cannot read tests/corpus")
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|file| file.strip_suffix(suffix).map(str::to_owned))
        .collect()
}

/// The corpus programs: every `NAME.lua` except the `mod_*.lua` helper modules.
fn programs() -> Vec<String> {
    names_with_suffix(".lua")
        .into_iter()
        .filter(|name| !name.starts_with("mod_"))
        .collect()
}

/// Runs every program with `interpreter` on [`THREADS`] threads and returns one report per
/// program whose outcome differs from its `.expected` (all of them, not just the first).
fn check_corpus(interpreter: &[&str]) -> Vec<String> {
    check_programs(interpreter, &programs())
}

/// One corpus run at a time: the tests run in parallel, and a run already keeps every core
/// busy (an overloaded machine turns slow programs into timeouts).
static ONE_RUN: Mutex<()> = Mutex::new(());

/// [`check_corpus`] over the programs `names`.
fn check_programs(interpreter: &[&str], names: &[String]) -> Vec<String> {
    let _one = ONE_RUN.lock().unwrap_or_else(|e| e.into_inner());
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    thread::scope(|scope| {
        for _ in 0..THREADS {
            scope.spawn(|| {
                while let Some(name) = names.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let mut outcome = run_program(interpreter, name);
                    if outcome.status.starts_with("timeout") {
                        // Once more: under qemu-user a child of this
                        // threaded test can hang before its exec (seen in
                        // CI: lua5.4 on a 6-line program, 60 s); a program
                        // that really runs too long times out twice.
                        outcome = run_program(interpreter, name);
                    }
                    let actual = outcome.render();
                    let expected_path = corpus_dir().join(format!("{name}.expected"));
                    let report = match fs::read(&expected_path) {
                        Ok(expected) if same_output(&expected, &actual) => continue,
                        Ok(expected) => {
                            format!(
                                "{name} (exit: {}):\n{}",
                                outcome.status,
                                short_diff(&expected, &actual)
                            )
                        }
                        Err(err) => {
                            format!("{name}: cannot read {}: {err}", expected_path.display())
                        }
                    };
                    failures.lock().unwrap().push(report);
                }
            });
        }
    });
    let mut failures = failures.into_inner().unwrap();
    failures.sort();
    failures
}

/// Whether an outcome is the expected one. A NaN an operation makes up
/// (`0/0`, `x % 0.0`) has the CPU's default sign, which lua5.4 prints: set
/// on x86_64, where the expectations were made, clear on aarch64; elsewhere
/// the sign of `nan` is not compared.
fn same_output(expected: &[u8], actual: &[u8]) -> bool {
    if cfg!(target_arch = "x86_64") {
        return expected == actual;
    }
    let unsigned = |b: &[u8]| String::from_utf8_lossy(b).replace("-nan", "nan");
    unsigned(expected) == unsigned(actual)
}

/// A few lines around the first difference, `-` for expected and `+` for actual.
fn short_diff(expected: &[u8], actual: &[u8]) -> String {
    let expected = String::from_utf8_lossy(expected);
    let actual = String::from_utf8_lossy(actual);
    let e: Vec<&str> = expected.lines().collect();
    let a: Vec<&str> = actual.lines().collect();
    let first = (0..e.len().max(a.len()))
        .find(|&i| e.get(i) != a.get(i))
        .unwrap_or(0);
    let mut out = format!(
        "  first difference at line {} (expected {} lines, got {})\n",
        first + 1,
        e.len(),
        a.len()
    );
    for i in first..(first + 4).min(e.len().max(a.len())) {
        match (e.get(i), a.get(i)) {
            (x, y) if x == y => out.push_str(&format!("    {}\n", x.unwrap())),
            (x, y) => {
                if let Some(x) = x {
                    out.push_str(&format!("  - {x}\n"));
                }
                if let Some(y) = y {
                    out.push_str(&format!("  + {y}\n"));
                }
            }
        }
    }
    out
}

fn lua54_available() -> bool {
    Command::new("lua5.4")
        .arg("-v")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// Every corpus program still behaves in lua5.4 exactly as its `.expected` says, divergent
/// programs included. Fails (never skips) when lua5.4 is not installed.
#[test]
fn corpus_matches_lua54() {
    assert!(lua54_available(), "{LUA54_MISSING}");
    let failures = check_corpus(&["lua5.4"]);
    assert!(
        failures.is_empty(),
        "{} of {} corpus programs differ from their .expected (regenerate with tests/corpus/bless.sh \
         only if lua5.4 is right):\n\n{}",
        failures.len(),
        programs().len(),
        failures.join("\n")
    );
}

/// Our binary's command: the emulator first when cross-testing (`MAJIT_TEST_RUNNER`), then
/// the binary and `flags`; leading `VAR=value` items of `env` set variables.
fn ours<'a>(env: &[&'a str], runner: &'a Option<String>, flags: &[&'a str]) -> Vec<&'a str> {
    let mut command = env.to_vec();
    command.extend(runner.as_deref());
    command.push(env!("CARGO_BIN_EXE_lua"));
    command.extend(flags);
    command
}

/// The programs ours does not get right yet in `mode`: `corpus/NOT_YET`, a `NAME: why` per
/// line (every mode: they must fail), or `NAME [mode]: why` (that mode only: too slow there,
/// so they may fail). Returns (must fail, may fail).
fn not_yet(mode: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let text = fs::read_to_string(corpus_dir().join("NOT_YET")).expect("cannot read NOT_YET");
    let (mut must, mut may) = (BTreeSet::new(), BTreeSet::new());
    for (name, _) in text.lines().filter_map(|l| l.split_once(':')) {
        match name.trim().split_once(" [") {
            Some((n, m)) if m.trim_end_matches(']') == mode => may.insert(n.to_string()),
            Some(_) => false,
            None => must.insert(name.trim().to_string()),
        };
    }
    (must, may)
}

/// Runs ours (mode `mode`, with `env` and `flags`) over the corpus: the programs that differ
/// from their `.expected` must be exactly the `NOT_YET` ones and the divergent ones (which
/// have our own behaviour). Cross-testing under an emulator runs a representative subset,
/// every fifth program but the larger `app_*` ones (a forked emulator costs a third of a
/// second, and a debug build runs 20-50 times slower there); the whole corpus runs natively.
fn check_ours(mode: &str, env: &[&str], flags: &[&str]) {
    let runner = std::env::var("MAJIT_TEST_RUNNER")
        .ok()
        .filter(|r| !r.is_empty());
    let command = ours(env, &runner, flags);
    let names: Vec<String> = match runner {
        Some(_) => programs()
            .into_iter()
            .filter(|n| !n.starts_with("app_"))
            .step_by(5)
            .collect(),
        None => programs(),
    };
    let failures = check_programs(&command, &names);
    let failed: BTreeSet<String> = failures
        .iter()
        .map(|f| f.split([' ', ':']).next().unwrap_or(f).to_string())
        .collect();
    let (must, may) = not_yet(mode);
    let expected: BTreeSet<String> = must
        .union(&divergent())
        .filter(|n| names.contains(n))
        .cloned()
        .collect();
    let fixed: Vec<&String> = expected.difference(&failed).collect();
    let broken: Vec<&String> = failures
        .iter()
        .filter(|f| {
            let name = f.split([' ', ':']).next().unwrap_or(f);
            !expected.contains(name) && !may.contains(name)
        })
        .collect();
    assert!(
        fixed.is_empty() && broken.is_empty(),
        "{command:?}: {} programs fail that are not in NOT_YET:\n{}\n\n\
         passing now, remove them from NOT_YET: {fixed:?}",
        broken.len(),
        broken
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The names `DIVERGENT` lists.
fn divergent() -> BTreeSet<String> {
    let text = fs::read_to_string(corpus_dir().join("DIVERGENT")).expect("cannot read DIVERGENT");
    text.lines()
        .filter_map(|l| {
            l.split_once(": our behaviour: ")
                .map(|(n, _)| n.to_string())
        })
        .collect()
}

/// Our interpreter, plain (`--no-jit`), on every program.
#[test]
fn ours_plain_matches_lua54() {
    check_ours("plain", &[], &["--no-jit"]);
}

/// Our interpreter with the JIT compiling every loop and function (`--threshold 1`).
#[test]
fn ours_jit_matches_lua54() {
    check_ours("jit", &[], &["--threshold", "1"]);
}

/// Our interpreter with the JIT compiling every loop and function and a bridge for every
/// guard at its first failure (`MAJIT_BRIDGE_THRESHOLD=1`): bridges start from every kind of
/// resume state, not only the few that fail 200 times.
#[test]
fn ours_jit_bridging_every_guard_matches_lua54() {
    check_ours(
        "jit-bridges",
        &["MAJIT_BRIDGE_THRESHOLD=1"],
        &["--threshold", "1"],
    );
}

/// Our interpreter with the JIT at `--threshold 3`: loops and functions traced from their
/// third iteration or call on see other paths first than at 1 (`app_nbody.lua` resumed a
/// register wrong only here).
#[test]
fn ours_jit_at_threshold_3_matches_lua54() {
    check_ours("jit-3", &[], &["--threshold", "3"]);
}

/// Our interpreter, plain, with a collection at every allocation.
#[test]
fn ours_under_gc_stress_matches_lua54() {
    check_ours("gc-stress", &["MAJIT_GC_STRESS=1"], &["--no-jit"]);
}

/// The corpus files belong together: each program has an `.expected` and vice versa,
/// `.args`/`.stdin` files belong to programs, and `DIVERGENT` names existing programs.
#[test]
fn corpus_files_are_consistent() {
    let programs: BTreeSet<String> = programs().into_iter().collect();
    let mut problems = Vec::new();
    for name in &programs {
        if !corpus_dir().join(format!("{name}.expected")).exists() {
            problems.push(format!("{name}.lua has no {name}.expected (run bless.sh)"));
        }
    }
    for suffix in [".expected", ".args", ".stdin"] {
        for name in names_with_suffix(suffix) {
            if !programs.contains(&name) {
                problems.push(format!("{name}{suffix} has no program {name}.lua"));
            }
        }
    }
    let divergent =
        fs::read_to_string(corpus_dir().join("DIVERGENT")).expect("cannot read DIVERGENT");
    let mut seen = BTreeSet::new();
    for line in divergent.lines().filter(|line| !line.trim().is_empty()) {
        match line.split_once(": our behaviour: ") {
            Some((name, _)) if programs.contains(name) => {
                if !seen.insert(name) {
                    problems.push(format!("DIVERGENT lists {name} twice"));
                }
            }
            Some((name, _)) => {
                problems.push(format!("DIVERGENT names {name}, which is not a program"))
            }
            None => problems.push(format!(
                "DIVERGENT line is not `NAME: our behaviour: ...`: {line}"
            )),
        }
    }
    assert!(
        problems.is_empty(),
        "corpus inconsistencies:\n{}",
        problems.join("\n")
    );
}
