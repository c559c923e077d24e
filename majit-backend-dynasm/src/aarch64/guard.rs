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
use super::emit::{const_bits, A64Emitter, Cond};
use super::regs::{self, hw, is_float, X16, X17};
use crate::arch::{Loc, Reg, Runtime};
use crate::emit::{Encoder, GuardEncoder};
use crate::frame;
use dynasmrt::aarch64::Aarch64Relocation;
use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi, VecAssembler};
use majit_ir::{Const, Kind};
use majit_metainterp::runtime::Raised;
use majit_metainterp::CompileError;

impl A64Emitter {
    /// Integer register `dst` := the bits of the float at `loc`.
    pub(super) fn float_bits(&mut self, dst: u8, loc: Loc) {
        match loc {
            Loc::Reg(r) if is_float(r) => a64!(self.ops; fmov X(hw(dst)), D(hw(r))),
            other => self.load_int(dst, other),
        }
    }
}

impl GuardEncoder for A64Emitter {
    type Cond = Cond;

    fn branch(&mut self, cond: Cond, l: DynamicLabel) {
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

    fn value_cmp(&mut self, kind: Kind, a: Loc, b: Loc) {
        // Bit-exact comparison, floats included.
        if kind == Kind::Float {
            self.float_bits(X16, a);
            self.float_bits(X17, b);
            a64!(self.ops; cmp tmp, tmp2);
        } else {
            self.int_cmp(a, b);
        }
    }

    fn guard_class(&mut self, p: Loc, nonnull: bool, ids: &[u32], stub: DynamicLabel) {
        let p = hw(self.int_reg(p, X16));
        if nonnull {
            a64!(self.ops; cbz X(p), =>stub);
        }
        // A small integer or float (`int_tag`, `float_tag`: low bits not
        // `00`) has no header to read.
        a64!(self.ops; tst X(p), 3);
        self.branch(Cond::Ne, stub);
        a64!(self.ops; ldr w17, [X(p)]);
        let ok = self.ops.new_dynamic_label();
        for (k, &id) in ids.iter().enumerate() {
            self.mov_imm(X16, id as i64);
            a64!(self.ops; cmp w17, w16);
            if k + 1 == ids.len() {
                self.branch(Cond::Ne, stub);
            } else {
                a64!(self.ops; b.eq =>ok);
            }
        }
        a64!(self.ops; =>ok);
    }

    fn guard_frame_word(&mut self, word: usize, stub: DynamicLabel) {
        a64!(self.ops
            ; ldr tmp, [frame, (word * 8) as u32]
            ; cbnz tmp, =>stub
        );
    }

    fn guard_word_at(&mut self, base: Reg, stub: DynamicLabel) {
        a64!(self.ops
            ; ldr tmp, [X(hw(base))]
            ; cbnz tmp, =>stub
        );
    }

    fn jump_label(&mut self, l: DynamicLabel) {
        a64!(self.ops; b =>l);
    }

    fn jump_word(&mut self, word: DynamicLabel) {
        a64!(self.ops; ldr tmp, =>word; br tmp);
    }

    fn store_exit_token(&mut self, token: DynamicLabel) {
        a64!(self.ops
            ; adr tmp, =>token
            ; str tmp, [frame, (frame::EXIT * 8) as u32]
        );
    }

    fn guard_exception(&mut self, stub: DynamicLabel) {
        a64!(self.ops; ldr tmp, [frame, (frame::EXCEPTION * 8) as u32]);
        self.int_cmp(Loc::Reg(X16), Loc::Const(Const::Int(Raised::INT as i64)));
        self.branch(Cond::Lo, stub);
    }

    fn take_exception(&mut self, dst: Reg) {
        a64!(self.ops
            ; ldr X(hw(dst)), [frame, (frame::EXC_VALUE * 8) as u32]
            ; str xzr, [frame, (frame::EXCEPTION * 8) as u32]
        );
    }
}

/// The entry trampoline and the exit routine: `(code, entry, exit)`.
///
/// The entry saves `x19`–`x30` and `d8`–`d15` in a 160-byte record (so
/// `sp` stays 16-byte aligned), puts the frame in `x29` and branches to
/// the code. The exit routine stores every allocatable register into its
/// save slot, returns the frame in `x0` and restores the record.
pub fn runtime() -> Result<Runtime, CompileError> {
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
    for r in regs::REG_FILE.saved() {
        let at = frame::save_slot_offset(r) as u32;
        let h = hw(r);
        if is_float(r) {
            a64!(ops; str D(h), [frame, at]);
        } else {
            a64!(ops; str X(h), [frame, at]);
        }
    }
    let leave = ops.offset().0;
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
    Ok(Runtime {
        code,
        entry,
        exit,
        leave,
    })
}
