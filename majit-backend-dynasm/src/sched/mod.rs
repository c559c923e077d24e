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

pub use strategy::{NativeSched, RandomSched, ReadyCx, SchedStrategy};

use majit_ir::{Op, RefTarget, Trace};
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
    let mut order = Vec::with_capacity(n);
    let mut start = 0;
    while start < n {
        let mut end = start;
        while end < n && is_movable(&trace.ops[end]) {
            end += 1;
        }
        let region_end = (end < n).then_some(end);
        schedule_region(trace, start, end, region_end, strategy, &mut order)?;
        if end < n {
            order.push(end);
        }
        start = end + 1;
    }
    Ok(order)
}

fn schedule_region(
    trace: &Trace,
    start: usize,
    end: usize,
    region_end: Option<usize>,
    strategy: &mut dyn SchedStrategy,
    order: &mut Vec<usize>,
) -> Result<(), CompileError> {
    if end - start <= 1 {
        order.extend(start..end);
        return Ok(());
    }
    // Unscheduled in-region predecessors of each op, and its in-region users.
    let mut waiting = vec![0u32; end - start];
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); end - start];
    for i in start..end {
        for a in &trace.ops[i].args {
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
        let cx = ReadyCx {
            trace,
            ready: &ready,
            region_end,
        };
        let pick = catch_unwind(AssertUnwindSafe(|| strategy.pick(&cx))).map_err(|_| {
            CompileError::Strategy {
                op: trace.ops[ready[0]].opcode.name().to_string(),
                decision: "schedule".into(),
                reason: "the scheduling strategy panicked".into(),
            }
        })?;
        if pick >= ready.len() {
            return Err(CompileError::Strategy {
                op: trace.ops[ready[0]].opcode.name().to_string(),
                decision: format!("ready position {pick}"),
                reason: format!("only {} ops are ready", ready.len()),
            });
        }
        let i = ready.remove(pick);
        order.push(i);
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
        assert!(matches!(err, CompileError::Strategy { .. }), "{err:?}");
    }
}
