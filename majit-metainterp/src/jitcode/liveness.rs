//! The liveness pass: fills every `-live-` marker of a finished jitcode
//! function with the registers live there.
//!
//! Classic backward dataflow on the encoded instructions: `live_in(i) =
//! uses(i) ∪ (live_out(i) − defs(i))`, `live_out(i) = ∪ live_in(s)` over
//! the successors `s` (the next instruction unless `i` is a `goto` or a
//! return, plus label and switch targets). The instructions are swept
//! backwards until nothing changes, which reaches the fixpoint over loops.
//! A marker has no uses or defs, so its set is the live-out at that point:
//! the registers some path from there reads before writing. Constants are
//! not registers and never appear. An `ovf` instruction writes its
//! destination on both paths (the wrapped result), so the formula is exact
//! for it too; a `catch_exception` writes its destination only on the way
//! to its label, so there `live_in = live_in(next) ∪ (live_in(label) −
//! defs)`.

use super::{Insn, JOp, JitCode, LiveSet, Operand, RegOp};
use majit_ir::Kind;
use std::collections::HashMap;

/// A set of registers of the three banks (a bit per register of the
/// function, per bank).
#[derive(Clone, PartialEq, Eq)]
struct RegSet([Vec<u64>; 3]);

impl RegSet {
    /// The empty set for a function with `num_regs` registers per bank.
    fn new(num_regs: &[u16; 3]) -> RegSet {
        RegSet(num_regs.map(|n| vec![0; usize::from(n).div_ceil(64)]))
    }
    fn bank(kind: Kind) -> usize {
        super::bank_index(kind)
    }
    fn insert(&mut self, r: RegOp) {
        self.0[Self::bank(r.kind)][usize::from(r.index) / 64] |= 1 << (r.index % 64);
    }
    fn remove(&mut self, r: RegOp) {
        self.0[Self::bank(r.kind)][usize::from(r.index) / 64] &= !(1 << (r.index % 64));
    }
    fn union(&mut self, other: &RegSet) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            for (x, y) in a.iter_mut().zip(b) {
                *x |= *y;
            }
        }
    }
    fn members(&self, kind: Kind) -> Vec<u16> {
        let words = &self.0[Self::bank(kind)];
        (0..words.len() * 64)
            .filter(|&i| words[i / 64] & (1 << (i % 64)) != 0)
            .map(|i| i as u16)
            .collect()
    }
}

/// Computes `code.liveness` from the instructions.
pub fn compute(code: &mut JitCode) {
    let insns: Vec<Insn> = code
        .insn_starts()
        .into_iter()
        .map(|pc| code.decode(pc))
        .collect();
    let index_of: HashMap<usize, usize> =
        insns.iter().enumerate().map(|(i, n)| (n.pc, i)).collect();
    let succs: Vec<Vec<usize>> = insns
        .iter()
        .enumerate()
        .map(|(i, insn)| {
            let mut s: Vec<usize> = insn
                .targets(code)
                .iter()
                .filter_map(|pc| index_of.get(pc).copied())
                .collect();
            if insn.falls_through() && i + 1 < insns.len() {
                s.push(i + 1);
            }
            s
        })
        .collect();
    let uses: Vec<Vec<RegOp>> = insns
        .iter()
        .map(|insn| {
            insn.uses()
                .into_iter()
                .filter(|&r| !code.is_const(r))
                .collect()
        })
        .collect();
    let empty = RegSet::new(&code.num_regs);
    let mut live_in = vec![empty.clone(); insns.len()];
    let mut changed = true;
    while changed {
        changed = false;
        for i in (0..insns.len()).rev() {
            let mut set = empty.clone();
            for &s in &succs[i] {
                set.union(&live_in[s]);
            }
            if let Some(d) = insns[i].dst {
                set.remove(d);
            }
            if insns[i].is_catch() && i + 1 < insns.len() {
                // The fall-through path (nothing raised) keeps `dst`.
                set.union(&live_in[i + 1]);
            }
            for &u in &uses[i] {
                set.insert(u);
            }
            if set != live_in[i] {
                live_in[i] = set;
                changed = true;
            }
        }
    }
    for (i, insn) in insns.iter().enumerate() {
        if let (JOp::Live, Some(Operand::Live(n))) = (insn.op, insn.operands.first()) {
            let set = &live_in[i];
            code.liveness[*n as usize] = LiveSet {
                ints: set.members(Kind::Int),
                refs: set.members(Kind::Ref),
                floats: set.members(Kind::Float),
            };
        }
    }
}
