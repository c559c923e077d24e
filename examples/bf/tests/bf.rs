//! Every program gives the same output with the JIT (RefExec, several
//! thresholds) as without it, and the JIT's stats show compiled loops
//! that were entered.

use majit::JitParams;

/// A program printing `text`, one counting loop per byte.
fn text_program(text: &str) -> String {
    let mut p = String::new();
    for c in text.bytes() {
        p += ">[-]<";
        p += &"+".repeat((c / 8) as usize);
        p += "[>++++++++<-]>";
        p += &"+".repeat((c % 8) as usize);
        p += ".<";
    }
    p
}

fn programs() -> Vec<(&'static str, String, &'static [u8])> {
    vec![
        ("text", text_program("Hello, majit!\n"), b""),
        ("echo", ",[.,]".into(), b"echo me"),
        ("reverse", ">,[>,]<[.<]".into(), b"stressed"),
        ("nested", "+++++[>+++++[>+++++<-]<-]>>.".into(), b""),
        // `-` wraps cell 0 to 255; the loop moves it to cell 1; 190
        // decrements leave 65 ('A').
        ("wrapping", format!("-[>+<-]>{}.", "-".repeat(190)), b""),
        (
            "deep",
            "++++[>++++[>++++[>++++<-]<-]<-]>>>[<<<+>>>-]<<<++++++++++++++++.".into(),
            b"",
        ),
    ]
}

fn params(threshold: u32) -> JitParams {
    JitParams::default().with_threshold(threshold)
}

#[test]
fn jit_output_equals_plain_output() {
    for (name, src, input) in programs() {
        let prog = bf::compile(&src).unwrap();
        let (plain, none) = bf::execute(&prog, input, None).unwrap();
        assert!(none.is_none());
        assert!(!plain.is_empty(), "{name} prints something");
        for threshold in [1, 2, 7] {
            let (out, stats) = bf::execute(&prog, input, Some(params(threshold))).unwrap();
            let stats = stats.unwrap();
            assert_eq!(out, plain, "{name} threshold {threshold}\n{stats}");
            if name != "echo" && name != "reverse" {
                assert!(stats.loops_compiled >= 1, "{name}\n{stats}");
                assert!(stats.loop_entries >= 1, "{name}\n{stats}");
            }
        }
    }
}

#[test]
fn text_program_prints_its_text() {
    let prog = bf::compile(&text_program("Hello, majit!\n")).unwrap();
    let (out, _) = bf::execute(&prog, b"", Some(params(2))).unwrap();
    assert_eq!(out, b"Hello, majit!\n");
}

#[test]
fn unmatched_brackets_are_errors() {
    assert_eq!(bf::compile("+[").unwrap_err().at, 1);
    assert_eq!(bf::compile("+]").unwrap_err().at, 1);
}

/// The same programs through majit-backend-dynasm's native backend.
#[test]
fn native_backend_output_equals_plain_output() {
    for (name, src, input) in programs() {
        let prog = bf::compile(&src).unwrap();
        let (plain, _) = bf::execute(&prog, input, None).unwrap();
        let (out, stats) =
            bf::execute_on(&prog, input, Some(params(2)), bf::BackendChoice::Native).unwrap();
        let stats = stats.unwrap();
        assert_eq!(out, plain, "{name}\n{stats}");
        if name != "echo" && name != "reverse" {
            assert!(stats.loop_entries >= 1, "{name}\n{stats}");
        }
    }
}

/// Differential mode on the native backend: the first entries of every
/// loop also run on the reference executor (in a forked child); they
/// agree, and the output is the plain interpreter's, printed once.
#[test]
fn native_backend_agrees_with_the_reference_executor_in_diff_mode() {
    for (name, src, input) in programs() {
        let prog = bf::compile(&src).unwrap();
        let (plain, _) = bf::execute(&prog, input, None).unwrap();
        let p = params(2).with_diff(3);
        let native = bf::BackendChoice::Native;
        let (out, stats) = bf::execute_on(&prog, input, Some(p), native).unwrap();
        let stats = stats.unwrap();
        assert_eq!(out, plain, "{name}\n{stats}");
        assert_eq!(stats.diff_inconclusive, 0, "{name}\n{stats}");
        if stats.loop_entries > 0 {
            assert!(stats.diff_checks >= 1, "{name}\n{stats}");
        }
    }
}

/// The benchmark program (8 million inner steps: native only, RefExec
/// takes seconds in a debug build).
#[test]
fn nested_benchmark_program_runs_the_same_with_the_jit() {
    let src = include_str!("../programs/nested.bf");
    let prog = bf::compile(src).unwrap();
    let (plain, _) = bf::execute(&prog, b"", None).unwrap();
    assert_eq!(plain, b"AJ");
    let native = bf::BackendChoice::Native;
    let (out, stats) = bf::execute_on(&prog, b"", Some(params(2)), native).unwrap();
    assert_eq!(out, plain);
    assert!(stats.unwrap().loops_compiled >= 3);
}

/// bf computes no values in `if`/`match` and uses no floats: its portal
/// reserves no join or float registers (a join register is taken only
/// for an arm's value, in its bank). `cargo test -p bf --test bf
/// the_portal` on 2026-12-01: `i13 r2 f0` (r2: the two slices); the
/// joins reserved a register per bank each before (`i14 r4 f0` before
/// floats at dcdc145, `i14 r4 f2` with them at 08f07f3).
#[test]
fn the_portal_reserves_no_join_or_float_registers() {
    let (set, portal) = bf::run_jitcode().unwrap();
    let code = set.get(portal).unwrap();
    let header = code.disassemble().lines().next().unwrap().to_string();
    assert_eq!(header, "jitcode run (regs: i13 r2 f0)");
}
