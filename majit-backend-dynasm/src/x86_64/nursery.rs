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
use super::regs::{hw, is_xmm};
use super::x64;
use crate::arch::{OpCx, Reg};
use crate::emit::{plan, Bump, Emitted, GcEncoder, PoolSource};
use crate::frame;
use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi};
use majit_gc::JitGcInfo;

impl GcEncoder for X64Emitter {
    fn nursery_bump(&mut self, cx: &OpCx, dst: Reg, at: Bump) -> Emitted {
        let top_off = at.top.wrapping_sub(at.free) as i64;
        if !fits_i32(top_off) {
            return Err(plan::unsupported(
                cx.op,
                "nursery top and free words too far apart",
            ));
        }
        let d = hw(dst);
        let (free_word, _) = self.pool_word(PoolSource::Abs(at.free));
        x64!(self.ops
            ; mov r10, QWORD [=>free_word]
            ; mov Rq(d), QWORD [r10]
            ; add Rq(d), tmp
            ; cmp Rq(d), QWORD [r10 + top_off as i32]
            ; ja =>at.slow
            ; mov QWORD [r10], Rq(d)
            ; sub Rq(d), tmp
            ; jmp =>at.done
        );
        Ok(())
    }

    fn card_test(&mut self, _cx: &OpCx, gc: &JitGcInfo, done: DynamicLabel) -> Emitted {
        let (table, shift) = (gc.card_table_biased, gc.card_shift);
        let (table, _) = self.pool_word(PoolSource::Abs(table));
        let shift = shift as i8;
        x64!(self.ops
            ; mov r10, tmp
            ; shr r10, shift
            ; add r10, QWORD [=>table]
            ; cmp BYTE [r10], 0
            ; je =>done
        );
        Ok(())
    }

    fn flag_test(&mut self, flag: usize, done: DynamicLabel) {
        let (flag, _) = self.pool_word(PoolSource::Abs(flag));
        x64!(self.ops
            ; mov r10, QWORD [=>flag]
            ; cmp BYTE [r10], 0
            ; je =>done
        );
    }

    fn save_reg(&mut self, r: Reg) {
        let at = frame::save_slot_offset(r);
        if is_xmm(r) {
            x64!(self.ops; movsd QWORD [rbp + at], Rx(hw(r)));
        } else {
            x64!(self.ops; mov QWORD [rbp + at], Rq(hw(r)));
        }
    }

    fn reload_reg(&mut self, r: Reg) {
        let at = frame::save_slot_offset(r);
        if is_xmm(r) {
            x64!(self.ops; movsd Rx(hw(r)), QWORD [rbp + at]);
        } else {
            x64!(self.ops; mov Rq(hw(r)), QWORD [rbp + at]);
        }
    }

    fn set_gcmap(&mut self, map: DynamicLabel) {
        let gcmap_at = (frame::GCMAP * 8) as i32;
        x64!(self.ops; lea r10, [=>map]; mov QWORD [rbp + gcmap_at], r10);
    }

    fn call_gc(&mut self, heap: DynamicLabel, func: DynamicLabel) {
        x64!(self.ops
            ; mov rdi, QWORD [=>heap]
            ; call QWORD [=>func]
        );
    }

    fn after_gc_point(&mut self, oom: DynamicLabel) {
        let gcmap_at = (frame::GCMAP * 8) as i32;
        x64!(self.ops; mov QWORD [rbp + gcmap_at], 0; test rax, rax; jz =>oom);
    }
}
