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
use crate::{frame, gcmap};
use dynasmrt::{DynasmApi, DynasmLabelApi};
use majit_ir::{Kind, ResultKind};
use majit_metainterp::CompileError;

/// The largest outgoing area (`sub sp, sp, #imm12`).
const MAX_AREA: usize = 4080;

impl A64Emitter {
    /// After a call that may raise: `take_signals(&frame[EXCEPTION..])`
    /// (a new exception replaces the pending one, the forced flag is the
    /// call's: refexec's semantics), keeping the call's result (saved at
    /// `[sp + result_at]`). Only when the thread's signal flag is set
    /// (`runtime::signal_flag_addr`): a call that signalled nothing just
    /// clears the forced word.
    pub(super) fn take_signals(&mut self, result_at: u32) {
        let take = majit_metainterp::runtime::take_signals as *const () as usize;
        let (take, _) = self.pool_word(PoolSource::Abs(take));
        let flag = majit_metainterp::runtime::signal_flag_addr();
        let (flag, _) = self.pool_word(PoolSource::Abs(flag));
        let words = (frame::EXCEPTION * 8) as u32;
        let forced = (frame::FORCED * 8) as u32;
        let float_at = result_at + 8;
        a64!(self.ops
            ; str xzr, [frame, forced]
            ; ldr tmp, =>flag
            ; ldr tmp, [tmp]
            ; cbz tmp, >none
            ; str x0, [sp, result_at]
            ; str d0, [sp, float_at]
            ; add x0, frame, words
            ; ldr tmp, =>take
            ; blr tmp
            ; ldr x0, [sp, result_at]
            ; ldr d0, [sp, float_at]
            ; none:
        );
    }
}

impl A64Emitter {
    /// A collecting call with a GC: the frame's GCMAP word points at this
    /// site's map for the duration of the call (see `call`). Whether it
    /// was set.
    pub(super) fn set_call_gcmap(&mut self, cx: &OpCx) -> bool {
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
    pub(super) fn load_addr(&mut self, r: u8, addr: usize) {
        let (w, _) = self.pool_word(PoolSource::Abs(addr));
        a64!(self.ops; ldr X(r), =>w);
    }
}

impl CallEncoder for A64Emitter {
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
