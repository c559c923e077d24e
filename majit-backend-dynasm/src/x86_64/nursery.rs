//! x86_64 inline nursery allocation and the write barrier, with their
//! out-of-line slow paths into majit-gc.
//!
//! Allocation fast path (`r10` = &free, `r11` = size):
//!
//! ```text
//! mov  dst, [r10]          ; the object
//! add  dst, r11            ; the new free pointer
//! cmp  dst, [r10 + top-free]
//! ja   slow
//! mov  [r10], dst
//! sub  dst, r11
//! ```
//!
//! Slow path: store the live registers that are caller-saved or hold refs
//! into their save slots, point the frame's `GCMAP` word at this site's
//! gcmap (refs in those save slots and in spill slots), call the GC (the
//! frame is registered for the whole run, so the slow path gets a null
//! frame), clear `GCMAP`, reload the saved registers (refs may have
//! moved), and exit with "out of memory" if the GC returned 0.
//!
//! Write barrier: the card test majit-gc documents for objects that may be
//! headerless, `byte [card_table_biased + (obj >> card_shift)] != 0`, then
//! the same register saving (no gcmap: the barrier does not collect).

use super::emit::{fits_i32, X64Emitter};
use super::regs::hw;
use super::x64;
use crate::arch::{OpCx, Reg};
use crate::emit::{plan, PoolSource};
use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi};
use majit_metainterp::CompileError;

impl X64Emitter {
    /// The nursery bump (see the module docs) for the size in `r11`.
    pub(super) fn bump(
        &mut self,
        cx: &OpCx,
        dst: Reg,
        free: usize,
        top: usize,
        slow: DynamicLabel,
        done: DynamicLabel,
    ) -> Result<(), CompileError> {
        let top_off = top.wrapping_sub(free) as i64;
        if !fits_i32(top_off) {
            return Err(plan::unsupported(
                cx.op,
                "nursery top and free words too far apart",
            ));
        }
        let d = hw(dst);
        let (free_word, _) = self.pool_word(PoolSource::Abs(free));
        x64!(self.ops
            ; mov r10, QWORD [=>free_word]
            ; mov Rq(d), QWORD [r10]
            ; add Rq(d), tmp
            ; cmp Rq(d), QWORD [r10 + top_off as i32]
            ; ja =>slow
            ; mov QWORD [r10], Rq(d)
            ; sub Rq(d), tmp
            ; jmp =>done
        );
        Ok(())
    }

    /// The card test of the object in `r11`: to `done` when its card is
    /// clear.
    pub(super) fn cards(&mut self, table: usize, shift: u32, done: DynamicLabel) {
        let (table, _) = self.pool_word(PoolSource::Abs(table));
        let shift = shift as i8;
        x64!(self.ops
            ; mov r10, tmp
            ; shr r10, shift
            ; add r10, QWORD [=>table]
            ; cmp BYTE [r10], 0
            ; je =>done
        );
    }
}
