//! User optimizer passes set in `JitParams`, run by the driver: a
//! language-specific fold changes the compiled loop (and the program still
//! gives the plain interpreter's result, with the loop compiled and
//! entered); a pass whose output does not verify, and a pass that panics,
//! fail the compile cleanly: the same result, the loop interpreted and
//! traced once, the reason naming the pass in the stats.

use majit_ir::{Const, Kind, Op, OpCode, Value};
use majit_metainterp::driver::{JitAction, JitDriver};
use majit_metainterp::jitcode::{Arg, FuncId, JitCodeBuilder, JitCodeSet};
use majit_metainterp::opt::{Cx, OptOp, Outcome, Pass, Position, UserPasses};
use majit_metainterp::params::JitParams;
use majit_metainterp::refexec::RefExec;
use majit_metainterp::stats::AbortReason;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// `loop { merge(; acc, n); acc += n * 2; n -= 1; if n == 0 { return acc } }`.
fn portal() -> (JitCodeSet, FuncId) {
    let mut b = JitCodeBuilder::new("doubles");
    let (acc, n) = (b.param(Kind::Int), b.param(Kind::Int));
    let t = b.reg(Kind::Int);
    let (top, done) = (b.label(), b.label());
    b.bind(top);
    b.jit_merge_point(&[], &[acc, n]);
    b.op(OpCode::IntMul, &[n.into(), Arg::Int(2)], t);
    b.op(OpCode::IntAdd, &[acc.into(), t.into()], acc);
    b.op(OpCode::IntSub, &[n.into(), Arg::Int(1)], n);
    b.goto_if_not(n.into(), done);
    b.can_enter_jit(&[], &[acc, n]);
    b.goto(top);
    b.bind(done);
    b.ret(Some(acc.into()));
    let mut codes = JitCodeSet::new();
    let id = codes.add(b.finish().unwrap());
    (codes, id)
}

/// One iteration of the plain interpreter of [`portal`].
fn step(acc: i64, n: i64) -> (i64, i64) {
    (acc.wrapping_add(n.wrapping_mul(2)), n - 1)
}

/// The plain interpreter of [`portal`].
fn plain(mut n: i64) -> i64 {
    let mut acc = 0;
    loop {
        (acc, n) = step(acc, n);
        if n == 0 {
            return acc;
        }
    }
}

/// Runs [`portal`] from `n` under the JIT with `passes`.
fn run(n: i64, passes: UserPasses) -> (i64, JitDriver<RefExec>) {
    let (codes, id) = portal();
    let params = JitParams::default().with_threshold(3).with_passes(passes);
    let jit = JitDriver::new(codes, id, RefExec::new(), params).unwrap();
    let (mut acc, mut n) = (0i64, n);
    let result = loop {
        (acc, n) = step(acc, n);
        if n == 0 {
            break acc;
        }
        let mut reds = [Value::Int(acc), Value::Int(n)];
        match jit.can_enter_jit(&mut [], &mut reds).unwrap() {
            JitAction::Interpret => {}
            JitAction::Continue => {
                acc = reds[0].as_int().unwrap();
                n = reds[1].as_int().unwrap();
            }
            JitAction::Raised(e) => panic!("raised {e:?}"),
            JitAction::Finished(v) => break v.unwrap().as_int().unwrap(),
        }
    };
    (result, jit)
}

/// The language's fold: its values are small, so `x * 2` is `x + x`
/// (before `rewrite`, which would turn it into a shift). Counts its folds.
struct DoubleToAdd(Arc<AtomicUsize>);
impl Pass for DoubleToAdd {
    fn name(&self) -> &'static str {
        "double_to_add"
    }
    fn feed(&mut self, cx: &mut Cx, mut op: OptOp) -> Outcome {
        let x = op.op.args.first().copied();
        if op.op.opcode == OpCode::IntMul
            && op.op.args.get(1).and_then(|&b| cx.const_of(b)) == Some(Const::Int(2))
        {
            if let Some(x) = x {
                op.op = Op::new(OpCode::IntAdd, &[x, x]);
                self.0.fetch_add(1, Ordering::Relaxed);
            }
        }
        Outcome::Emit(op)
    }
}

#[test]
fn a_user_fold_changes_the_compiled_loop_not_the_result() {
    let folds = Arc::new(AtomicUsize::new(0));
    let f = folds.clone();
    let passes = UserPasses::none().with(Position::Before("rewrite"), move || {
        Box::new(DoubleToAdd(f.clone()))
    });
    let (result, jit) = run(1000, passes);
    let stats = jit.stats().clone();
    assert_eq!(result, plain(1000), "{stats}");
    assert_eq!(stats.loops_compiled, 1, "{stats}");
    assert!(stats.loop_entries >= 1, "{stats}");
    assert!(folds.load(Ordering::Relaxed) > 0, "the pass ran");
    let compiled = &jit.loops()[0].trace;
    let has = |code| compiled.ops.iter().any(|op| op.opcode == code);
    assert!(has(OpCode::IntAdd) && !has(OpCode::IntMul) && !has(OpCode::IntLshift));
    // Without the pass, `rewrite` turns the product into a shift.
    let (plain_result, jit) = run(1000, UserPasses::none());
    assert_eq!(plain_result, result);
    let compiled = &jit.loops()[0].trace;
    assert!(compiled.ops.iter().any(|op| op.opcode == OpCode::IntLshift));
}

/// Passes a null ref where `int_sub` wants an int: the trace does not
/// verify.
struct RefIntoSub;
impl Pass for RefIntoSub {
    fn name(&self) -> &'static str {
        "ref_into_sub"
    }
    fn feed(&mut self, cx: &mut Cx, mut op: OptOp) -> Outcome {
        if op.op.opcode == OpCode::IntSub {
            op.op.args[1] = cx.konst(Const::Ref(0));
        }
        Outcome::Emit(op)
    }
}

/// Panics at the first `int_add`.
struct Panics;
impl Pass for Panics {
    fn name(&self) -> &'static str {
        "panics"
    }
    fn feed(&mut self, _cx: &mut Cx, op: OptOp) -> Outcome {
        if op.op.opcode == OpCode::IntAdd {
            panic!("the pass gave up");
        }
        Outcome::Emit(op)
    }
}

/// Runs with `passes`: the result is the plain interpreter's, the loop
/// was traced once and failed to compile with a message naming `pass` and
/// containing `why`.
fn fails_cleanly(passes: UserPasses, pass: &str, why: &str) {
    let (result, jit) = run(1000, passes);
    let stats = jit.stats().clone();
    assert_eq!(result, plain(1000), "{stats}");
    assert_eq!(stats.loops_compiled, 0, "{stats}");
    assert_eq!(stats.loop_entries, 0, "{stats}");
    assert_eq!(stats.traces_started, 1, "traced once:\n{stats}");
    assert_eq!(stats.aborts_for(AbortReason::CompileFailed), 1, "{stats}");
    let m: Vec<&str> = stats
        .abort_messages_for(AbortReason::CompileFailed)
        .collect();
    assert!(
        m[0].starts_with(&format!("optimizer failed: user pass `{pass}`: ")),
        "{}",
        m[0]
    );
    assert!(m[0].contains(why), "{}", m[0]);
}

#[test]
fn a_pass_producing_an_invalid_trace_fails_the_compile_cleanly() {
    for at in [Position::After("intbounds"), Position::After("unroll")] {
        let passes = UserPasses::none().with(at, || Box::new(RefIntoSub));
        fails_cleanly(passes, "ref_into_sub", "does not verify: ");
    }
}

#[test]
fn a_panicking_pass_fails_the_compile_cleanly() {
    let passes = UserPasses::none().with(Position::Before("heap"), || Box::new(Panics));
    fails_cleanly(passes, "panics", "panicked: the pass gave up");
}

#[test]
fn a_position_naming_no_pass_is_refused_up_front() {
    let (codes, id) = portal();
    let passes = UserPasses::none().with(Position::After("fold"), || Box::new(Panics));
    let params = JitParams::default().with_passes(passes);
    let err = JitDriver::new(codes, id, RefExec::new(), params)
        .err()
        .unwrap();
    let msg = err.to_string();
    assert!(
        msg.contains("JitParams::passes") && msg.contains("`fold`"),
        "{msg}"
    );
}
