//! The `lua` command line: `-e`, `-` (stdin), a script with arguments, the
//! JIT's `--stats` on a loop-heavy program (loops compiled and entered),
//! a loop with bridges into it, and clear errors for a missing file, a syntax
//! error and binary garbage.

use majit::metainterp::testing::bin_command;
use std::io::Write;
use std::process::{Output, Stdio};

fn lua(args: &[&str], stdin: &[u8]) -> Output {
    let mut cmd = bin_command(env!("CARGO_BIN_EXE_lua"));
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("lua starts");
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(stdin)
        .expect("stdin takes the input");
    child.wait_with_output().expect("lua ends")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn a_chunk_from_the_command_line_and_from_stdin_runs() {
    let out = lua(&["--no-jit", "-e", "print(1 + 2, 'x' .. 3)"], b"");
    assert_eq!(text(&out.stdout), "3\tx3\n");
    assert!(out.status.success());
    let out = lua(
        &["-"],
        b"local s = 0 for i = 1, 10 do s = s + i end print(s)",
    );
    assert_eq!(text(&out.stdout), "55\n");
}

/// The numbers of the `--stats` line starting with `prefix`.
fn stat_numbers(stats: &str, prefix: &str) -> Vec<u64> {
    let line = stats.lines().find(|l| l.starts_with(prefix));
    let line = line.unwrap_or_else(|| panic!("no {prefix} line in:\n{stats}"));
    let words = line.split(|c: char| !c.is_ascii_digit());
    words.filter_map(|w| w.parse().ok()).collect()
}

#[test]
fn the_jit_compiles_and_enters_a_hot_loop() {
    let src = "local s = 0 for i = 1, 100000 do s = s + i % 7 end print(s)";
    let out = lua(&["--stats", "-e", src], b"");
    assert_eq!(text(&out.stdout), "300000\n");
    let stats = text(&out.stderr);
    let numbers = stat_numbers(&stats, "loops: ");
    assert!(numbers[0] >= 1 && numbers[1] >= 1, "{stats}");
}

/// A compiled loop whose only allocations are helpers' (each `..` makes a
/// string without collecting) still collects: the back edge polls the
/// heap's request, so the old space holds what lives, not every string
/// the loop made (44 MB here without the poll).
#[test]
fn a_compiled_loop_of_allocating_calls_collects() {
    let src = "local n = 0 for i = 1, 1000000 do n = n + #('ab' .. i) end print(n)";
    let out = lua(&["--stats", "-e", src], b"");
    assert_eq!(text(&out.stdout), "7888896\n");
    let stats = text(&out.stderr);
    assert_eq!(stat_numbers(&stats, "loops: ")[..2], [1, 1], "{stats}");
    let gc = stat_numbers(&stats, "gc: ");
    assert!(gc[0] >= 5, "minor collections: {stats}");
    assert!(gc[3] < 16 << 20, "old space peak: {stats}");
}

/// A backtracking loop whose frame reuses a dead register for a boolean
/// where a bridge into the loop left the table: its retrace replayed a
/// table load on the boolean and crashed, at thresholds 10 to 500
/// (`opt_unroll`'s `short_loads_are_not_replayed_on_an_object_of_another_class`).
#[test]
fn a_backtracking_loop_with_bridges_runs() {
    let src = "local used = {}
        local function place(row, n)
          if row > n then return end
          for c = 1, n do
            if not used[c] then
              used[c] = true
              place(row + 1, n)
              used[c] = false
            end
          end
        end
        for i = 1, 7 do used[i] = false end
        place(1, 7)
        print('done')";
    for threshold in ["10", "50", "100"] {
        let out = lua(&["--stats", "--threshold", threshold, "-e", src], b"");
        let stats = text(&out.stderr);
        assert_eq!(
            text(&out.stdout),
            "done\n",
            "threshold {threshold}: {stats}"
        );
        assert!(out.status.success(), "threshold {threshold}: {stats}");
        assert!(!stats.contains("bridges: 0 compiled"), "{stats}");
    }
}

#[test]
fn errors_are_reported_with_a_status_never_a_crash() {
    let out = lua(&["/nonexistent/x.lua"], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).starts_with("lua: cannot open /nonexistent/x.lua"));
    let out = lua(&["-e", "x = = 1"], b"");
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.starts_with("lua: (command line):1: unexpected symbol near '='"),
        "{err}"
    );
    let garbage: Vec<u8> = (0..2000u32).map(|i| (i * 7919 % 251) as u8).collect();
    let out = lua(&["-"], &garbage);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).starts_with("lua: stdin:"),
        "{}",
        text(&out.stderr)
    );
    let out = lua(&["-e", "error('boom')"], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).starts_with("lua: (command line):1: boom"));
}

/// An error three calls deep: the traceback after the message is
/// lua5.4's, line for line (captured from lua5.4 5.4.4, and compared with
/// it again when it is installed).
#[test]
fn an_uncaught_error_prints_lua54s_traceback() {
    let src = b"local function inner(t)\n  return t.x.y\nend\nlocal function middle(t)\n  local v = inner(t)\n  return v\nend\nfunction outer()\n  local v = middle({})\n  return v\nend\nouter()\n";
    let expected = "stack traceback:\n\
                    \tstdin:2: in upvalue 'inner'\n\
                    \tstdin:5: in upvalue 'middle'\n\
                    \tstdin:9: in function 'outer'\n\
                    \tstdin:12: in main chunk\n\
                    \t[C]: in ?\n";
    let oracle = std::process::Command::new("lua5.4")
        .arg("-")
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    if let Ok(mut child) = oracle {
        let mut input = child.stdin.take().expect("piped");
        input.write_all(src).expect("lua5.4 reads stdin");
        drop(input);
        let out = child.wait_with_output().expect("lua5.4 ends");
        let err = text(&out.stderr);
        assert_eq!(err.split_once('\n').map(|p| p.1), Some(expected));
    }
    for mode in [&["--no-jit", "-"][..], &["--threshold", "1", "-"][..]] {
        let out = lua(mode, src);
        let err = text(&out.stderr);
        let (first, rest) = err.split_once('\n').expect("two lines or more");
        assert_eq!(
            first,
            "lua: stdin:2: attempt to index a nil value (field 'x')"
        );
        assert_eq!(rest, expected, "{mode:?}");
        assert_eq!(out.status.code(), Some(1));
    }
}

/// A traceback deeper than 22 levels is shortened as lua5.4 shortens it:
/// the first 10 levels, a skip line, the last 11.
#[test]
fn a_deep_traceback_is_shortened_as_lua54s() {
    let src = b"local function r(n)\n  if n == 40 then error('deep') end\n  return 1 + r(n + 1)\nend\nr(1)\n";
    let out = lua(&["-"], src);
    let err = text(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines[0], "lua: stdin:2: deep");
    assert_eq!(lines[1], "stack traceback:");
    assert_eq!(lines[2], "\t[C]: in function 'error'");
    assert_eq!(lines[12], "\t...\t(skipping 21 levels)", "{err}");
    assert_eq!(lines.len(), 2 + 10 + 1 + 11, "{err}");
    assert_eq!(lines[lines.len() - 2], "\tstdin:5: in main chunk");
}
