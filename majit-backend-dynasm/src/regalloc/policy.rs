//! The "which register, or which range to evict" decision: the
//! [`AllocPolicy`] interface (defined in `majit_metainterp::strategy`, so a
//! `JitParams` can carry it), the native default and a seeded random
//! policy.
//!
//! The allocator computes the legal candidates; a policy only chooses among
//! them. A choice outside the candidates, or a panic, becomes
//! `CompileError::Strategy` (checked in `regalloc/mod.rs`), so a user policy
//! can make code slow but never wrong.

pub use majit_metainterp::strategy::{
    AllocCx, AllocDecision, AllocPolicy, LiveRange, Occupant, RegCandidate,
};

/// The native default: the hint if free; else, for a range living across a
/// call, the first free callee-saved register; else the first free one.
/// With none free, evicts the range whose next real use is furthest away
/// (ranges only read by exits first).
#[derive(Debug, Default)]
pub struct NativePolicy;

impl AllocPolicy for NativePolicy {
    fn decide(&mut self, cx: &AllocCx) -> AllocDecision {
        let free = |r| cx.free.iter().any(|c| c.reg == r);
        if let Some(h) = cx.hint.filter(|&h| free(h)) {
            return AllocDecision::Reg(h);
        }
        if cx.range.crosses_call {
            if let Some(c) = cx.free.iter().find(|c| !c.caller_saved) {
                return AllocDecision::Reg(c.reg);
            }
        }
        if let Some(c) = cx.free.first() {
            return AllocDecision::Reg(c.reg);
        }
        let key = |o: &Occupant| o.range.next_use.unwrap_or(u32::MAX);
        let mut best = cx.occupied[0];
        for &o in &cx.occupied[1..] {
            if key(&o) > key(&best) {
                best = o;
            }
        }
        AllocDecision::Evict(best.range.value)
    }

    fn evicts_while_free(&self) -> bool {
        false
    }
}

/// A seeded random policy (xorshift64*), for fuzzing the allocator with
/// the checker as oracle: a random choice among the free registers and
/// the evictable ranges.
#[derive(Debug)]
pub struct RandomPolicy {
    state: u64,
}

impl RandomPolicy {
    /// A policy whose choices are a function of `seed`.
    pub fn new(seed: u64) -> Self {
        RandomPolicy { state: seed | 1 }
    }
    fn next(&mut self, n: usize) -> usize {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        (self.state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }
}

impl AllocPolicy for RandomPolicy {
    fn decide(&mut self, cx: &AllocCx) -> AllocDecision {
        let k = self.next(cx.free.len() + cx.occupied.len());
        match cx.free.get(k) {
            Some(c) => AllocDecision::Reg(c.reg),
            None => AllocDecision::Evict(cx.occupied[k - cx.free.len()].range.value),
        }
    }
}
