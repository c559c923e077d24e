//! Shared by the integration tests: run the `aheui` binary on a program
//! with given stdin and environment, with a time limit.

#![allow(dead_code)] // each test crate uses a different subset

use majit::metainterp::testing::bin_command;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What one run produced.
#[derive(Debug)]
pub struct Run {
    pub stdout: Vec<u8>,
    pub stderr: String,
    /// `None` if the process was killed at the time limit.
    pub status: Option<i32>,
}

/// The directory of the program corpus.
pub fn programs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs")
}

/// A command that runs the `aheui` binary (under `MAJIT_TEST_RUNNER`
/// when cross-testing).
pub fn aheui_command() -> Command {
    bin_command(env!("CARGO_BIN_EXE_aheui"))
}

/// Runs the interpreter with `args`, feeding `stdin`, with extra `env`
/// variables; kills it after `limit` (ten times that under an emulator,
/// `MAJIT_TEST_RUNNER`, where e.g. reading 64 MiB of `/dev/zero` in a
/// debug build took over 30 s on a loaded machine).
pub fn run(args: &[&str], stdin: &[u8], env: &[(&str, &str)], limit: Duration) -> Run {
    let limit = match std::env::var_os("MAJIT_TEST_RUNNER") {
        Some(_) => limit * 10,
        None => limit,
    };
    let mut cmd = aheui_command();
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env_remove("MAJIT_GC_STRESS")
        .env_remove("MAJIT_NURSERY_SIZE")
        .env_remove("MAJIT_STATS");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn the aheui binary");
    let mut input = child.stdin.take().expect("piped stdin");
    let data = stdin.to_vec();
    // A writer thread, so a program that does not read cannot block us.
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let mut out_pipe = child.stdout.take().expect("piped stdout");
    let mut err_pipe = child.stderr.take().expect("piped stderr");
    let out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out_pipe.read_to_end(&mut v);
        v
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err_pipe.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for aheui") {
            break status.code();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let _ = writer.join();
    Run {
        stdout: out.join().expect("stdout reader"),
        stderr: err.join().expect("stderr reader"),
        status,
    }
}

/// Bytes with trailing LFs removed (the conformance suite's comparison).
pub fn strip_newlines(bytes: &[u8]) -> &[u8] {
    let mut end = bytes.len();
    while end > 0 && bytes[end - 1] == b'\n' {
        end -= 1;
    }
    &bytes[..end]
}

/// The number after the first `label` in `--stats` output (0 if absent):
/// `stat(stderr, "loops compiled:")`, `stat(stderr, "gc:")`.
pub fn stat(stderr: &str, label: &str) -> u64 {
    stderr
        .split(label)
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}
