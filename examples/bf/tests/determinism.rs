//! Determinism of the JIT across processes: the `bf` binary run twice on
//! the same program with the native backend (x86_64) and `MAJIT_LOG` writes two
//! identical logs (traces, resume data, machine code; the log prints
//! absolute addresses as names). When cross-testing, `MAJIT_TEST_RUNNER`
//! names the emulator that runs the binary.

use majit::metainterp::testing::bin_command;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// Nested loops (guards hot enough for bridges at the bridge threshold
/// below), then an echo loop whose trace calls the I/O helpers.
const PROGRAM: &str = "++++[>++++[>++++[>++++<-]<-]<-]>>>[<<<+>>>-]<<<++++++++++++++++.>,[.,]";

/// Runs `bf ARGS program` with `input`, logging to `log`; returns stdout.
fn run_logged(args: &[&str], program: &Path, input: &[u8], log: &Path) -> Vec<u8> {
    let _ = std::fs::remove_file(log);
    let mut child = bin_command(env!("CARGO_BIN_EXE_bf"))
        .args(args)
        .arg(program)
        .env("MAJIT_LOG", log)
        .env("MAJIT_BRIDGE_THRESHOLD", "2")
        .env_remove("MAJIT_STATS")
        .env_remove("MAJIT_PERF_MAP")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn the bf binary");
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "bf failed: {out:?}");
    out.stdout
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("majit-bf-det-{}-{name}", std::process::id()))
}

#[test]
fn two_runs_write_identical_logs() {
    let program = temp("prog.bf");
    std::fs::write(&program, PROGRAM).unwrap();
    let input = vec![b'x'; 500];
    let (log1, log2) = (temp("1.log"), temp("2.log"));
    // bf's native mode is x86_64-only for now; elsewhere the log of the
    // reference executor (traces and resume data) must be deterministic.
    let jit: &[&str] = if cfg!(target_arch = "x86_64") {
        &["--native", "--threshold", "3"]
    } else {
        &["--threshold", "3"]
    };
    let expected = run_logged(&["--no-jit"], &program, &input, &log1);
    assert_eq!(expected.len(), 1 + input.len());
    let out1 = run_logged(jit, &program, &input, &log1);
    let out2 = run_logged(jit, &program, &input, &log2);
    assert!(
        out1 == expected && out2 == expected,
        "the JIT changed the output"
    );
    let (a, b) = (
        std::fs::read_to_string(&log1).unwrap(),
        std::fs::read_to_string(&log2).unwrap(),
    );
    for f in [&program, &log1, &log2] {
        let _ = std::fs::remove_file(f);
    }
    // The log is complete: loops and bridges with their machine code, and
    // the I/O helpers' addresses are named, not printed.
    assert!(a.contains("# loop 0 at greens"), "{a}");
    assert!(a.contains("# bridge 0 from guard"), "{a}");
    assert!(a.contains("## machine code: "), "{a}");
    assert!(a.contains("call_n(<fn:"), "{a}");
    if let Some((line, (x, y))) = a
        .lines()
        .zip(b.lines())
        .enumerate()
        .find(|(_, (x, y))| x != y)
    {
        panic!("the logs differ first at line {}:\n{x}\n{y}", line + 1);
    }
    assert_eq!(a, b);
}
