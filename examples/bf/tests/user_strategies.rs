//! User scheduling and allocation strategies, set in `JitParams`, run by
//! the native backend under bf's `JitDriver`: legal ones produce working
//! code (same output as the plain interpreter, loops compiled and
//! entered, the strategy consulted); each kind of illegal decision, and a
//! panic, fails the compile cleanly: same output, the reason in the stats,
//! no compiled loop and no code memory held.
#![cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]

use majit::ir::OpRef;
use majit::metainterp::stats::AbortReason;
use majit::metainterp::strategy::*;
use majit::HostBackend;
use majit::JitParams;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Schedules the oldest ready op (the lowest trace index) first.
struct Oldest;
impl SchedStrategy for Oldest {
    fn pick(&mut self, cx: &ReadyCx) -> usize {
        (0..cx.ready.len())
            .min_by_key(|&k| cx.ready[k].index)
            .unwrap_or(0)
    }
}

/// Keeps at most `budget` registers busy: beyond it (or with none free)
/// spills the range whose next use is farthest away.
struct Farthest {
    budget: usize,
}
impl AllocPolicy for Farthest {
    fn decide(&mut self, cx: &AllocCx) -> AllocDecision {
        let far = |o: &&Occupant| o.range.next_use.unwrap_or(u32::MAX);
        match cx.free.first() {
            Some(c) if cx.occupied.len() < self.budget => AllocDecision::Reg(c.reg),
            _ => match cx.occupied.iter().max_by_key(far) {
                Some(o) => AllocDecision::Evict(o.range.value),
                None => AllocDecision::Reg(cx.free[0].reg),
            },
        }
    }
}

/// A program printing "Hello, majit!\n", one counting loop per byte (each
/// a loop of its own green key), plus a nested loop.
fn program() -> bf::Program {
    let mut p = String::new();
    for c in "Hello, majit!\n".bytes() {
        p += ">[-]<";
        p += &"+".repeat((c / 8) as usize);
        p += "[>++++++++<-]>";
        p += &"+".repeat((c % 8) as usize);
        p += ".<";
    }
    p += ">>+++++[>+++++[>+++++<-]<-]>>.";
    bf::compile(&p).unwrap()
}

/// Runs [`program`] through the native backend with `strategies`; returns
/// the output and the driver.
fn run(strategies: Strategies) -> (Vec<u8>, majit::JitDriver<HostBackend>) {
    let params = JitParams::default()
        .with_threshold(2)
        .with_strategies(strategies);
    let backend = HostBackend::new().unwrap();
    bf::execute_with(&program(), b"", backend, params).unwrap()
}

fn plain_output() -> Vec<u8> {
    bf::execute(&program(), b"", None).unwrap().0
}

/// A factory whose strategies count their decisions in `n`.
fn counted<S: 'static>(
    n: &Arc<AtomicUsize>,
    make: impl Fn(Arc<AtomicUsize>) -> S + Send + Sync + 'static,
) -> impl Fn() -> S + Send + Sync + 'static {
    let n = n.clone();
    move || make(n.clone())
}

struct Counting<T>(T, Arc<AtomicUsize>);
impl<T: SchedStrategy> SchedStrategy for Counting<T> {
    fn pick(&mut self, cx: &ReadyCx) -> usize {
        self.1.fetch_add(1, Ordering::Relaxed);
        self.0.pick(cx)
    }
}
/// Counts evictions only.
impl<T: AllocPolicy> AllocPolicy for Counting<T> {
    fn decide(&mut self, cx: &AllocCx) -> AllocDecision {
        let d = self.0.decide(cx);
        if let AllocDecision::Evict(_) = d {
            self.1.fetch_add(1, Ordering::Relaxed);
        }
        d
    }
}

#[test]
fn oldest_first_and_farthest_spill_produce_working_code() {
    let (picks, evictions) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let sched = counted(&picks, |n| {
        Box::new(Counting(Oldest, n)) as Box<dyn SchedStrategy>
    });
    let alloc = counted(&evictions, |n| {
        Box::new(Counting(Farthest { budget: 2 }, n)) as Box<dyn AllocPolicy>
    });
    let (out, mut jit) = run(Strategies::native().with_sched(sched).with_alloc(alloc));
    let stats = jit.stats().clone();
    assert_eq!(out, plain_output(), "{stats}");
    assert!(stats.loops_compiled >= 10, "{stats}");
    assert!(stats.loop_entries >= 10, "{stats}");
    assert_eq!(stats.aborts_for(AbortReason::CompileFailed), 0, "{stats}");
    assert!(picks.load(Ordering::Relaxed) > 0, "the scheduler was asked");
    assert!(evictions.load(Ordering::Relaxed) > 0, "the policy evicted");
    assert!(jit.backend().code_blocks() >= 10);
}

/// Runs with an illegal strategy: the output is unchanged, every loop
/// failed to compile with a message containing `expect`, and the backend
/// holds no code.
fn fails_cleanly(strategies: Strategies, expect: &str) {
    let (out, mut jit) = run(strategies);
    let stats = jit.stats().clone();
    assert_eq!(out, plain_output(), "{stats}");
    assert_eq!(stats.loops_compiled, 0, "{stats}");
    assert_eq!(stats.loop_entries, 0, "{stats}");
    let failed = stats.aborts_for(AbortReason::CompileFailed);
    assert!(failed >= 10, "every loop failed:\n{stats}");
    // A key whose loop failed to compile is not traced again (a trace that
    // left its inner loop for the outer one is no compile).
    let left = stats.aborts_for(AbortReason::LoopLeft);
    assert_eq!(stats.traces_started, failed + left, "{stats}");
    let messages: Vec<&str> = stats
        .abort_messages_for(AbortReason::CompileFailed)
        .collect();
    assert_eq!(messages.len() as u64, failed.min(32), "{stats}");
    for m in &messages {
        assert!(
            m.starts_with("compile failed: illegal strategy decision at op "),
            "{m}"
        );
        assert!(m.contains(expect), "{m}");
    }
    assert!(stats.to_string().contains(expect), "{stats}");
    let summary = jit.summary();
    assert!(summary.contains(expect), "{summary}");
    assert_eq!(
        jit.backend().code_blocks(),
        0,
        "failed compiles hold no code"
    );
    assert!(jit.loops().is_empty());
}

struct PickPastTheEnd;
impl SchedStrategy for PickPastTheEnd {
    fn pick(&mut self, cx: &ReadyCx) -> usize {
        cx.ready.len() + 7
    }
}

#[test]
fn a_pick_outside_the_ready_set_fails_the_compile_cleanly() {
    fails_cleanly(
        Strategies::native().with_sched(|| Box::new(PickPastTheEnd)),
        "outside the ready set of",
    );
}

/// Takes a register that is not free: an occupied one when there is one,
/// else a number no register has.
struct TakeBusy;
impl AllocPolicy for TakeBusy {
    fn decide(&mut self, cx: &AllocCx) -> AllocDecision {
        AllocDecision::Reg(cx.occupied.first().map_or(u8::MAX, |o| o.reg.reg))
    }
}

#[test]
fn a_register_not_among_the_candidates_fails_the_compile_cleanly() {
    fails_cleanly(
        Strategies::native().with_alloc(|| Box::new(TakeBusy)),
        "not among the candidates [",
    );
}

/// Evicts a range that does not exist at this point of the trace.
struct EvictDead;
impl AllocPolicy for EvictDead {
    fn decide(&mut self, _: &AllocCx) -> AllocDecision {
        AllocDecision::Evict(OpRef::op(100_000))
    }
}

#[test]
fn evicting_a_range_that_is_not_live_fails_the_compile_cleanly() {
    fails_cleanly(
        Strategies::native().with_alloc(|| Box::new(EvictDead)),
        "op100000 is not live here",
    );
}

struct Panicking;
impl SchedStrategy for Panicking {
    fn pick(&mut self, _: &ReadyCx) -> usize {
        panic!("this strategy always panics");
    }
}
impl AllocPolicy for Panicking {
    fn decide(&mut self, _: &AllocCx) -> AllocDecision {
        panic!("this policy always panics");
    }
}

#[test]
fn a_panicking_strategy_fails_the_compile_cleanly() {
    fails_cleanly(
        Strategies::native().with_sched(|| Box::new(Panicking)),
        "the scheduling strategy panicked: this strategy always panics",
    );
    fails_cleanly(
        Strategies::native().with_alloc(|| Box::new(Panicking)),
        "the allocation policy panicked: this policy always panics",
    );
}

#[test]
fn refexec_refuses_user_strategies_when_the_driver_is_built() {
    let params =
        JitParams::default().with_strategies(Strategies::native().with_sched(|| Box::new(Oldest)));
    let err = bf::execute(&program(), b"", Some(params)).unwrap_err();
    assert!(err.to_string().contains("strategies"), "{err}");
}
