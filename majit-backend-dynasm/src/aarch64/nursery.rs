//! aarch64 inline nursery allocation and the write barrier, with their
//! out-of-line slow paths into majit-gc (the same protocol as x86_64).
//!
//! Allocation fast path (`x17` = size, `dst` = the result register; only
//! `x16`/`x17` are scratch, so the top word is reached through its own
//! pool word):
//!
//! ```text
//! ldr  x16, free_word      ; &free
//! ldr  dst, [x16]          ; the object
//! add  dst, dst, x17       ; the new free pointer
//! ldr  x16, top_word       ; &top
//! ldr  x16, [x16]
//! cmp  dst, x16
//! b.hi slow                ; size still in x17
//! ldr  x16, free_word
//! str  dst, [x16]
//! sub  dst, dst, x17
//! ```
//!
//! Slow path: store the live registers that are caller-saved or hold refs
//! into their save slots, point the frame's `GCMAP` word at this site's
//! gcmap (refs in those save slots and in spill slots), call the GC with
//! `blr` (the frame is registered for the whole run, so the slow path gets
//! a null frame), clear `GCMAP`, reload the saved registers (refs may have
//! moved), and exit with "out of memory" if the GC returned 0.
//!
//! Write barrier: majit-gc's card test, valid for every object,
//! `byte [card_table_biased + (obj >> card_shift)] != 0`, then the same
//! register saving (no gcmap: the barrier does not collect).

use super::a64;
use super::emit::A64Emitter;
use super::regs::hw;
use crate::arch::{OpCx, Reg};
use crate::emit::{plan, PoolSource};
use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi};
use majit_metainterp::CompileError;

impl A64Emitter {
    /// The nursery bump (see the module docs) for the size in `x17`.
    pub(super) fn bump(
        &mut self,
        dst: Reg,
        free: usize,
        top: usize,
        slow: DynamicLabel,
        done: DynamicLabel,
    ) {
        let d = hw(dst);
        let (free_word, _) = self.pool_word(PoolSource::Abs(free));
        let (top_word, _) = self.pool_word(PoolSource::Abs(top));
        a64!(self.ops
            ; ldr tmp, =>free_word
            ; ldr X(d), [tmp]
            ; add X(d), X(d), tmp2
            ; ldr tmp, =>top_word
            ; ldr tmp, [tmp]
            ; cmp X(d), tmp
            ; b.hi =>slow
            ; ldr tmp, =>free_word
            ; str X(d), [tmp]
            ; sub X(d), X(d), tmp2
            ; b =>done
        );
    }

    /// The card test of the object in `x17`: to `done` when its card is
    /// clear.
    pub(super) fn cards(
        &mut self,
        cx: &OpCx,
        table: usize,
        shift: u32,
        done: DynamicLabel,
    ) -> Result<(), CompileError> {
        if shift >= 64 {
            return Err(plan::unsupported(cx.op, "card shift of 64 or more"));
        }
        let (table, _) = self.pool_word(PoolSource::Abs(table));
        a64!(self.ops
            ; ldr tmp, =>table
            ; add tmp, tmp, tmp2, lsr shift
            ; ldrb w16, [tmp]
            ; cbz tmp, =>done
        );
        Ok(())
    }
}
