//! SysV calls from compiled code.
//!
//! Sequence: reserve an outgoing area (stack arguments, one word for a
//! non-constant function address, two for the result while the helpers'
//! signals are read, rounded to 16 bytes so `rsp` stays aligned); store the function address and the stack arguments (these
//! read argument locations before any register changes); move register
//! arguments into `rdi`…`r9`/`xmm0`…`xmm7` as one parallel move; call;
//! for calls that may raise, read refexec's helper signals into the
//! frame's signal words; release the area; copy
//! `rax`/`xmm0` into the result register. The
//! allocator has already moved values living across the call out of
//! caller-saved registers (the call's clobber set) and, for calls that
//! may collect, every live ref into its spill slot; with a GC such a call
//! points the frame's `GCMAP` word at the site's gcmap while it runs.

use super::emit::X64Emitter;
use super::regs::{hw, R10, R11, RAX, REG_FILE, XMM0};
use super::x64;
use crate::arch::{Loc, OpCx, Reg};
use crate::callconv::{plan_call_args, ArgPlan};
use crate::emit::{CallEncoder, Encoder, PoolSource};
use crate::framepool;
use dynasmrt::DynamicLabel;
use dynasmrt::{DynasmApi, DynasmLabelApi};
use majit_ir::ResultKind;
use majit_metainterp::callasm::{CallCell, CallShape};
use majit_metainterp::CompileError;

impl X64Emitter {
    /// After a call that may raise: `take_signals(&frame[EXCEPTION..])`
    /// (a new exception replaces the pending one, the forced flag is the
    /// call's: refexec's semantics), keeping the call's result (saved at
    /// `[rsp + result_at]`).
    fn take_signals(&mut self, result_at: i32) {
        let take = majit_metainterp::runtime::take_signals as *const () as usize;
        let (take, _) = self.pool_word(PoolSource::Abs(take));
        let words = (crate::frame::EXCEPTION * 8) as i32;
        x64!(self.ops
            ; mov QWORD [rsp + result_at], rax
            ; movsd QWORD [rsp + result_at + 8], xmm0
            ; lea rdi, [rbp + words]
            ; call QWORD [=>take]
            ; mov rax, QWORD [rsp + result_at]
            ; movsd xmm0, QWORD [rsp + result_at + 8]
        );
    }
}

impl X64Emitter {
    /// A collecting call with a GC: the frame is registered, so its GCMAP
    /// word points at this site's map (the allocator left live refs in
    /// slots only) for the duration of the call. Whether it was set.
    fn set_call_gcmap(&mut self, cx: &OpCx) -> bool {
        let rooted = self.env.gc.is_some() && cx.live.iter().any(|l| l.1 == majit_ir::Kind::Ref);
        if rooted {
            let map = crate::gcmap::build(&REG_FILE, cx.live);
            let first = self.pool_word(PoolSource::Abs(map[0] as usize)).0;
            for &w in &map[1..] {
                self.pool_word(PoolSource::Abs(w as usize));
            }
            x64!(self.ops; lea r10, [=>first]; mov QWORD [rbp + GCMAP_AT], r10);
        }
        rooted
    }

    /// `r` := pool word `addr` (an address the code needs).
    fn load_addr(&mut self, r: u8, addr: usize) {
        let (w, _) = self.pool_word(PoolSource::Abs(addr));
        x64!(self.ops; mov Rq(r), QWORD [=>w]);
    }

    /// The checks of a direct call, before anything changes: the frame
    /// array's length (with `array`), the cell's code, a free frame (of
    /// the pool's depth, see `framepool.rs`). Leaves the frame in r11 with the code in its `RESULT`
    /// word; any failing check branches to `slow` with nothing changed.
    fn direct_checks(&mut self, cx: &OpCx, cell: usize, shape: &CallShape, slow: DynamicLabel) {
        let reds = &cx.args[cx.args.len() - shape.reds..];
        if let Some((red, field, len)) = shape.array {
            self.load_int(R10, reds[red]);
            let (field, len) = (field as i32, len as i32);
            self.load_addr(11, cell);
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
        self.load_addr(11, cell);
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
}

const GCMAP_AT: i32 = (crate::frame::GCMAP * 8) as i32;
const RESULT_AT: i32 = (crate::frame::RESULT * 8) as i32;
const RETURNED_AT: i32 = (crate::frame::RETURNED * 8) as i32;
const PREV_AT: i32 = (crate::frame::PREV * 8) as i32;
const ROOTS_AT: i32 = (crate::frame::ROOTS * 8) as i32;
const NEXT_AT: i32 = (crate::frame::NEXT_FREE * 8) as i32;
const CELL_CODE: i32 = std::mem::offset_of!(CallCell, code) as i32;
const CELL_ITEMS: i32 = std::mem::offset_of!(CallCell, items) as i32;

impl CallEncoder for X64Emitter {
    fn direct_call(
        &mut self,
        cx: &OpCx,
        dst: Reg,
        cell: usize,
        shape: &CallShape,
        slow: DynamicLabel,
        done: DynamicLabel,
    ) -> Result<(), CompileError> {
        self.direct_path(cx, dst, cell, shape, slow, done)
    }

    /// Emits a `call_*` op; `dst` is the result register (if any).
    fn call(&mut self, cx: &OpCx, dst: Reg) -> Result<(), CompileError> {
        let ArgPlan { reg_moves, stack } = plan_call_args(cx, &REG_FILE)?;
        let fn_at = (8 * stack.len()) as i32;
        let result_at = fn_at + 8;
        let area = (8 * stack.len() + 24).next_multiple_of(16) as i32;
        let rooted = self.set_call_gcmap(cx);
        let gcmap_at = GCMAP_AT;
        x64!(self.ops; sub rsp, area);
        let const_fn = match cx.args[0] {
            Loc::Const(c) => Some(super::emit::const_bits(c)),
            other => {
                self.load_int(R10, other);
                x64!(self.ops; mov QWORD [rsp + fn_at], mtmp);
                None
            }
        };
        for (k, &loc) in stack.iter().enumerate() {
            let at = 8 * k as i32;
            match loc {
                Loc::Reg(r) if super::regs::is_xmm(r) => {
                    x64!(self.ops; movsd QWORD [rsp + at], Rx(hw(r)))
                }
                Loc::Reg(r) => x64!(self.ops; mov QWORD [rsp + at], Rq(hw(r))),
                other => {
                    self.load_int(R10, other);
                    x64!(self.ops; mov QWORD [rsp + at], mtmp);
                }
            }
        }
        self.parallel_move(&reg_moves)?;
        match const_fn {
            Some(addr) => {
                self.mov_imm(R11, addr);
                x64!(self.ops; call tmp);
            }
            None => x64!(self.ops; call QWORD [rsp + fn_at]),
        }
        if cx.op.may_raise() {
            self.take_signals(result_at);
        }
        x64!(self.ops; add rsp, area);
        if rooted {
            x64!(self.ops; mov QWORD [rbp + gcmap_at], 0);
        }
        match cx.op.opcode.result() {
            ResultKind::Int | ResultKind::Ref => self.load_int(dst, Loc::Reg(RAX)),
            ResultKind::Float => self.load_float(dst, Loc::Reg(XMM0)),
            ResultKind::Void => {}
        }
        Ok(())
    }
}

impl X64Emitter {
    /// The direct path of a `call_assembler_*` (see `framepool.rs` and
    /// `majit_metainterp::callasm`): after the checks, the frame is taken
    /// from the pool, registered with the GC, and entered through the
    /// entry trampoline; a portal return leaves the result in its
    /// `RESULT` word and the frame goes back to the pool; any other exit
    /// is finished by `leave_direct` (which takes the frame back), whose
    /// signals are then taken as after any call. Ends at `done`.
    pub(super) fn direct_path(
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
        let left = self.ops.new_dynamic_label();
        x64!(self.ops
            ; cmp QWORD [rax + RETURNED_AT], 0
            ; je =>left
            ; mov QWORD [rax + RETURNED_AT], 0
            ; mov r10, QWORD [rax + RESULT_AT]
        );
        self.load_addr(1, pool);
        x64!(self.ops
            ; mov rdx, QWORD [rcx + framepool::HEAD]
            ; mov QWORD [rax + NEXT_AT], rdx
            ; mov QWORD [rcx + framepool::HEAD], rax
        );
        self.direct_end(cx, dst, rooted, pool);
        x64!(self.ops; jmp =>done; =>left);
        let leave = self.env.direct.leave;
        self.load_addr(1, leave);
        x64!(self.ops; mov rdi, rax; call rcx; sub rsp, 16);
        self.take_signals(0);
        x64!(self.ops; add rsp, 16; mov r10, rax);
        self.direct_end(cx, dst, rooted, pool);
        x64!(self.ops; jmp =>done);
        Ok(())
    }

    /// The end of both direct outcomes, with the result bits in r10: the
    /// run is over, the frame's GCMAP cleared, the result in `dst`.
    fn direct_end(&mut self, cx: &OpCx, dst: Reg, rooted: bool, pool: usize) {
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
