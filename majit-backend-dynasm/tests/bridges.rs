//! Where bridges end, on the native backend of this machine and on the
//! reference executor, with and without differential mode: a bridge that
//! reaches a peeled loop's merge point jumps into the loop body through
//! the loop's short preamble (the preamble does not run again); when the
//! body's assumptions about its label do not hold for the bridge's values,
//! the bridge's entry guards resume at the merge point, which enters the
//! loop at its start. Results equal the plain interpreter.

#![cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]

use majit_backend_dynasm::HostBackend;
use majit_ir::{Kind, OpCode, Value};
use majit_metainterp::driver::{JitAction, JitDriver};
use majit_metainterp::jitcode::{Arg, FuncId, JitCodeBuilder, JitCodeSet};
use majit_metainterp::params::JitParams;
use majit_metainterp::refexec::RefExec;
use majit_metainterp::stats::Stats;
use majit_metainterp::Backend;

/// `loop { merge(pc; acc, n, k); if k & 1 { n &= 255 } else { n += 1000 }
/// acc += n; k -= 1; if k == 0 { return acc } }`: the branch flips every
/// iteration, so the loop gets a bridge. Traced on the odd path, the
/// body assumes `0 <= n <= 255` at its label, which the even path breaks.
fn portal() -> (JitCodeSet, FuncId) {
    let mut b = JitCodeBuilder::new("portal");
    let pc = b.param(Kind::Int);
    let (acc, n, k) = (b.param(Kind::Int), b.param(Kind::Int), b.param(Kind::Int));
    let odd = b.reg(Kind::Int);
    let (top, even, next, done) = (b.label(), b.label(), b.label(), b.label());
    b.bind(top);
    b.jit_merge_point(&[pc], &[acc, n, k]);
    b.op(OpCode::IntAnd, &[k.into(), Arg::Int(1)], odd);
    b.goto_if_not(odd.into(), even);
    b.op(OpCode::IntAnd, &[n.into(), Arg::Int(255)], n);
    b.goto(next);
    b.bind(even);
    b.op(OpCode::IntAdd, &[n.into(), Arg::Int(1000)], n);
    b.bind(next);
    b.op(OpCode::IntAdd, &[acc.into(), n.into()], acc);
    b.op(OpCode::IntSub, &[k.into(), Arg::Int(1)], k);
    b.goto_if_not(k.into(), done);
    b.can_enter_jit(&[pc], &[acc, n, k]);
    b.goto(top);
    b.bind(done);
    b.ret(Some(acc.into()));
    let mut codes = JitCodeSet::new();
    let id = codes.add(b.finish().unwrap());
    (codes, id)
}

/// One iteration of the plain interpreter of [`portal`].
fn step([acc, n, k]: [i64; 3]) -> [i64; 3] {
    let n = if k & 1 != 0 { n & 255 } else { n + 1000 };
    [acc + n, n, k - 1]
}

/// The plain interpreter of [`portal`].
fn oracle(mut s: [i64; 3]) -> i64 {
    loop {
        s = step(s);
        if s[2] == 0 {
            return s[0];
        }
    }
}

/// Runs [`portal`] from `s` with the JIT on `backend`; returns the result
/// and the driver.
fn run<B: Backend>(backend: B, params: JitParams, mut s: [i64; 3]) -> (i64, JitDriver<B>) {
    let (codes, id) = portal();
    let jit = JitDriver::new(codes, id, backend, params).unwrap();
    let result = loop {
        s = step(s);
        if s[2] == 0 {
            break s[0];
        }
        let mut g = [Value::Int(0)];
        let mut r = s.map(Value::Int);
        match jit.can_enter_jit(&mut g, &mut r).unwrap() {
            JitAction::Interpret => {}
            JitAction::Continue => s = r.map(|v| v.as_int().unwrap()),
            JitAction::Raised(e) => panic!("raised {e:?}"),
            JitAction::Finished(v) => break v.unwrap().as_int().unwrap(),
        }
    };
    (result, jit)
}

fn params(diff: bool) -> JitParams {
    let p = JitParams::default()
        .with_threshold(3)
        .with_bridge_threshold(5);
    if diff {
        p.with_diff(3)
    } else {
        p
    }
}

/// Runs `start` on the native backend (with and without diff mode) and on
/// the reference executor; checks the result and hands each run's stats
/// and bridge traces' closing jump targets to `check`.
fn each_backend(start: [i64; 3], check: impl Fn(&str, &Stats, &[String])) {
    let expected = oracle(start);
    let ends = |bridges: &[majit_metainterp::compiled::BridgeInfo]| -> Vec<String> {
        let last = |b: &majit_metainterp::compiled::BridgeInfo| b.trace.ops.last().cloned();
        bridges
            .iter()
            .filter_map(|b| last(b)?.descr?.as_target().map(|t| t.name.clone()))
            .collect()
    };
    for diff in [false, true] {
        let (r, jit) = run(HostBackend::new().unwrap(), params(diff), start);
        let what = format!("native diff={diff}");
        assert_eq!(r, expected, "{what}\n{}", jit.report());
        check(&what, &jit.stats(), &ends(&jit.bridges()));
    }
    let (r, jit) = run(RefExec::new(), params(false), start);
    assert_eq!(r, expected, "refexec\n{}", jit.report());
    check("refexec", &jit.stats(), &ends(&jit.bridges()));
}

#[test]
fn bridges_jump_into_the_peeled_body() {
    // Traced on the even path: the body assumes nothing about `n`.
    each_backend([0, 7, 401], |what, s, ends| {
        assert_eq!(ends, ["Loop0.peeled"], "{what}\n{s}");
        assert_eq!(
            (s.loops_compiled, s.bridges_into_body),
            (1, 1),
            "{what}\n{s}"
        );
        assert_eq!(s.bridges_to_loop_start, 0, "{what}\n{s}");
        // The bridge is entered (the failures stop) and never leaves to
        // the loop's start: the preamble runs once per loop entry only.
        assert!(s.guard_failures < 20, "{what}\n{s}");
        assert_eq!(s.merge_point_exits, 0, "{what}\n{s}");
        assert!(s.loop_entries < 20, "{what}\n{s}");
    });
}

#[test]
fn bridges_breaking_the_body_assumptions_fall_back_to_the_loop_start() {
    // Traced on the odd path: the body assumes `n <= 255`, which the even
    // path's bridge breaks at run time; its entry guard leaves to the
    // merge point until it is hot, then gets a bridge to the loop start.
    each_backend([0, 7, 400], |what, s, ends| {
        assert_eq!(ends, ["Loop0.peeled", "Loop0"], "{what}\n{s}");
        assert_eq!(s.bridges_into_body, 1, "{what}\n{s}");
        assert_eq!(s.bridges_to_loop_start, 1, "{what}\n{s}");
        let threshold = u64::from(params(false).bridge_threshold);
        assert_eq!(s.merge_point_exits, threshold + 1, "{what}\n{s}");
    });
}

#[test]
fn the_entry_guards_check_the_body_label_bounds() {
    let (_, jit) = run(RefExec::new(), params(false), [0, 7, 400]);
    let text = majit_ir::text::print(&jit.bridges()[0].trace);
    assert!(
        text.contains("int_le(") && text.contains(", 255)"),
        "{text}"
    );
}
