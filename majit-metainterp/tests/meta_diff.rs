//! Differential mode on the test register machine: checked entries leave
//! results and side effects unchanged (a helper's output happens once,
//! real stdout included), a backend that miscompiles is caught with a
//! report naming the loop, the exits and the values, and checks that
//! cannot conclude are counted, not failures.

mod meta_support;

use majit_ir::Trace;
use majit_ir::{CallDescr, CallEffect, EffectInfo, Kind, OpCode, ResultKind, Value};
use majit_metainterp::backend::{Backend, CodeId, CompileError, DeadFrame, ExecError, ExitId};
use majit_metainterp::driver::{JitAction, JitDriver, JitError};
use majit_metainterp::jitcode::{Arg, JitCodeBuilder, JitCodeSet};
use majit_metainterp::params::JitParams;
use majit_metainterp::refexec::RefExec;
use meta_support::*;
use std::time::Duration;

/// How a [`Miscompile`] backend goes wrong.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fault {
    None,
    /// Adds 1 to the first int value of every dead frame.
    IntPlusOne,
    /// Reports the exit one op later than the one taken.
    WrongExit,
    /// Adds 1 to the i64 at this address after every run.
    CorruptWord(usize),
    /// [`Fault::IntPlusOne`] for exits inside bridges only.
    IntPlusOneInBridges,
}

thread_local! {
    /// [`Miscompile::execute`] runs on this thread: the GC epoch of a
    /// backend that collects during every run (the forked reference run
    /// does not count).
    static NATIVE_RUNS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// RefExec with a deliberate fault in what `execute` returns.
struct Miscompile {
    inner: RefExec,
    fault: Fault,
    bridges: Vec<CodeId>,
}

impl Backend for Miscompile {
    fn name(&self) -> &'static str {
        "miscompile"
    }
    fn compile_loop(&mut self, trace: &Trace) -> Result<CodeId, CompileError> {
        self.inner.compile_loop(trace)
    }
    fn compile_bridge(&mut self, guard: ExitId, bridge: &Trace) -> Result<CodeId, CompileError> {
        let code = self.inner.compile_bridge(guard, bridge)?;
        self.bridges.push(code);
        Ok(code)
    }
    fn execute(&mut self, code: CodeId, inputs: &[Value]) -> Result<DeadFrame, ExecError> {
        NATIVE_RUNS.with(|n| n.set(n.get() + 1));
        let mut df = self.inner.execute(code, inputs)?;
        let in_bridge = self.bridges.contains(&df.exit.code);
        match self.fault {
            Fault::None => {}
            Fault::IntPlusOneInBridges if !in_bridge => {}
            Fault::IntPlusOne | Fault::IntPlusOneInBridges => {
                if let Some(v) = df.values.iter_mut().find(|v| v.as_int().is_some()) {
                    *v = Value::Int(v.as_int().unwrap().wrapping_add(1));
                }
            }
            Fault::WrongExit => df.exit.op_index += 1,
            // SAFETY: the tests pass the address of a live i64.
            Fault::CorruptWord(addr) => unsafe { *(addr as *mut i64) += 1 },
        }
        Ok(df)
    }
    fn free(&mut self, code: CodeId) {
        self.inner.free(code)
    }
}

/// Runs `prog` on a [`Miscompile`] backend; result and output, or the error.
fn run(
    prog: &Program,
    boxed: bool,
    params: JitParams,
    fault: Fault,
    setup: &dyn Fn(&mut JitDriver<Miscompile>),
) -> (
    Result<(i64, Vec<i64>), JitError>,
    majit_metainterp::stats::Stats,
) {
    let (set, portal) = interp_jitcode(boxed);
    let backend = Miscompile {
        inner: RefExec::new(),
        fault,
        bridges: Vec::new(),
    };
    let mut jit = JitDriver::new(set, portal, backend, params).unwrap();
    setup(&mut jit);
    let got = run_with_jit(&mut jit, prog, boxed);
    (got, jit.stats().clone())
}

fn oracle(prog: &Program, boxed: bool) -> (i64, Vec<i64>) {
    take_output();
    let r = run_plain(prog, boxed, &mut |_| false);
    (r, take_output())
}

fn params(opts: &str, diff: u32) -> JitParams {
    JitParams::default()
        .with_threshold(3)
        .with_bridge_threshold(5)
        .with_opts(opts)
        .unwrap()
        .with_diff(diff)
}

const OPTS: [&str; 2] = ["", majit_metainterp::opt::DEFAULT_OPTS];

#[test]
fn diff_mode_leaves_results_and_output_unchanged() {
    for (opts, boxed) in OPTS.iter().flat_map(|o| [(o, false), (o, true)]) {
        for (name, prog) in programs() {
            let expected = oracle(&prog, boxed);
            let (got, stats) = run(&prog, boxed, params(opts, 3), Fault::None, &|_| {});
            let got = got.unwrap_or_else(|e| panic!("{name} boxed={boxed} opts={opts:?}: {e}"));
            assert_eq!(got, expected, "{name} boxed={boxed} opts={opts:?}\n{stats}");
            assert_eq!(stats.diff_inconclusive, 0, "{name}\n{stats}");
            if stats.loop_entries > 0 {
                assert!(stats.diff_checks >= 1, "{name}\n{stats}");
            }
        }
    }
}

#[test]
fn only_the_first_entries_are_checked_and_bridges_renew_them() {
    let prog = program("odd_even");
    let (got, stats) = run(&prog, false, params("", 2), Fault::None, &|_| {});
    assert_eq!(got.unwrap(), oracle(&prog, false));
    assert!(stats.bridges_compiled >= 1, "{stats}");
    let per_trace = 2 * (stats.loops_compiled + stats.bridges_compiled);
    assert!(stats.diff_checks <= per_trace, "{stats}");
    assert!(stats.diff_checks > 2 * stats.loops_compiled, "{stats}");
    assert!(stats.loop_entries > stats.diff_checks, "{stats}");
}

#[test]
fn diff_mode_off_checks_nothing() {
    let prog = program("odd_even");
    let (got, stats) = run(&prog, false, params("", 0), Fault::IntPlusOne, &|_| {});
    assert!(!matches!(got, Err(JitError::Divergence(_))), "{stats}");
    assert_eq!(stats.diff_checks, 0);
}

fn program(name: &str) -> Program {
    programs().into_iter().find(|p| p.0 == name).unwrap().1
}

fn divergence(
    prog: &str,
    boxed: bool,
    opts: &str,
    fault: Fault,
) -> majit_metainterp::diff::Divergence {
    let (got, stats) = run(&program(prog), boxed, params(opts, 3), fault, &|_| {});
    match got {
        Err(JitError::Divergence(d)) => *d,
        other => panic!("{prog}: expected a divergence, got {other:?}\n{stats}"),
    }
}

#[test]
fn a_wrong_value_is_reported_with_loop_exit_and_both_values() {
    for opts in OPTS {
        let d = divergence("sum", false, opts, Fault::IntPlusOne);
        assert_eq!(d.loop_index, 0);
        assert_eq!(d.entry, 1, "the first checked entry already differs");
        let reference = d.reference.clone().unwrap();
        assert_eq!(d.native, reference, "same exit, different value");
        let v = d.value.clone().expect("a differing value");
        let (Some(Value::Int(n)), Some(Value::Int(r))) = (v.native, v.reference) else {
            panic!("{d}");
        };
        assert_eq!(n, r.wrapping_add(1), "{d}");
        let text = d.to_string();
        assert!(text.contains("loop 0"), "{text}");
        assert!(text.contains(&d.native.op), "{text}");
        assert!(
            text.contains(&format!("native Int({n}), reference Int({r})")),
            "{text}"
        );
        assert!(
            text.contains("# loop 0\n"),
            "the trace is in the report: {text}"
        );
    }
}

#[test]
fn a_wrong_value_at_a_bridge_exit_names_the_bridge() {
    // odd_even with one more iteration: the last exit is in the bridge.
    let prog = Program::new(&[
        (LOADA, 1),
        (LOADC, 501),
        (ODD, 7),
        (DECC, 0),
        (JNZ, 2),
        (PRINT, 0),
        (HALT, 0),
    ]);
    let (got, stats) = run(
        &prog,
        false,
        params("", 3),
        Fault::IntPlusOneInBridges,
        &|_| {},
    );
    let Err(JitError::Divergence(d)) = got else {
        panic!("expected a divergence, got {got:?}\n{stats}");
    };
    assert!(d.native.trace.starts_with("bridge "), "{d}");
    assert_eq!(Ok(&d.native), d.reference.as_ref(), "{d}");
    let text = d.to_string();
    assert!(text.contains(&format!("# {}\n", d.native.trace)), "{text}");
    assert!(text.contains("# loop 0\n"), "{text}");
}

#[test]
fn a_wrong_exit_is_reported_with_both_exits() {
    let d = divergence("sum", false, "", Fault::WrongExit);
    let reference = d.reference.clone().unwrap();
    assert_eq!(d.native.op_index, reference.op_index + 1, "{d}");
    assert_ne!(d.native.op, reference.op);
    assert!(
        d.value.is_none(),
        "values are only compared at the same exit"
    );
    let text = d.to_string();
    assert!(
        text.contains(&format!("reference exit: loop 0 op {}", reference.op_index)),
        "{text}"
    );
}

#[test]
fn checks_that_time_out_are_inconclusive_not_failures() {
    let prog = program("sum");
    let p = params("", 3);
    let zero = |jit: &mut JitDriver<Miscompile>| jit.set_diff_timeout(Duration::ZERO);
    let (got, stats) = run(&prog, false, p, Fault::IntPlusOne, &zero);
    // The fault goes unnoticed: no check concluded.
    assert!(got.is_ok(), "{stats}");
    assert!(stats.diff_checks >= 1, "{stats}");
    assert_eq!(stats.diff_inconclusive, stats.diff_checks, "{stats}");
}

#[test]
fn entries_during_whose_native_run_objects_moved_match_refs_by_renaming() {
    let native_runs = |jit: &mut JitDriver<Miscompile>| {
        jit.set_diff_gc_epoch(Box::new(|| NATIVE_RUNS.with(|n| n.get())))
    };
    for boxed in [false, true] {
        let prog = program("sum");
        let (got, stats) = run(&prog, boxed, params("", 3), Fault::None, &native_runs);
        assert_eq!(got.unwrap(), oracle(&prog, boxed), "{stats}");
        assert!(stats.diff_checks >= 1, "{stats}");
        assert_eq!(stats.diff_inconclusive, 0, "{stats}");
        assert_eq!(stats.diff_renamed, stats.diff_checks, "{stats}");
    }
    // Ints still compare exactly: the fault is caught.
    let (got, _) = run(
        &program("sum"),
        false,
        params("", 3),
        Fault::IntPlusOne,
        &native_runs,
    );
    assert!(matches!(got, Err(JitError::Divergence(_))), "{got:?}");
}

#[test]
fn entries_during_whose_reference_run_objects_moved_are_inconclusive() {
    // An epoch that changes on every reading, in the child too.
    let always = |jit: &mut JitDriver<Miscompile>| {
        let n = std::cell::Cell::new(0);
        jit.set_diff_gc_epoch(Box::new(move || {
            n.set(n.get() + 1);
            n.get()
        }))
    };
    let (got, stats) = run(
        &program("sum"),
        false,
        params("", 3),
        Fault::IntPlusOne,
        &always,
    );
    assert!(got.is_ok(), "{stats}");
    assert!(stats.diff_checks >= 1, "{stats}");
    assert_eq!(stats.diff_inconclusive, stats.diff_checks, "{stats}");
    // A steady epoch changes nothing: the fault is caught.
    let steady = |jit: &mut JitDriver<Miscompile>| jit.set_diff_gc_epoch(Box::new(|| 7));
    let (got, _) = run(
        &program("sum"),
        false,
        params("", 3),
        Fault::IntPlusOne,
        &steady,
    );
    assert!(matches!(got, Err(JitError::Divergence(_))), "{got:?}");
}

#[test]
fn diff_is_read_from_the_environment() {
    let p = JitParams::from_lookup(|k| (k == "MAJIT_DIFF").then(|| "5".into())).unwrap();
    assert_eq!(p.diff, 5);
    let e = JitParams::from_lookup(|k| (k == "MAJIT_DIFF").then(|| "yes".into())).unwrap_err();
    assert_eq!(e.var, "MAJIT_DIFF");
    assert_eq!(JitParams::default().diff, 0);
}

/// `loop { merge(pc; arr, n); arr[n] = 3 * n; n -= 1; if n == 0 { return
/// 0 } }` on a GC-array-shaped block of `len` items, on a [`Miscompile`]
/// backend in diff mode whose fault `fault` makes from the items' address;
/// the driver's result and the items.
fn fill(len: usize, fault: impl Fn(usize) -> Fault) -> (Result<i64, JitError>, Vec<i64>) {
    let mut b = JitCodeBuilder::new("fill");
    let (pc, arr, n) = (b.param(Kind::Int), b.param(Kind::Ref), b.param(Kind::Int));
    let (v, top, done) = (b.reg(Kind::Int), b.label(), b.label());
    let d = majit_ir::Descr::from(int_array());
    b.bind(top);
    b.jit_merge_point(&[pc], &[arr, n]);
    b.op(OpCode::IntMul, &[n.into(), Arg::Int(3)], v);
    b.setarrayitem(arr.into(), n.into(), v.into(), d);
    b.op(OpCode::IntSub, &[n.into(), Arg::Int(1)], n);
    b.goto_if_not(n.into(), done);
    b.can_enter_jit(&[pc], &[arr, n]);
    b.goto(top);
    b.bind(done);
    b.ret(Some(Arg::Int(0)));
    let mut codes = JitCodeSet::new();
    let portal = codes.add(b.finish().unwrap());
    let mut block = vec![5, len as i64];
    block.resize(len + 2, 0);
    let addr = block.as_mut_ptr() as usize;
    let backend = Miscompile {
        inner: RefExec::new(),
        fault: fault(addr + 16),
        bridges: Vec::new(),
    };
    let params = JitParams::default().with_threshold(2).with_diff(3);
    let jit = JitDriver::new(codes, portal, backend, params).unwrap();
    let mut n = len as i64 - 1;
    let result = loop {
        // SAFETY: item `n < len` of the block, which lives until the end
        // (written through the same pointer the JIT uses).
        unsafe { *((addr + 16) as *mut i64).add(n as usize) = 3 * n };
        n -= 1;
        if n == 0 {
            break Ok(0);
        }
        let (mut g, mut r) = ([Value::Int(0)], [Value::Ref(addr), Value::Int(n)]);
        match jit.can_enter_jit(&mut g, &mut r) {
            Ok(JitAction::Interpret) => {}
            Ok(JitAction::Continue) => n = r[1].as_int().unwrap(),
            Ok(JitAction::Raised(e)) => panic!("raised {e:?}"),
            Ok(JitAction::Finished(v)) => break Ok(v.unwrap().as_int().unwrap()),
            Err(e) => break Err(e),
        }
    };
    (result, block[2..].to_vec())
}

#[test]
fn stores_are_compared_and_a_wrong_one_is_reported_with_its_op() {
    let expected: Vec<i64> = (0..40).map(|n| if n == 0 { 0 } else { 3 * n }).collect();
    let (got, items) = fill(40, |_| Fault::None);
    assert_eq!((got.unwrap(), items), (0, expected));
    let (got, _) = fill(40, |items| Fault::CorruptWord(items + 8));
    let Err(JitError::Divergence(d)) = got else {
        panic!("expected a divergence, got {got:?}");
    };
    assert!(d.value.is_none(), "the dead frames agree: {d}");
    let m = d.memory.clone().expect("a memory difference");
    assert_eq!((m.size, m.native, m.reference), (8, Some(4), 3), "{d}");
    assert!(m.stored_by.op.contains("setarrayitem"), "{d}");
    let text = d.to_string();
    assert!(text.contains("memory differs: 8 bytes at"), "{text}");
}

/// Writes `say <n>` to the real stdout (file descriptor 1); returns `n`.
extern "C" fn say(n: i64) -> i64 {
    let line = format!("say {n}\n");
    // SAFETY: `line` is a live buffer of `line.len()` bytes.
    unsafe { libc::write(1, line.as_ptr().cast(), line.len()) };
    n
}

/// A residual helper with effects: `fn(n) -> i64`.
type Helper = extern "C" fn(i64) -> i64;

/// `loop { merge(pc; acc, n); acc += helper(n); n -= 1; if n == 0 {
/// return acc } }` with `diff` checked entries, on a backend without a
/// step limit that `setup` may configure; the result and the stats.
fn helper_loop(
    helper: Helper,
    n: i64,
    diff: u32,
    setup: &dyn Fn(&mut JitDriver<RefExec>),
) -> (i64, majit_metainterp::stats::Stats) {
    let mut b = JitCodeBuilder::new("portal");
    let (pc, acc, cnt) = (b.param(Kind::Int), b.param(Kind::Int), b.param(Kind::Int));
    let got = b.reg(Kind::Int);
    let (top, done) = (b.label(), b.label());
    let descr = CallDescr {
        name: "helper".into(),
        args: vec![Kind::Int],
        result: ResultKind::Int,
        effect: EffectInfo {
            effect: CallEffect::Random,
            ..EffectInfo::default()
        },
    };
    b.bind(top);
    b.jit_merge_point(&[pc], &[acc, cnt]);
    let func = Arg::Int(helper as *const () as usize as i64);
    b.call(descr.into(), func, &[cnt.into()], Some(got));
    b.op(OpCode::IntAdd, &[acc.into(), got.into()], acc);
    b.op(OpCode::IntSub, &[cnt.into(), Arg::Int(1)], cnt);
    b.goto_if_not(cnt.into(), done);
    b.can_enter_jit(&[pc], &[acc, cnt]);
    b.goto(top);
    b.bind(done);
    b.ret(Some(acc.into()));
    let mut codes = JitCodeSet::new();
    let portal = codes.add(b.finish().unwrap());
    let params = JitParams::default().with_threshold(2).with_diff(diff);
    let mut native = RefExec::new();
    native.set_step_limit(u64::MAX);
    let mut jit = JitDriver::new(codes, portal, native, params).unwrap();
    setup(&mut jit);
    let (mut acc, mut cnt) = (0i64, n);
    let result = loop {
        acc += helper(cnt);
        cnt -= 1;
        if cnt == 0 {
            break acc;
        }
        let (mut g, mut r) = ([Value::Int(0)], [Value::Int(acc), Value::Int(cnt)]);
        match jit.can_enter_jit(&mut g, &mut r) {
            Ok(JitAction::Interpret) => {}
            Ok(JitAction::Continue) => {
                (acc, cnt) = (r[0].as_int().unwrap(), r[1].as_int().unwrap());
            }
            Ok(JitAction::Raised(e)) => panic!("raised {e:?}"),
            Ok(JitAction::Finished(v)) => break v.unwrap().as_int().unwrap(),
            Err(e) => panic!("{e}\n{}", jit.stats()),
        }
    };
    assert!(jit.stats().diff_checks >= 1, "{}", jit.stats());
    (result, jit.stats().clone())
}

/// `say_loop(n)` prints through [`say`] under diff mode.
fn say_loop(n: i64) -> i64 {
    helper_loop(say, n, 50, &|_| {}).0
}

/// The read end of the pipe [`read_byte`] reads.
static BYTES: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);

/// Held by each test that sets [`BYTES`]: run concurrently, one test's
/// reads would drain the other's pipe and then block on it forever.
static BYTES_USER: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Reads one byte from [`BYTES`] (-1 at its end): input the forked
/// reference execution cannot read again (the pipe is shared with it).
extern "C" fn read_byte(_: i64) -> i64 {
    let mut b = 0u8;
    let fd = BYTES.load(std::sync::atomic::Ordering::SeqCst);
    // SAFETY: `b` is a live one-byte buffer.
    let n = unsafe { libc::read(fd, (&mut b as *mut u8).cast(), 1) };
    if n == 1 {
        i64::from(b)
    } else {
        -1
    }
}

#[test]
fn residual_calls_with_effects_are_replayed_to_the_reference_execution() {
    let _bytes = BYTES_USER.lock().unwrap_or_else(|e| e.into_inner());
    let mut fds = [0; 2];
    // SAFETY: `fds` is a writable array of two ints.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    let data: Vec<u8> = (0..600u32).map(|i| (i * 7 % 251) as u8).collect();
    // SAFETY: `data` is a live buffer; 600 bytes fit in a pipe.
    let wrote = unsafe { libc::write(fds[1], data.as_ptr().cast(), data.len()) };
    assert_eq!(wrote, 600);
    BYTES.store(fds[0], std::sync::atomic::Ordering::SeqCst);
    let (sum, stats) = helper_loop(read_byte, 600, 1000, &|_| {});
    let expected: i64 = data.iter().map(|&b| i64::from(b)).sum();
    assert_eq!(sum, expected, "{stats}");
    assert!(stats.loop_entries >= 1, "{stats}");
    assert_eq!(stats.diff_inconclusive, 0, "{stats}");
    // SAFETY: closing the two descriptors `pipe` opened.
    unsafe { (libc::close(fds[0]), libc::close(fds[1])) };
}

/// The child half of [`helpers_print_once_to_the_real_stdout`].
#[test]
fn say_loop_child() {
    if std::env::var_os("MAJIT_DIFF_SAY_CHILD").is_some() {
        assert_eq!(say_loop(30), 465);
    }
}

#[test]
fn helpers_print_once_to_the_real_stdout() {
    let out = this_test_binary()
        .args([
            "--exact",
            "say_loop_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("MAJIT_DIFF_SAY_CHILD", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let says: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        // libtest's `test say_loop_child ... ` may precede the first line.
        .filter_map(|l| l.find("say ").map(|at| l[at..].to_string()))
        .collect();
    let expected: Vec<String> = (1..=30).rev().map(|n| format!("say {n}")).collect();
    assert_eq!(says, expected);
}

#[test]
fn the_stats_summary_counts_the_checks() {
    let (set, portal) = interp_jitcode(false);
    let backend = Miscompile {
        inner: RefExec::new(),
        fault: Fault::None,
        bridges: Vec::new(),
    };
    let mut jit = JitDriver::new(set, portal, backend, params("", 3)).unwrap();
    run_with_jit(&mut jit, &program("sum"), false).unwrap();
    let n = jit.stats().diff_checks;
    assert!(n >= 1, "{}", jit.stats());
    let text = jit.summary();
    let line =
        format!("diff: {n} loop entries checked against the reference executor, 0 inconclusive");
    assert!(text.contains(&line), "{text}");
}

/// Iterations of the long loops below: one entry far beyond the
/// reference executor's step limit if it were checked unbounded.
const LONG: i64 = 10_000_000;

/// Checked entries of the long loops: more than enough budgets of
/// iterations to read past a pipe's 64 KiB buffer.
const LONG_CHECKS: u32 = 100;

/// Collections the helpers below simulate (the GC epoch of the long
/// loops); only the native run calls them, the reference run replays.
static COLLECTIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A helper with effects that returns its argument's low bit; every
/// 700th call "collects" ([`COLLECTIONS`]), so in the middle of a budget.
extern "C" fn low_bit(n: i64) -> i64 {
    if n % 700 == 0 {
        COLLECTIONS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
    n & 1
}

/// The stats of a long loop whose checks all concluded.
fn assert_all_checked(stats: &majit_metainterp::stats::Stats) {
    assert_eq!(stats.loops_compiled, 1, "{stats}");
    assert!(stats.loop_entries >= 1, "{stats}");
    assert_eq!(stats.diff_checks, u64::from(LONG_CHECKS), "{stats}");
    assert_eq!(stats.diff_inconclusive, 0, "{stats}");
}

#[test]
fn a_ten_million_iteration_entry_is_checked_in_bounded_slices() {
    let (sum, stats) = helper_loop(low_bit, LONG, LONG_CHECKS, &|_| {});
    assert_eq!(sum, LONG / 2, "{stats}");
    assert_all_checked(&stats);
    assert_eq!(stats.diff_renamed, 0, "{stats}");
}

#[test]
fn a_long_entry_reading_past_the_pipe_buffer_is_checked() {
    let _bytes = BYTES_USER.lock().unwrap_or_else(|e| e.into_inner());
    let mut fds = [0; 2];
    // SAFETY: `fds` is a writable array of two ints.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // More than a pipe holds: the writer refills it while entries run.
    let data: Vec<u8> = (0..150_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let expected: i64 = data.iter().map(|&b| i64::from(b)).sum::<i64>() - (LONG - 150_000);
    let writer = std::thread::spawn(move || {
        let mut at = 0;
        while at < data.len() {
            // SAFETY: `data[at..]` is a live buffer of that many bytes.
            let n = unsafe { libc::write(fds[1], data[at..].as_ptr().cast(), data.len() - at) };
            assert!(n > 0);
            at += n as usize;
        }
        // SAFETY: closing the write end `pipe` opened: readers see the end.
        unsafe { libc::close(fds[1]) };
    });
    BYTES.store(fds[0], std::sync::atomic::Ordering::SeqCst);
    let (sum, stats) = helper_loop(read_byte, LONG, LONG_CHECKS, &|_| {});
    writer.join().unwrap();
    assert_eq!(sum, expected, "{stats}");
    assert_all_checked(&stats);
    // SAFETY: closing the read end `pipe` opened.
    unsafe { libc::close(fds[0]) };
}

#[test]
fn a_long_entry_with_collections_mid_entry_is_checked() {
    let epoch = |jit: &mut JitDriver<RefExec>| {
        jit.set_diff_gc_epoch(Box::new(|| {
            COLLECTIONS.load(std::sync::atomic::Ordering::SeqCst)
        }))
    };
    let before = COLLECTIONS.load(std::sync::atomic::Ordering::SeqCst);
    let (sum, stats) = helper_loop(low_bit, LONG, LONG_CHECKS, &epoch);
    assert_eq!(sum, LONG / 2, "{stats}");
    assert!(COLLECTIONS.load(std::sync::atomic::Ordering::SeqCst) > before);
    assert_all_checked(&stats);
    assert!(stats.diff_renamed > 0, "{stats}");
}

/// `sum` of 1..=`n` on the test machine.
fn sum_to(n: i64) -> Program {
    Program::new(&[
        (LOADA, 0),
        (LOADC, n),
        (ADDC, 0),
        (DECC, 0),
        (JNZ, 2),
        (PRINT, 0),
        (HALT, 0),
    ])
}

#[test]
fn budget_exits_of_the_peeled_loop_resume_with_the_merge_points_state() {
    // Boxed, the accumulator is virtual in the peeled loop: the budget
    // guard's resume data rebuilds it; a wrong int is still caught there.
    let prog = sum_to(30_000);
    let opts = majit_metainterp::opt::DEFAULT_OPTS;
    for boxed in [false, true] {
        let (got, stats) = run(&prog, boxed, params(opts, 20), Fault::None, &|_| {});
        assert_eq!(got.unwrap(), oracle(&prog, boxed), "{stats}");
        assert_eq!(stats.diff_checks, 20, "{stats}");
        assert_eq!(stats.diff_inconclusive, 0, "{stats}");
        let (got, _) = run(&prog, boxed, params(opts, 20), Fault::IntPlusOne, &|_| {});
        assert!(matches!(got, Err(JitError::Divergence(_))), "{got:?}");
    }
}

/// Whether `trace` counts down the diff-mode budget.
fn has_budget(trace: &Trace) -> bool {
    let budget = |op: &majit_ir::Op| {
        op.descr
            .as_ref()
            .is_some_and(|d| d.name() == "DiffBudget.left")
    };
    trace.ops.iter().any(budget)
}

#[test]
fn only_diff_mode_compiles_the_budget_guard() {
    for (diff, expected) in [(0, false), (3, true)] {
        let (set, portal) = interp_jitcode(true);
        let backend = Miscompile {
            inner: RefExec::new(),
            fault: Fault::None,
            bridges: Vec::new(),
        };
        let params = params(majit_metainterp::opt::DEFAULT_OPTS, diff);
        let mut jit = JitDriver::new(set, portal, backend, params).unwrap();
        run_with_jit(&mut jit, &program("sum"), true).unwrap();
        assert!(!jit.loops().is_empty());
        for l in jit.loops() {
            assert_eq!(has_budget(&l.recorded), expected, "{:?}", l.recorded);
            assert_eq!(has_budget(&l.trace), expected, "{:?}", l.trace);
        }
    }
}
