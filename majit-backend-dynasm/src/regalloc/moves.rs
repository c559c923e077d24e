//! Parallel-move resolution: turning "all these moves at once" (a `jump`
//! into its label's locations, call arguments into ABI registers) into a
//! sequence of single moves.
//!
//! Algorithm: count, for each location, the pending moves still reading
//! it. Emit any move whose destination nobody still reads, then decrement
//! its source's count. When none is ready, every pending move lies on a
//! cycle (trees hanging off a cycle were emitted first): copy one blocked
//! destination into the bank's temporary, redirect its readers to the
//! temporary, and continue; the cycle then unrolls completely before the
//! temporary is needed again. Self-moves are dropped; constant sources
//! never block anything. The temporary is of the bank of the value it
//! saves, which for a stack slot need not be the bank of the value moved
//! into it.
//!
//! Invariants: destinations are distinct; the temporaries appear in no
//! source or destination; the result, run in order, leaves every
//! destination holding the value its source held before the first move.

use crate::arch::{Bank, Loc};
use majit_ir::hash::FastMap;
use majit_ir::Kind;

/// One move between locations of one kind.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Move {
    pub from: Loc,
    pub to: Loc,
    pub kind: Kind,
}

/// Sequentializes the parallel move `moves`; `temp(bank)` is the location
/// that breaks cycles of that bank.
pub fn sequentialize(moves: &[Move], temp: impl Fn(Bank) -> Loc) -> Vec<Move> {
    let mut pending: Vec<Move> = moves.iter().copied().filter(|m| m.from != m.to).collect();
    // Readers per location, kept as moves go: counting them by a scan per
    // candidate made a jump of n moves cost n^3 (seconds for long bridges).
    let mut readers: FastMap<Loc, usize> = FastMap::default();
    for m in &pending {
        *readers.entry(m.from).or_default() += 1;
    }
    let mut out = Vec::with_capacity(pending.len() + 2);
    while !pending.is_empty() {
        let ready = pending
            .iter()
            .position(|m| readers.get(&m.to).copied().unwrap_or(0) == 0);
        match ready {
            Some(i) => {
                let m = pending.remove(i);
                if let Some(n) = readers.get_mut(&m.from) {
                    *n -= 1;
                }
                out.push(m);
            }
            None => {
                let blocked = pending[0];
                // The temporary holds the value `blocked.to` has now, of
                // its readers' kind: a stack slot may hold a float before
                // the moves and an int after (the bank of `blocked.kind`
                // once copied a slot's int into the float temporary, and
                // the reader then read the int register of the same
                // number).
                let kind = pending
                    .iter()
                    .find(|m| m.from == blocked.to)
                    .map_or(blocked.kind, |m| m.kind);
                let t = temp(Bank::of(kind));
                out.push(Move {
                    from: blocked.to,
                    to: t,
                    kind,
                });
                for m in pending.iter_mut().filter(|m| m.from == blocked.to) {
                    m.from = t;
                }
                let n = readers.remove(&blocked.to).unwrap_or(0);
                *readers.entry(t).or_default() += n;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use majit_ir::Const;
    use std::collections::BTreeMap;

    const TEMP_I: Loc = Loc::Reg(100);
    const TEMP_F: Loc = Loc::Reg(101);

    fn temp(b: Bank) -> Loc {
        match b {
            Bank::Int => TEMP_I,
            Bank::Float => TEMP_F,
        }
    }

    /// Runs `seq` on a machine whose locations start holding their own
    /// name and checks the parallel semantics of `moves`.
    fn check(moves: &[Move]) {
        let seq = sequentialize(moves, temp);
        // A temporary is written and read only by moves of its bank.
        for m in &seq {
            for l in [m.from, m.to] {
                if l == TEMP_I || l == TEMP_F {
                    assert_eq!(temp(Bank::of(m.kind)), l, "{moves:?} -> {seq:?}");
                }
            }
        }
        let mut state: BTreeMap<Loc, Loc> = BTreeMap::new();
        let read = |s: &BTreeMap<Loc, Loc>, l: Loc| *s.get(&l).unwrap_or(&l);
        for m in &seq {
            let v = read(&state, m.from);
            state.insert(m.to, v);
        }
        for m in moves {
            assert_eq!(read(&state, m.to), m.from, "{moves:?} -> {seq:?}");
        }
        for (l, v) in &state {
            let written = moves.iter().any(|m| m.to == *l) || *l == TEMP_I || *l == TEMP_F;
            assert!(written || l == v, "{l:?} clobbered in {seq:?}");
        }
    }

    /// A xorshift generator from `seed`: `next(n)` is below `n`.
    fn xorshift(mut s: u64) -> impl FnMut(u64) -> u64 {
        move |n| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s % n
        }
    }

    fn mv(from: Loc, to: Loc) -> Move {
        Move {
            from,
            to,
            kind: Kind::Int,
        }
    }

    #[test]
    fn swap_three_cycle_fan_out_and_mix() {
        let (r0, r1, r2, s0) = (Loc::Reg(0), Loc::Reg(1), Loc::Reg(2), Loc::Slot(0));
        check(&[mv(r0, r1), mv(r1, r0)]);
        check(&[mv(r0, r1), mv(r1, r2), mv(r2, r0)]);
        check(&[mv(r0, r1), mv(r0, r2), mv(r0, s0)]);
        check(&[
            mv(s0, r0),
            mv(r0, s0),
            mv(Loc::Const(Const::Int(5)), r1),
            mv(r1, r2),
        ]);
        check(&[mv(r0, r0), mv(r1, r2), mv(r2, r1)]);
    }

    /// A cycle through stack slots whose values change bank: the slot `s0`
    /// holds an int read into `r0` and is given a float from `f0`, which
    /// is given the float in `s1`, which is given the int in `r0`.
    #[test]
    fn a_cycle_through_slots_saves_a_value_in_the_temporary_of_its_bank() {
        let (r0, f0, s0, s1) = (Loc::Reg(0), Loc::Reg(10), Loc::Slot(0), Loc::Slot(1));
        let float = |from, to| Move {
            from,
            to,
            kind: Kind::Float,
        };
        check(&[float(f0, s0), mv(s0, r0), mv(r0, s1), float(s1, f0)]);
        check(&[mv(s0, r0), float(f0, s0), float(s1, f0), mv(r0, s1)]);
    }

    #[test]
    fn random_parallel_moves_of_both_banks() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        for _ in 0..4000 {
            // Registers 0-5 are ints, 10-15 floats; slots hold either, the
            // kind of a source slot's value drawn once per slot.
            let slot_kind: Vec<Kind> = (0..6)
                .map(|_| if next(2) == 0 { Kind::Int } else { Kind::Float })
                .collect();
            let n = 1 + next(8) as usize;
            let mut dests: Vec<Loc> = Vec::new();
            let mut moves = Vec::new();
            let mut tries = 0;
            while moves.len() < n && tries < 100 {
                tries += 1;
                let kind = if next(2) == 0 { Kind::Int } else { Kind::Float };
                let base = if kind == Kind::Int { 0 } else { 10 };
                let to = match next(2) {
                    0 => Loc::Reg(base + next(6) as u8),
                    _ => Loc::Slot(next(6) as u32),
                };
                let from = match next(2) {
                    0 => Loc::Reg(base + next(6) as u8),
                    _ => {
                        let k = next(6) as usize;
                        if slot_kind[k] != kind {
                            continue;
                        }
                        Loc::Slot(k as u32)
                    }
                };
                if dests.contains(&to) {
                    continue;
                }
                dests.push(to);
                moves.push(Move { from, to, kind });
            }
            check(&moves);
        }
    }

    #[test]
    fn random_parallel_moves() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..2000 {
            let n = 1 + next(8) as usize;
            let mut dests: Vec<Loc> = Vec::new();
            let mut moves = Vec::new();
            while moves.len() < n {
                let to = if next(2) == 0 {
                    Loc::Reg(next(6) as u8)
                } else {
                    Loc::Slot(next(6) as u32)
                };
                if dests.contains(&to) {
                    continue;
                }
                dests.push(to);
                let from = match next(3) {
                    0 => Loc::Reg(next(6) as u8),
                    1 => Loc::Slot(next(6) as u32),
                    _ => Loc::Const(Const::Int(next(100) as i64)),
                };
                moves.push(mv(from, to));
            }
            check(&moves);
        }
    }
}
