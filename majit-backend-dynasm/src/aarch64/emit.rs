//! The aarch64 emitter (`Asm` with aarch64 condition codes, see `emit/`)
//! and its [`Encoder`]: immediates, moves, arithmetic, comparisons and
//! conversions.
//!
//! Ops are three-operand, so a result register equal to an argument
//! register needs no care beyond reading every argument before the last
//! instruction writes the result. Constant arguments are materialised in
//! `x16`/`x17` (`d30`/`d31` for floats) with `movz`/`movn`/`movk`
//! sequences; add, sub and compare use 12-bit immediates when they fit.
//! Frame slots beyond the scaled 12-bit offset range are addressed with
//! the offset in a register (`[x29, xN]`).
//!
//! Moves never touch the condition flags (nothing here uses an `s`-form
//! instruction outside a comparison), so the allocator's moves may sit
//! between a comparison and its guard's branch. `emit_move` uses only
//! `x16` and `d30`, never the cycle temporaries `x17`/`d31` that a
//! parallel move may hold a value in.
//!
//! Absolute addresses the backend embeds (the exit routine, other traces'
//! labels, guard patch words) live in the trace's pool and are read with
//! PC-relative literal loads, so a trace's bytes do not depend on where it
//! or anything else is placed.

use super::a64;
use super::regs::{self, hw, is_float, D30, D31, X16, X17};
use crate::arch::{Bank, Loc, Reg, RegFile};
use crate::emit::{Asm, CmpOp, CondCode, Encoder, FloatOp, IntOp, OvfOp, ShiftOp, UnaryOp};
use crate::frame;
use dynasmrt::aarch64::Aarch64Relocation;
use dynasmrt::DynasmApi;
use majit_ir::{flonum, Const, Kind, OpCode};

pub(super) use crate::emit::plan::const_bits;

/// An aarch64 condition code.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    Eq,
    Ne,
    Hs,
    Lo,
    Mi,
    Pl,
    Vs,
    Vc,
    Hi,
    Ls,
    Ge,
    Lt,
    Gt,
    Le,
}

impl CondCode for Cond {
    const NE: Cond = Cond::Ne;

    fn negate(self) -> Cond {
        use Cond::*;
        match self {
            Eq => Ne,
            Ne => Eq,
            Hs => Lo,
            Lo => Hs,
            Mi => Pl,
            Pl => Mi,
            Vs => Vc,
            Vc => Vs,
            Hi => Ls,
            Ls => Hi,
            Ge => Lt,
            Lt => Ge,
            Gt => Le,
            Le => Gt,
        }
    }
}

/// The aarch64 emitter: the shared state with aarch64 condition codes.
pub type A64Emitter = Asm<Aarch64Relocation, Cond>;

/// Whether `off` fits the scaled unsigned 12-bit offset of a `size`-byte
/// access.
pub(super) fn fits_scaled(off: i64, size: u8) -> bool {
    let size = size as i64;
    off >= 0 && off % size == 0 && off / size < 4096
}

/// Whether `v` fits an add/sub/cmp 12-bit unsigned immediate.
pub(super) fn fits_imm12(v: i64) -> bool {
    (0..4096).contains(&v)
}

pub(super) fn slot_disp(n: u32) -> i64 {
    frame::spill_offset(&regs::REG_FILE, n) as i64
}

impl A64Emitter {
    // -- immediates and frame access --

    /// Frame word at `off` := the value at `from`.
    fn store_frame(&mut self, off: i64, from: Loc) {
        match from {
            Loc::Reg(r) => self.frame_str(r, off),
            Loc::Const(c) if const_bits(c) == 0 && fits_scaled(off, 8) => {
                a64!(self.ops; str xzr, [frame, off as u32])
            }
            other => {
                // Through d30, so a large offset can still use x16.
                self.load_float(D30, other);
                self.frame_str(D30, off);
            }
        }
    }

    /// Integer register `dst` := `v`: one `movz` or `movn`, then a `movk`
    /// per remaining halfword that differs from the first's fill.
    pub(super) fn mov_imm(&mut self, dst: u8, v: i64) {
        let d = hw(dst);
        let v = v as u64;
        let half = |i: u32| ((v >> (16 * i)) & 0xffff) as u32;
        let ones = (0..4).filter(|&i| half(i) == 0xffff).count();
        let zeros = (0..4).filter(|&i| half(i) == 0).count();
        let inverted = ones > zeros;
        let fill = if inverted { 0xffff } else { 0 };
        let first = (0..4).find(|&i| half(i) != fill).unwrap_or(0);
        let lead = if inverted {
            !half(first) & 0xffff
        } else {
            half(first)
        };
        match (inverted, first) {
            (false, 0) => a64!(self.ops; movz X(d), lead),
            (false, 1) => a64!(self.ops; movz X(d), lead, lsl 16),
            (false, 2) => a64!(self.ops; movz X(d), lead, lsl 32),
            (false, _) => a64!(self.ops; movz X(d), lead, lsl 48),
            (true, 0) => a64!(self.ops; movn X(d), lead),
            (true, 1) => a64!(self.ops; movn X(d), lead, lsl 16),
            (true, 2) => a64!(self.ops; movn X(d), lead, lsl 32),
            (true, _) => a64!(self.ops; movn X(d), lead, lsl 48),
        }
        for i in (first + 1..4).filter(|&i| half(i) != fill) {
            let h = half(i);
            match i {
                1 => a64!(self.ops; movk X(d), h, lsl 16),
                2 => a64!(self.ops; movk X(d), h, lsl 32),
                _ => a64!(self.ops; movk X(d), h, lsl 48),
            }
        }
    }

    /// Integer register `dst` := the word at `x29 + off` (a large offset
    /// goes through `dst` itself).
    fn frame_ldr_x(&mut self, dst: u8, off: i64) {
        let d = hw(dst);
        if fits_scaled(off, 8) {
            a64!(self.ops; ldr X(d), [frame, off as u32]);
        } else {
            self.mov_imm(dst, off);
            a64!(self.ops; ldr X(d), [frame, X(d)]);
        }
    }

    /// Float register `dst` := the word at `x29 + off` (may use `x16`).
    fn frame_ldr_d(&mut self, dst: u8, off: i64) {
        let d = hw(dst);
        if fits_scaled(off, 8) {
            a64!(self.ops; ldr D(d), [frame, off as u32]);
        } else {
            self.mov_imm(X16, off);
            a64!(self.ops; ldr D(d), [frame, tmp]);
        }
    }

    /// Register `r` of either bank := the word at `x29 + off`.
    pub(super) fn frame_ldr(&mut self, r: u8, off: i64) {
        if is_float(r) {
            self.frame_ldr_d(r, off);
        } else {
            self.frame_ldr_x(r, off);
        }
    }

    /// The word at `x29 + off` := register `src` of either bank (may use
    /// `x16`, so `src` is never `x16` when the offset is large).
    pub(super) fn frame_str(&mut self, src: u8, off: i64) {
        let s = hw(src);
        let float = is_float(src);
        if fits_scaled(off, 8) {
            let off = off as u32;
            if float {
                a64!(self.ops; str D(s), [frame, off]);
            } else {
                a64!(self.ops; str X(s), [frame, off]);
            }
            return;
        }
        debug_assert_ne!(src, X16, "x16 is the offset register of large frame stores");
        self.mov_imm(X16, off);
        if float {
            a64!(self.ops; str D(s), [frame, tmp]);
        } else {
            a64!(self.ops; str X(s), [frame, tmp]);
        }
    }

    // -- moves and materialisation --

    /// The integer register holding `loc`, loading it into `tmp` if needed.
    pub(super) fn int_reg(&mut self, loc: Loc, tmp: u8) -> u8 {
        match loc {
            Loc::Reg(r) if !is_float(r) => r,
            _ => {
                self.load_int(tmp, loc);
                tmp
            }
        }
    }

    /// The float register holding `loc`, loading it into `tmp` if needed.
    pub(super) fn float_reg(&mut self, loc: Loc, tmp: u8) -> u8 {
        match loc {
            Loc::Reg(r) if is_float(r) => r,
            _ => {
                self.load_float(tmp, loc);
                tmp
            }
        }
    }

    // -- arithmetic --

    /// `add`/`sub` (flag-setting for the overflow-checked forms) with a
    /// 12-bit immediate when the constant fits either way round.
    fn add_sub(&mut self, sub: bool, set_flags: bool, dst: u8, a: Loc, b: Loc) {
        let (a, b) = match (a, b) {
            (Loc::Const(_), Loc::Reg(_)) if !sub => (b, a),
            _ => (a, b),
        };
        let d = hw(dst);
        let ra = hw(self.int_reg(a, X16));
        if let Loc::Const(c) = b {
            let v = const_bits(c);
            let (neg, imm) = if fits_imm12(v) {
                (sub, Some(v as u32))
            } else if v != i64::MIN && fits_imm12(-v) {
                (!sub, Some((-v) as u32))
            } else {
                (sub, None)
            };
            if let Some(imm) = imm {
                match (neg, set_flags) {
                    (false, false) => a64!(self.ops; add XSP(d), XSP(ra), imm),
                    (true, false) => a64!(self.ops; sub XSP(d), XSP(ra), imm),
                    (false, true) => a64!(self.ops; adds X(d), XSP(ra), imm),
                    (true, true) => a64!(self.ops; subs X(d), XSP(ra), imm),
                }
                return;
            }
        }
        let rb = hw(self.int_reg(b, X17));
        match (sub, set_flags) {
            (false, false) => a64!(self.ops; add X(d), X(ra), X(rb)),
            (true, false) => a64!(self.ops; sub X(d), X(ra), X(rb)),
            (false, true) => a64!(self.ops; adds X(d), X(ra), X(rb)),
            (true, true) => a64!(self.ops; subs X(d), X(ra), X(rb)),
        }
    }

    /// The hardware numbers of the integer registers holding `a` and `b`
    /// (constants in `x16`/`x17`).
    fn int_pair(&mut self, a: Loc, b: Loc) -> (u8, u8) {
        let ra = hw(self.int_reg(a, X16));
        let rb = hw(self.int_reg(b, X17));
        (ra, rb)
    }

    /// Signed `a / d` or `a % d` for a constant `d` by its magic number
    /// `(m, s)` (`plan::signed_magic`): `smulh` and shifts where `sdiv`
    /// takes its tens of cycles.
    fn div_by_constant(&mut self, is_mod: bool, dst: Reg, a: Loc, d: i64, (m, s): (i64, u32)) {
        let ra = self.int_reg(a, X16);
        let q = if ra == X16 { X17 } else { X16 };
        let (ha, hq) = (hw(ra), hw(q));
        self.mov_imm(q, m);
        a64!(self.ops; smulh X(hq), X(ha), X(hq));
        if d > 0 && m < 0 {
            a64!(self.ops; add X(hq), X(hq), X(ha));
        } else if d < 0 && m > 0 {
            a64!(self.ops; sub X(hq), X(hq), X(ha));
        }
        if s > 0 {
            a64!(self.ops; asr X(hq), X(hq), s);
        }
        // Truncation: a negative quotient rounds up by its sign bit.
        a64!(self.ops; add X(hq), X(hq), X(hq), lsr 63);
        let hd = hw(dst);
        if is_mod {
            // The divisor in the scratch `a` does not occupy, or in `dst`
            // (then `a` is in the other scratch, not in `dst`).
            let t = if ra == X16 { dst } else { X17 };
            self.mov_imm(t, d);
            a64!(self.ops; msub X(hd), X(hq), X(hw(t)), X(ha));
        } else {
            a64!(self.ops; mov X(hd), X(hq));
        }
    }

    /// `int_mul_ovf`: the low half in `dst`, and flags NE exactly when the
    /// high half is not the sign extension of the low half.
    fn mul_ovf(&mut self, dst: Reg, a: Loc, b: Loc) {
        let d = hw(dst);
        let ra = self.int_reg(a, X16);
        let rb = self.int_reg(b, X17);
        let (ha, hb) = (hw(ra), hw(rb));
        let high = [X16, X17].into_iter().find(|&t| t != ra && t != rb);
        match high {
            Some(h) => {
                let h = hw(h);
                a64!(self.ops
                    ; smulh X(h), X(ha), X(hb)
                    ; mul X(d), X(ha), X(hb)
                    ; cmp X(h), X(d), asr 63
                );
            }
            None => {
                // Both arguments are constants in x16/x17, so `dst` is
                // neither: the high half goes there first.
                a64!(self.ops
                    ; smulh X(d), tmp, tmp2
                    ; mul tmp, tmp, tmp2
                    ; cmp X(d), tmp, asr 63
                    ; mov X(d), tmp
                );
            }
        }
    }

    /// `dst` := 1 if `cond` holds, else 0.
    pub(super) fn cset(&mut self, cond: Cond, dst: u8) {
        let d = hw(dst);
        match cond {
            Cond::Eq => a64!(self.ops; cset X(d), eq),
            Cond::Ne => a64!(self.ops; cset X(d), ne),
            Cond::Hs => a64!(self.ops; cset X(d), hs),
            Cond::Lo => a64!(self.ops; cset X(d), lo),
            Cond::Mi => a64!(self.ops; cset X(d), mi),
            Cond::Pl => a64!(self.ops; cset X(d), pl),
            Cond::Vs => a64!(self.ops; cset X(d), vs),
            Cond::Vc => a64!(self.ops; cset X(d), vc),
            Cond::Hi => a64!(self.ops; cset X(d), hi),
            Cond::Ls => a64!(self.ops; cset X(d), ls),
            Cond::Ge => a64!(self.ops; cset X(d), ge),
            Cond::Lt => a64!(self.ops; cset X(d), lt),
            Cond::Gt => a64!(self.ops; cset X(d), gt),
            Cond::Le => a64!(self.ops; cset X(d), le),
        }
    }

    /// `cmp a, b` on integers (an immediate when `b` fits either sign).
    pub(super) fn int_cmp(&mut self, a: Loc, b: Loc) {
        let ra = hw(self.int_reg(a, X16));
        if let Loc::Const(c) = b {
            let v = const_bits(c);
            if fits_imm12(v) {
                a64!(self.ops; cmp XSP(ra), v as u32);
                return;
            }
            if v != i64::MIN && fits_imm12(-v) {
                a64!(self.ops; cmn XSP(ra), (-v) as u32);
                return;
            }
        }
        let rb = hw(self.int_reg(b, X17));
        a64!(self.ops; cmp X(ra), X(rb));
    }

    /// `fcmp a, b`.
    fn float_cmp(&mut self, a: Loc, b: Loc) {
        let ra = hw(self.float_reg(a, D30));
        let rb = hw(self.float_reg(b, D31));
        a64!(self.ops; fcmp D(ra), D(rb));
    }

    // -- small floats in refs (`majit_ir::flonum`) --

    /// `float_tag`: the bits rotated left by three, the low two bits `10`.
    fn float_tag(&mut self, dst: u8, a: Loc) {
        let d = hw(dst);
        self.float_bits(dst, a);
        a64!(self.ops
            ; ror X(d), X(d), 61
            ; and XSP(d), X(d), !3u64
            ; orr XSP(d), X(d), 2
        );
    }

    /// `float_untag`: an arithmetic shift right by two (the word's sign
    /// bit, the exponent's third, refills the top two), a rotation right
    /// by one and the exponent's top bit flipped.
    fn float_untag(&mut self, dst: u8, a: Loc) {
        let r = hw(self.int_reg(a, X16));
        a64!(self.ops
            ; asr tmp, X(r), 2
            ; ror tmp, tmp, 1
            ; eor tmp, tmp, 1u64 << 62
            ; fmov D(hw(dst)), tmp
        );
    }

    /// `float_fits_tag`: the bits minus 2^-255's, rotated left by one (the
    /// sign to the bottom), are below 2^62 exactly for the middle exponents:
    /// the flags say equal then.
    fn float_fits_tag(&mut self, a: Loc) {
        self.float_bits(X16, a);
        self.mov_imm(X17, flonum::LOW as i64);
        a64!(self.ops
            ; sub tmp2, tmp, tmp2
            ; ror tmp2, tmp2, 63
            ; tst tmp2, 0xc000_0000_0000_0000u64
        );
    }
}

impl Encoder for A64Emitter {
    const PAD: u8 = 0;
    const SCRATCH: Reg = X17;

    const REGS: &'static RegFile = &regs::REG_FILE;

    fn cycle_temp(bank: Bank) -> Reg {
        match bank {
            Bank::Int => X17,
            Bank::Float => D31,
        }
    }
    /// Integer register `dst` := the value at `from` (uses no scratch).
    fn load_int(&mut self, dst: Reg, from: Loc) {
        let d = hw(dst);
        match from {
            Loc::Reg(r) if r == dst => {}
            Loc::Reg(r) if is_float(r) => a64!(self.ops; fmov X(d), D(hw(r))),
            Loc::Reg(r) => a64!(self.ops; mov X(d), X(hw(r))),
            Loc::Slot(n) => self.frame_ldr_x(dst, slot_disp(n)),
            Loc::Const(c) => self.mov_imm(dst, const_bits(c)),
        }
    }

    /// Spill slot `n` := the value at `from` (uses `x16` and `d30`).
    fn store_slot(&mut self, n: u32, from: Loc, _kind: Kind) {
        self.store_frame(slot_disp(n), from);
    }

    fn store_frame_word(&mut self, word: usize, from: Loc) {
        self.store_frame((word * 8) as i64, from);
    }

    /// Float register `dst` := the value at `from` (may use `x16`).
    fn load_float(&mut self, dst: Reg, from: Loc) {
        let d = hw(dst);
        match from {
            Loc::Reg(r) if r == dst => {}
            Loc::Reg(r) if is_float(r) => a64!(self.ops; fmov D(d), D(hw(r))),
            Loc::Reg(r) => a64!(self.ops; fmov D(d), X(hw(r))),
            Loc::Slot(n) => self.frame_ldr_d(dst, slot_disp(n)),
            Loc::Const(c) => {
                self.mov_imm(X16, const_bits(c));
                a64!(self.ops; fmov D(d), tmp);
            }
        }
    }

    fn int_op(&mut self, op: IntOp, dst: Reg, a: Loc, b: Loc) {
        let d = hw(dst);
        match op {
            IntOp::Add => self.add_sub(false, false, dst, a, b),
            IntOp::Sub => self.add_sub(true, false, dst, a, b),
            IntOp::Mul => {
                let (ra, rb) = self.int_pair(a, b);
                a64!(self.ops; mul X(d), X(ra), X(rb));
            }
            IntOp::And => {
                let (ra, rb) = self.int_pair(a, b);
                a64!(self.ops; and X(d), X(ra), X(rb));
            }
            IntOp::Or => {
                let (ra, rb) = self.int_pair(a, b);
                a64!(self.ops; orr X(d), X(ra), X(rb));
            }
            IntOp::Xor => {
                let (ra, rb) = self.int_pair(a, b);
                a64!(self.ops; eor X(d), X(ra), X(rb));
            }
        }
    }

    fn ovf_op(&mut self, op: OvfOp, dst: Reg, a: Loc, b: Loc) -> Cond {
        match op {
            OvfOp::Add | OvfOp::Sub => {
                self.add_sub(op == OvfOp::Sub, true, dst, a, b);
                Cond::Vs
            }
            OvfOp::Mul => {
                self.mul_ovf(dst, a, b);
                Cond::Ne
            }
        }
    }

    /// `int_floordiv`/`int_mod`: `sdiv` gives 0 for a zero divisor and
    /// `MIN` for `MIN / -1`, and `a - (a / b) * b` then gives `a` and 0,
    /// exactly the defined results; `uint_*` likewise with `udiv`.
    fn div_mod(&mut self, is_mod: bool, signed: bool, dst: Reg, a: Loc, b: Loc) {
        if let (Loc::Const(x), Loc::Const(y)) = (a, b) {
            let op = match (signed, is_mod) {
                (true, false) => OpCode::IntFloorDiv,
                (true, true) => OpCode::IntMod,
                (false, false) => OpCode::UintFloorDiv,
                (false, true) => OpCode::UintMod,
            };
            let v = majit_ir::eval::eval_int_binary(op, const_bits(x), const_bits(y))
                .expect("division is a two-int op");
            return self.mov_imm(dst, v);
        }
        if let Loc::Const(c) = b {
            let v = const_bits(c);
            if let Some(magic) = signed.then(|| crate::emit::plan::signed_magic(v)).flatten() {
                return self.div_by_constant(is_mod, dst, a, v, magic);
            }
        }
        let d = hw(dst);
        let ra = self.int_reg(a, X16);
        let rb = self.int_reg(b, X17);
        let (ha, hb) = (hw(ra), hw(rb));
        let q = if is_mod {
            hw(if ra == X16 { X17 } else { X16 })
        } else {
            d
        };
        if signed {
            a64!(self.ops; sdiv X(q), X(ha), X(hb));
        } else {
            a64!(self.ops; udiv X(q), X(ha), X(hb));
        }
        if is_mod {
            a64!(self.ops; msub X(d), X(q), X(hb), X(ha));
        }
    }

    /// Shifts by a register count, which the hardware takes modulo 64.
    fn shift(&mut self, op: ShiftOp, dst: Reg, a: Loc, count: Loc) {
        let d = hw(dst);
        let ra = hw(self.int_reg(a, X16));
        let count = match count {
            Loc::Const(c) => Loc::Const(Const::Int(const_bits(c) & 63)),
            other => other,
        };
        let rc = hw(self.int_reg(count, X17));
        match op {
            ShiftOp::Left => a64!(self.ops; lslv X(d), X(ra), X(rc)),
            ShiftOp::Right => a64!(self.ops; asrv X(d), X(ra), X(rc)),
            ShiftOp::UintRight => a64!(self.ops; lsrv X(d), X(ra), X(rc)),
        }
    }

    fn compare(&mut self, op: CmpOp, dst: Reg, a: Loc, b: Loc) -> Option<Cond> {
        let cond = match op {
            CmpOp::Lt => Cond::Lt,
            CmpOp::Le => Cond::Le,
            CmpOp::Gt => Cond::Gt,
            CmpOp::Ge => Cond::Ge,
            CmpOp::Eq => Cond::Eq,
            CmpOp::Ne => Cond::Ne,
            CmpOp::ULt => Cond::Lo,
            CmpOp::ULe => Cond::Ls,
            CmpOp::UGt => Cond::Hi,
            CmpOp::UGe => Cond::Hs,
            CmpOp::IsZero => Cond::Eq,
            CmpOp::IsTrue => Cond::Ne,
            CmpOp::FitsTag => Cond::Vc,
            CmpOp::Tagged => Cond::Ne,
            CmpOp::FloatTagged => Cond::Eq,
            CmpOp::FloatFitsTag => Cond::Eq,
            // After `fcmp`, unordered sets C and V: each condition below
            // is false for NaN except NE, as the float ops require.
            CmpOp::FLt => Cond::Mi,
            CmpOp::FLe => Cond::Ls,
            CmpOp::FGt => Cond::Gt,
            CmpOp::FGe => Cond::Ge,
            CmpOp::FEq => Cond::Eq,
            CmpOp::FNe => Cond::Ne,
        };
        match op {
            CmpOp::FLt | CmpOp::FLe | CmpOp::FGt | CmpOp::FGe | CmpOp::FEq | CmpOp::FNe => {
                self.float_cmp(a, b)
            }
            CmpOp::IsZero | CmpOp::IsTrue => self.int_cmp(a, Loc::Const(Const::Int(0))),
            CmpOp::FitsTag => {
                // `a + a` overflows exactly when `a` needs all 64 bits.
                let r = hw(self.int_reg(a, X16));
                a64!(self.ops; cmn X(r), X(r));
            }
            CmpOp::Tagged => {
                let r = hw(self.int_reg(a, X16));
                a64!(self.ops; tst X(r), 1);
            }
            CmpOp::FloatTagged => {
                let r = hw(self.int_reg(a, X16));
                a64!(self.ops; and tmp, X(r), 3; cmp tmp, 2);
            }
            CmpOp::FloatFitsTag => self.float_fits_tag(a),
            CmpOp::Lt
            | CmpOp::Le
            | CmpOp::Eq
            | CmpOp::Ne
            | CmpOp::Gt
            | CmpOp::Ge
            | CmpOp::ULt
            | CmpOp::ULe
            | CmpOp::UGt
            | CmpOp::UGe => self.int_cmp(a, b),
        }
        if !self.flags_only {
            self.cset(cond, dst);
        }
        Some(cond)
    }

    fn float_op(&mut self, op: FloatOp, dst: Reg, a: Loc, b: Loc) {
        let d = hw(dst);
        let ra = hw(self.float_reg(a, D30));
        let rb = hw(self.float_reg(b, D31));
        match op {
            FloatOp::Add => a64!(self.ops; fadd D(d), D(ra), D(rb)),
            FloatOp::Sub => a64!(self.ops; fsub D(d), D(ra), D(rb)),
            FloatOp::Mul => a64!(self.ops; fmul D(d), D(ra), D(rb)),
            FloatOp::Div => a64!(self.ops; fdiv D(d), D(ra), D(rb)),
        }
    }

    fn unary(&mut self, op: UnaryOp, dst: Reg, a: Loc) {
        let d = hw(dst);
        match op {
            UnaryOp::IntNeg => {
                let r = hw(self.int_reg(a, X16));
                a64!(self.ops; neg X(d), X(r));
            }
            UnaryOp::IntInvert => {
                let r = hw(self.int_reg(a, X16));
                a64!(self.ops; mvn X(d), X(r));
            }
            UnaryOp::FloatNeg => {
                let r = hw(self.float_reg(a, D30));
                a64!(self.ops; fneg D(d), D(r));
            }
            UnaryOp::FloatAbs => {
                let r = hw(self.float_reg(a, D30));
                a64!(self.ops; fabs D(d), D(r));
            }
            UnaryOp::FloatSqrt => {
                let r = hw(self.float_reg(a, D30));
                a64!(self.ops; fsqrt D(d), D(r));
            }
            // Truncates, saturates and maps NaN to 0, exactly Rust's `as`.
            UnaryOp::FloatToInt => {
                let r = hw(self.float_reg(a, D30));
                a64!(self.ops; fcvtzs X(d), D(r));
            }
            UnaryOp::IntToFloat => {
                let r = hw(self.int_reg(a, X16));
                a64!(self.ops; scvtf D(d), X(r));
            }
            UnaryOp::FloatBits => self.load_int(dst, a),
            UnaryOp::BitsToFloat => self.load_float(dst, a),
            UnaryOp::IntTag => {
                let r = hw(self.int_reg(a, X16));
                a64!(self.ops; lsl X(d), X(r), 1; orr XSP(d), X(d), 1);
            }
            UnaryOp::IntUntag => {
                let r = hw(self.int_reg(a, X16));
                a64!(self.ops; asr X(d), X(r), 1);
            }
            UnaryOp::FloatTag => self.float_tag(dst, a),
            UnaryOp::FloatUntag => self.float_untag(dst, a),
            UnaryOp::Copy if is_float(dst) => self.load_float(dst, a),
            UnaryOp::Copy => self.load_int(dst, a),
        }
    }

    fn ptr_add(&mut self, dst: Reg, base: Loc, off: Loc) {
        self.add_sub(false, false, dst, base, off);
    }
}
