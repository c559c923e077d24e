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
use super::emit::{const_bits, A64Emitter, PoolSource, Stub};
use super::regs::{hw, REG_FILE, X17};
use crate::arch::{Loc, OpCx, Reg};
use crate::frame;
use crate::gcmap;
use crate::guard::ExitRecord;
use dynasmrt::{DynasmApi, DynasmLabelApi};
use majit_gc::JitGcInfo;
use majit_ir::{Const, Kind, OpCode};
use majit_metainterp::CompileError;

/// The null frame argument: the frame is registered for the whole run.
const NULL: Loc = Loc::Const(Const::Int(0));
/// `x1`, `x2`, `x3`: the slow paths' arguments after the heap.
const X1: Reg = 1;
const X2: Reg = 2;
const X3: Reg = 3;

impl A64Emitter {
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
            (
                region.free_addr,
                region.top_addr,
                gc.malloc_nursery_headerless_fn,
                Some(layout.type_id as i64),
            )
        };
        let too_big = matches!(cx.args[0], Loc::Const(c)
            if const_bits(c) as u64 > gc.max_nursery_object as u64);
        let always_slow = too_big && slow_arg.is_none();
        self.load_int(X17, cx.args[0]);
        let (slow, done) = (self.ops.new_dynamic_label(), self.ops.new_dynamic_label());
        let d = hw(dst);
        if !always_slow {
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
        a64!(self.ops; =>slow);
        let second = match slow_arg {
            Some(id) => Loc::Const(Const::Int(id)),
            None => Loc::Reg(X17),
        };
        self.slow_call(
            cx,
            &gc,
            slow_fn,
            &[(X1, second), (X2, NULL)],
            true,
            Some(dst),
        )?;
        a64!(self.ops; =>done);
        Ok(())
    }

    /// `cond_call_gc_wb(obj)` and `cond_call_gc_wb_array(obj, index)`
    /// (the array form records the whole object).
    pub(super) fn write_barrier(&mut self, cx: &OpCx) -> Result<(), CompileError> {
        let gc = self.gc(cx)?;
        if gc.card_shift >= 64 {
            return Err(super::unsupported(cx.op, "card shift of 64 or more"));
        }
        self.load_int(X17, cx.args[0]);
        let (table, _) = self.pool_word(PoolSource::Abs(gc.card_table_biased));
        let shift = gc.card_shift;
        let done = self.ops.new_dynamic_label();
        a64!(self.ops
            ; ldr tmp, =>table
            ; add tmp, tmp, tmp2, lsr shift
            ; ldrb w16, [tmp]
            ; cbz tmp, =>done
        );
        self.slow_call(
            cx,
            &gc,
            gc.write_barrier_fn,
            &[(X1, Loc::Reg(X17))],
            false,
            None,
        )?;
        a64!(self.ops; =>done);
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
        let id = Loc::Const(Const::Int(array.type_id as i64));
        self.load_int(X17, cx.args[0]);
        let args = [(X1, id), (X2, Loc::Reg(X17)), (X3, NULL)];
        self.slow_call(cx, &gc, gc.malloc_varsize_fn, &args, true, Some(dst))
    }

    /// Calls `f(heap, args...)` preserving every live register; with
    /// `gc_point`, roots the live refs through this site's gcmap and exits
    /// with "out of memory" when `f` returns 0; `dst` gets the result.
    /// Argument sources are constants or `x17`, never an argument register.
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
            self.frame_str(r, frame::save_slot_offset(r) as i64);
        }
        let gcmap_at = (frame::GCMAP * 8) as u32;
        if gc_point {
            let map = gcmap::build(&REG_FILE, cx.live);
            let first = self.pool_word(PoolSource::Abs(map[0] as usize)).0;
            for &w in &map[1..] {
                self.pool_word(PoolSource::Abs(w as usize));
            }
            a64!(self.ops
                ; adr tmp, =>first
                ; str tmp, [frame, gcmap_at]
            );
        }
        for &(r, from) in args {
            self.load_int(r, from);
        }
        let (heap, _) = self.pool_word(PoolSource::Abs(gc.heap));
        let (func, _) = self.pool_word(PoolSource::Abs(f));
        a64!(self.ops
            ; ldr x0, =>heap
            ; ldr tmp, =>func
            ; blr tmp
        );
        if gc_point {
            let oom = self.ops.new_dynamic_label();
            a64!(self.ops
                ; str xzr, [frame, gcmap_at]
                ; cbz x0, =>oom
            );
            let mut exit = ExitRecord::new(u32::MAX, cx.index, None, Vec::new());
            exit.out_of_memory = true;
            self.stubs.push(Stub { label: oom, exit });
        }
        if let Some(d) = dst {
            self.load_int(d, Loc::Reg(0));
        }
        for &r in &saved {
            self.frame_ldr(r, frame::save_slot_offset(r) as i64);
        }
        Ok(())
    }
}
