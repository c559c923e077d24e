//! x86_64 guards, exit stubs, the entry trampoline and the exit routine.
//!
//! A guard is an inline test and a `jcc` to its cold stub. When the
//! previous op was the comparison the guard tests (the scheduler puts it
//! there), the guard branches on the flags it left. Stub layout:
//!
//! ```text
//! stub:      jmp  [rip + patch_word]     ; patch_word = exit_half, or a bridge
//! exit_half: lea  r11, [rip + stub]      ; the exit token
//!            mov  [rbp + EXIT], r11
//!            jmp  [rip + exit_word]      ; the shared exit routine
//! ```
//!
//! The shared exit routine stores every allocatable register into its
//! save slot and returns the frame from the entry trampoline; see
//! `guard.rs` at the crate root for the protocol.

use super::emit::{Cond, X64Emitter};
use super::regs::{self, hw, is_xmm, R11};
use super::x64;
use crate::arch::Loc;
use crate::emit::Encoder;
use crate::frame;
use dynasmrt::x64::X64Relocation;
use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi, VecAssembler};
use majit_metainterp::CompileError;

impl X64Emitter {
    pub(super) fn jcc(&mut self, cond: Cond, l: DynamicLabel) {
        match cond {
            Cond::E => x64!(self.ops; je =>l),
            Cond::Ne => x64!(self.ops; jne =>l),
            Cond::L => x64!(self.ops; jl =>l),
            Cond::Le => x64!(self.ops; jle =>l),
            Cond::G => x64!(self.ops; jg =>l),
            Cond::Ge => x64!(self.ops; jge =>l),
            Cond::B => x64!(self.ops; jb =>l),
            Cond::Be => x64!(self.ops; jbe =>l),
            Cond::A => x64!(self.ops; ja =>l),
            Cond::Ae => x64!(self.ops; jae =>l),
            Cond::O => x64!(self.ops; jo =>l),
            Cond::No => x64!(self.ops; jno =>l),
            Cond::P => x64!(self.ops; jp =>l),
            Cond::Np => x64!(self.ops; jnp =>l),
        }
    }

    /// `guard_class`: branches to `stub` unless the type id in the low
    /// half of `p`'s header is one of `ids` (or when `p` is null, with
    /// `nonnull`).
    pub(super) fn class_test(&mut self, p: Loc, nonnull: bool, ids: &[u32], stub: DynamicLabel) {
        let p = hw(self.int_reg(p, R11));
        if nonnull {
            x64!(self.ops; test Rq(p), Rq(p));
            self.jcc(Cond::E, stub);
        }
        x64!(self.ops; mov r10d, DWORD [Rq(p)]);
        let ok = self.ops.new_dynamic_label();
        for (k, &id) in ids.iter().enumerate() {
            x64!(self.ops; cmp r10d, id as i32);
            if k + 1 == ids.len() {
                self.jcc(Cond::Ne, stub);
            } else {
                x64!(self.ops; je =>ok);
            }
        }
        x64!(self.ops; =>ok);
    }

    /// Integer register `dst` := the bits of the float at `loc`.
    pub(super) fn float_bits(&mut self, dst: u8, loc: Loc) {
        match loc {
            Loc::Reg(r) if is_xmm(r) => x64!(self.ops; movq Rq(hw(dst)), Rx(hw(r))),
            other => self.load_int(dst, other),
        }
    }
}

/// The entry trampoline and the exit routine: `(code, entry, exit)`.
pub fn runtime() -> Result<(Vec<u8>, usize, usize), CompileError> {
    let mut ops: VecAssembler<X64Relocation> = VecAssembler::new(0);
    let entry = ops.offset().0;
    x64!(ops
        ; push rbp
        ; push rbx
        ; push r12
        ; push r13
        ; push r14
        ; push r15
        ; sub rsp, 8
        ; mov rbp, rdi
        ; jmp rsi
    );
    ops.align(16, 0xcc);
    let exit = ops.offset().0;
    for r in regs::saved() {
        let at = frame::save_slot_offset(r);
        if is_xmm(r) {
            x64!(ops; movsd QWORD [rbp + at], Rx(hw(r)));
        } else {
            x64!(ops; mov QWORD [rbp + at], Rq(hw(r)));
        }
    }
    x64!(ops
        ; mov rax, rbp
        ; add rsp, 8
        ; pop r15
        ; pop r14
        ; pop r13
        ; pop r12
        ; pop rbx
        ; pop rbp
        ; ret
    );
    let code = ops
        .finalize()
        .map_err(|e| CompileError::ImplLimit(format!("assembler: {e}")))?;
    Ok((code, entry, exit))
}
