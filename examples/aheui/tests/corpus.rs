//! The program corpus: `tests/programs/NAME.aheui` with `NAME.out` (expected
//! stdout, compared after stripping trailing LFs on both sides), optional
//! `NAME.in` (stdin), `NAME.exit` (expected status, default 0) and
//! `NAME.err` (a substring stderr must contain). Each program checks one
//! rule of LANGUAGE.md; expected outputs agree with the reference
//! interpreter rpaheui except where README.md documents a defined
//! behaviour it lacks (errors, malformed input).
//!
//! The corpus runs in every engine configuration, each compared with the
//! same expected files (so all agree): the plain interpreter (`--no-jit`),
//! the JIT at its default threshold, the JIT compiling every loop at its
//! first back edge (`--threshold 1`), and the plain interpreter and
//! `--threshold 1` under `MAJIT_GC_STRESS=1` with the smallest nursery,
//! where collections happen as often as the GC can (finds root bugs).
//!
//! The programs named `loop_*` run a loop for thousands of iterations
//! (past the default threshold); every JIT configuration runs with
//! `--stats` and checks that such a program compiled a loop and entered
//! it. The others end before a trace could close.

mod common;

use common::{programs_dir, run, stat, strip_newlines};
use std::fs;
use std::path::Path;
use std::time::Duration;

/// One corpus entry.
struct Case {
    name: String,
    program: String,
    stdin: Vec<u8>,
    stdout: Vec<u8>,
    status: i32,
    stderr: Option<String>,
}

fn read_optional(base: &Path, ext: &str) -> Option<Vec<u8>> {
    fs::read(base.with_extension(ext)).ok()
}

fn load_cases() -> Vec<Case> {
    let mut names: Vec<String> = fs::read_dir(programs_dir())
        .expect("tests/programs exists")
        .filter_map(|e| {
            let path = e.ok()?.path();
            (path.extension()? == "aheui").then(|| path.file_stem()?.to_str().map(String::from))?
        })
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let base = programs_dir().join(&name);
            let text = |ext| {
                read_optional(&base, ext).map(|b| String::from_utf8(b).expect("UTF-8 side file"))
            };
            Case {
                program: base.with_extension("aheui").to_string_lossy().into_owned(),
                stdin: read_optional(&base, "in").unwrap_or_default(),
                stdout: read_optional(&base, "out")
                    .unwrap_or_else(|| panic!("{name}.out is missing")),
                status: text("exit").map_or(0, |s| s.trim().parse().expect("a number in .exit")),
                stderr: text("err").map(|s| s.trim_end().to_string()),
                name,
            }
        })
        .collect()
}

/// Runs every case with `flags` and `env`; returns one line per failure.
/// With the JIT, each run prints `--stats` after the program's stderr.
fn run_corpus(flags: &[&str], env: &[(&str, &str)]) -> (usize, Vec<String>) {
    let cases = load_cases();
    let jit = !flags.contains(&"--no-jit");
    let mut failures = Vec::new();
    for case in &cases {
        let args: Vec<&str> = flags
            .iter()
            .copied()
            .chain(jit.then_some("--stats"))
            .chain([case.program.as_str()])
            .collect();
        let mut got = run(&args, &case.stdin, env, Duration::from_secs(60));
        let stats = match got.stderr.find("aheui stats: time") {
            Some(at) => got.stderr.split_off(at),
            None => String::new(),
        };
        let mut problems = Vec::new();
        if jit && case.name.starts_with("loop_") {
            for counter in ["loops compiled:", "loop entries:"] {
                if stat(&stats, counter) == 0 {
                    problems.push(format!("{counter} 0 in {stats:?}"));
                }
            }
        }
        if got.status != Some(case.status) {
            problems.push(format!("status {:?}, expected {}", got.status, case.status));
        }
        if strip_newlines(&got.stdout) != strip_newlines(&case.stdout) {
            problems.push(format!(
                "stdout {:?}, expected {:?}",
                String::from_utf8_lossy(&got.stdout),
                String::from_utf8_lossy(&case.stdout)
            ));
        }
        match &case.stderr {
            Some(want) if !got.stderr.contains(want.as_str()) => {
                problems.push(format!("stderr {:?} lacks {want:?}", got.stderr))
            }
            None if !got.stderr.is_empty() => {
                problems.push(format!("unexpected stderr {:?}", got.stderr))
            }
            _ => {}
        }
        if !problems.is_empty() {
            failures.push(format!("{}: {}", case.name, problems.join("; ")));
        }
    }
    (cases.len(), failures)
}

fn assert_corpus(flags: &[&str], env: &[(&str, &str)]) {
    let (count, failures) = run_corpus(flags, env);
    assert!(
        count >= 100,
        "only {count} programs found in tests/programs"
    );
    assert!(
        failures.is_empty(),
        "{} of {count} programs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

const STRESS: [(&str, &str); 2] = [("MAJIT_GC_STRESS", "1"), ("MAJIT_NURSERY_SIZE", "256")];

#[test]
fn corpus_plain() {
    assert_corpus(&["--no-jit"], &[]);
}

#[test]
fn corpus_plain_under_gc_stress() {
    assert_corpus(&["--no-jit"], &STRESS);
}

#[test]
fn corpus_jit() {
    assert_corpus(&[], &[]);
}

#[test]
fn corpus_jit_threshold_1() {
    assert_corpus(&["--threshold", "1"], &[]);
}

#[test]
fn corpus_jit_threshold_1_under_gc_stress() {
    assert_corpus(&["--threshold", "1"], &STRESS);
}
