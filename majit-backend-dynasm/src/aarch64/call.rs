//! AAPCS64 calls from compiled code.
//!
//! Sequence: reserve an outgoing area (one 8-byte slot per stack argument,
//! one for a non-constant function address, two for the result while the
//! helpers' signals are read, rounded to 16 bytes so `sp` stays aligned);
//! store the function address and the stack arguments (these read
//! argument locations before any register changes, through `x17`); move
//! register arguments into `x0`…`x7`/`d0`…`d7` as one parallel move; load
//! the target into `x16` and `blr` (which overwrites `x30`, never
//! allocatable); for calls that may raise, read refexec's helper signals
//! into the frame's signal words; release the area;
//! copy `x0`/`d0` into the result register. The allocator has already moved values living across
//! the call out of caller-saved registers (the call's clobber set) and,
//! for calls that may collect, every live ref into its spill slot; with a
//! GC such a call points the frame's `GCMAP` word at the site's gcmap
//! while it runs.

use super::a64;
use super::emit::{const_bits, A64Emitter};
use super::regs::{hw, is_float, D0, REG_FILE, X16, X17};
use crate::arch::{Loc, OpCx, Reg};
use crate::callconv::{plan_call_args, ArgPlan};
use crate::emit::{CallEncoder, Encoder, PoolSource};
use crate::framepool;
use crate::{frame, gcmap};
use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi};
use majit_ir::{Kind, ResultKind};
use majit_metainterp::callasm::{CallCell, CallShape};
use majit_metainterp::CompileError;

/// The largest outgoing area (`sub sp, sp, #imm12`).
const MAX_AREA: usize = 4080;

impl A64Emitter {
    /// After a call that may raise: `take_signals(&frame[EXCEPTION..])`
    /// (a new exception replaces the pending one, the forced flag is the
    /// call's: refexec's semantics), keeping the call's result (saved at
    /// `[sp + result_at]`).
    fn take_signals(&mut self, result_at: u32) {
        let take = majit_metainterp::runtime::take_signals as *const () as usize;
        let (take, _) = self.pool_word(PoolSource::Abs(take));
        let words = (frame::EXCEPTION * 8) as u32;
        let float_at = result_at + 8;
        a64!(self.ops
            ; str x0, [sp, result_at]
            ; str d0, [sp, float_at]
            ; add x0, frame, words
            ; ldr tmp, =>take
            ; blr tmp
            ; ldr x0, [sp, result_at]
            ; ldr d0, [sp, float_at]
        );
    }
}

const RESULT_AT: u32 = (frame::RESULT * 8) as u32;
const RETURNED_AT: u32 = (frame::RETURNED * 8) as u32;
const PREV_AT: u32 = (frame::PREV * 8) as u32;
const ROOTS_AT: u32 = (frame::ROOTS * 8) as u32;
const NEXT_AT: u32 = (frame::NEXT_FREE * 8) as u32;
const CELL_CODE: u32 = std::mem::offset_of!(CallCell, code) as u32;
const CELL_ITEMS: u32 = std::mem::offset_of!(CallCell, items) as u32;

impl A64Emitter {
    /// A collecting call with a GC: the frame's GCMAP word points at this
    /// site's map for the duration of the call (see `call`). Whether it
    /// was set.
    fn set_call_gcmap(&mut self, cx: &OpCx) -> bool {
        let rooted = self.env.gc.is_some() && cx.live.iter().any(|l| l.1 == Kind::Ref);
        if rooted {
            let map = gcmap::build(&REG_FILE, cx.live);
            let first = self.pool_word(PoolSource::Abs(map[0] as usize)).0;
            for &w in &map[1..] {
                self.pool_word(PoolSource::Abs(w as usize));
            }
            let gcmap_at = (frame::GCMAP * 8) as u32;
            a64!(self.ops
                ; adr tmp, =>first
                ; str tmp, [frame, gcmap_at]
            );
        }
        rooted
    }

    /// `x<r>` := pool word `addr` (an address the code needs).
    fn load_addr(&mut self, r: u8, addr: usize) {
        let (w, _) = self.pool_word(PoolSource::Abs(addr));
        a64!(self.ops; ldr X(r), =>w);
    }

    /// `x16` := the word at `x16 + off` (through `x17` when `off` is no
    /// scaled immediate).
    fn load_field_x16(&mut self, off: i64) {
        if super::emit::fits_scaled(off, 8) {
            a64!(self.ops; ldr x16, [x16, off as u32]);
        } else {
            self.mov_imm(X17, off);
            a64!(self.ops; ldr x16, [x16, x17]);
        }
    }

    /// The checks of a direct call, before anything changes: the frame
    /// array's length (with `array`), the cell's code, a free frame (of
    /// the pool's depth, see `framepool.rs`). Leaves the frame in x17 with
    /// the code in its `RESULT` word; any failing check branches to `slow`
    /// with nothing changed.
    fn direct_checks(&mut self, cx: &OpCx, cell: usize, shape: &CallShape, slow: DynamicLabel) {
        let reds = &cx.args[cx.args.len() - shape.reds..];
        if let Some((red, field, len)) = shape.array {
            self.load_int(X16, reds[red]);
            a64!(self.ops; cbz x16, =>slow);
            self.load_field_x16(field);
            a64!(self.ops; cbz x16, =>slow);
            self.load_field_x16(len);
            self.load_addr(17, cell);
            a64!(self.ops
                ; ldr x17, [x17, CELL_ITEMS]
                ; cmp x16, x17
                ; b.ne =>slow
            );
        }
        self.load_addr(17, cell);
        a64!(self.ops; ldr x16, [x17, CELL_CODE]; cbz x16, =>slow);
        let pool = self.env.direct.pool;
        self.load_addr(17, pool);
        a64!(self.ops
            ; ldr x17, [x17, framepool::HEAD as u32]
            ; cbz x17, =>slow
            ; str x16, [x17, RESULT_AT]
        );
    }

    /// Stores the reds into the input slots of the frame in x17.
    fn direct_inputs(&mut self, cx: &OpCx, shape: &CallShape) {
        let reds = &cx.args[cx.args.len() - shape.reds..];
        for (k, &loc) in reds.iter().enumerate() {
            let at = frame::spill_offset(&REG_FILE, k as u32) as u32;
            match loc {
                Loc::Reg(r) if is_float(r) => a64!(self.ops; str D(hw(r)), [x17, at]),
                Loc::Reg(r) => a64!(self.ops; str X(hw(r)), [x17, at]),
                other => {
                    self.load_int(X16, other);
                    a64!(self.ops; str x16, [x17, at]);
                }
            }
        }
    }

    /// The end of both direct outcomes, with the result bits in x3: the
    /// run is over, the frame's GCMAP cleared, the result in `dst`.
    fn direct_end(&mut self, cx: &OpCx, dst: Reg, rooted: bool, pool: usize) {
        self.load_addr(2, pool);
        a64!(self.ops
            ; ldr x1, [x2, framepool::IN_FLIGHT as u32]
            ; sub x1, x1, 1
            ; str x1, [x2, framepool::IN_FLIGHT as u32]
        );
        if rooted {
            let gcmap_at = (frame::GCMAP * 8) as u32;
            a64!(self.ops; str xzr, [frame, gcmap_at]);
        }
        match cx.op.opcode.result() {
            ResultKind::Int | ResultKind::Ref => self.load_int(dst, Loc::Reg(3)),
            ResultKind::Float => a64!(self.ops; fmov D(hw(dst)), x3),
            ResultKind::Void => {}
        }
    }
}

impl CallEncoder for A64Emitter {
    fn direct_call(
        &mut self,
        cx: &OpCx,
        dst: Reg,
        cell: usize,
        shape: &CallShape,
        slow: DynamicLabel,
        done: DynamicLabel,
    ) -> Result<(), CompileError> {
        self.direct_checks(cx, cell, shape, slow);
        // From here on the arguments are dead: the allocator moved every
        // value living across the call out of the registers it clobbers.
        self.direct_inputs(cx, shape);
        let pool = self.env.direct.pool;
        self.load_addr(0, pool);
        a64!(self.ops
            ; ldr x1, [x17, NEXT_AT]
            ; str x1, [x0, framepool::HEAD as u32]
            ; ldr x1, [x0, framepool::IN_FLIGHT as u32]
            ; add x1, x1, 1
            ; str x1, [x0, framepool::IN_FLIGHT as u32]
            ; ldr x1, [x0, framepool::ENTRIES as u32]
            ; add x1, x1, 1
            ; str x1, [x0, framepool::ENTRIES as u32]
        );
        let frames = self.env.gc.as_ref().map(|g| g.frames_addr);
        if let Some(frames) = frames {
            self.load_addr(2, frames);
            a64!(self.ops
                ; ldr x1, [x2]
                ; str x1, [x17, PREV_AT]
                ; add x1, x17, ROOTS_AT
                ; str x1, [x2]
            );
        }
        let rooted = self.set_call_gcmap(cx);
        let entry = self.env.direct.entry;
        self.load_addr(16, entry);
        a64!(self.ops
            ; mov x0, x17
            ; ldr x1, [x17, RESULT_AT]
            ; blr x16
        );
        if let Some(frames) = frames {
            self.load_addr(2, frames);
            a64!(self.ops; ldr x1, [x0, PREV_AT]; str x1, [x2]);
        }
        let left = self.ops.new_dynamic_label();
        a64!(self.ops
            ; ldr x1, [x0, RETURNED_AT]
            ; cbz x1, =>left
            ; str xzr, [x0, RETURNED_AT]
            ; ldr x3, [x0, RESULT_AT]
        );
        self.load_addr(2, pool);
        a64!(self.ops
            ; ldr x1, [x2, framepool::HEAD as u32]
            ; str x1, [x0, NEXT_AT]
            ; str x0, [x2, framepool::HEAD as u32]
        );
        self.direct_end(cx, dst, rooted, pool);
        a64!(self.ops; b =>done; =>left);
        let leave = self.env.direct.leave;
        self.load_addr(16, leave);
        a64!(self.ops; blr x16; sub sp, sp, 16);
        self.take_signals(0);
        a64!(self.ops; add sp, sp, 16; mov x3, x0);
        self.direct_end(cx, dst, rooted, pool);
        a64!(self.ops; b =>done);
        Ok(())
    }

    /// Emits a `call_*` op; `dst` is the result register (if any).
    fn call(&mut self, cx: &OpCx, dst: Reg) -> Result<(), CompileError> {
        let ArgPlan { reg_moves, stack } = plan_call_args(cx, &REG_FILE)?;
        let fn_at = 8 * stack.len() as u32;
        let result_at = fn_at + 8;
        let area = (8 * stack.len() + 24).next_multiple_of(16);
        if area > MAX_AREA {
            return Err(CompileError::ImplLimit(format!(
                "call at op {} passes {} arguments on the stack",
                cx.index,
                stack.len()
            )));
        }
        let area = area as u32;
        let rooted = self.set_call_gcmap(cx);
        let gcmap_at = (frame::GCMAP * 8) as u32;
        a64!(self.ops; sub sp, sp, area);
        let const_fn = match cx.args[0] {
            Loc::Const(c) => Some(const_bits(c)),
            other => {
                let r = hw(self.int_reg(other, X17));
                a64!(self.ops; str X(r), [sp, fn_at]);
                None
            }
        };
        for (k, &loc) in stack.iter().enumerate() {
            let at = 8 * k as u32;
            match loc {
                Loc::Reg(r) if is_float(r) => a64!(self.ops; str D(hw(r)), [sp, at]),
                Loc::Reg(r) => a64!(self.ops; str X(hw(r)), [sp, at]),
                other => {
                    // A slot or the bits of a constant of either kind.
                    self.load_int(X17, other);
                    a64!(self.ops; str tmp2, [sp, at]);
                }
            }
        }
        self.parallel_move(&reg_moves)?;
        match const_fn {
            Some(addr) => self.mov_imm(X16, addr),
            None => a64!(self.ops; ldr tmp, [sp, fn_at]),
        }
        a64!(self.ops; blr tmp);
        if cx.op.may_raise() {
            self.take_signals(result_at);
        }
        a64!(self.ops; add sp, sp, area);
        if rooted {
            a64!(self.ops; str xzr, [frame, gcmap_at]);
        }
        match cx.op.opcode.result() {
            ResultKind::Int | ResultKind::Ref => self.load_int(dst, Loc::Reg(REG_FILE.int_result)),
            ResultKind::Float => self.load_float(dst, Loc::Reg(D0)),
            ResultKind::Void => {}
        }
        Ok(())
    }
}
