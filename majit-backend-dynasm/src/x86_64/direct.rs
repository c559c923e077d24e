//! The steps of a direct call (`DirectEncoder`, sequenced in
//! `emit/dispatch.rs`): r11 holds the callee's jitframe from the checks
//! to the entry, rax from the entry's return on, r10 the result bits.
//! Scratch before the inputs are stored: r10 and r11 only (the arguments
//! still live in their locations, the slow path reads them); after that
//! every caller-saved register (the call clobbers them anyway).

use super::emit::X64Emitter;
use super::regs::{hw, R10, REG_FILE};
use super::x64;
use crate::arch::{Loc, OpCx, Reg};
use crate::emit::{DirectEncoder, Encoder};
use crate::framepool;
use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi};
use majit_ir::ResultKind;
use majit_metainterp::callasm::{CallCell, CallShape};

const GCMAP_AT: i32 = (crate::frame::GCMAP * 8) as i32;
const RESULT_AT: i32 = (crate::frame::RESULT * 8) as i32;
const RETURNED_AT: i32 = (crate::frame::RETURNED * 8) as i32;
const PREV_AT: i32 = (crate::frame::PREV * 8) as i32;
const ROOTS_AT: i32 = (crate::frame::ROOTS * 8) as i32;
const NEXT_AT: i32 = (crate::frame::NEXT_FREE * 8) as i32;
const CELL_CODE: i32 = std::mem::offset_of!(CallCell, code) as i32;
const CELL_ITEMS: i32 = std::mem::offset_of!(CallCell, items) as i32;

impl DirectEncoder for X64Emitter {
    /// The checks of a direct call, before anything changes: the frame
    /// array's length (with `array`), the cell's code, a free frame (of
    /// the pool's depth, see `framepool.rs`). Leaves the frame in r11
    /// with the code in its `RESULT` word; any failing check branches to
    /// `slow` with nothing changed.
    fn direct_checks(&mut self, cx: &OpCx, cell: usize, shape: &CallShape, slow: DynamicLabel) {
        let reds = &cx.args[cx.args.len() - shape.reds..];
        self.load_addr(11, cell);
        if let Some((red, field, len)) = shape.array {
            self.load_int(R10, reds[red]);
            let (field, len) = (field as i32, len as i32);
            x64!(self.ops
                ; test r10, r10
                ; jz =>slow
                ; mov r10, QWORD [r10 + field]
                ; test r10, r10
                ; jz =>slow
                ; mov r10, QWORD [r10 + len]
                ; cmp r10, QWORD [r11 + CELL_ITEMS]
                ; jne =>slow
            );
        }
        x64!(self.ops; mov r10, QWORD [r11 + CELL_CODE]; test r10, r10; jz =>slow);
        let pool = self.env.direct.pool;
        self.load_addr(11, pool);
        x64!(self.ops
            ; mov r11, QWORD [r11 + framepool::HEAD]
            ; test r11, r11
            ; jz =>slow
            ; mov QWORD [r11 + RESULT_AT], r10
        );
    }

    /// Stores the reds into the input slots of the frame in r11.
    fn direct_inputs(&mut self, cx: &OpCx, shape: &CallShape) {
        let reds = &cx.args[cx.args.len() - shape.reds..];
        for (k, &loc) in reds.iter().enumerate() {
            let at = crate::frame::spill_offset(&REG_FILE, k as u32);
            match loc {
                Loc::Reg(r) if super::regs::is_xmm(r) => {
                    x64!(self.ops; movsd QWORD [r11 + at], Rx(hw(r)))
                }
                Loc::Reg(r) => x64!(self.ops; mov QWORD [r11 + at], Rq(hw(r))),
                other => {
                    self.load_int(R10, other);
                    x64!(self.ops; mov QWORD [r11 + at], r10);
                }
            }
        }
    }

    fn direct_enter(&mut self, cx: &OpCx) -> bool {
        let pool = self.env.direct.pool;
        self.load_addr(1, pool);
        x64!(self.ops
            ; mov rax, QWORD [r11 + NEXT_AT]
            ; mov QWORD [rcx + framepool::HEAD], rax
            ; add QWORD [rcx + framepool::IN_FLIGHT], 1
            ; add QWORD [rcx + framepool::ENTRIES], 1
        );
        let frames = self.env.gc.as_ref().map(|g| g.frames_addr);
        if let Some(frames) = frames {
            self.load_addr(2, frames);
            x64!(self.ops
                ; mov rax, QWORD [rdx]
                ; mov QWORD [r11 + PREV_AT], rax
                ; lea rax, [r11 + ROOTS_AT]
                ; mov QWORD [rdx], rax
            );
        }
        let rooted = self.set_call_gcmap(cx);
        let entry = self.env.direct.entry;
        self.load_addr(0, entry);
        x64!(self.ops
            ; mov rdi, r11
            ; mov rsi, QWORD [r11 + RESULT_AT]
            ; call rax
        );
        if let Some(frames) = frames {
            self.load_addr(2, frames);
            x64!(self.ops; mov rcx, QWORD [rax + PREV_AT]; mov QWORD [rdx], rcx);
        }
        rooted
    }

    fn direct_returned(&mut self, left: DynamicLabel) {
        x64!(self.ops
            ; cmp QWORD [rax + RETURNED_AT], 0
            ; je =>left
            ; mov QWORD [rax + RETURNED_AT], 0
            ; mov r10, QWORD [rax + RESULT_AT]
        );
        let pool = self.env.direct.pool;
        self.load_addr(1, pool);
        x64!(self.ops
            ; mov rdx, QWORD [rcx + framepool::HEAD]
            ; mov QWORD [rax + NEXT_AT], rdx
            ; mov QWORD [rcx + framepool::HEAD], rax
        );
    }

    fn direct_left(&mut self) {
        let leave = self.env.direct.leave;
        self.load_addr(1, leave);
        x64!(self.ops; mov rdi, rax; call rcx; sub rsp, 16);
        self.take_signals(0);
        x64!(self.ops; add rsp, 16; mov r10, rax);
    }

    fn direct_end(&mut self, cx: &OpCx, dst: Reg, rooted: bool) {
        let pool = self.env.direct.pool;
        self.load_addr(1, pool);
        x64!(self.ops; sub QWORD [rcx + framepool::IN_FLIGHT], 1);
        if rooted {
            x64!(self.ops; mov QWORD [rbp + GCMAP_AT], 0);
        }
        match cx.op.opcode.result() {
            ResultKind::Int | ResultKind::Ref => self.load_int(dst, Loc::Reg(R10)),
            ResultKind::Float => x64!(self.ops; movq Rx(hw(dst)), r10),
            ResultKind::Void => {}
        }
    }
}
