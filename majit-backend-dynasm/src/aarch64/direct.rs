//! The steps of a direct call (`DirectEncoder`, sequenced in
//! `emit/dispatch.rs`): x17 holds the callee's jitframe from the checks
//! to the entry, x0 from the entry's return on, x3 the result bits.
//! Scratch before the inputs are stored: x16 and x17 only (the arguments
//! still live in their locations, the slow path reads them); after that
//! every caller-saved register (the call clobbers them anyway).

use super::a64;
use super::emit::A64Emitter;
use super::regs::{hw, is_float, REG_FILE, X16, X17};
use crate::arch::{Loc, OpCx, Reg};
use crate::emit::{DirectEncoder, Encoder};
use crate::{frame, framepool};
use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi};
use majit_ir::ResultKind;
use majit_metainterp::callasm::{CallCell, CallShape};

const RESULT_AT: u32 = (frame::RESULT * 8) as u32;
const RETURNED_AT: u32 = (frame::RETURNED * 8) as u32;
const PREV_AT: u32 = (frame::PREV * 8) as u32;
const ROOTS_AT: u32 = (frame::ROOTS * 8) as u32;
const NEXT_AT: u32 = (frame::NEXT_FREE * 8) as u32;
const CELL_CODE: u32 = std::mem::offset_of!(CallCell, code) as u32;
const CELL_ITEMS: u32 = std::mem::offset_of!(CallCell, items) as u32;

impl A64Emitter {
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
}

impl DirectEncoder for A64Emitter {
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

    fn direct_enter(&mut self, cx: &OpCx) -> bool {
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
        rooted
    }

    fn direct_returned(&mut self, left: DynamicLabel) {
        a64!(self.ops
            ; ldr x1, [x0, RETURNED_AT]
            ; cbz x1, =>left
            ; str xzr, [x0, RETURNED_AT]
            ; ldr x3, [x0, RESULT_AT]
        );
        let pool = self.env.direct.pool;
        self.load_addr(2, pool);
        a64!(self.ops
            ; ldr x1, [x2, framepool::HEAD as u32]
            ; str x1, [x0, NEXT_AT]
            ; str x0, [x2, framepool::HEAD as u32]
        );
    }

    fn direct_left(&mut self) {
        let leave = self.env.direct.leave;
        self.load_addr(16, leave);
        a64!(self.ops; blr x16; sub sp, sp, 16);
        self.take_signals(0);
        a64!(self.ops; add sp, sp, 16; mov x3, x0);
    }

    fn direct_end(&mut self, cx: &OpCx, dst: Reg, rooted: bool) {
        let pool = self.env.direct.pool;
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
