//! Too-long traces blame the biggest inlined function (`tracer/blame.rs`):
//! the driver marks it don't-inline and the key is traced again, this
//! time with a residual call of the function's residual form.
//!
//! The interpreter: `loop { acc = big(small(acc), n); n -= 1; if n == 0
//! { return acc } }` (greens `[g]`, reds `[acc, n]`), where `small` (2 ops)
//! and `big` (120 ops) are inline-called jitcode functions that may have
//! residual forms (`extern "C"` functions computing the same), and with
//! `trace_limit` 60 the first trace is too long. Variants ([`Shape`]): the
//! portal runs `big`'s rounds itself, or calls `big` only every 16th
//! iteration (so a bridge is too long).

use majit_ir::{CallDescr, Descr, EffectInfo, Kind, OpCode, ResultKind, Value};
use majit_metainterp::driver::{JitAction, JitDriver};
use majit_metainterp::jitcode::{Arg, FuncId, JitCodeBuilder, JitCodeSet};
use majit_metainterp::params::JitParams;
use majit_metainterp::refexec::RefExec;
use majit_metainterp::stats::AbortReason;

/// The rounds of `big`: four recorded ops each.
const ROUNDS: usize = 30;

fn small_rust(x: i64) -> i64 {
    x.wrapping_add(1) ^ 5
}

fn big_rust(mut x: i64, k: i64) -> i64 {
    for _ in 0..ROUNDS {
        x = x.wrapping_mul(3).wrapping_add(k);
        x ^= x >> 7;
    }
    x
}

extern "C" fn small_native(x: i64) -> i64 {
    small_rust(x)
}

extern "C" fn big_native(x: i64, k: i64) -> i64 {
    big_rust(x, k)
}

/// Where `big`'s rounds run.
#[derive(Copy, Clone, PartialEq)]
enum Shape {
    /// Every iteration calls `big`.
    Calls,
    /// The portal runs the rounds itself.
    Inline,
    /// Only iterations where `n % 16 == 0` call `big`.
    Rare,
}

/// One iteration of the interpreter on `acc`.
fn step(shape: Shape, acc: i64, n: i64) -> i64 {
    let acc = small_rust(acc);
    match shape {
        Shape::Rare if n % 16 != 0 => acc,
        _ => big_rust(acc, n),
    }
}

/// The plain interpreter.
fn plain(shape: Shape, n0: i64) -> i64 {
    let (mut acc, mut n) = (1i64, n0);
    loop {
        acc = step(shape, acc, n);
        n -= 1;
        if n == 0 {
            return acc;
        }
    }
}

fn descr(name: &str, args: &[Kind]) -> Descr {
    CallDescr {
        name: name.into(),
        args: args.to_vec(),
        result: ResultKind::Int,
        effect: EffectInfo::default(),
    }
    .into()
}

/// `small`, `big` and the portal of `shape` as jitcode, each function
/// with its residual form when asked.
fn jitcode(small_form: bool, big_form: bool, shape: Shape) -> (JitCodeSet, FuncId) {
    let mut codes = JitCodeSet::new();
    let mut b = JitCodeBuilder::new("small");
    let x = b.param(Kind::Int);
    b.op(OpCode::IntAdd, &[x.into(), Arg::Int(1)], x);
    b.op(OpCode::IntXor, &[x.into(), Arg::Int(5)], x);
    b.ret(Some(x.into()));
    let small = codes.add(b.finish().unwrap());
    let mut b = JitCodeBuilder::new("big");
    let (x, k) = (b.param(Kind::Int), b.param(Kind::Int));
    rounds(&mut b, x, k);
    b.ret(Some(x.into()));
    let big = codes.add(b.finish().unwrap());
    if small_form {
        let d = descr("small", &[Kind::Int]);
        codes
            .set_residual(small, small_native as *const () as usize, d)
            .unwrap();
    }
    if big_form {
        let d = descr("big", &[Kind::Int, Kind::Int]);
        codes
            .set_residual(big, big_native as *const () as usize, d)
            .unwrap();
    }
    let mut b = JitCodeBuilder::new("portal");
    let (g, acc, n) = (b.param(Kind::Int), b.param(Kind::Int), b.param(Kind::Int));
    let (top, done, skip) = (b.label(), b.label(), b.label());
    b.bind(top);
    b.jit_merge_point(&[g], &[acc, n]);
    b.inline_call(small, &[acc.into()], Some(acc));
    if shape == Shape::Rare {
        let c = b.reg(Kind::Int);
        b.op(OpCode::IntMod, &[n.into(), Arg::Int(16)], c);
        b.op(OpCode::IntEq, &[c.into(), Arg::Int(0)], c);
        b.goto_if_not(c.into(), skip);
    }
    if shape == Shape::Inline {
        rounds(&mut b, acc, n);
    } else {
        b.inline_call(big, &[acc.into(), n.into()], Some(acc));
    }
    b.bind(skip);
    b.op(OpCode::IntSub, &[n.into(), Arg::Int(1)], n);
    b.goto_if_not(n.into(), done);
    b.can_enter_jit(&[g], &[acc, n]);
    b.goto(top);
    b.bind(done);
    b.ret(Some(acc.into()));
    let portal = codes.add(b.finish().unwrap());
    (codes, portal)
}

/// `big`'s rounds on `x` with `k`.
fn rounds(
    b: &mut JitCodeBuilder,
    x: majit_metainterp::jitcode::Reg,
    k: majit_metainterp::jitcode::Reg,
) {
    let t = b.reg(Kind::Int);
    for _ in 0..ROUNDS {
        b.op(OpCode::IntMul, &[x.into(), Arg::Int(3)], x);
        b.op(OpCode::IntAdd, &[x.into(), k.into()], x);
        b.op(OpCode::IntRshift, &[x.into(), Arg::Int(7)], t);
        b.op(OpCode::IntXor, &[x.into(), t.into()], x);
    }
}

/// The interpreter of `shape` with the JIT (threshold 3, trace limit 60,
/// bridge threshold 2).
fn with_jit(shape: Shape, codes: JitCodeSet, portal: FuncId, n0: i64) -> (i64, JitDriver<RefExec>) {
    let params = JitParams::default()
        .with_threshold(3)
        .with_trace_limit(60)
        .with_bridge_threshold(2);
    let jit = JitDriver::new(codes, portal, RefExec::new(), params).unwrap();
    let (mut acc, mut n) = (1i64, n0);
    let result = loop {
        acc = step(shape, acc, n);
        n -= 1;
        if n == 0 {
            break acc;
        }
        let (mut greens, mut reds) = ([Value::Int(0)], [Value::Int(acc), Value::Int(n)]);
        match jit.can_enter_jit(&mut greens, &mut reds).unwrap() {
            JitAction::Interpret => {}
            JitAction::Continue => {
                acc = reds[0].as_int().unwrap();
                n = reds[1].as_int().unwrap();
            }
            JitAction::Finished(v) => break v.unwrap().as_int().unwrap(),
            JitAction::Raised(e) => panic!("raised {e:?}"),
        }
    };
    (result, jit)
}

/// The names of the functions the driver marked.
fn marked(jit: &JitDriver<RefExec>) -> Vec<String> {
    let marks = &jit.stats().dont_inline;
    marks.iter().map(|d| d.name.clone()).collect()
}

#[test]
fn the_biggest_inlined_function_is_marked_and_the_retrace_calls_it() {
    let (codes, portal) = jitcode(true, true, Shape::Calls);
    let (r, jit) = with_jit(Shape::Calls, codes, portal, 200);
    assert_eq!(r, plain(Shape::Calls, 200));
    let s = jit.stats();
    assert_eq!(marked(&jit), ["big"], "{s}");
    assert_eq!(s.aborts_for(AbortReason::TraceTooLong), 1, "{s}");
    assert_eq!(s.loops_compiled, 1, "{s}");
    assert!(s.loop_entries >= 1, "{s}");
    let mark = &s.dont_inline[0];
    assert_eq!(mark.trace, "loop at greens [Int(0)]");
    // The trace: `label`, `small`'s two ops, then `big`'s until the limit.
    assert_eq!((mark.ops, mark.trace_ops), (58, 61), "{mark}");
    // The loop body calls `big` and inlines `small` (no call of it).
    let trace = majit_ir::text::print(&jit.loops()[0].trace);
    let text = &trace[trace.rfind("label(").unwrap()..];
    assert_eq!(text.matches("descr=big)").count(), 1, "{text}");
    assert!(!text.contains("descr=small)"), "{text}");
    assert!(text.contains("int_xor("), "{text}");
    assert!(!text.contains("int_rshift("), "{text}");
    // The summary and the log say what was marked and why.
    let line = format!("  marked don't-inline: {mark}");
    assert!(
        jit.summary().lines().any(|l| l == line),
        "{}",
        jit.summary()
    );
    assert!(
        jit.log().contains("# marked don't-inline: `big`: "),
        "{}",
        jit.log()
    );
}

#[test]
fn without_a_residual_form_the_blame_goes_to_the_next_biggest() {
    // `small` is marked, which does not shorten the trace enough: the
    // key then aborts as before, `max_aborts` times, and stays
    // interpreted.
    let (codes, portal) = jitcode(true, false, Shape::Calls);
    let (r, jit) = with_jit(Shape::Calls, codes, portal, 200);
    assert_eq!(r, plain(Shape::Calls, 200));
    let s = jit.stats();
    assert_eq!(marked(&jit), ["small"], "{s}");
    let max = u64::from(jit.params().max_aborts);
    assert_eq!(s.aborts_for(AbortReason::TraceTooLong), 1 + max, "{s}");
    assert_eq!(s.loops_compiled, 0, "{s}");
}

#[test]
fn a_portal_too_long_by_itself_aborts_as_before() {
    for forms in [false, true] {
        let (codes, portal) = jitcode(forms, forms, Shape::Inline);
        let (r, jit) = with_jit(Shape::Inline, codes, portal, 200);
        assert_eq!(r, plain(Shape::Inline, 200));
        let s = jit.stats();
        // `small` records 2 ops and has a residual form when `forms`: it
        // is blamed then, once.
        let expected: &[&str] = if forms { &["small"] } else { &[] };
        assert_eq!(marked(&jit), expected, "{s}");
        let max = u64::from(jit.params().max_aborts);
        let blamed = expected.len() as u64;
        assert_eq!(s.aborts_for(AbortReason::TraceTooLong), max + blamed, "{s}");
        assert_eq!(s.loops_compiled, 0, "{s}");
        assert!(
            !jit.summary().contains("don't-inline") || forms,
            "{}",
            jit.summary()
        );
    }
}

#[test]
fn a_too_long_bridge_marks_the_function_and_is_traced_again() {
    let (codes, portal) = jitcode(false, true, Shape::Rare);
    let n0 = 2000;
    let (r, jit) = with_jit(Shape::Rare, codes, portal, n0);
    assert_eq!(r, plain(Shape::Rare, n0));
    let s = jit.stats();
    // The loop skips `big`; the bridge from the rare branch's guard was
    // too long once, then compiled with a call of `big`.
    assert_eq!(marked(&jit), ["big"], "{s}");
    assert!(
        s.dont_inline[0].trace.starts_with("bridge from guard g"),
        "{s}"
    );
    assert_eq!(s.aborts_for(AbortReason::TraceTooLong), 1, "{s}");
    assert_eq!((s.loops_compiled, s.bridges_compiled), (1, 1), "{s}");
    let bridge = majit_ir::text::print(&jit.bridges()[0].trace);
    assert!(bridge.contains("descr=big)"), "{bridge}");
    let body = majit_ir::text::print(&jit.loops()[0].trace);
    assert!(!body.contains("descr=big)"), "{body}");
}

#[test]
fn a_residual_form_must_fit_its_function() {
    let (mut codes, _) = jitcode(false, false, Shape::Calls);
    let big = codes.find("big").unwrap();
    let one_arg = descr("big", &[Kind::Int]);
    let e = codes
        .set_residual(big, big_native as *const () as usize, one_arg)
        .unwrap_err();
    assert!(e.contains("takes [Int]"), "{e}");
    let void = Descr::from(CallDescr {
        name: "big".into(),
        args: vec![Kind::Int, Kind::Int],
        result: ResultKind::Void,
        effect: EffectInfo::default(),
    });
    let e = codes
        .set_residual(big, big_native as *const () as usize, void)
        .unwrap_err();
    assert!(e.contains("returns Void"), "{e}");
    // Checked at `define` when the form comes first.
    let id = codes.declare("late");
    let d = descr("late", &[Kind::Ref]);
    codes
        .set_residual(id, big_native as *const () as usize, d)
        .unwrap();
    let mut b = JitCodeBuilder::new("late");
    let x = b.param(Kind::Int);
    b.ret(Some(x.into()));
    let e = codes.define(id, b.finish().unwrap()).unwrap_err();
    assert!(e.contains("takes [Ref]"), "{e}");
}
