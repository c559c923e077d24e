//! aarch64 loads and stores: fields, array items, raw memory, array
//! lengths, in every width and signedness the descrs allow.
//!
//! Addresses are `base + index * item_size + offset`. Constant parts fold
//! into the displacement; a register index is folded into `x16` with one
//! `add x16, base, index, lsl #log2(size)`. The access then uses the
//! scaled unsigned 12-bit offset form when the displacement fits it, else
//! the displacement goes into a scratch register (`[base, x16]`, or added
//! into `x16` through `x17` when `x16` already is the base). A constant
//! base is materialised in `x16`, a constant stored value in `x17` (floats
//! as their bits), after the address, so the two never collide.

use super::a64;
use super::emit::{const_bits, fits_scaled, A64Emitter};
use super::regs::{hw, is_float, X16, X17};
use crate::arch::{Loc, OpCx, Reg};
use crate::emit::Encoder;
use crate::emit::{Access, MemoryEncoder};
use crate::memaccess::{mem_access, MemAccess};
use dynasmrt::DynasmApi;
use majit_ir::Kind;
use majit_metainterp::CompileError;

/// An addressing mode: `[base, #disp]` (displacement already checked to
/// fit the access) or `[base, index]`.
#[derive(Copy, Clone, Debug)]
enum Mode {
    Imm(u32),
    Reg(u8),
}

impl A64Emitter {
    /// The base register and mode addressing `base + index * size +
    /// offset` for a `size`-byte access; may use `x16` and `x17`.
    fn address(&mut self, base: Loc, index: Option<Loc>, size: u8, offset: i64) -> (u8, Mode) {
        let mut disp = offset;
        let mut index = index;
        if let Some(Loc::Const(c)) = index {
            disp = disp.wrapping_add(const_bits(c).wrapping_mul(size as i64));
            index = None;
        }
        let mut b = match (base, index) {
            (Loc::Const(c), None) => {
                self.mov_imm(X16, const_bits(c).wrapping_add(disp));
                disp = 0;
                X16
            }
            (other, _) => self.int_reg(other, X16),
        };
        if let Some(idx) = index {
            let i = hw(self.int_reg(idx, X17));
            let bb = hw(b);
            match size {
                1 => a64!(self.ops; add tmp, X(bb), X(i)),
                2 => a64!(self.ops; add tmp, X(bb), X(i), lsl 1),
                4 => a64!(self.ops; add tmp, X(bb), X(i), lsl 2),
                _ => a64!(self.ops; add tmp, X(bb), X(i), lsl 3),
            }
            b = X16;
        }
        if fits_scaled(disp, size) {
            return (b, Mode::Imm(disp as u32));
        }
        if b != X16 {
            self.mov_imm(X16, disp);
            return (b, Mode::Reg(X16));
        }
        self.mov_imm(X17, disp);
        a64!(self.ops; add tmp, tmp, tmp2);
        (X16, Mode::Imm(0))
    }

    /// The address of the access `a` of memory op `cx`: raw accesses
    /// index in bytes, array items in items.
    fn access_address(&mut self, cx: &OpCx, access: Access, a: &MemAccess) -> (u8, Mode, u8) {
        let base = cx.args[0];
        let index = access.index(cx);
        match index {
            Some(i) if access == Access::Raw => {
                // Byte index: address in x16 first, then the access's own
                // displacement rules.
                let (b, mode) = self.address(base, Some(i), 1, 0);
                let b = self.materialise(b, mode);
                let (b, mode) = self.address(Loc::Reg(b), None, a.size, a.offset);
                (b, mode, a.size)
            }
            _ => {
                let (b, mode) = self.address(base, index, a.size, a.offset);
                (b, mode, a.size)
            }
        }
    }

    /// Folds `[b, mode]` into one register (`x16`) holding the address.
    fn materialise(&mut self, b: u8, mode: Mode) -> u8 {
        let bb = hw(b);
        match mode {
            Mode::Imm(0) => b,
            Mode::Imm(d) => {
                a64!(self.ops; add tmp, XSP(bb), d);
                X16
            }
            Mode::Reg(i) => {
                a64!(self.ops; add tmp, X(bb), X(hw(i)));
                X16
            }
        }
    }
}

impl MemoryEncoder for A64Emitter {
    /// Field, array-item, raw and array-length loads.
    fn load(&mut self, cx: &OpCx, access: Access, dst: Reg) -> Result<(), CompileError> {
        let a = mem_access(cx)?;
        let (b, mode, _) = self.access_address(cx, access, &a);
        let (b, d) = (hw(b), hw(dst));
        match mode {
            Mode::Imm(o) => match (a.kind, a.size, a.signed) {
                (Kind::Float, _, _) => a64!(self.ops; ldr D(d), [X(b), o]),
                (_, 1, true) => a64!(self.ops; ldrsb X(d), [X(b), o]),
                (_, 1, false) => a64!(self.ops; ldrb W(d), [X(b), o]),
                (_, 2, true) => a64!(self.ops; ldrsh X(d), [X(b), o]),
                (_, 2, false) => a64!(self.ops; ldrh W(d), [X(b), o]),
                (_, 4, true) => a64!(self.ops; ldrsw X(d), [X(b), o]),
                (_, 4, false) => a64!(self.ops; ldr W(d), [X(b), o]),
                _ => a64!(self.ops; ldr X(d), [X(b), o]),
            },
            Mode::Reg(i) => {
                let i = hw(i);
                match (a.kind, a.size, a.signed) {
                    (Kind::Float, _, _) => a64!(self.ops; ldr D(d), [X(b), X(i)]),
                    (_, 1, true) => a64!(self.ops; ldrsb X(d), [X(b), X(i)]),
                    (_, 1, false) => a64!(self.ops; ldrb W(d), [X(b), X(i)]),
                    (_, 2, true) => a64!(self.ops; ldrsh X(d), [X(b), X(i)]),
                    (_, 2, false) => a64!(self.ops; ldrh W(d), [X(b), X(i)]),
                    (_, 4, true) => a64!(self.ops; ldrsw X(d), [X(b), X(i)]),
                    (_, 4, false) => a64!(self.ops; ldr W(d), [X(b), X(i)]),
                    _ => a64!(self.ops; ldr X(d), [X(b), X(i)]),
                }
            }
        }
        Ok(())
    }

    /// Field, array-item and raw stores.
    fn store(&mut self, cx: &OpCx, access: Access) -> Result<(), CompileError> {
        let a = mem_access(cx)?;
        let value = *cx.args.last().expect("stores have a value argument");
        let (b, mode, _) = self.access_address(cx, access, &a);
        let b = hw(b);
        let (v, float) = match value {
            Loc::Reg(r) => (hw(r), is_float(r)),
            other => {
                // Constants (floats as their bits) go through x17.
                self.load_int(X17, other);
                (hw(X17), false)
            }
        };
        match (mode, float, a.size) {
            (Mode::Imm(o), true, _) => a64!(self.ops; str D(v), [X(b), o]),
            (Mode::Imm(o), false, 1) => a64!(self.ops; strb W(v), [X(b), o]),
            (Mode::Imm(o), false, 2) => a64!(self.ops; strh W(v), [X(b), o]),
            (Mode::Imm(o), false, 4) => a64!(self.ops; str W(v), [X(b), o]),
            (Mode::Imm(o), false, _) => a64!(self.ops; str X(v), [X(b), o]),
            (Mode::Reg(i), true, _) => a64!(self.ops; str D(v), [X(b), X(hw(i))]),
            (Mode::Reg(i), false, 1) => a64!(self.ops; strb W(v), [X(b), X(hw(i))]),
            (Mode::Reg(i), false, 2) => a64!(self.ops; strh W(v), [X(b), X(hw(i))]),
            (Mode::Reg(i), false, 4) => a64!(self.ops; str W(v), [X(b), X(hw(i))]),
            (Mode::Reg(i), false, _) => a64!(self.ops; str X(v), [X(b), X(hw(i))]),
        }
        Ok(())
    }
}
