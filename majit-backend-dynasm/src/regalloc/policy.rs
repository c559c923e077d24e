//! The "which register, or which value to spill" decision: the
//! [`AllocPolicy`] trait, the native default and a seeded random policy.
//!
//! The allocator computes the legal candidates; a policy only chooses among
//! them. A choice outside the candidates, or a panic, becomes
//! `CompileError::Strategy` (checked in `regalloc/mod.rs`), so a user policy
//! can make code slow but never wrong.

use crate::arch::{Reg, RegFile};
use majit_ir::OpRef;

/// Choosing a free register for a value.
#[derive(Debug)]
pub struct RegChoice<'a> {
    pub regs: &'a RegFile,
    /// The value that needs a register.
    pub value: OpRef,
    /// Free registers of the right bank, in the arch's preference order.
    pub free: &'a [Reg],
    /// A register the value would like (label location, call argument).
    pub hint: Option<Reg>,
    /// A call lies inside the value's life.
    pub crosses_call: bool,
}

/// Choosing which register to free by spilling its value.
#[derive(Debug)]
pub struct SpillChoice<'a> {
    pub regs: &'a RegFile,
    /// Occupied candidates: register, its value, the value's next real use
    /// (`None`: only fail args, `jump` or `finish` still read it).
    pub candidates: &'a [(Reg, OpRef, Option<u32>)],
}

/// A register-allocation policy.
pub trait AllocPolicy {
    /// Returns one of `cx.free`.
    fn pick_reg(&mut self, cx: &RegChoice) -> Reg;
    /// Returns the register of one of `cx.candidates`.
    fn pick_spill(&mut self, cx: &SpillChoice) -> Reg;
}

/// The native default: the hint if free; else, for a value living across a
/// call, the first free callee-saved register; else the first free one.
/// Spills the value whose next real use is furthest away (values only
/// read by exits first).
#[derive(Debug, Default)]
pub struct NativePolicy;

impl AllocPolicy for NativePolicy {
    fn pick_reg(&mut self, cx: &RegChoice) -> Reg {
        if let Some(h) = cx.hint.filter(|h| cx.free.contains(h)) {
            return h;
        }
        if cx.crosses_call {
            if let Some(&r) = cx.free.iter().find(|&&r| !cx.regs.info(r).caller_saved) {
                return r;
            }
        }
        cx.free[0]
    }

    fn pick_spill(&mut self, cx: &SpillChoice) -> Reg {
        let key = |n: Option<u32>| n.unwrap_or(u32::MAX);
        let mut best = cx.candidates[0];
        for &c in &cx.candidates[1..] {
            if key(c.2) > key(best.2) {
                best = c;
            }
        }
        best.0
    }
}

/// A seeded random policy (xorshift64*), for fuzzing the allocator with
/// the checker as oracle.
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
    fn pick_reg(&mut self, cx: &RegChoice) -> Reg {
        cx.free[self.next(cx.free.len())]
    }
    fn pick_spill(&mut self, cx: &SpillChoice) -> Reg {
        cx.candidates[self.next(cx.candidates.len())].0
    }
}
