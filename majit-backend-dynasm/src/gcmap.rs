//! gcmaps: which jitframe words hold references at one collection point.
//!
//! Format (majit-gc's `JitFrameRoots` contract): word 0 is the number `n`
//! of bitmap words, words `1..=n` the bitmap; bit `i` set means frame word
//! `i` holds a reference (or null) that a moving collection must update.
//! A register's value sits in its save slot while the collector runs, so
//! a register location maps to its save slot's word, a spill slot to its
//! own word. Emitters put each collection point's gcmap in the trace's
//! pool and store its address in the frame's `GCMAP` word before calling
//! into the collector, then clear it.

use crate::arch::{Loc, RegFile};
use crate::frame::HEADER;
use majit_ir::Kind;

/// The frame word index of a register or slot location.
pub fn frame_word(regs: &RegFile, loc: Loc) -> Option<usize> {
    match loc {
        Loc::Reg(r) => Some(HEADER + r as usize),
        Loc::Slot(n) => Some(HEADER + regs.regs.len() + n as usize),
        Loc::Const(_) => None,
    }
}

/// The gcmap marking every ref among `live`.
pub fn build(regs: &RegFile, live: &[(Loc, Kind)]) -> Vec<u64> {
    let words: Vec<usize> = live
        .iter()
        .filter(|(_, k)| *k == Kind::Ref)
        .filter_map(|&(l, _)| frame_word(regs, l))
        .collect();
    let n = words.iter().max().map_or(0, |&w| w / 64 + 1);
    let mut map = vec![0u64; n + 1];
    map[0] = n as u64;
    for w in words {
        map[1 + w / 64] |= 1 << (w % 64);
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::{Bank, RegInfo};

    static REGS: [RegInfo; 2] = [
        RegInfo {
            name: "a",
            bank: Bank::Int,
            hw: 0,
            allocatable: true,
            caller_saved: true,
        },
        RegInfo {
            name: "b",
            bank: Bank::Int,
            hw: 1,
            allocatable: true,
            caller_saved: true,
        },
    ];
    static FILE: RegFile = RegFile {
        regs: &REGS,
        alloc_order: &[0, 1],
        int_args: &[0],
        float_args: &[],
        int_result: 0,
        float_result: 0,
        call_clobbers: &[],
    };

    #[test]
    fn marks_refs_in_registers_and_slots_only() {
        let live = [
            (Loc::Reg(1), Kind::Ref),
            (Loc::Reg(0), Kind::Int),
            (Loc::Slot(70), Kind::Ref),
            (Loc::Const(majit_ir::Const::Ref(8)), Kind::Ref),
        ];
        let map = build(&FILE, &live);
        let slot_word = HEADER + 2 + 70;
        assert_eq!(map[0], 2);
        assert_eq!(map[1], 1 << (HEADER + 1));
        assert_eq!(map[2], 1 << (slot_word - 64));
        assert_eq!(build(&FILE, &[(Loc::Reg(0), Kind::Int)]), vec![0]);
    }
}
