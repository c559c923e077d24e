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

use super::emit::{const_bits, PoolSource, Stub, X64Emitter};
use super::regs::{hw, is_xmm, R11, RAX, RCX, RDX, REG_FILE, RSI};
use super::x64;
use crate::arch::{Loc, OpCx, Reg};
use crate::frame;
use crate::gcmap;
use crate::guard::ExitRecord;
use dynasmrt::{DynasmApi, DynasmLabelApi};
use majit_gc::JitGcInfo;
use majit_ir::{Kind, OpCode};
use majit_metainterp::CompileError;

/// The null frame argument: the frame is registered for the whole run.
const NULL: Loc = Loc::Const(majit_ir::Const::Int(0));

impl X64Emitter {
    fn gc(&self, cx: &OpCx) -> Result<JitGcInfo, CompileError> {
        self.env
            .gc
            .clone()
            .ok_or_else(|| super::unsupported(cx.op, "the backend has no GC"))
    }

    /// `call_malloc_nursery(size)` and `call_malloc_nursery_headerless(size)`.
    pub(super) fn malloc_nursery(&mut self, cx: &OpCx, dst: u8) -> Result<(), CompileError> {
        let gc = self.gc(cx)?;
        let (free, top, slow_fn, slow_arg) = if cx.op.opcode == OpCode::CallMallocNursery {
            (
                gc.nursery_free_addr,
                gc.nursery_top_addr,
                gc.malloc_nursery_fn,
                None,
            )
        } else {
            let layout = cx
                .op
                .descr
                .as_ref()
                .and_then(|d| d.as_size())
                .ok_or_else(|| super::unsupported(cx.op, "needs a size descr"))?;
            let region = gc
                .headerless
                .iter()
                .find(|r| r.type_id == layout.type_id)
                .ok_or_else(|| {
                    super::unsupported(cx.op, &format!("no GC region for layout {}", layout.name))
                })?;
            let id = layout.type_id as i64;
            (
                region.free_addr,
                region.top_addr,
                gc.malloc_nursery_headerless_fn,
                Some(id),
            )
        };
        let top_off = top.wrapping_sub(free) as i64;
        if !super::emit::fits_i32(top_off) {
            return Err(super::unsupported(
                cx.op,
                "nursery top and free words too far apart",
            ));
        }
        let always_slow = matches!(cx.args[0], Loc::Const(c) if const_bits(c) as u64 > gc.max_nursery_object as u64)
            && slow_arg.is_none();
        self.load_int(R11, cx.args[0]);
        let (slow, done) = (self.ops.new_dynamic_label(), self.ops.new_dynamic_label());
        let d = hw(dst);
        if !always_slow {
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
        }
        x64!(self.ops; =>slow);
        let second = match slow_arg {
            Some(id) => Loc::Const(majit_ir::Const::Int(id)),
            None => Loc::Reg(R11),
        };
        self.slow_call(
            cx,
            &gc,
            slow_fn,
            &[(RSI, second), (RDX, NULL)],
            true,
            Some(dst),
        )?;
        x64!(self.ops; =>done);
        Ok(())
    }

    /// `cond_call_gc_wb(obj)` and `cond_call_gc_wb_array(obj, index)`
    /// (the array form records the whole object).
    pub(super) fn write_barrier(&mut self, cx: &OpCx) -> Result<(), CompileError> {
        let gc = self.gc(cx)?;
        self.load_int(R11, cx.args[0]);
        let (table, _) = self.pool_word(PoolSource::Abs(gc.card_table_biased));
        let shift = gc.card_shift as i8;
        let done = self.ops.new_dynamic_label();
        x64!(self.ops
            ; mov r10, tmp
            ; shr r10, shift
            ; add r10, QWORD [=>table]
            ; cmp BYTE [r10], 0
            ; je =>done
        );
        self.slow_call(
            cx,
            &gc,
            gc.write_barrier_fn,
            &[(RSI, Loc::Reg(R11))],
            false,
            None,
        )?;
        x64!(self.ops; =>done);
        Ok(())
    }

    /// `call_malloc_nursery_varsize(length)`: always the GC's entry point
    /// (arrays are rarer than fixed-size objects in traces).
    pub(super) fn malloc_varsize(&mut self, cx: &OpCx, dst: u8) -> Result<(), CompileError> {
        let gc = self.gc(cx)?;
        let array = cx
            .op
            .descr
            .as_ref()
            .and_then(|d| d.as_array())
            .ok_or_else(|| super::unsupported(cx.op, "needs an array descr"))?;
        let id = Loc::Const(majit_ir::Const::Int(array.type_id as i64));
        self.load_int(R11, cx.args[0]);
        let args = [(RSI, id), (RDX, Loc::Reg(R11)), (RCX, NULL)];
        self.slow_call(cx, &gc, gc.malloc_varsize_fn, &args, true, Some(dst))
    }

    /// Calls `f(heap, args...)` preserving every live register; with
    /// `gc_point`, roots the live refs through this site's gcmap and exits
    /// with "out of memory" when `f` returns 0; `dst` gets the result.
    fn slow_call(
        &mut self,
        cx: &OpCx,
        gc: &JitGcInfo,
        f: usize,
        args: &[(Reg, Loc)],
        gc_point: bool,
        dst: Option<u8>,
    ) -> Result<(), CompileError> {
        let mut saved: Vec<Reg> = Vec::new();
        for &(loc, kind) in cx.live {
            if let Loc::Reg(r) = loc {
                let keep = REG_FILE.info(r).caller_saved || kind == Kind::Ref;
                if keep && !saved.contains(&r) && Some(r) != dst {
                    saved.push(r);
                }
            }
        }
        for &r in &saved {
            let at = frame::save_slot_offset(r);
            if is_xmm(r) {
                x64!(self.ops; movsd QWORD [rbp + at], Rx(hw(r)));
            } else {
                x64!(self.ops; mov QWORD [rbp + at], Rq(hw(r)));
            }
        }
        let gcmap_at = (frame::GCMAP * 8) as i32;
        if gc_point {
            let map = gcmap::build(&REG_FILE, cx.live);
            let first = self.pool_word(PoolSource::Abs(map[0] as usize)).0;
            for &w in &map[1..] {
                self.pool_word(PoolSource::Abs(w as usize));
            }
            x64!(self.ops; lea r10, [=>first]; mov QWORD [rbp + gcmap_at], r10);
        }
        for &(r, from) in args {
            self.load_int(r, from);
        }
        let (heap, _) = self.pool_word(PoolSource::Abs(gc.heap));
        let (func, _) = self.pool_word(PoolSource::Abs(f));
        x64!(self.ops
            ; mov rdi, QWORD [=>heap]
            ; call QWORD [=>func]
        );
        if gc_point {
            x64!(self.ops; mov QWORD [rbp + gcmap_at], 0; test rax, rax);
            let oom = self.ops.new_dynamic_label();
            x64!(self.ops; jz =>oom);
            let mut exit = ExitRecord::new(u32::MAX, cx.index, None, Vec::new());
            exit.out_of_memory = true;
            self.stubs.push(Stub { label: oom, exit });
        }
        if let Some(d) = dst {
            self.load_int(d, Loc::Reg(RAX));
        }
        for &r in &saved {
            let at = frame::save_slot_offset(r);
            if is_xmm(r) {
                x64!(self.ops; movsd Rx(hw(r)), QWORD [rbp + at]);
            } else {
                x64!(self.ops; mov Rq(hw(r)), QWORD [rbp + at]);
            }
        }
        Ok(())
    }
}
