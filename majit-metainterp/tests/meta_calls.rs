//! Calls of the interpreted program (`portal.rs`) on the hand-written
//! call machine of `calls_support`: every program runs with the JIT at
//! several thresholds, with and without the optimizer, and gives the plain
//! interpreter's result and output; the stats show what happened (calls
//! inlined and made residual, nested runs, entry traces compiled and
//! entered, guard failures inside callees, bridges).

mod calls_support;

use calls_support::*;
use majit_metainterp::driver::{JitDriver, JitError};
use majit_metainterp::params::JitParams;
use majit_metainterp::refexec::RefExec;
use majit_metainterp::stats::{AbortReason, Stats};

fn driver(params: JitParams) -> JitDriver<RefExec> {
    let (set, portal) = jitcode();
    JitDriver::new(set, portal, RefExec::new(), params)
        .unwrap()
        .with_portal_runner(runner())
}

fn params(threshold: u32, opts: &str) -> JitParams {
    JitParams::default()
        .with_threshold(threshold)
        .with_bridge_threshold(5)
        .with_opts(opts)
        .unwrap()
}

/// Runs `name` and checks the JIT's result and output against the plain
/// interpreter's; returns the stats.
fn run(name: &str, p: JitParams) -> Stats {
    let (_, prog, n) = programs().into_iter().find(|(x, ..)| *x == name).unwrap();
    let jit = driver(p);
    let (plain, jitted) = both(&jit, &prog, n).unwrap();
    assert_eq!(plain, jitted, "{name}: {}", jit.stats());
    jit.stats()
}

#[test]
fn every_program_gives_the_plain_result() {
    for (name, ..) in programs() {
        for threshold in [1, 3, 20] {
            for opts in ["", majit_metainterp::opt::DEFAULT_OPTS] {
                let s = run(name, params(threshold, opts));
                assert!(s.loops_compiled > 0, "{name} {threshold} {opts:?}: {s}");
            }
        }
    }
}

#[test]
fn recursion_is_a_residual_call_into_an_entry_trace() {
    let s = run("fib", params(3, majit_metainterp::opt::DEFAULT_OPTS));
    // fib's entry is traced; its recursive calls are residual calls of the
    // portal runner, which enter the entry trace again. (A trace starting
    // at a merge point inside fib, which a nested run may trace while the
    // entry is traced further out, inlines the call it meets: that call is
    // not recursive within the trace.)
    assert!(s.entry_traces_compiled >= 1, "{s}");
    assert!(s.calls_residual >= 2, "{s}");
    assert!(s.portal_runs > 1000, "{s}");
    assert!(s.portal_entries > 1000, "{s}");
    assert!(s.portal_returns > 1000, "{s}");
    // The residual calls are `call_assembler`s: most nested runs enter the
    // entry trace directly, not through the interpreter.
    assert!(s.call_assembler > 1000, "{s}");
    assert!(s.call_assembler * 10 > s.portal_runs * 9, "{s}");
    // The base case fails a guard of the entry trace (a slow path until
    // the guard gets a bridge that returns).
    assert!(s.call_assembler_slow >= 1, "{s}");
    assert!(s.bridges_compiled >= 1, "{s}");
}

#[test]
fn a_small_callee_in_a_loop_is_inlined() {
    let s = run("loop_calls", params(3, majit_metainterp::opt::DEFAULT_OPTS));
    assert!(s.calls_inlined >= 1, "{s}");
    assert_eq!(s.calls_residual, 0, "{s}");
    // The loop's compiled code runs the callee inline: no nested runs
    // apart from those before the loop was compiled.
    assert!(s.loop_entries >= 1, "{s}");
    assert!(s.portal_runs < 20, "{s}");
}

#[test]
fn a_callee_whose_inlining_is_too_long_becomes_residual() {
    let p = params(3, majit_metainterp::opt::DEFAULT_OPTS).with_trace_limit(25);
    let s = run("loop_calls_long", p);
    assert!(s.aborts_for(AbortReason::TraceTooLong) >= 1, "{s}");
    assert!(s.calls_residual >= 1, "{s}");
    assert!(s.loop_entries >= 1, "{s}");
}

#[test]
fn a_callee_with_a_loop_is_called_not_unrolled_into_the_trace() {
    let s = run(
        "loop_calls_loop",
        params(3, majit_metainterp::opt::DEFAULT_OPTS),
    );
    // The loop trace reaches the inlined callee's back edge and aborts at
    // once (not when too long); traced again, it calls the callee.
    assert_eq!(s.aborts_for(AbortReason::LoopInCallee), 1, "{s}");
    assert_eq!(s.aborts_for(AbortReason::TraceTooLong), 0, "{s}");
    assert!(s.calls_residual >= 1, "{s}");
    // The callee's own loop gets compiled in the nested runs, and the
    // calls enter compiled code.
    assert!(s.loops_compiled >= 2, "{s}");
    assert!(s.call_assembler >= 50, "{s}");
}

/// A bridge whose trace is too long because of a callee it inlines calls
/// that callee when its guard fails again, and gets compiled: the branch
/// taken every other iteration does not stay in the blackhole. (Which side
/// of the branch the loop trace takes depends on the parity of the
/// iteration it starts at: both are run.)
#[test]
fn a_bridge_too_long_for_its_callee_is_traced_again_calling_it() {
    let (_, prog, _) = programs()
        .into_iter()
        .find(|(x, ..)| *x == "odd_calls")
        .unwrap();
    for n in [400, 401] {
        let p = params(3, majit_metainterp::opt::DEFAULT_OPTS).with_trace_limit(22);
        let jit = driver(p);
        let (plain, jitted) = both(&jit, &prog, n).unwrap();
        let s = jit.stats();
        assert_eq!(plain, jitted, "n = {n}: {s}");
        assert!(s.aborts_for(AbortReason::TraceTooLong) >= 1, "n = {n}: {s}");
        assert!(s.bridges_compiled >= 1, "n = {n}: {s}");
        assert!(s.guard_failures < 40, "n = {n}: {s}");
    }
}

#[test]
fn guards_failing_inside_inlined_callees_resume_every_frame() {
    // even_odd inlines the other function (not recursive by greens) and
    // its guard on `n == 0` fails inside the inlined callee.
    let s = run("even_odd", params(2, majit_metainterp::opt::DEFAULT_OPTS));
    assert!(s.calls_inlined >= 1, "{s}");
    assert!(s.callee_guard_failures >= 1, "{s}");
}

#[test]
fn a_failure_deep_in_recursion_ends_the_run_with_its_error() {
    // main(n) = f(n); f(n): n == 0 → boom(a = 1) (panics: a >= 0), else
    // f(n - 1).
    let prog = Program::new(&[
        (JZ, 5),
        (NTOA, 0),
        (ADDA, -1),
        (CALL, 0),
        (RET, 0),
        (LOADA, 1),
        (BOOM, 0),
        (RET, 0),
    ]);
    for threshold in [1, 2, 50] {
        let jit = driver(params(threshold, majit_metainterp::opt::DEFAULT_OPTS));
        let e = run_jit(&jit, prog.addr(), State::call(0, 40)).unwrap_err();
        match e {
            JitError::Panic { place, message } => {
                assert_eq!(place, "helper `boom`");
                assert_eq!(message, "boom at 1");
            }
            e => panic!("{e}"),
        }
        // The driver stays usable.
        assert!(run_jit(&jit, prog.addr(), State::call(7, 0)).is_ok());
    }
}

#[test]
fn without_a_runner_every_call_is_inlined() {
    let (set, portal) = jitcode();
    let jit = JitDriver::new(set, portal, RefExec::new(), params(3, "")).unwrap();
    let (_, prog, n) = programs().into_iter().find(|(x, ..)| *x == "fib").unwrap();
    let (plain, jitted) = both(&jit, &prog, n).unwrap();
    assert_eq!(plain, jitted);
    let s = jit.stats();
    assert_eq!(s.calls_residual, 0, "{s}");
    assert_eq!(s.portal_runs, 0, "{s}");
}

#[test]
fn a_call_executed_while_tracing_traces_and_compiles_its_own_loops() {
    // f(n) = n == 0 ? (300 + 299 + .. + 1) : f(n - 1): the entry trace of
    // f executes the recursive call for real, and the loop at the bottom
    // of the recursion gets hot and compiled meanwhile (first).
    let prog = Program::new(&[
        (JZ, 5),
        (NTOA, 0),
        (ADDA, -1),
        (CALL, 0),
        (RET, 0),
        (LOADN, 300),
        (ADDN, 0),
        (DECN, 0),
        (JNZ, 6),
        (RET, 0),
    ]);
    let jit = driver(params(3, majit_metainterp::opt::DEFAULT_OPTS));
    let (plain, jitted) = both(&jit, &prog, 40).unwrap();
    assert_eq!(plain, jitted);
    assert_eq!(plain.0, 45150);
    let loops = jit.loops();
    assert!(loops.len() >= 2, "{}", jit.stats());
    assert!(
        !loops[0].entry,
        "the inner loop compiled first: {}",
        jit.stats()
    );
    assert!(loops[1].entry, "then the entry trace: {}", jit.stats());
}

#[test]
fn bridges_unroll_a_recursion_one_level_not_one_more_per_bridge() {
    // A bridge of fib's base-case guard inlines the next call's base case
    // (one level of the recursion); a bridge of a guard inside that
    // inlined call starts in both frames and knows their function, so it
    // calls fib instead of inlining another level: a few bridges, not one
    // more level for every generation of bridges.
    for bridge_threshold in [0, 1, 5] {
        let p =
            params(3, majit_metainterp::opt::DEFAULT_OPTS).with_bridge_threshold(bridge_threshold);
        let s = run("fib", p);
        // (Before the frames kept their function: 9 to 17 bridges, 37 to
        // 306 calls inlined.)
        assert!(
            (1..=8).contains(&s.calls_inlined),
            "{bridge_threshold}: {s}"
        );
        assert!(
            (1..=4).contains(&s.bridges_compiled),
            "{bridge_threshold}: {s}"
        );
    }
}
