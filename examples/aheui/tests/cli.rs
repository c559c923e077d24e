//! The command line, the environment, bad input, programs that never halt.

mod common;

use common::{aheui_command, programs_dir, run};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(30);

fn program(name: &str) -> String {
    programs_dir()
        .join(format!("{name}.aheui"))
        .to_string_lossy()
        .into_owned()
}

/// A scratch file under the target directory (no shared temp names).
fn scratch(name: &str, bytes: &[u8]) -> String {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("aheui-cli");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn help_prints_usage_and_succeeds() {
    let r = run(&["--help"], b"", &[], LIMIT);
    assert_eq!(r.status, Some(0));
    let usage = String::from_utf8(r.stdout).unwrap();
    for flag in [
        "--no-jit",
        "--stats",
        "--threshold",
        "--trace-limit",
        "--enable-opts",
    ] {
        assert!(usage.contains(flag), "{flag} missing from --help");
    }
}

#[test]
fn every_flag_is_accepted() {
    let args = [
        "--no-jit",
        "--stats",
        "--threshold",
        "7",
        "--trace-limit=100",
        "--enable-opts",
        "intbounds:heap",
    ];
    let file = program("cmd_add");
    let mut all: Vec<&str> = args.to_vec();
    all.push(&file);
    let r = run(&all, b"", &[], LIMIT);
    assert_eq!((r.status, r.stdout.as_slice()), (Some(0), b"5".as_slice()));
    assert!(r.stderr.contains("aheui stats: gc: "), "{}", r.stderr);
}

#[test]
fn majit_stats_prints_stats() {
    let plain = run(
        &["--no-jit", &program("cmd_add")],
        b"",
        &[("MAJIT_STATS", "1")],
        LIMIT,
    );
    assert_eq!(plain.status, Some(0));
    assert!(
        plain.stderr.contains("aheui stats: gc: "),
        "{}",
        plain.stderr
    );
    let jit = run(
        &[&program("loop_sum_to_n")],
        b"3000",
        &[("MAJIT_STATS", "1")],
        LIMIT,
    );
    assert_eq!(jit.status, Some(0));
    assert!(jit.stderr.contains("aheui stats: time"), "{}", jit.stderr);
    assert!(jit.stderr.contains("loops compiled:   1"), "{}", jit.stderr);
}

#[test]
fn usage_errors_exit_64() {
    let file = program("cmd_add");
    let cases: [(&[&str], &str); 7] = [
        (&["--jit", &file], "unknown option \"--jit\""),
        (&["--threshold", "0", &file], "--threshold"),
        (&["--threshold", "many", &file], "whole number"),
        (&["--trace-limit", &file], "whole number"),
        (
            &["--enable-opts", "inline", &file],
            "unknown optimization \"inline\"",
        ),
        (&[], "no FILE"),
        (&[&file, &file], "more than one FILE"),
    ];
    for (args, message) in cases {
        let r = run(args, b"", &[], LIMIT);
        assert_eq!(r.status, Some(64), "{args:?}: {}", r.stderr);
        assert!(r.stderr.starts_with("aheui: "), "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains(message), "{args:?}: {}", r.stderr);
        assert!(r.stdout.is_empty());
    }
}

#[test]
fn unreadable_programs_exit_66() {
    let missing = run(&["/nonexistent/prog.aheui"], b"", &[], LIMIT);
    assert_eq!(missing.status, Some(66));
    assert!(missing
        .stderr
        .contains("cannot read program \"/nonexistent/prog.aheui\""));
    let dir = programs_dir().to_string_lossy().into_owned();
    let directory = run(&[&dir], b"", &[], LIMIT);
    assert_eq!(directory.status, Some(66), "{}", directory.stderr);
    assert!(directory.stderr.contains("cannot read program"));
}

#[test]
fn invalid_utf8_exits_65_with_the_offset() {
    let file = scratch("bad.aheui", b"\xeb\xb0\x98\xff\xeb\xa7\x9d");
    let r = run(&[&file], b"", &[], LIMIT);
    assert_eq!(r.status, Some(65));
    assert!(
        r.stderr.contains("not valid UTF-8 (byte offset 3)"),
        "{}",
        r.stderr
    );
}

#[test]
fn endless_programs_are_refused_while_reading() {
    // Random bytes fail UTF-8 in the first chunk; zero bytes are valid
    // blanks and stop at the byte limit instead of growing without bound.
    for (path, says) in [
        ("/dev/urandom", "not valid UTF-8"),
        ("/dev/zero", "more than 67108864 bytes"),
    ] {
        let r = run(&[path], b"", &[], LIMIT);
        assert_eq!(r.status, Some(65), "{path}: {}", r.stderr);
        assert!(r.stderr.contains(says), "{path}: {}", r.stderr);
    }
}

#[test]
fn bad_gc_environment_exits_65() {
    let file = program("cmd_add");
    for (var, value) in [
        ("MAJIT_NURSERY_SIZE", "tiny"),
        ("MAJIT_GC_STRESS", "-1"),
        ("MAJIT_STATS", "yes"),
    ] {
        let r = run(&[&file], b"", &[(var, value)], LIMIT);
        assert_eq!(r.status, Some(65), "{var}={value}: {}", r.stderr);
        assert!(r.stderr.contains(var), "{var}: {}", r.stderr);
    }
}

#[test]
fn an_exhausted_heap_exits_70() {
    // 분 pushes 2 and moves down onto itself: it pushes forever.
    let file = scratch("push_forever.aheui", "분\n".as_bytes());
    let env = [("MAJIT_NURSERY_SIZE", "64k"), ("MAJIT_MAX_HEAP", "8m")];
    let r = run(&["--stats", &file], b"", &env, LIMIT);
    assert_eq!(r.status, Some(70), "{}", r.stderr);
    assert!(r.stderr.contains("aheui: out of memory"), "{}", r.stderr);
}

#[test]
fn program_from_stdin() {
    // push 3, push 2, add, print, halt; the program consumes all of stdin.
    let r = run(&["-"], "받박다망희\n".as_bytes(), &[], LIMIT);
    assert_eq!((r.status, r.stdout.as_slice()), (Some(0), b"5".as_slice()));
}

/// Runs `args` for a while and checks it is still running, having printed
/// `output` by then.
fn assert_never_halts(args: &[&str], stdin: &[u8], output: &[u8]) {
    // Generous, so a slow emulator (qemu in CI) still prints first.
    let r = run(args, stdin, &[], Duration::from_secs(2));
    assert_eq!(r.status, None, "{args:?} halted: {}", r.stderr);
    assert_eq!(r.stdout, output);
}

#[test]
fn an_empty_program_never_halts() {
    assert_never_halts(&[&scratch("empty.aheui", b"")], b"", b"");
}

#[test]
fn an_empty_program_from_stdin_never_halts() {
    assert_never_halts(&["-"], b"", b"");
}

#[test]
fn a_program_without_syllables_never_halts() {
    assert_never_halts(&[&scratch("prose.aheui", b"no syllables here\n")], b"", b"");
}

#[test]
fn a_cursor_with_no_syllable_ahead_never_halts_after_flushing() {
    // Prints 2, then moves down at speed 2 through a column whose wrap
    // lands on row 0 (blank) and never again on row 1.
    let file = scratch("stall.aheui", "ㅇㅇㅇ\n반망유\n".as_bytes());
    assert_never_halts(&[&file], b"", b"2");
}

#[test]
fn a_closed_stdout_is_an_io_error() {
    // `read_to_end` in the harness keeps stdout open, so emulate a closed
    // pipe with /dev/full, which fails every write.
    let file = program("cmd_add");
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full (Linux)");
    let out = aheui_command().arg(&file).stdout(full).output().unwrap();
    assert_eq!(out.status.code(), Some(74));
    assert!(String::from_utf8_lossy(&out.stderr).contains("I/O error"));
}

#[test]
fn a_stdout_closed_at_start_is_an_io_error() {
    // Rust's runtime reopens a closed descriptor 1 on /dev/null, where the
    // output would vanish with status 0.
    let aheui = aheui_command();
    let mut cmd = std::process::Command::new("sh");
    cmd.args(["-c", "exec \"$@\" >&-", "sh"])
        .arg(aheui.get_program())
        .args(aheui.get_args());
    let out = cmd.arg(program("cmd_add")).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(74), "{stderr}");
    assert!(stderr.starts_with("aheui: I/O error"), "{stderr}");
}

#[test]
fn majit_log_is_opened_before_the_program_runs() {
    let file = program("cmd_add");
    let r = run(
        &[&file],
        b"",
        &[("MAJIT_LOG", "/nonexistent/dir/log")],
        LIMIT,
    );
    assert_eq!(r.status, Some(74), "{}", r.stderr);
    assert!(
        r.stderr
            .starts_with("aheui: cannot open the JIT log MAJIT_LOG=\"/nonexistent/dir/log\""),
        "{}",
        r.stderr
    );
    assert!(r.stdout.is_empty(), "the program ran");
    let r = run(&[&file], b"", &[("MAJIT_LOG", "")], LIMIT);
    assert_eq!(r.status, Some(65), "{}", r.stderr);
    assert!(r.stderr.contains("MAJIT_LOG is empty"), "{}", r.stderr);
    // A writable log is written (by the driver, at exit).
    let log = scratch("jit.log", b"");
    let r = run(
        &["--threshold", "1", &file],
        b"",
        &[("MAJIT_LOG", &log)],
        LIMIT,
    );
    assert_eq!((r.status, r.stdout.as_slice()), (Some(0), b"5".as_slice()));
    assert!(std::fs::metadata(&log).unwrap().len() > 0, "empty log");
}

#[test]
fn a_flag_overrides_a_bad_environment_value() {
    let file = program("cmd_add");
    let bad = [
        ("MAJIT_THRESHOLD", "lots", "--threshold=5"),
        ("MAJIT_TRACE_LIMIT", "0", "--trace-limit=50"),
        ("MAJIT_ENABLE_OPTS", "fast", "--enable-opts=heap"),
    ];
    for (var, value, flag) in bad {
        for args in [vec![flag, &file], vec!["--no-jit", &file]] {
            let r = run(&args, b"", &[(var, value)], LIMIT);
            assert_eq!(r.status, Some(0), "{var}={value} {args:?}: {}", r.stderr);
            assert_eq!(r.stdout, b"5");
        }
        let r = run(&[&file], b"", &[(var, value)], LIMIT);
        assert_eq!(r.status, Some(65), "{var}={value}: {}", r.stderr);
        assert!(r.stderr.contains(var), "{}", r.stderr);
    }
}

#[test]
fn a_too_small_heap_names_the_real_minimum() {
    let heap = |size| {
        run(
            &[&program("cmd_add")],
            b"",
            &[("MAJIT_MAX_HEAP", size)],
            LIMIT,
        )
    };
    let r = heap("8m");
    assert_eq!(r.status, Some(65), "{}", r.stderr);
    let says = "at least 16777216 bytes (16 MiB";
    assert!(r.stderr.contains(says), "{}", r.stderr);
    assert_eq!(heap("16m").status, Some(0));
}
