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

use super::emit::{const_bits, Cond, X64Emitter};
use super::regs::{self, hw, is_xmm, R10, R11};
use super::x64;
use crate::arch::{Loc, Reg, Runtime};
use crate::emit::{Encoder, GuardEncoder};
use crate::frame;
use dynasmrt::x64::X64Relocation;
use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi, VecAssembler};
use majit_ir::Kind;
use majit_metainterp::runtime::Raised;
use majit_metainterp::CompileError;

impl X64Emitter {
    /// Integer register `dst` := the bits of the float at `loc`.
    pub(super) fn float_bits(&mut self, dst: u8, loc: Loc) {
        match loc {
            Loc::Reg(r) if is_xmm(r) => x64!(self.ops; movq Rq(hw(dst)), Rx(hw(r))),
            other => self.load_int(dst, other),
        }
    }
}

impl GuardEncoder for X64Emitter {
    type Cond = Cond;

    fn branch(&mut self, cond: Cond, l: DynamicLabel) {
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

    fn guard_truth(&mut self, loc: Loc, want_true: bool, stub: DynamicLabel) {
        match loc {
            Loc::Const(c) => {
                if (const_bits(c) != 0) != want_true {
                    x64!(self.ops; jmp =>stub);
                }
            }
            other => {
                let r = hw(self.int_reg(other, R11));
                x64!(self.ops; test Rq(r), Rq(r));
                self.branch(if want_true { Cond::E } else { Cond::Ne }, stub);
            }
        }
    }

    fn value_cmp(&mut self, kind: Kind, a: Loc, b: Loc) {
        // Bit-exact comparison, floats included.
        if kind == Kind::Float {
            self.float_bits(R11, a);
            self.float_bits(R10, b);
            x64!(self.ops; cmp tmp, mtmp);
        } else {
            self.int_cmp(a, b);
        }
    }

    fn guard_class(&mut self, p: Loc, nonnull: bool, ids: &[u32], stub: DynamicLabel) {
        let p = hw(self.int_reg(p, R11));
        if nonnull {
            x64!(self.ops; test Rq(p), Rq(p));
            self.branch(Cond::E, stub);
        }
        // A small integer or float (`int_tag`, `float_tag`: low bits not
        // `00`) has no header to read.
        x64!(self.ops; test Rb(p), 3);
        self.branch(Cond::Ne, stub);
        x64!(self.ops; mov r10d, DWORD [Rq(p)]);
        let ok = self.ops.new_dynamic_label();
        for (k, &id) in ids.iter().enumerate() {
            x64!(self.ops; cmp r10d, id as i32);
            if k + 1 == ids.len() {
                self.branch(Cond::Ne, stub);
            } else {
                x64!(self.ops; je =>ok);
            }
        }
        x64!(self.ops; =>ok);
    }

    fn guard_frame_word(&mut self, word: usize, stub: DynamicLabel) {
        x64!(self.ops; cmp QWORD [rbp + (word * 8) as i32], 0);
        self.branch(Cond::Ne, stub);
    }

    fn guard_word_at(&mut self, base: Reg, stub: DynamicLabel) {
        x64!(self.ops; cmp QWORD [Rq(hw(base))], 0);
        self.branch(Cond::Ne, stub);
    }

    fn jump_label(&mut self, l: DynamicLabel) {
        x64!(self.ops; jmp =>l);
    }

    fn jump_word(&mut self, word: DynamicLabel) {
        x64!(self.ops; jmp QWORD [=>word]);
    }

    fn store_exit_token(&mut self, token: DynamicLabel) {
        x64!(self.ops
            ; lea tmp, [=>token]
            ; mov QWORD [rbp + (frame::EXIT * 8) as i32], tmp
        );
    }

    fn guard_exception(&mut self, stub: DynamicLabel) {
        let catchable = Raised::INT as i32;
        x64!(self.ops; cmp QWORD [rbp + (frame::EXCEPTION * 8) as i32], catchable);
        self.branch(Cond::B, stub);
    }

    fn take_exception(&mut self, dst: Reg) {
        x64!(self.ops
            ; mov Rq(hw(dst)), QWORD [rbp + (frame::EXC_VALUE * 8) as i32]
            ; mov QWORD [rbp + (frame::EXCEPTION * 8) as i32], 0
        );
    }
}

/// The entry trampoline and the exit routine: `(code, entry, exit)`.
pub fn runtime() -> Result<Runtime, CompileError> {
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
    for r in regs::REG_FILE.saved() {
        let at = frame::save_slot_offset(r);
        if is_xmm(r) {
            x64!(ops; movsd QWORD [rbp + at], Rx(hw(r)));
        } else {
            x64!(ops; mov QWORD [rbp + at], Rq(hw(r)));
        }
    }
    let leave = ops.offset().0;
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
    Ok(Runtime {
        code,
        entry,
        exit,
        leave,
    })
}
