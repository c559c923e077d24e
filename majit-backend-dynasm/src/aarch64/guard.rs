//! aarch64 guards, exit stubs, the entry trampoline and the exit routine.
//!
//! A guard is an inline test and a `b.cond`/`cbz`/`cbnz` to its cold stub
//! at the end of the trace (within the ±1 MB those branches reach). When
//! the previous op was the comparison the guard tests (the scheduler puts
//! it there), the guard branches on the flags it left. Stub layout:
//!
//! ```text
//! stub:      ldr  x16, patch_word        ; = exit_half, or a bridge
//!            br   x16
//! exit_half: adr  x16, stub              ; the exit token
//!            str  x16, [x29, EXIT]
//!            ldr  x16, exit_word         ; the shared exit routine
//!            br   x16
//! ```
//!
//! Attaching a bridge rewrites the 8-byte aligned pool word `patch_word`
//! (one single-copy-atomic data store, see `codemem.rs`), never an
//! instruction, so running code can never see a half-written branch and a
//! bridge may be any distance away. The shared exit routine stores every
//! allocatable register into its save slot and returns the frame from the
//! entry trampoline; see `guard.rs` at the crate root for the protocol.

use super::a64;
use super::emit::{const_bits, A64Emitter, Cond, Flags, PoolSource, Stub};
use super::regs::{self, hw, is_float, X16, X17};
use crate::arch::{Loc, OpCx};
use crate::frame;
use crate::guard::ExitRecord;
use dynasmrt::aarch64::Aarch64Relocation;
use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi, VecAssembler};
use majit_ir::{Kind, OpCode, RefTarget};
use majit_metainterp::CompileError;

impl A64Emitter {
    /// `b.cond l`.
    fn b_cond(&mut self, cond: Cond, l: DynamicLabel) {
        match cond {
            Cond::Eq => a64!(self.ops; b.eq =>l),
            Cond::Ne => a64!(self.ops; b.ne =>l),
            Cond::Hs => a64!(self.ops; b.hs =>l),
            Cond::Lo => a64!(self.ops; b.lo =>l),
            Cond::Mi => a64!(self.ops; b.mi =>l),
            Cond::Pl => a64!(self.ops; b.pl =>l),
            Cond::Vs => a64!(self.ops; b.vs =>l),
            Cond::Vc => a64!(self.ops; b.vc =>l),
            Cond::Hi => a64!(self.ops; b.hi =>l),
            Cond::Ls => a64!(self.ops; b.ls =>l),
            Cond::Ge => a64!(self.ops; b.ge =>l),
            Cond::Lt => a64!(self.ops; b.lt =>l),
            Cond::Gt => a64!(self.ops; b.gt =>l),
            Cond::Le => a64!(self.ops; b.le =>l),
        }
    }

    /// Branches to `stub` unless the int at `loc` is (non)zero as
    /// `want_true` says.
    fn guard_truth(&mut self, loc: Loc, want_true: bool, stub: DynamicLabel) {
        match loc {
            Loc::Const(c) => {
                if (const_bits(c) != 0) != want_true {
                    a64!(self.ops; b =>stub);
                }
            }
            other => {
                let r = hw(self.int_reg(other, X16));
                if want_true {
                    a64!(self.ops; cbz X(r), =>stub);
                } else {
                    a64!(self.ops; cbnz X(r), =>stub);
                }
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
                    Some(Flags {
                        op,
                        cond,
                        overflow: false,
                    }) if tested(op) => {
                        self.b_cond(if want_true { cond.negate() } else { cond }, stub)
                    }
                    _ => self.guard_truth(cx.args[0], want_true, stub),
                }
            }
            GuardNonnull => self.guard_truth(cx.args[0], true, stub),
            GuardIsnull => self.guard_truth(cx.args[0], false, stub),
            GuardValue => {
                // Bit-exact comparison, floats included.
                if cx.kinds[0] == Kind::Float {
                    self.float_bits(X16, cx.args[0]);
                    self.float_bits(X17, cx.args[1]);
                    a64!(self.ops; cmp tmp, tmp2);
                } else {
                    self.int_cmp(cx.args[0], cx.args[1]);
                }
                self.b_cond(Cond::Ne, stub);
            }
            GuardClass | GuardNonnullClass => self.guard_class(cx, stub)?,
            GuardNoOverflow | GuardOverflow => {
                let Some(Flags {
                    cond,
                    overflow: true,
                    ..
                }) = flags
                else {
                    return Err(CompileError::Invalid(format!(
                        "{} at op {} does not follow an overflow-checked op",
                        cx.op.opcode, cx.index
                    )));
                };
                let exit_when = if cx.op.opcode == GuardNoOverflow {
                    cond
                } else {
                    cond.negate()
                };
                self.b_cond(exit_when, stub);
            }
            GuardNoException | GuardNotForced => {
                let word = if cx.op.opcode == GuardNoException {
                    frame::EXCEPTION
                } else {
                    frame::FORCED
                };
                a64!(self.ops
                    ; ldr tmp, [frame, (word * 8) as u32]
                    ; cbnz tmp, =>stub
                );
            }
            GuardNotInvalidated => {
                // A pool word `NativeBackend::invalidate` sets (a data
                // load, so no instruction is ever rewritten).
                let (flag, index) = self.pool_word(PoolSource::Abs(0));
                a64!(self.ops
                    ; ldr tmp, =>flag
                    ; cbnz tmp, =>stub
                );
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
        let p = hw(self.int_reg(cx.args[0], X16));
        if cx.op.opcode == OpCode::GuardNonnullClass {
            a64!(self.ops; cbz X(p), =>stub);
        }
        a64!(self.ops; ldr w17, [X(p)]);
        let ok = self.ops.new_dynamic_label();
        for (k, &id) in ids.iter().enumerate() {
            self.mov_imm(X16, id as i64);
            a64!(self.ops; cmp w17, w16);
            if k + 1 == ids.len() {
                self.b_cond(Cond::Ne, stub);
            } else {
                a64!(self.ops; b.eq =>ok);
            }
        }
        a64!(self.ops; =>ok);
        Ok(())
    }

    /// Integer register `dst` := the bits of the float at `loc`.
    fn float_bits(&mut self, dst: u8, loc: Loc) {
        match loc {
            Loc::Reg(r) if is_float(r) => a64!(self.ops; fmov X(hw(dst)), D(hw(r))),
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
            a64!(self.ops
                ; =>stub
                ; ldr tmp, =>patch
                ; br tmp
                ; =>exit_half
                ; adr tmp, =>stub
                ; str tmp, [frame, (frame::EXIT * 8) as u32]
                ; ldr tmp, =>exit_word
                ; br tmp
            );
            s.exit.patch_word = Some(index);
            done.push(s);
        }
        self.stubs = done;
    }
}

/// The entry trampoline and the exit routine: `(code, entry, exit)`.
///
/// The entry saves `x19`–`x30` and `d8`–`d15` in a 160-byte record (so
/// `sp` stays 16-byte aligned), puts the frame in `x29` and branches to
/// the code. The exit routine stores every allocatable register into its
/// save slot, returns the frame in `x0` and restores the record.
pub fn runtime() -> Result<(Vec<u8>, usize, usize), CompileError> {
    let mut ops: VecAssembler<Aarch64Relocation> = VecAssembler::new(0);
    let entry = ops.offset().0;
    a64!(ops
        ; stp x29, x30, [sp, -160]!
        ; stp x19, x20, [sp, 16]
        ; stp x21, x22, [sp, 32]
        ; stp x23, x24, [sp, 48]
        ; stp x25, x26, [sp, 64]
        ; stp x27, x28, [sp, 80]
        ; stp d8, d9, [sp, 96]
        ; stp d10, d11, [sp, 112]
        ; stp d12, d13, [sp, 128]
        ; stp d14, d15, [sp, 144]
        ; mov frame, x0
        ; br x1
    );
    ops.align(16, 0);
    let exit = ops.offset().0;
    for r in regs::saved() {
        let at = frame::save_slot_offset(r) as u32;
        let h = hw(r);
        if is_float(r) {
            a64!(ops; str D(h), [frame, at]);
        } else {
            a64!(ops; str X(h), [frame, at]);
        }
    }
    a64!(ops
        ; mov x0, frame
        ; ldp d14, d15, [sp, 144]
        ; ldp d12, d13, [sp, 128]
        ; ldp d10, d11, [sp, 112]
        ; ldp d8, d9, [sp, 96]
        ; ldp x27, x28, [sp, 80]
        ; ldp x25, x26, [sp, 64]
        ; ldp x23, x24, [sp, 48]
        ; ldp x21, x22, [sp, 32]
        ; ldp x19, x20, [sp, 16]
        ; ldp x29, x30, [sp], 160
        ; ret
    );
    let code = ops
        .finalize()
        .map_err(|e| CompileError::ImplLimit(format!("assembler: {e}")))?;
    Ok((code, entry, exit))
}
