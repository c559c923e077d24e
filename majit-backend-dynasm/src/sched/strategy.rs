//! The choice among ready ops: the [`SchedStrategy`] interface (defined
//! in `majit_metainterp::strategy`, so a `JitParams` can carry it), the
//! native default and a seeded random strategy for fuzzing.
//!
//! A strategy only chooses; `sched/mod.rs` decides what is ready, so no
//! choice can break a dependency. An out-of-range choice or a panic becomes
//! a `CompileError::Strategy`.

pub use majit_metainterp::strategy::{ReadyCx, ReadyOp, SchedStrategy};

/// The native default: trace order, except that an op the region's final
/// guard tests goes last, so a comparison sits right before its guard and
/// the two fuse into compare-and-branch.
#[derive(Debug, Default)]
pub struct NativeSched;

impl SchedStrategy for NativeSched {
    fn pick(&mut self, cx: &ReadyCx) -> usize {
        let tested = cx.region_end.and_then(|g| {
            let op = &cx.trace.ops[g];
            if op.opcode.is_guard() && !op.args.is_empty() {
                cx.trace.def(op.args[0]).map(|_| op.args[0])
            } else {
                None
            }
        });
        let is_tested = |i: usize| tested.is_some_and(|t| t == majit_ir::OpRef::op(i));
        cx.ready
            .iter()
            .position(|r| !is_tested(r.index))
            .unwrap_or(0)
    }
}

/// A seeded random strategy (xorshift64*), for fuzzing the scheduler and
/// everything after it.
#[derive(Debug)]
pub struct RandomSched {
    state: u64,
}

impl RandomSched {
    /// A strategy whose choices are a function of `seed`.
    pub fn new(seed: u64) -> Self {
        RandomSched { state: seed | 1 }
    }
}

impl SchedStrategy for RandomSched {
    fn pick(&mut self, cx: &ReadyCx) -> usize {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        (self.state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % cx.ready.len()
    }
}
