//! x86_64 loads and stores: fields, array items, raw memory, array
//! lengths, in every width and signedness the descrs allow.
//!
//! Addresses are `base + index * item_size + offset`. Constant parts fold
//! into the displacement; a scaled index is folded into `r11` with one
//! `lea`, so each access is a single `[reg + disp32]` form. A constant base
//! is materialised in `r11`, a constant stored value in `r10`/`xmm14`.

use super::emit::{const_bits, fits_i32, X64Emitter};
use super::regs::{hw, R10, R11, XMM14};
use super::x64;
use crate::arch::{Loc, OpCx, Reg};
use crate::emit::{Access, MemoryEncoder};
use crate::memaccess::{mem_access, MemAccess};
use dynasmrt::DynasmApi;
use majit_ir::Kind;
use majit_metainterp::CompileError;

impl X64Emitter {
    /// The register and displacement addressing `base + index * scale +
    /// offset`; may use `r11`.
    fn address(
        &mut self,
        cx: &OpCx,
        base: Loc,
        index: Option<(Loc, u8)>,
        offset: i64,
    ) -> Result<(u8, i32), CompileError> {
        let mut disp = offset;
        let mut index = index;
        if let Some((Loc::Const(c), scale)) = index {
            disp = disp.wrapping_add(const_bits(c).wrapping_mul(scale as i64));
            index = None;
        }
        let base = match (base, index) {
            (Loc::Const(c), None) => {
                self.mov_imm(R11, const_bits(c).wrapping_add(disp));
                disp = 0;
                R11
            }
            (b, _) => self.int_reg(b, R11),
        };
        if !fits_i32(disp) {
            return Err(CompileError::ImplLimit(format!(
                "displacement {disp} of op {} exceeds 32 bits",
                cx.index
            )));
        }
        let disp = disp as i32;
        let Some((idx, scale)) = index else {
            return Ok((base, disp));
        };
        let (b, i) = (hw(base), hw(self.int_reg(idx, R10)));
        match scale {
            1 => x64!(self.ops; lea tmp, [Rq(b) + Rq(i) * 1 + disp]),
            2 => x64!(self.ops; lea tmp, [Rq(b) + Rq(i) * 2 + disp]),
            4 => x64!(self.ops; lea tmp, [Rq(b) + Rq(i) * 4 + disp]),
            _ => x64!(self.ops; lea tmp, [Rq(b) + Rq(i) * 8 + disp]),
        }
        Ok((R11, 0))
    }
}

impl MemoryEncoder for X64Emitter {
    /// Field, array-item, raw and array-length loads.
    fn load(&mut self, cx: &OpCx, access: Access, dst: Reg) -> Result<(), CompileError> {
        let a = mem_access(cx)?;
        let index = access.index(cx).map(|i| (i, scale(access, &a)));
        let base = cx.args[0];
        let (b, disp) = self.address(cx, base, index, a.offset)?;
        let (b, d) = (hw(b), hw(dst));
        match (a.kind, a.size, a.signed) {
            (Kind::Float, _, _) => x64!(self.ops; movsd Rx(d), QWORD [Rq(b) + disp]),
            (_, 1, true) => x64!(self.ops; movsx Rq(d), BYTE [Rq(b) + disp]),
            (_, 1, false) => x64!(self.ops; movzx Rd(d), BYTE [Rq(b) + disp]),
            (_, 2, true) => x64!(self.ops; movsx Rq(d), WORD [Rq(b) + disp]),
            (_, 2, false) => x64!(self.ops; movzx Rd(d), WORD [Rq(b) + disp]),
            (_, 4, true) => x64!(self.ops; movsxd Rq(d), DWORD [Rq(b) + disp]),
            (_, 4, false) => x64!(self.ops; mov Rd(d), DWORD [Rq(b) + disp]),
            _ => x64!(self.ops; mov Rq(d), QWORD [Rq(b) + disp]),
        }
        Ok(())
    }

    /// Field, array-item and raw stores.
    fn store(&mut self, cx: &OpCx, access: Access) -> Result<(), CompileError> {
        let a = mem_access(cx)?;
        let index = access.index(cx).map(|i| (i, scale(access, &a)));
        let base = cx.args[0];
        let value = *cx.args.last().expect("stores have a value argument");
        let (b, disp) = self.address(cx, base, index, a.offset)?;
        let b = hw(b);
        if a.kind == Kind::Float {
            let v = hw(self.float_reg(value, XMM14));
            x64!(self.ops; movsd QWORD [Rq(b) + disp], Rx(v));
            return Ok(());
        }
        let v = hw(self.int_reg(value, R10));
        match a.size {
            1 => x64!(self.ops; mov BYTE [Rq(b) + disp], Rb(v)),
            2 => x64!(self.ops; mov WORD [Rq(b) + disp], Rw(v)),
            4 => x64!(self.ops; mov DWORD [Rq(b) + disp], Rd(v)),
            _ => x64!(self.ops; mov QWORD [Rq(b) + disp], Rq(v)),
        }
        Ok(())
    }
}

/// What an index counts in bytes: array items, or single bytes.
fn scale(access: Access, a: &MemAccess) -> u8 {
    match access {
        Access::Array => a.size,
        Access::Field | Access::Raw => 1,
    }
}
