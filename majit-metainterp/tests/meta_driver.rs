//! The whole meta-tracing loop on the test register machine, with refexec
//! as the backend: every program must give the plain interpreter's output
//! and result at every threshold, and the stats must show that the JIT
//! really compiled and entered loops, failed guards, built bridges or
//! aborted, as each test intends.

mod meta_support;

use majit_ir::Value;
use majit_metainterp::driver::{JitAction, JitDriver};
use majit_metainterp::params::JitParams;
use majit_metainterp::refexec::RefExec;
use majit_metainterp::stats::{AbortReason, Stats};
use meta_support::*;

/// Runs `prog` with the JIT; returns result, output and stats.
fn run_jit(prog: &Program, boxed: bool, params: JitParams) -> (i64, Vec<i64>, Stats) {
    let (r, out, jit) = run_jit_driver(prog, boxed, params);
    (r, out, jit.stats().clone())
}

/// As [`run_jit`], returning the driver itself for inspection.
fn run_jit_driver(
    prog: &Program,
    boxed: bool,
    params: JitParams,
) -> (i64, Vec<i64>, JitDriver<RefExec>) {
    let (set, portal) = interp_jitcode(boxed);
    let mut jit = JitDriver::new(set, portal, RefExec::new(), params).unwrap();
    let (result, out) = run_with_jit(&mut jit, prog, boxed).unwrap();
    (result, out, jit)
}

fn run_oracle(prog: &Program, boxed: bool) -> (i64, Vec<i64>) {
    take_output();
    let r = run_plain(prog, boxed, &mut |_| false);
    (r, take_output())
}

fn params(threshold: u32, opts: &str) -> JitParams {
    JitParams::default()
        .with_threshold(threshold)
        .with_opts(opts)
        .unwrap()
}

/// Both pipelines: unoptimized traces, and the optimizer's default.
const OPTS: [&str; 2] = ["", majit_metainterp::opt::DEFAULT_OPTS];

#[test]
fn jit_matches_the_plain_interpreter_at_every_threshold() {
    for (opts, boxed) in OPTS.iter().flat_map(|o| [(o, false), (o, true)]) {
        for (name, prog) in programs() {
            let expected = run_oracle(&prog, boxed);
            for threshold in [1, 2, 7, 25, 100_000] {
                let (r, out, stats) = run_jit(&prog, boxed, params(threshold, opts));
                let what =
                    format!("{name} boxed={boxed} threshold={threshold} opts={opts}\n{stats}");
                assert_eq!((r, &out), (expected.0, &expected.1), "{what}");
                if threshold <= 7 {
                    assert!(stats.loops_compiled >= 1, "{what}");
                    assert!(stats.loop_entries >= 1, "{what}");
                } else if threshold == 100_000 {
                    assert_eq!(stats.traces_started, 0, "{what}");
                }
            }
        }
    }
}

#[test]
fn guards_failing_mid_handler_resume_in_the_blackhole() {
    // ODD's branch flips every iteration: the loop's guard fails every
    // other iteration and the blackhole finishes ODD's handler.
    for (opts, boxed) in OPTS.iter().flat_map(|o| [(o, false), (o, true)]) {
        let prog = &programs()[2].1;
        let expected = run_oracle(prog, boxed);
        let p = params(3, opts).with_bridge_threshold(u32::MAX);
        let (r, out, stats) = run_jit(prog, boxed, p);
        assert_eq!((r, out), expected);
        assert!(stats.guard_failures > 100, "{stats}");
        assert!(stats.blackhole_runs >= stats.guard_failures, "{stats}");
        assert_eq!(stats.bridges_compiled, 0, "{stats}");
    }
}

#[test]
fn guards_inside_inlined_calls_resume_both_frames() {
    // `mix` branches on acc > cnt inside the inlined helper; the branch
    // changes once cnt passes acc.
    let prog = Program::new(&[
        (LOADA, 1000),
        (LOADC, 300),
        (MIX, 0),
        (PRINT, 0),
        (DECC, 0),
        (JNZ, 2),
        (HALT, 0),
    ]);
    for (opts, boxed) in OPTS.iter().flat_map(|o| [(o, false), (o, true)]) {
        let expected = run_oracle(&prog, boxed);
        let p = params(2, opts).with_bridge_threshold(u32::MAX);
        let (r, out, stats) = run_jit(&prog, boxed, p);
        assert_eq!((r, out), expected, "{stats}");
        assert!(stats.guard_failures >= 1, "{stats}");
    }
}

/// The program called `name`.
fn program(name: &str) -> Program {
    programs().into_iter().find(|p| p.0 == name).unwrap().1
}

#[test]
fn hot_failing_guards_get_bridges_that_are_entered() {
    // A flipping branch; in the second program the guard's resume data
    // holds a virtual box (boxed, optimized) that the bridge re-creates.
    for (opts, boxed, prog) in
        OPTS.iter()
            .flat_map(|o| [(o, false), (o, true)])
            .flat_map(|(o, b)| {
                [
                    (o, b, program("odd_even")),
                    (o, b, program("alloc_then_branch")),
                ]
            })
    {
        let expected = run_oracle(&prog, boxed);
        let p = params(3, opts).with_bridge_threshold(5);
        let (r, out, jit) = run_jit_driver(&prog, boxed, p);
        let stats = jit.stats();
        assert_eq!((r, out), expected, "{stats}");
        assert!(stats.bridges_compiled >= 1, "{stats}");
        assert_eq!(jit.bridges().len() as u64, stats.bridges_compiled);
        for b in jit.bridges() {
            // The failed branch's outcome is known in its bridge: no guard
            // re-tests it.
            let first = b.trace.ops[0].opcode;
            let guards = [majit_ir::OpCode::GuardTrue, majit_ir::OpCode::GuardFalse];
            assert!(
                !guards.contains(&first),
                "{}",
                majit_ir::text::print(&b.trace)
            );
        }
        // Without the bridge the guard would fail ~200 times; with it, the
        // failures stop once the bridge is attached (it is entered).
        assert!(stats.guard_failures < 20, "{stats}");
        if boxed && !opts.is_empty() {
            // The loop's first guard sees the fresh box only virtually:
            // its fail args hold no ref, so the bridge re-creates it.
            let loops = jit.loops();
            let trace = &loops[0].trace;
            let first_guard = trace.ops.iter().find(|op| op.opcode.is_guard());
            let fail_args = first_guard.unwrap().fail_args.clone().unwrap();
            let kinds: Vec<_> = fail_args.iter().map(|&a| trace.kind_of(a)).collect();
            assert!(!kinds.contains(&Some(majit_ir::Kind::Ref)), "{kinds:?}");
        }
    }
}

#[test]
fn aborts_leave_results_and_side_effects_unchanged() {
    for (opts, boxed) in OPTS.iter().flat_map(|o| [(o, false), (o, true)]) {
        for (name, prog) in programs() {
            let expected = run_oracle(&prog, boxed);
            let p = params(1, opts).with_trace_limit(2);
            let (r, out, stats) = run_jit(&prog, boxed, p);
            assert_eq!((r, &out), (expected.0, &expected.1), "{name}\n{stats}");
            assert_eq!(stats.loops_compiled, 0, "{name}\n{stats}");
            assert!(
                stats.aborts_for(AbortReason::TraceTooLong) >= 1,
                "{name}\n{stats}"
            );
        }
    }
}

#[test]
fn overflow_guards_deoptimize_to_the_overflow_path() {
    let prog = &programs()[3].1;
    for opts in OPTS {
        let expected = run_oracle(prog, false);
        assert!(expected.1.contains(&-1), "the program overflows");
        let p = params(2, opts).with_bridge_threshold(u32::MAX);
        let (r, out, stats) = run_jit(prog, false, p);
        assert_eq!((r, out), expected, "{stats}");
        assert!(stats.guard_failures >= 1, "{stats}");
    }
}

#[test]
fn promoted_values_become_constants_behind_guard_value() {
    let prog = program("promote");
    for opts in OPTS {
        let expected = run_oracle(&prog, false);
        let p = params(2, opts).with_bridge_threshold(u32::MAX);
        let (set, portal) = interp_jitcode(false);
        let jit = JitDriver::new(set, portal, RefExec::new(), p).unwrap();
        take_output();
        let r = run_plain(&prog, false, &mut |st| {
            let mut g = [Value::Int(st.pc), Value::Int(prog.addr())];
            let mut r = [st.acc, Value::Int(st.cnt)];
            let action = jit.can_enter_jit(&mut g, &mut r).unwrap();
            if action == JitAction::Continue {
                st.pc = g[0].as_int().unwrap();
                st.acc = r[0];
                st.cnt = r[1].as_int().unwrap();
            }
            false
        });
        assert_eq!((r, take_output()), expected);
        let text = majit_ir::text::print(&jit.loops()[0].trace);
        assert!(text.contains("guard_value("), "{text}");
        // acc += t uses the promoted constant, not the shifted value
        assert!(!text.contains("int_add(i0, i"), "{text}");
        assert!(jit.stats().guard_failures >= 1, "{}", jit.stats());
    }
}

#[test]
fn bad_state_is_an_error_not_a_panic() {
    let (set, portal) = interp_jitcode(false);
    let jit = JitDriver::new(set, portal, RefExec::new(), params(1, "")).unwrap();
    let mut g = [Value::Int(0)];
    let mut r = [Value::Int(0), Value::Int(0)];
    assert!(jit.can_enter_jit(&mut g, &mut r).is_err());
}

#[test]
fn the_optimizer_removes_the_boxed_allocations_it_can() {
    // ADDA's box dies when ODD replaces it: at least that allocation is
    // removed from the loop body.
    let prog = program("alloc_then_branch");
    let (_, _, plain) = run_jit_driver(&prog, true, params(2, ""));
    let (_, _, opt) = run_jit_driver(&prog, true, params(2, majit_metainterp::opt::DEFAULT_OPTS));
    // Count in the loop body: after the last label (with unroll, the
    // preamble before it allocates too).
    let news = |jit: &JitDriver<RefExec>| {
        let text = majit_ir::text::print(&jit.loops()[0].trace);
        let body = &text[text.rfind("label(").unwrap()..];
        body.matches("new(").count()
    };
    // ODD's box escapes through the jump unless unroll carries it unboxed
    // in the label's virtual state (it does: then the body allocates none).
    let (plain_news, opt_news) = (news(&plain), news(&opt));
    assert_eq!(plain_news, 2);
    assert!(
        opt_news <= 1,
        "{opt_news} allocations left in the loop body"
    );
    let trace = &opt.loops()[0].trace;
    let body = trace.ops.len() - trace.label_index().unwrap();
    let (plain, opt) = (plain.stats(), opt.stats());
    assert_eq!(plain.ops_recorded, plain.ops_optimized, "{plain}");
    assert!((body as u64) < opt.ops_recorded, "{opt}");
    assert!(opt.time_optimizing > std::time::Duration::ZERO, "{opt}");
}

#[test]
fn aborts_at_every_trace_length_keep_semantics() {
    // Sweeping the limit puts the abort at every point of the first
    // iteration, inside inlined calls and right after side effects too.
    for name in ["mix", "print_loop", "alloc_then_branch"] {
        let prog = program(name);
        for boxed in [false, true] {
            let expected = run_oracle(&prog, boxed);
            for limit in 1..30 {
                let p = params(1, "").with_trace_limit(limit);
                let (r, out, stats) = run_jit(&prog, boxed, p);
                assert_eq!(
                    (r, &out),
                    (expected.0, &expected.1),
                    "{name} limit={limit}\n{stats}"
                );
            }
        }
    }
}

#[test]
fn successful_compiles_are_never_counted_as_aborts() {
    for (name, prog) in programs() {
        for opts in OPTS {
            let (_, _, stats) = run_jit(&prog, true, params(2, opts));
            assert_eq!(stats.total_aborts(), 0, "{name} opts={opts}\n{stats}");
            assert!(stats.loops_compiled >= 1, "{name}\n{stats}");
            assert!(
                stats.traces_started >= stats.loops_compiled,
                "{name}\n{stats}"
            );
        }
    }
}

#[test]
fn the_trace_time_heap_cache_drops_repeated_loads() {
    // Unoptimized, so only the tracer's cache can remove loads: the box
    // stored by the previous handler is read back by the next one (and by
    // the merge point's dispatch) without a new `getfield`.
    let prog = program("sum");
    let expected = run_oracle(&prog, true);
    let (r, out, jit) = run_jit_driver(&prog, true, params(2, ""));
    assert_eq!((r, out), expected);
    let text = majit_ir::text::print(&jit.loops()[0].trace);
    // ADDC loads acc once; DECC and JNZ reuse the box stored by ADDC.
    assert_eq!(text.matches("getfield_gc_i").count(), 1, "{text}");
    assert_eq!(text.matches("setfield_gc").count(), 1, "{text}");

    // A residual call (PRINT, random effects) empties the cache: the next
    // handler's dispatch loads the accumulator again.
    let prog = program("print_loop");
    let expected = run_oracle(&prog, true);
    let (r, out, jit) = run_jit_driver(&prog, true, params(2, ""));
    assert_eq!((r, out), expected);
    let text = majit_ir::text::print(&jit.loops()[0].trace);
    assert_eq!(text.matches("getfield_gc_i").count(), 2, "{text}");
}

#[test]
fn many_guard_failures_run_in_constant_stack() {
    // 20000 iterations, a guard failing every other one, no bridges:
    // nothing in the exit path recurses per failure (a test thread has a
    // small stack).
    let prog = Program::new(&[
        (LOADA, 1),
        (LOADC, 20000),
        (ODD, 7),
        (DECC, 0),
        (JNZ, 2),
        (PRINT, 0),
        (HALT, 0),
    ]);
    let expected = run_oracle(&prog, false);
    let p = params(2, "").with_bridge_threshold(u32::MAX);
    let (r, out, stats) = run_jit(&prog, false, p);
    assert_eq!((r, out), expected);
    assert!(stats.guard_failures >= 9000, "{stats}");
}

#[test]
fn the_report_lists_stats_loops_and_bridges() {
    let prog = program("odd_even");
    let (_, _, jit) = run_jit_driver(&prog, false, params(3, "").with_bridge_threshold(5));
    let report = jit.report();
    assert!(report.contains("loops: 1 compiled"), "{report}");
    assert!(
        report.contains("# loop 0 at greens [Int(2), Int("),
        "{report}"
    );
    assert!(report.contains("# bridge 0 from guard"), "{report}");
    assert!(report.contains("jump("), "{report}");
}

#[test]
fn guard_value_failures_are_counted_per_value() {
    // `cnt` is promoted and differs in every iteration: the loop's
    // guard_value fails ~100 times, but never twice with one value, so no
    // value is hot enough for a bridge.
    let prog = Program::new(&[
        (LOADA, 0),
        (LOADC, 100),
        (PROMC, 0),
        (DECC, 0),
        (JNZ, 2),
        (PRINT, 0),
        (HALT, 0),
    ]);
    let expected = run_oracle(&prog, false);
    let (r, out, stats) = run_jit(&prog, false, params(2, "").with_bridge_threshold(1));
    assert_eq!((r, out), expected);
    assert!(stats.guard_failures > 50, "{stats}");
    assert_eq!(stats.bridges_compiled, 0, "{stats}");
}

#[test]
fn nested_loops_compile_both_and_connect_them() {
    let prog = program("nested");
    for (opts, boxed) in OPTS.iter().flat_map(|o| [(o, false), (o, true)]) {
        let expected = run_oracle(&prog, boxed);
        let (r, out, jit) = run_jit_driver(&prog, boxed, params(2, opts).with_bridge_threshold(3));
        let stats = jit.stats();
        assert_eq!((r, out), expected, "{stats}");
        assert!(stats.loops_compiled >= 2, "{}", jit.report());
        assert!(stats.bridges_compiled >= 1, "{}", jit.report());
    }
}

#[test]
fn every_allocation_kept_is_in_the_ledger_stats_and_report() {
    // Without unroll, ODD's box escapes through the jump and stays.
    let prog = program("alloc_then_branch");
    let opts = "intbounds:rewrite:virtualize:heap:pure";
    let (_, _, jit) = run_jit_driver(&prog, true, params(2, opts));
    let allocations = |t: &majit_ir::Trace| {
        t.ops
            .iter()
            .filter(|op| op.opcode == majit_ir::OpCode::New)
            .count() as u64
    };
    let in_traces: u64 = jit
        .loops()
        .iter()
        .map(|l| allocations(&l.trace))
        .sum::<u64>()
        + jit
            .bridges()
            .iter()
            .map(|b| allocations(&b.trace))
            .sum::<u64>();
    assert!(in_traces > 0, "the escaping box must stay");
    assert_eq!(jit.stats().allocations_kept, in_traces, "{}", jit.stats());
    for l in jit.loops() {
        assert_eq!(l.ledger.allocations().count() as u64, allocations(&l.trace));
    }
    let report = jit.report();
    assert!(report.contains(&format!("{in_traces} kept")), "{report}");
    assert!(
        report.matches("# ledger:").count() as u64 >= in_traces,
        "{report}"
    );
}

#[test]
fn the_log_and_summary_show_resume_data_aborts_and_removed_allocations() {
    // Boxed accumulator, optimized: the box is virtual at guards, so the
    // resume data re-creates it; the allocation count drops.
    let prog = program("alloc_then_branch");
    let (r, out, jit) = run_jit_driver(&prog, true, params(2, majit_metainterp::opt::DEFAULT_OPTS));
    assert_eq!((r, out), run_oracle(&prog, true));
    let log = jit.log();
    let traces = jit.loops().len() + jit.bridges().len();
    assert_eq!(log.matches("## recorded trace: ").count(), traces, "{log}");
    assert_eq!(log.matches("## optimized trace: ").count(), traces, "{log}");
    assert!(log.contains("rd_virtuals[0] IntBox{"), "{log}");
    assert!(log.contains("## machine code: none"), "{log}");
    let s = jit.stats();
    assert!(s.allocations_removed >= 1, "{s}");
    let summary = jit.summary();
    let line = format!(
        "allocations: {} removed, {} kept",
        s.allocations_removed, s.allocations_kept
    );
    assert!(summary.lines().any(|l| l == line), "{summary}");
    // Aborts are listed by reason with their counts.
    let (_, _, jit) = run_jit_driver(&prog, false, params(1, "").with_trace_limit(3));
    let n = jit.stats().aborts_for(AbortReason::TraceTooLong);
    assert!(n >= 1);
    let summary = jit.summary();
    let line = format!("  abort ({}): {n}", AbortReason::TraceTooLong.message());
    assert!(summary.lines().any(|l| l == line), "{summary}");
    assert!(summary.contains(&format!("{n} aborted")), "{summary}");
}

/// The child half of [`an_unopenable_majit_log_is_an_error_of_new`]: run
/// with `MAJIT_LOG` set by the parent (setting it here would race other
/// tests' drivers).
#[test]
fn majit_log_child() {
    let Some(expect) = std::env::var_os("MAJIT_LOG_CHILD") else {
        return;
    };
    let (set, portal) = interp_jitcode(false);
    let params = JitParams::default().with_threshold(3);
    let got = JitDriver::new(set, portal, RefExec::new(), params);
    match (expect.to_str(), got) {
        (Some("error"), Err(e)) => {
            let text = e.to_string();
            assert!(matches!(e, majit_metainterp::driver::JitError::Log { .. }));
            assert!(
                text.contains("MAJIT_LOG=\"/nonexistent/dir/log\""),
                "{text}"
            );
        }
        (Some("written"), Ok(mut jit)) => {
            run_with_jit(&mut jit, &program("sum"), false).unwrap();
            assert_eq!(jit.stats().loops_compiled, 1);
        }
        (expect, got) => panic!("{expect:?}: {:?}", got.map(|_| ())),
    }
}

#[test]
fn an_unopenable_majit_log_is_an_error_of_new() {
    let dir = std::env::temp_dir().join(format!("majit-log-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("jit.log");
    for (expect, path) in [
        ("error", std::path::Path::new("/nonexistent/dir/log")),
        ("written", log.as_path()),
    ] {
        let out = this_test_binary()
            .args(["--exact", "majit_log_child", "--test-threads=1"])
            .env("MAJIT_LOG_CHILD", expect)
            .env("MAJIT_LOG", path)
            .output()
            .unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(out.status.success(), "{expect}: {stdout}{stderr}");
    }
    // Opened at creation, written at drop.
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.starts_with("# majit log: backend refexec, 1 loops"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A helper that raises an exception (`runtime::raise`) at `n == 7`.
extern "C" fn raise_at_7(n: i64) -> i64 {
    if n == 7 {
        majit_metainterp::runtime::raise(0x40);
    }
    n
}

/// `loop { merge(pc; n); acc += raise_at_7(n); n -= 1; if n == 0 { return acc } }`
/// as jitcode, the call's descr saying `can_raise` or not.
fn raising_portal(
    can_raise: bool,
) -> (
    majit_metainterp::jitcode::JitCodeSet,
    majit_metainterp::jitcode::FuncId,
) {
    use majit_ir::{CallDescr, CallEffect, EffectInfo, Kind, OpCode, ResultKind};
    use majit_metainterp::jitcode::{Arg, JitCodeBuilder, JitCodeSet};
    let descr = CallDescr {
        name: "raise_at_7".into(),
        args: vec![Kind::Int],
        result: ResultKind::Int,
        effect: EffectInfo {
            effect: CallEffect::Random,
            can_raise,
            ..Default::default()
        },
    };
    let mut b = JitCodeBuilder::new("portal");
    let (pc, acc, n) = (b.param(Kind::Int), b.param(Kind::Int), b.param(Kind::Int));
    let r = b.reg(Kind::Int);
    let (top, done) = (b.label(), b.label());
    b.bind(top);
    b.jit_merge_point(&[pc], &[acc, n]);
    let f = Arg::Int(raise_at_7 as *const () as usize as i64);
    b.call(descr.into(), f, &[n.into()], Some(r));
    b.op(OpCode::IntAdd, &[acc.into(), r.into()], acc);
    b.op(OpCode::IntSub, &[n.into(), Arg::Int(1)], n);
    b.goto_if_not(n.into(), done);
    b.can_enter_jit(&[pc], &[acc, n]);
    b.goto(top);
    b.bind(done);
    b.ret(Some(acc.into()));
    let mut codes = JitCodeSet::new();
    let portal = codes.add(b.finish().unwrap());
    (codes, portal)
}

/// A helper raising while its descr does not say `can_raise` (no trace
/// would check for it) is an error, not an exception.
#[test]
fn raising_without_can_raise_is_an_error() {
    let (codes, portal) = raising_portal(false);
    let params = JitParams::default().with_threshold(1);
    let jit = JitDriver::new(codes, portal, RefExec::new(), params).unwrap();
    // Traced at once: the traced iteration calls `raise_at_7(7)`.
    let (mut greens, mut reds) = ([Value::Int(0)], [Value::Int(0), Value::Int(7)]);
    let e = jit.can_enter_jit(&mut greens, &mut reds).unwrap_err();
    assert!(e.to_string().contains("does not say can_raise"), "{e}");
}

/// `loop { merge(pc; n); acc += raise_at_7(n); n -= 1; if n == 0 { return acc } }`
/// from `n`, no catch anywhere: whether the call ran in the tracer or in
/// compiled code, the exception ends the program with it
/// (`JitAction::Raised`); the call never runs twice. In compiled code the
/// call's `guard_no_exception` fails and the blackhole delivers the
/// exception, which leaves the portal.
#[test]
fn an_uncaught_exception_ends_the_program_with_it() {
    let (codes, portal) = raising_portal(true);
    // Threshold 3 from n = 10: the iteration at n = 7 is traced; from
    // n = 30 it runs in the compiled loop.
    for (start, compiled) in [(10, false), (30, true)] {
        let params = JitParams::default().with_threshold(3);
        let jit = JitDriver::new(codes.clone(), portal, RefExec::new(), params).unwrap();
        let (mut acc, mut n) = (0i64, start);
        let raised = loop {
            acc += raise_at_7(n);
            n -= 1;
            let (mut greens, mut reds) = ([Value::Int(0)], [Value::Int(acc), Value::Int(n)]);
            match jit.can_enter_jit(&mut greens, &mut reds).unwrap() {
                JitAction::Interpret => {}
                JitAction::Continue => {
                    acc = reds[0].as_int().unwrap();
                    n = reds[1].as_int().unwrap();
                }
                JitAction::Finished(v) => panic!("finished with {v:?}"),
                JitAction::Raised(e) => break e,
            }
        };
        assert_eq!(raised, Value::Ref(0x40));
        let s = jit.stats();
        assert_eq!(s.traces_started, 1, "{s}");
        assert_eq!(s.loops_compiled > 0, compiled, "{s}");
        assert!(!compiled || s.loop_entries > 0, "{s}");
        assert_eq!(s.guard_failures, u64::from(compiled), "{s}");
        assert_eq!(s.blackhole_runs, u64::from(compiled), "{s}");
        assert_eq!(s.aborts.values().sum::<u64>(), u64::from(!compiled), "{s}");
    }
}

#[test]
fn a_loop_trace_that_leaves_its_loop_is_dropped_and_traced_again() {
    // "nested": the inner loop (key pc 2) takes its back edge four times
    // per outer iteration. At threshold 4 its first trace starts at the
    // last one, leaves the inner loop and meets the outer loop's back edge
    // (pc 1): that attempt is dropped (LuaJIT's LINNER), not compiled as a
    // loop around one inner iteration and the outer step.
    let prog = program("nested");
    for (opts, boxed) in OPTS.iter().flat_map(|o| [(o, false), (o, true)]) {
        let expected = run_oracle(&prog, boxed);
        let (r, out, jit) = run_jit_driver(&prog, boxed, params(4, opts));
        let stats = jit.stats();
        assert_eq!((r, out), expected, "{stats}");
        assert!(stats.aborts_for(AbortReason::LoopLeft) >= 1, "{stats}");
        let inner =
            majit_metainterp::warmstate::GreenKey::new(&[Value::Int(2), Value::Int(prog.addr())]);
        let loops = jit.loops();
        let inner = loops
            .iter()
            .find(|l| l.key == inner)
            .expect("the inner loop compiled");
        let calls = inner
            .recorded
            .ops
            .iter()
            .filter(|op| op.opcode.is_call())
            .count();
        assert_eq!(
            calls,
            0,
            "the inner loop's trace prints nothing:\n{}",
            jit.report()
        );
        assert!(stats.loop_entries >= 1, "{stats}");
    }
}
