//! The `stackvm` binary on every program of `programs/` (at sizes a debug
//! build runs quickly): the JIT prints what `--no-jit` prints and ends the
//! same way (exit status, error message), also under `MAJIT_GC_STRESS=1`
//! (a collection at every safepoint after an allocation) and
//! `MAJIT_DIFF=3`; its stats show the calls it compiled. Recursion deeper
//! than the VM's limit ends with the VM's "stack overflow" in both modes,
//! never a native one.

use majit::metainterp::testing::bin_command;
use std::process::Output;

/// The programs with the argument the tests run them with.
const PROGRAMS: &[(&str, &str)] = &[
    ("count", "100000"),
    ("nested", "100"),
    ("calls", "100000"),
    ("fib", "18"),
    ("ackermann", "30"),
    ("even_odd", "300"),
    ("points", "100000"),
    ("errors", "40"),
    ("deep", "500"),
];

fn program(name: &str) -> String {
    format!("{}/programs/{name}.svm", env!("CARGO_MANIFEST_DIR"))
}

/// Runs the binary with `args` and the environment `env`.
fn stackvm(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = bin_command(env!("CARGO_BIN_EXE_stackvm"));
    cmd.args(args)
        .env_remove("MAJIT_LOG")
        .env_remove("MAJIT_PERF_MAP")
        .env_remove("MAJIT_GC_STRESS")
        .env_remove("MAJIT_DIFF");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("spawn the stackvm binary")
}

/// What a run shows: stdout, exit status and the last line of stderr
/// (the VM's message when the program ends with an error).
fn shown(o: &Output) -> (String, Option<i32>, String) {
    let err = String::from_utf8_lossy(&o.stderr);
    let last = err
        .lines()
        .rfind(|l| l.starts_with("stackvm:"))
        .unwrap_or("")
        .to_string();
    (
        String::from_utf8_lossy(&o.stdout).into(),
        o.status.code(),
        last,
    )
}

/// Checks every program with the JIT in the environment `env` against
/// `--no-jit`.
fn jit_agrees(env: &[(&str, &str)]) {
    for &(name, arg) in PROGRAMS {
        let file = program(name);
        let plain = shown(&stackvm(&["--no-jit", &file, arg], &[]));
        let jit = stackvm(&["--stats", &file, arg], env);
        let stderr = String::from_utf8_lossy(&jit.stderr).to_string();
        assert_eq!(shown(&jit), plain, "{name} {env:?}: {stderr}");
        assert!(!stderr.contains("diverged"), "{name}: {stderr}");
        assert!(stderr.contains("loops: "), "{name}: no stats: {stderr}");
    }
}

#[test]
fn the_jit_prints_what_the_interpreter_prints() {
    jit_agrees(&[]);
}

#[test]
fn the_jit_agrees_under_gc_stress() {
    jit_agrees(&[("MAJIT_GC_STRESS", "1")]);
}

#[test]
fn the_jit_agrees_in_diff_mode() {
    jit_agrees(&[("MAJIT_DIFF", "3")]);
}

#[test]
fn the_programs_compute_what_they_say() {
    let out = |name, arg| shown(&stackvm(&["--no-jit", &program(name), arg], &[]));
    assert_eq!(out("count", "100000").0, "4999950000\n");
    assert_eq!(out("fib", "18").0, "2584\n");
    assert_eq!(out("ackermann", "30").0, "63\n61\n");
    assert_eq!(out("even_odd", "300").0, "150\n");
    let errors = out("errors", "3");
    assert_eq!(errors.0, "1000\n1001\n1002\n");
    assert_eq!(errors.2, "stackvm: uncaught exception 7");
    assert_eq!(errors.1, Some(1));
}

/// `name`'s stats line starting with `what`, as numbers.
fn stat(stderr: &str, what: &str) -> Vec<u64> {
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix(what))
        .unwrap_or_else(|| panic!("no `{what}` line in {stderr}"));
    line.split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect()
}

#[test]
fn the_stats_show_calls_inlined_and_entry_traces() {
    // The stats (stderr) of `name`, which ends with status `code`.
    let ends = |name, arg, code| {
        let o = stackvm(&["--stats", &program(name), arg], &[]);
        assert_eq!(o.status.code(), Some(code), "{name}");
        String::from_utf8_lossy(&o.stderr).to_string()
    };
    let run = |name, arg| ends(name, arg, 0);
    // A loop calling a small function: the call is inlined into the loop.
    let calls = run("calls", "100000");
    let inlined = stat(&calls, "calls: ");
    assert!(inlined[0] >= 1, "{calls}");
    let loops = stat(&calls, "loops: ");
    assert!(loops[0] >= 1 && loops[1] >= 1, "{calls}");
    // Recursion: residual calls into an entry trace, thousands of nested
    // runs entering it and returning through its `finish`: calls:
    // inlined, residual, nested runs (call_assembler, direct, slow), ...;
    // nearly all nested runs enter the entry trace directly
    // (call_assembler), and nearly all of those without leaving machine
    // code (direct).
    let fib = run("fib", "18");
    let c = stat(&fib, "calls: ");
    assert!(c[1] >= 1 && c[2] > 1000, "{fib}");
    assert!(c[3] > 1000 && c[3] * 10 > c[2] * 9, "{fib}");
    assert!(c[4] * 10 > c[3] * 9, "{fib}");
    // fib's base case leaves the entry trace through a guard until it has
    // a bridge: the slow path finishes the callee.
    assert!(c[5] >= 1, "{fib}");
    // An exception raised deep in recursion: the callees entered by
    // call_assembler leave with the status, the slow path through guards.
    let errors = ends("errors", "3", 1);
    let c = stat(&errors, "calls: ");
    assert!(c[3] > 100 && c[5] >= 1, "{errors}");
    let e = stat(&fib, "entry traces: ");
    assert!(e[0] >= 1 && e[1] > 1000 && e[2] > 1000, "{fib}");
    // Ackermann's first call is nearly the whole program: the tracer of
    // ack's entry runs it for real, and that nested run traces and
    // compiles ack's entry itself, which then serves nearly every call
    // (the outer trace is dropped).
    let ack = run("ackermann", "300");
    assert!(
        ack.contains("a nested run compiled the key while it was traced"),
        "{ack}"
    );
    let c = stat(&ack, "calls: ");
    assert!(c[3] * 10 > c[2] * 9, "{ack}");
}

#[test]
fn recursion_deeper_than_the_limit_is_the_vms_stack_overflow() {
    let file = program("deep");
    for mode in ["--no-jit", "--stats"] {
        let o = stackvm(&[mode, &file, "100000"], &[]);
        assert_eq!(o.status.code(), Some(1), "{mode}: {o:?}");
        assert_eq!(shown(&o).2, "stackvm: stack overflow", "{mode}");
    }
    // Just below the limit it runs, in both modes (each call of the
    // interpreted program is a few Rust frames deeper).
    let plain = shown(&stackvm(&["--no-jit", &file, "19990"], &[]));
    assert_eq!(plain.0, "19990\n19990\n19990\n");
    assert_eq!(shown(&stackvm(&[&file, "19990"], &[])), plain);
}

#[test]
fn bad_usage_and_bad_programs_are_errors() {
    assert_eq!(stackvm(&[], &[]).status.code(), Some(2));
    let o = stackvm(&["/nonexistent.svm"], &[]);
    assert_eq!(o.status.code(), Some(3));
    let dir = std::env::temp_dir().join(format!("stackvm-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.svm");
    std::fs::write(&bad, "func main 0\n  push 1\n  add\n  ret\nend\n").unwrap();
    let o = stackvm(&[bad.to_str().unwrap()], &[]);
    assert_eq!(o.status.code(), Some(3));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("line 3: the operand stack is too short here"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
