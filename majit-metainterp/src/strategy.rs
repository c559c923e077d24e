//! User strategies for a native backend's two decision points: which
//! ready op to schedule next ([`SchedStrategy`]) and which register a live
//! range gets, or which range to evict for it ([`AllocPolicy`]).
//!
//! This file is the interface only: the data a strategy sees, the
//! decisions it returns, and [`Strategies`], the per-driver factories that
//! [`crate::params::JitParams`] carries to
//! [`crate::Backend::set_strategies`]. A backend computes what is legal
//! (the ready set, the free and evictable registers) and validates every
//! decision: an index outside the ready set, a register not among the
//! candidates, an eviction of a range that is not live, or a panic inside
//! the strategy becomes [`crate::CompileError::Strategy`] naming the op, the
//! decision and why it is illegal. The driver then keeps interpreting that
//! loop, so a user strategy can make code slow but never wrong.
//!
//! Strategies are built by factories because they are stateful
//! (`&mut self`) while `JitParams` is `Clone`: each driver gets fresh ones.
//!
//! ```
//! use majit_metainterp::params::JitParams;
//! use majit_metainterp::strategy::*;
//!
//! /// Schedules the oldest ready op (the lowest trace index) first.
//! struct Oldest;
//! impl SchedStrategy for Oldest {
//!     fn pick(&mut self, cx: &ReadyCx) -> usize {
//!         (0..cx.ready.len()).min_by_key(|&k| cx.ready[k].index).unwrap_or(0)
//!     }
//! }
//!
//! /// Takes the first free register; with none free, evicts the range
//! /// whose next use is farthest away.
//! struct Farthest;
//! impl AllocPolicy for Farthest {
//!     fn decide(&mut self, cx: &AllocCx) -> AllocDecision {
//!         match cx.free.first() {
//!             Some(c) => AllocDecision::Reg(c.reg),
//!             None => {
//!                 let far = |o: &&Occupant| o.range.next_use.unwrap_or(u32::MAX);
//!                 AllocDecision::Evict(cx.occupied.iter().max_by_key(far).unwrap().range.value)
//!             }
//!         }
//!     }
//! }
//!
//! let params = JitParams::default().with_strategies(
//!     Strategies::native()
//!         .with_sched(|| Box::new(Oldest))
//!         .with_alloc(|| Box::new(Farthest)),
//! );
//! assert!(!params.strategies.is_native());
//! ```

use majit_ir::{Kind, OpCode, OpRef, Trace};
use std::fmt;
use std::sync::Arc;

/// A machine register, as the backend numbers them (an index into its
/// register table). Names come with every candidate ([`RegCandidate`]).
pub type Reg = u8;

/// One op of the ready set.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ReadyOp {
    /// The op's index in the trace: its position in recorded order, so
    /// the smallest index is the oldest op.
    pub index: usize,
    pub opcode: OpCode,
    /// The kind of its result (`None`: no result).
    pub kind: Option<Kind>,
    /// Estimated cycles until its result is available
    /// ([`OpCode::latency`], the op table's `lat` column).
    pub latency: u32,
    /// How scheduling it now changes the number of live values: +1 for a
    /// result, -1 for each operand it is the last remaining reader of.
    pub pressure: i32,
}

/// What a [`SchedStrategy`] sees when it picks.
#[derive(Debug)]
pub struct ReadyCx<'a> {
    pub trace: &'a Trace,
    /// The ready ops, by ascending trace index.
    pub ready: &'a [ReadyOp],
    /// The op that ends the region (a guard, store, call, jump, ...), if
    /// any. Ops never move across it.
    pub region_end: Option<usize>,
}

/// Picks the next op to schedule among the ready ones. The backend
/// decides what is ready, so no pick can break a dependency.
pub trait SchedStrategy {
    /// Returns a position in `cx.ready` (not a trace index).
    fn pick(&mut self, cx: &ReadyCx) -> usize;
}

/// The message of a caught panic (a strategy's, a user pass's), for the
/// error that reports it.
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> &str {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s
    } else {
        "(no message)"
    }
}

/// A register a range may get.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RegCandidate {
    pub reg: Reg,
    /// Assembly name, e.g. `"rax"`, `"x19"`.
    pub name: &'static str,
    /// Calls to foreign code overwrite it.
    pub caller_saved: bool,
}

/// The life of one value, in schedule positions (1-based; loop inputs are
/// defined at 0).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LiveRange {
    /// The value (its defining op or input).
    pub value: OpRef,
    pub kind: Kind,
    /// Where it is defined.
    pub def: u32,
    /// Its next read as an operand after now (`None`: only exits —
    /// fail args, `jump`, `finish` — still read it).
    pub next_use: Option<u32>,
    /// The last position that needs it.
    pub end: u32,
    /// A call lies inside its life.
    pub crosses_call: bool,
}

/// A register holding a range that may be evicted (spilled to memory) to
/// free the register.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Occupant {
    pub reg: RegCandidate,
    pub range: LiveRange,
}

/// What an [`AllocPolicy`] sees when a range needs a register.
#[derive(Debug)]
pub struct AllocCx<'a> {
    /// The op being allocated (trace index) and its schedule position.
    pub op: usize,
    pub now: u32,
    /// The range that needs a register.
    pub range: LiveRange,
    /// Free registers of its bank, in the backend's preference order.
    pub free: &'a [RegCandidate],
    /// Registers whose range may be evicted for it (may be empty; never
    /// empty when `free` is; empty while `free` is not, for a policy whose
    /// [`AllocPolicy::evicts_while_free`] is false).
    pub occupied: &'a [Occupant],
    /// A register the range would like (a label location, a call
    /// argument or result register), free or not.
    pub hint: Option<Reg>,
}

/// An allocation decision.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AllocDecision {
    /// Take this register; it must be one of [`AllocCx::free`].
    Reg(Reg),
    /// Spill this range (one of [`AllocCx::occupied`]) and take its
    /// register.
    Evict(OpRef),
}

/// A register-allocation policy.
pub trait AllocPolicy {
    /// Decides where `cx.range` goes.
    fn decide(&mut self, cx: &AllocCx) -> AllocDecision;
    /// Whether it may evict while registers are free. When false, the
    /// backend fills [`AllocCx::occupied`] only when no register is free,
    /// which saves describing every occupied register at each decision.
    fn evicts_while_free(&self) -> bool {
        true
    }
}

/// Builds a fresh scheduling strategy for one backend.
pub type SchedFactory = Arc<dyn Fn() -> Box<dyn SchedStrategy> + Send + Sync>;
/// Builds a fresh allocation policy for one backend.
pub type AllocFactory = Arc<dyn Fn() -> Box<dyn AllocPolicy> + Send + Sync>;

/// The strategies a driver hands its backend: `None` keeps the backend's
/// own. Two values are equal when they hold the same factories (the same
/// `Arc`s), since closures cannot be compared.
#[derive(Clone, Default)]
pub struct Strategies {
    pub sched: Option<SchedFactory>,
    pub alloc: Option<AllocFactory>,
}

impl Strategies {
    /// The backend's own strategies.
    pub fn native() -> Strategies {
        Strategies::default()
    }
    /// Builder-style: schedule with strategies `make` builds.
    pub fn with_sched(
        mut self,
        make: impl Fn() -> Box<dyn SchedStrategy> + Send + Sync + 'static,
    ) -> Strategies {
        self.sched = Some(Arc::new(make));
        self
    }
    /// Builder-style: allocate with policies `make` builds.
    pub fn with_alloc(
        mut self,
        make: impl Fn() -> Box<dyn AllocPolicy> + Send + Sync + 'static,
    ) -> Strategies {
        self.alloc = Some(Arc::new(make));
        self
    }
    /// Neither decision point is replaced.
    pub fn is_native(&self) -> bool {
        self.sched.is_none() && self.alloc.is_none()
    }
}

impl PartialEq for Strategies {
    fn eq(&self, other: &Strategies) -> bool {
        fn same<T: ?Sized>(a: &Option<Arc<T>>, b: &Option<Arc<T>>) -> bool {
            match (a, b) {
                (None, None) => true,
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                _ => false,
            }
        }
        same(&self.sched, &other.sched) && same(&self.alloc, &other.alloc)
    }
}

impl Eq for Strategies {}

impl fmt::Debug for Strategies {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let which = |user: bool| if user { "user" } else { "native" };
        f.debug_struct("Strategies")
            .field("sched", &which(self.sched.is_some()))
            .field("alloc", &which(self.alloc.is_some()))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct First;
    impl SchedStrategy for First {
        fn pick(&mut self, _: &ReadyCx) -> usize {
            0
        }
    }

    #[test]
    fn strategies_compare_by_factory_identity() {
        let a = Strategies::native().with_sched(|| Box::new(First));
        assert_eq!(a, a.clone());
        assert_ne!(a, Strategies::native().with_sched(|| Box::new(First)));
        assert_ne!(a, Strategies::native());
        assert_eq!(Strategies::native(), Strategies::default());
        assert_eq!(
            format!("{a:?}"),
            "Strategies { sched: \"user\", alloc: \"native\" }"
        );
    }

    #[test]
    fn a_backend_without_decisions_refuses_user_strategies() {
        use crate::{refexec::RefExec, Backend, CompileError};
        let mut b = RefExec::new();
        assert_eq!(b.set_strategies(&Strategies::native()), Ok(()));
        let user = Strategies::native().with_sched(|| Box::new(First));
        let err = b.set_strategies(&user).unwrap_err();
        assert!(matches!(err, CompileError::Unsupported { .. }), "{err}");
        assert!(err.to_string().contains("refexec"), "{err}");
    }
}
