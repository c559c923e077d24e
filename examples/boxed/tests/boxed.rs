//! Every program gives the same printed values and result with the JIT
//! as without it (RefExec at several thresholds, the native backend of
//! this machine), the stats show compiled loops that were entered, and the
//! optimizer removes the loop's node allocations.

use majit::JitParams;

const SUM: &str = "push 0 push 1000
loop: swap over add swap push 1 sub dup jnz loop
pop print halt";

const COUNTDOWN: &str = "push 50
loop: dup print push 1 sub dup jnz loop
halt";

/// Fibonacci numbers (wrapping past i64) with the stack [a, b, n].
const FIB: &str = "push 0 push 1 push 100
loop: push 1 sub rot rot       # [n-1, a, b]
  dup print swap over add      # [n-1, b, a+b]
  rot dup jnz loop             # [b, a+b, n-1]
pop print halt";

const UNDERFLOW_PROG: &str = "push 1 push 1 loop: sub dup jnz loop pop pop halt";

/// Counts down on the counter three slots deep: `over`/`swap` churn
/// with the loop variable under other nodes.
const DEEP: &str = "push 7 push 11 push 300
loop: swap over mul push 1000003 swap sub swap push 1 sub dup jnz loop
pop print print halt";

fn programs() -> Vec<(&'static str, &'static str)> {
    vec![
        ("sum", SUM),
        ("countdown", COUNTDOWN),
        ("fib", FIB),
        ("underflow", UNDERFLOW_PROG),
        ("deep", DEEP),
    ]
}

fn params(threshold: u32) -> JitParams {
    JitParams::default().with_threshold(threshold)
}

#[test]
fn plain_results_are_what_the_programs_compute() {
    let run = |t| boxed::execute(&boxed::assemble(t).unwrap(), None).unwrap();
    assert_eq!(run(SUM).0, vec![500_500]);
    assert_eq!(run(COUNTDOWN).0, (1..=50).rev().collect::<Vec<i64>>());
    assert_eq!(run(UNDERFLOW_PROG).1, boxed::UNDERFLOW);
    assert_eq!(&run(FIB).0[..6], &[1, 1, 2, 3, 5, 8]);
}

#[test]
fn jit_equals_plain_on_refexec() {
    for (name, text) in programs() {
        let prog = boxed::assemble(text).unwrap();
        let (out, result, _) = boxed::execute(&prog, None).unwrap();
        for threshold in [1, 2, 7] {
            let (o, r, stats) = boxed::execute(&prog, Some(params(threshold))).unwrap();
            let stats = stats.unwrap();
            assert_eq!(
                (&o, r),
                (&out, result),
                "{name} threshold {threshold}\n{stats}"
            );
            if name != "underflow" {
                assert!(stats.loops_compiled >= 1, "{name}\n{stats}");
                assert!(stats.loop_entries >= 1, "{name}\n{stats}");
            }
        }
    }
}

#[test]
fn jit_equals_plain_without_the_optimizer() {
    for (name, text) in programs() {
        let prog = boxed::assemble(text).unwrap();
        let (out, result, _) = boxed::execute(&prog, None).unwrap();
        let p = params(2).with_opts("").unwrap();
        let (o, r, stats) = boxed::execute(&prog, Some(p)).unwrap();
        assert_eq!((o, r), (out, result), "{name}\n{}", stats.unwrap());
    }
}

#[test]
fn the_optimizer_removes_the_loop_allocations() {
    let prog = boxed::assemble(SUM).unwrap();
    let loops = boxed::compiled_loops(&prog, params(2)).unwrap();
    assert_eq!(loops.len(), 1);
    let text = majit::ir::text::print(&loops[0]);
    // Six nodes per iteration in the interpreter, none in the loop.
    assert!(!text.contains("new("), "{text}");
}

#[test]
fn jit_equals_plain_on_the_native_backend() {
    for (name, text) in programs() {
        let prog = boxed::assemble(text).unwrap();
        let (out, result, _) = boxed::execute(&prog, None).unwrap();
        let native = boxed::BackendChoice::Native;
        let (o, r, stats) = boxed::execute_on(&prog, Some(params(2)), native).unwrap();
        let stats = stats.unwrap();
        assert_eq!((o, r), (out, result), "{name}\n{stats}");
    }
}

/// Differential mode on the native backend: the first entries of every
/// loop also run on the reference executor (in a forked child); they
/// agree, and the printed values and result are the plain interpreter's.
#[test]
fn native_backend_agrees_with_the_reference_executor_in_diff_mode() {
    for (name, text) in programs() {
        let prog = boxed::assemble(text).unwrap();
        let (out, result, _) = boxed::execute(&prog, None).unwrap();
        let native = boxed::BackendChoice::Native;
        let p = params(2).with_diff(3);
        let (o, r, stats) = boxed::execute_on(&prog, Some(p), native).unwrap();
        let stats = stats.unwrap();
        assert_eq!((o, r), (out, result), "{name}\n{stats}");
        assert_eq!(stats.diff_inconclusive, 0, "{name}\n{stats}");
        if stats.loop_entries > 0 {
            assert!(stats.diff_checks >= 1, "{name}\n{stats}");
        }
    }
}

#[test]
fn assembler_errors_name_the_word() {
    let e = boxed::assemble("push 1 frob").unwrap_err();
    assert_eq!(e.word, "frob");
    let e = boxed::assemble("jnz nowhere").unwrap_err();
    assert_eq!(e.word, "nowhere");
    let e = boxed::assemble("push").unwrap_err();
    assert_eq!(e.message, "missing argument");
}
