//! List scheduling of a trace, one region at a time.
//!
//! A *region* is a maximal run of movable ops (pure ops and loads) between
//! two fixed ops. Fixed ops are everything else: guards, stores, calls,
//! allocations, overflow-checked arithmetic, labels, jumps, `finish` and
//! `debug_merge_point`. Fixed ops keep their order and their position
//! relative to the regions around them, so guards stay in order, no store,
//! call or allocation crosses a guard, memory order holds (loads move only
//! among loads and pure ops), and no load is hoisted above a guard. Inside a
//! region an op is ready once every op of the region it uses is scheduled;
//! the [`SchedStrategy`] picks among ready ops.
//!
//! The output is a permutation of op indices; the trace itself is not
//! changed (`OpRef`s keep naming original indices).

pub mod strategy;

pub use strategy::{NativeSched, RandomSched, ReadyCx, ReadyOp, SchedStrategy};

use majit_ir::{Op, OpRef, RefTarget, Trace};
use majit_metainterp::CompileError;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Whether `op` may move within its region.
pub fn is_movable(op: &Op) -> bool {
    (op.opcode.is_always_pure() || op.opcode.is_load()) && !op.opcode.is_call()
}

/// Schedules `trace`; returns op indices in execution order.
pub fn schedule(
    trace: &Trace,
    strategy: &mut dyn SchedStrategy,
) -> Result<Vec<usize>, CompileError> {
    let n = trace.ops.len();
    let mut s = Scheduler {
        trace,
        order: Vec::with_capacity(n),
        unread: unread_counts(trace),
        shown: Vec::new(),
    };
    let mut start = 0;
    while start < n {
        let mut end = start;
        while end < n && is_movable(&trace.ops[end]) {
            end += 1;
        }
        let region_end = (end < n).then_some(end);
        s.region(start, end, region_end, strategy)?;
        if end < n {
            s.emit(end);
        }
        start = end + 1;
    }
    Ok(s.order)
}

/// The value number of `r` (inputs first, then op results), `None` for a
/// constant.
fn value_of(trace: &Trace, r: OpRef) -> Option<usize> {
    match r.target() {
        RefTarget::Input(i) => Some(i),
        RefTarget::Op(i) => Some(trace.inputs.len() + i),
        RefTarget::Const(_) => None,
    }
}

/// Every value an op reads: arguments, then fail args.
fn reads(op: &Op) -> impl Iterator<Item = &OpRef> {
    op.args.iter().chain(op.fail_args.iter().flatten())
}

/// For each value, how many reads of it the trace has.
fn unread_counts(trace: &Trace) -> Vec<u32> {
    let mut unread = vec![0u32; trace.inputs.len() + trace.ops.len()];
    for op in &trace.ops {
        for &r in reads(op) {
            if let Some(v) = value_of(trace, r) {
                unread[v] += 1;
            }
        }
    }
    unread
}

struct Scheduler<'a> {
    trace: &'a Trace,
    order: Vec<usize>,
    /// Reads of each value by ops not scheduled yet.
    unread: Vec<u32>,
    /// What the strategy is shown (one buffer for every pick).
    shown: Vec<ReadyOp>,
}

impl Scheduler<'_> {
    fn emit(&mut self, i: usize) {
        for &r in reads(&self.trace.ops[i]) {
            if let Some(v) = value_of(self.trace, r) {
                self.unread[v] -= 1;
            }
        }
        self.order.push(i);
    }

    /// What a strategy sees of ready op `i`.
    fn ready_op(&self, i: usize) -> ReadyOp {
        let op = &self.trace.ops[i];
        let kind = op.opcode.result().kind();
        let value = |r: &OpRef| value_of(self.trace, *r);
        let mut last_reads = 0;
        // Movable ops read a few values: a quadratic scan, no allocation.
        for (k, r) in reads(op).enumerate() {
            let Some(v) = value(r) else { continue };
            let seen = reads(op).take(k).any(|w| value(w) == Some(v));
            let mine = reads(op).filter(|w| value(w) == Some(v)).count() as u32;
            if !seen && self.unread[v] == mine {
                last_reads += 1;
            }
        }
        ReadyOp {
            index: i,
            opcode: op.opcode,
            kind,
            latency: op.opcode.latency(),
            pressure: i32::from(kind.is_some()) - last_reads,
        }
    }

    fn region(
        &mut self,
        start: usize,
        end: usize,
        region_end: Option<usize>,
        strategy: &mut dyn SchedStrategy,
    ) -> Result<(), CompileError> {
        if end - start <= 1 {
            (start..end).for_each(|i| self.emit(i));
            return Ok(());
        }
        // Unscheduled in-region predecessors of each op, and its in-region users.
        let mut waiting = vec![0u32; end - start];
        let mut users: Vec<Vec<usize>> = vec![Vec::new(); end - start];
        for i in start..end {
            for a in &self.trace.ops[i].args {
                if let RefTarget::Op(d) = a.target() {
                    if (start..i).contains(&d) {
                        waiting[i - start] += 1;
                        users[d - start].push(i);
                    }
                }
            }
        }
        let mut ready: Vec<usize> = (start..end).filter(|&i| waiting[i - start] == 0).collect();
        while !ready.is_empty() {
            let pick = self.pick(&ready, region_end, strategy)?;
            let i = ready.remove(pick);
            self.emit(i);
            for &u in &users[i - start] {
                waiting[u - start] -= 1;
                if waiting[u - start] == 0 {
                    let at = ready.partition_point(|&r| r < u);
                    ready.insert(at, u);
                }
            }
        }
        Ok(())
    }

    /// Asks `strategy` for a position in `ready` and validates it.
    fn pick(
        &mut self,
        ready: &[usize],
        region_end: Option<usize>,
        strategy: &mut dyn SchedStrategy,
    ) -> Result<usize, CompileError> {
        let mut shown = std::mem::take(&mut self.shown);
        shown.clear();
        shown.extend(ready.iter().map(|&i| self.ready_op(i)));
        let cx = ReadyCx {
            trace: self.trace,
            ready: &shown,
            region_end,
        };
        let picked = catch_unwind(AssertUnwindSafe(|| strategy.pick(&cx)));
        self.shown = shown;
        let first = ready[0];
        let at = || format!("op {first} ({})", self.trace.ops[first].opcode.name());
        let pick = picked.map_err(|p| CompileError::Strategy {
            op: at(),
            decision: "scheduling".into(),
            reason: format!(
                "the scheduling strategy panicked: {}",
                majit_metainterp::strategy::panic_text(&*p)
            ),
        })?;
        if pick >= ready.len() {
            let ids: Vec<String> = ready.iter().map(|i| format!("op {i}")).collect();
            return Err(CompileError::Strategy {
                op: at(),
                decision: format!("scheduling pick {pick}"),
                reason: format!(
                    "outside the ready set of {} ({})",
                    ready.len(),
                    ids.join(", ")
                ),
            });
        }
        Ok(pick)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use majit_ir::{Const, Kind, Op, OpCode};

    fn sample() -> Trace {
        let mut t = Trace::new(&[Kind::Int, Kind::Int]);
        let one = t.add_const(Const::Int(1));
        let lt = t.push(Op::new(OpCode::IntLt, &[t.input(0), t.input(1)]));
        let add = t.push(Op::new(OpCode::IntAdd, &[t.input(0), one]));
        t.push(Op::new(OpCode::GuardTrue, &[lt]).with_fail_args(&[add]));
        let sub = t.push(Op::new(OpCode::IntSub, &[add, one]));
        t.push(Op::new(OpCode::Finish, &[sub]));
        t
    }

    #[test]
    fn native_puts_the_tested_comparison_last() {
        assert_eq!(
            schedule(&sample(), &mut NativeSched).unwrap(),
            vec![1, 0, 2, 3, 4]
        );
    }

    #[test]
    fn random_schedules_are_permutations_respecting_regions() {
        let t = sample();
        for seed in 0..20 {
            let mut order = schedule(&t, &mut RandomSched::new(seed)).unwrap();
            assert_eq!(order[2..], [2, 3, 4]);
            order.sort();
            assert_eq!(order, vec![0, 1, 2, 3, 4]);
        }
    }

    struct Bad;
    impl SchedStrategy for Bad {
        fn pick(&mut self, cx: &ReadyCx) -> usize {
            cx.ready.len()
        }
    }

    #[test]
    fn an_illegal_pick_is_a_strategy_error() {
        let err = schedule(&sample(), &mut Bad).unwrap_err();
        assert_eq!(
            err.to_string(),
            "illegal strategy decision at op 0 (int_lt): scheduling pick 2: \
             outside the ready set of 2 (op 0, op 1)"
        );
    }

    /// Records what it was shown and picks the oldest op.
    #[derive(Default)]
    struct Spy(Vec<Vec<ReadyOp>>);
    impl SchedStrategy for Spy {
        fn pick(&mut self, cx: &ReadyCx) -> usize {
            self.0.push(cx.ready.to_vec());
            0
        }
    }

    #[test]
    fn ready_ops_carry_kind_latency_and_pressure() {
        let mut t = Trace::new(&[Kind::Int, Kind::Int]);
        let mul = t.push(Op::new(OpCode::IntMul, &[t.input(0), t.input(0)]));
        t.push(Op::new(OpCode::IntAdd, &[mul, t.input(1)]));
        t.push(Op::new(OpCode::Finish, &[mul]));
        let mut spy = Spy::default();
        assert_eq!(schedule(&t, &mut spy).unwrap(), vec![0, 1, 2]);
        let first = spy.0[0][0];
        assert_eq!((first.index, first.opcode), (0, OpCode::IntMul));
        assert_eq!((first.kind, first.latency), (Some(Kind::Int), 3));
        // Defines one value; i0 is read by nobody else: 1 - 1.
        assert_eq!(first.pressure, 0);
        let add = spy.0[1][0];
        // Defines one value, last read of i1 (`finish` still reads the
        // product): 1 - 1.
        assert_eq!((add.index, add.latency, add.pressure), (1, 1, 0));
    }
}
