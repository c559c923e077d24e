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
use crate::emit::{plan, Bump, Emitted, GcEncoder, PoolSource};
use crate::frame;
use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi};
use majit_gc::JitGcInfo;

impl GcEncoder for A64Emitter {
    fn nursery_bump(&mut self, _cx: &OpCx, dst: Reg, at: Bump) -> Emitted {
        let d = hw(dst);
        let (free_word, _) = self.pool_word(PoolSource::Abs(at.free));
        let (top_word, _) = self.pool_word(PoolSource::Abs(at.top));
        a64!(self.ops
            ; ldr tmp, =>free_word
            ; ldr X(d), [tmp]
            ; add X(d), X(d), tmp2
            ; ldr tmp, =>top_word
            ; ldr tmp, [tmp]
            ; cmp X(d), tmp
            ; b.hi =>at.slow
            ; ldr tmp, =>free_word
            ; str X(d), [tmp]
            ; sub X(d), X(d), tmp2
            ; b =>at.done
        );
        Ok(())
    }

    fn card_test(&mut self, cx: &OpCx, gc: &JitGcInfo, done: DynamicLabel) -> Emitted {
        let (table, shift) = (gc.card_table_biased, gc.card_shift);
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

    fn flag_test(&mut self, flag: usize, done: DynamicLabel) {
        let (flag, _) = self.pool_word(PoolSource::Abs(flag));
        a64!(self.ops
            ; ldr tmp, =>flag
            ; ldrb w16, [tmp]
            ; cbz tmp, =>done
        );
    }

    fn save_reg(&mut self, r: Reg) {
        self.frame_str(r, frame::save_slot_offset(r) as i64);
    }

    fn reload_reg(&mut self, r: Reg) {
        self.frame_ldr(r, frame::save_slot_offset(r) as i64);
    }

    fn set_gcmap(&mut self, map: DynamicLabel) {
        let gcmap_at = (frame::GCMAP * 8) as u32;
        a64!(self.ops
            ; adr tmp, =>map
            ; str tmp, [frame, gcmap_at]
        );
    }

    fn call_gc(&mut self, heap: DynamicLabel, func: DynamicLabel) {
        a64!(self.ops
            ; ldr x0, =>heap
            ; ldr tmp, =>func
            ; blr tmp
        );
    }

    fn after_gc_point(&mut self, oom: DynamicLabel) {
        let gcmap_at = (frame::GCMAP * 8) as u32;
        a64!(self.ops
            ; str xzr, [frame, gcmap_at]
            ; cbz x0, =>oom
        );
    }
}
