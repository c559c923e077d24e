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
use dynasmrt::{DynasmApi, DynasmLabelApi};
use majit_ir::ResultKind;
use majit_metainterp::CompileError;

impl X64Emitter {
    /// After a call that may raise: `take_signals(&frame[EXCEPTION..])`
    /// (a new exception replaces the pending one, the forced flag is the
    /// call's: refexec's semantics), keeping the call's result (saved at
    /// `[rsp + result_at]`). Only when the thread's signal flag is set
    /// (`runtime::signal_flag_addr`): a call that signalled nothing just
    /// clears the forced word.
    pub(super) fn take_signals(&mut self, result_at: i32) {
        let take = majit_metainterp::runtime::take_signals as *const () as usize;
        let (take, _) = self.pool_word(PoolSource::Abs(take));
        let flag = majit_metainterp::runtime::signal_flag_addr();
        let (flag, _) = self.pool_word(PoolSource::Abs(flag));
        let words = (crate::frame::EXCEPTION * 8) as i32;
        let forced = (crate::frame::FORCED * 8) as i32;
        x64!(self.ops
            ; mov QWORD [rbp + forced], 0
            ; mov tmp, QWORD [=>flag]
            ; cmp QWORD [tmp], 0
            ; je >none
            ; mov QWORD [rsp + result_at], rax
            ; movsd QWORD [rsp + result_at + 8], xmm0
            ; lea rdi, [rbp + words]
            ; call QWORD [=>take]
            ; mov rax, QWORD [rsp + result_at]
            ; movsd xmm0, QWORD [rsp + result_at + 8]
            ; none:
        );
    }
}

impl X64Emitter {
    /// A collecting call with a GC: the frame is registered, so its GCMAP
    /// word points at this site's map (the allocator left live refs in
    /// slots only) for the duration of the call. Whether it was set.
    pub(super) fn set_call_gcmap(&mut self, cx: &OpCx) -> bool {
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
    pub(super) fn load_addr(&mut self, r: u8, addr: usize) {
        let (w, _) = self.pool_word(PoolSource::Abs(addr));
        x64!(self.ops; mov Rq(r), QWORD [=>w]);
    }
}

const GCMAP_AT: i32 = (crate::frame::GCMAP * 8) as i32;

impl CallEncoder for X64Emitter {
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
