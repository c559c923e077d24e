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

use super::emit::{const_bits, Cond, PoolSource, Stub, X64Emitter};
use super::regs::{self, hw, is_xmm, R10, R11};
use super::x64;
use crate::arch::{Loc, OpCx};
use crate::frame;
use crate::guard::ExitRecord;
use dynasmrt::x64::X64Relocation;
use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi, VecAssembler};
use majit_ir::{Kind, OpCode, RefTarget};
use majit_metainterp::CompileError;

impl X64Emitter {
    fn jcc(&mut self, cond: Cond, l: DynamicLabel) {
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

    /// Branches to `stub` unless the int at `loc` is (non)zero as `want_true` says.
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
                self.jcc(if want_true { Cond::E } else { Cond::Ne }, stub);
            }
        }
    }

    /// Emits guard `cx` with its exit record.
    pub(super) fn guard(&mut self, cx: &OpCx, exit: ExitRecord) -> Result<(), CompileError> {
        use OpCode::*;
        let stub = self.ops.new_dynamic_label();
        let flags = self.flags.take();
        let tested = |i: usize| cx.op.args.first().map(|a| a.target()) == Some(RefTarget::Op(i));
        match cx.op.opcode {
            GuardTrue | GuardFalse => {
                let want_true = cx.op.opcode == GuardTrue;
                match flags {
                    Some((i, cond)) if tested(i) && cond != Cond::O => {
                        self.jcc(if want_true { cond.negate() } else { cond }, stub)
                    }
                    _ => self.guard_truth(cx.args[0], want_true, stub),
                }
            }
            GuardNonnull => self.guard_truth(cx.args[0], true, stub),
            GuardIsnull => self.guard_truth(cx.args[0], false, stub),
            GuardValue => {
                // Bit-exact comparison, floats included.
                if cx.kinds[0] == Kind::Float {
                    self.float_bits(R11, cx.args[0]);
                    self.float_bits(R10, cx.args[1]);
                    x64!(self.ops; cmp tmp, mtmp);
                } else {
                    self.int_cmp(cx.args[0], cx.args[1]);
                }
                self.jcc(Cond::Ne, stub);
            }
            GuardClass | GuardNonnullClass => self.guard_class(cx, stub)?,
            GuardNoOverflow | GuardOverflow => {
                if !matches!(flags, Some((_, Cond::O))) {
                    return Err(CompileError::Invalid(format!(
                        "{} at op {} does not follow an overflow-checked op",
                        cx.op.opcode, cx.index
                    )));
                }
                self.jcc(
                    if cx.op.opcode == GuardNoOverflow {
                        Cond::O
                    } else {
                        Cond::No
                    },
                    stub,
                );
            }
            GuardNoException | GuardNotForced => {
                let word = if cx.op.opcode == GuardNoException {
                    frame::EXCEPTION
                } else {
                    frame::FORCED
                };
                x64!(self.ops; cmp QWORD [rbp + (word * 8) as i32], 0);
                self.jcc(Cond::Ne, stub);
            }
            GuardNotInvalidated => {
                let (flag, index) = self.pool_word(PoolSource::Abs(0));
                x64!(self.ops; cmp QWORD [=>flag], 0);
                self.jcc(Cond::Ne, stub);
                let mut exit = exit;
                exit.invalidation_word = Some(index);
                self.stubs.push(Stub { label: stub, exit });
                return Ok(());
            }
            other => return Err(CompileError::Invalid(format!("{other} is not a guard"))),
        }
        self.stubs.push(Stub { label: stub, exit });
        Ok(())
    }

    /// `guard_class(p, cls)`: the type id in the low half of `p`'s header
    /// must be one whose class word is `cls` (see `EmitEnv::classes`).
    fn guard_class(&mut self, cx: &OpCx, stub: DynamicLabel) -> Result<(), CompileError> {
        let Loc::Const(c) = cx.args[1] else {
            return Err(super::unsupported(cx.op, "class operand is not a constant"));
        };
        let class = const_bits(c) as u64;
        let mut ids: Vec<u32> = self
            .env
            .classes
            .iter()
            .filter(|e| e.0 == class)
            .map(|e| e.1)
            .collect();
        if ids.is_empty() {
            ids.push(class as u32);
        }
        let p = hw(self.int_reg(cx.args[0], R11));
        if cx.op.opcode == OpCode::GuardNonnullClass {
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
        Ok(())
    }

    /// Integer register `dst` := the bits of the float at `loc`.
    fn float_bits(&mut self, dst: u8, loc: Loc) {
        match loc {
            Loc::Reg(r) if is_xmm(r) => x64!(self.ops; movq Rq(hw(dst)), Rx(hw(r))),
            other => self.load_int(dst, other),
        }
    }

    /// Appends every guard's cold stub (see the module docs).
    pub(super) fn emit_stubs(&mut self) {
        let exit_word = self.exit_word();
        let stubs = std::mem::take(&mut self.stubs);
        let mut done = Vec::with_capacity(stubs.len());
        for mut s in stubs {
            let exit_half = self.ops.new_dynamic_label();
            let (patch, index) = self.pool_word(PoolSource::Label(exit_half));
            let stub = s.label;
            x64!(self.ops
                ; =>stub
                ; jmp QWORD [=>patch]
                ; =>exit_half
                ; lea tmp, [=>stub]
                ; mov QWORD [rbp + (frame::EXIT * 8) as i32], tmp
                ; jmp QWORD [=>exit_word]
            );
            s.exit.patch_word = Some(index);
            done.push(s);
        }
        self.stubs = done;
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
