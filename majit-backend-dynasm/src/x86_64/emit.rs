//! The x86_64 emitter (`Asm` with x86 condition codes, see `emit/`) and
//! its [`Encoder`]: moves, arithmetic, comparisons and conversions.
//!
//! Every emitter reads its argument locations before writing the result
//! register and is correct when the result register equals an argument's
//! (the allocator frees dying operands before choosing the result). Values
//! not in registers arrive as constants; inline sequences materialise them
//! in the reserved scratch registers (`r10`, `r11`, `xmm14`, `xmm15`).
//! Moves never touch the condition flags (no `xor` zeroing), so the
//! allocator's moves may sit between a comparison and its guard's branch.
//!
//! Absolute addresses the backend itself embeds (the exit routine, other
//! traces' labels, guard patch words) live in the trace's pool and are read
//! RIP-relatively, so a trace's instruction bytes do not depend on where it
//! or anything else is placed.

use super::regs::{self, hw, is_xmm, R10, R11, XMM14, XMM15};
use super::x64;
use crate::arch::{Bank, Loc, Reg, RegFile};
use crate::emit::{Asm, CmpOp, CondCode, Encoder, FloatOp, IntOp, OvfOp, ShiftOp, UnaryOp};
use crate::frame;
use dynasmrt::x64::X64Relocation;
use dynasmrt::{DynasmApi, DynasmLabelApi};
use majit_ir::{flonum, Kind};

pub(super) use crate::emit::plan::const_bits;

/// An x86 condition code.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    E,
    Ne,
    L,
    Le,
    G,
    Ge,
    B,
    Be,
    A,
    Ae,
    O,
    No,
    P,
    Np,
}

impl CondCode for Cond {
    const NE: Cond = Cond::Ne;

    fn negate(self) -> Cond {
        use Cond::*;
        match self {
            E => Ne,
            Ne => E,
            L => Ge,
            Ge => L,
            Le => G,
            G => Le,
            B => Ae,
            Ae => B,
            Be => A,
            A => Be,
            O => No,
            No => O,
            P => Np,
            Np => P,
        }
    }
}

/// The x86_64 emitter: the shared state with x86 condition codes.
pub type X64Emitter = Asm<X64Relocation, Cond>;

pub(super) fn fits_i32(v: i64) -> bool {
    v == v as i32 as i64
}

pub(super) fn slot_disp(n: u32) -> i32 {
    frame::spill_offset(&regs::REG_FILE, n)
}

impl X64Emitter {
    /// Frame word at `disp` := the value at `from`.
    fn store_frame(&mut self, disp: i32, from: Loc) {
        match from {
            Loc::Reg(r) if is_xmm(r) => x64!(self.ops; movsd QWORD [rbp + disp], Rx(hw(r))),
            Loc::Reg(r) => x64!(self.ops; mov QWORD [rbp + disp], Rq(hw(r))),
            Loc::Const(c) if fits_i32(const_bits(c)) => {
                x64!(self.ops; mov QWORD [rbp + disp], DWORD const_bits(c) as i32)
            }
            _ => {
                self.load_int(R10, from);
                x64!(self.ops; mov QWORD [rbp + disp], mtmp);
            }
        }
    }

    /// Signed `a / d` or `a % d` for a constant `d` by its magic number
    /// `(m, s)` (`plan::signed_magic`): a multiply-high and shifts where
    /// `idiv` takes tens of cycles. Uses `rax`, `rdx` and `r11`, as
    /// `idiv` does.
    fn div_by_constant(&mut self, is_mod: bool, dst: Reg, a: Loc, d: i64, (m, s): (i64, u32)) {
        self.load_int(R11, a);
        self.mov_imm(regs::RAX, m);
        x64!(self.ops; imul tmp);
        if d > 0 && m < 0 {
            x64!(self.ops; add rdx, tmp);
        } else if d < 0 && m > 0 {
            x64!(self.ops; sub rdx, tmp);
        }
        if s > 0 {
            x64!(self.ops; sar rdx, s as i8);
        }
        // Truncation: a negative quotient rounds up by its sign bit.
        x64!(self.ops; mov rax, rdx; shr rax, 63; add rdx, rax);
        if is_mod {
            if fits_i32(d) {
                x64!(self.ops; imul rdx, rdx, d as i32);
            } else {
                self.mov_imm(regs::RAX, d);
                x64!(self.ops; imul rdx, rax);
            }
            x64!(self.ops; mov rax, tmp; sub rax, rdx);
        } else {
            x64!(self.ops; mov rax, rdx);
        }
        self.load_int(dst, Loc::Reg(regs::RAX));
    }

    /// The tail of `div_mod` with a register divisor: the results for a
    /// zero divisor (`a / 0 = 0`, `a % 0 = a`, with `a` in `rax`) and,
    /// signed, for -1 (`-a` and 0), at the labels its checks jump to.
    fn div_mod_edge_cases(&mut self, is_mod: bool, signed: bool) {
        x64!(self.ops; jmp >done; zero:);
        if !is_mod {
            x64!(self.ops; mov eax, 0);
        }
        if signed {
            x64!(self.ops; jmp >done; minus_one:);
            if is_mod {
                x64!(self.ops; mov eax, 0);
            } else {
                x64!(self.ops; neg rax);
            }
        }
        x64!(self.ops; done:);
    }

    // -- moves and materialisation --

    /// `dst` (integer register) := `v`, without touching the flags.
    pub(super) fn mov_imm(&mut self, dst: u8, v: i64) {
        let d = hw(dst);
        if fits_i32(v) {
            x64!(self.ops; mov Rq(d), DWORD v as i32);
        } else if v as u64 <= u32::MAX as u64 {
            x64!(self.ops; mov Rd(d), DWORD v as i32);
        } else {
            x64!(self.ops; mov Rq(d), QWORD v);
        }
    }

    /// The integer register holding `loc`, loading it into `tmp` if needed.
    pub(super) fn int_reg(&mut self, loc: Loc, tmp: u8) -> u8 {
        match loc {
            Loc::Reg(r) => r,
            _ => {
                self.load_int(tmp, loc);
                tmp
            }
        }
    }

    /// The float register holding `loc`, loading it into `tmp` if needed.
    pub(super) fn float_reg(&mut self, loc: Loc, tmp: u8) -> u8 {
        match loc {
            Loc::Reg(r) => r,
            _ => {
                self.load_float(tmp, loc);
                tmp
            }
        }
    }

    // -- arithmetic --

    fn int_binop(&mut self, op: IntOp, dst: Reg, a: Loc, b: Loc) {
        let (a, b) = if b == Loc::Reg(dst) && a != Loc::Reg(dst) {
            if op.is_commutative() {
                (b, a)
            } else {
                self.load_int(R11, b);
                (a, Loc::Reg(R11))
            }
        } else {
            (a, b)
        };
        self.load_int(dst, a);
        let d = hw(dst);
        let b = match b {
            Loc::Const(c) if fits_i32(const_bits(c)) => {
                let v = const_bits(c) as i32;
                match op {
                    IntOp::Add => x64!(self.ops; add Rq(d), DWORD v),
                    IntOp::Sub => x64!(self.ops; sub Rq(d), DWORD v),
                    IntOp::Mul => x64!(self.ops; imul Rq(d), Rq(d), DWORD v),
                    IntOp::And => x64!(self.ops; and Rq(d), DWORD v),
                    IntOp::Or => x64!(self.ops; or Rq(d), DWORD v),
                    IntOp::Xor => x64!(self.ops; xor Rq(d), DWORD v),
                }
                return;
            }
            Loc::Reg(r) => hw(r),
            other => {
                self.load_int(R10, other);
                hw(R10)
            }
        };
        match op {
            IntOp::Add => x64!(self.ops; add Rq(d), Rq(b)),
            IntOp::Sub => x64!(self.ops; sub Rq(d), Rq(b)),
            IntOp::Mul => x64!(self.ops; imul Rq(d), Rq(b)),
            IntOp::And => x64!(self.ops; and Rq(d), Rq(b)),
            IntOp::Or => x64!(self.ops; or Rq(d), Rq(b)),
            IntOp::Xor => x64!(self.ops; xor Rq(d), Rq(b)),
        }
    }

    pub(super) fn setcc(&mut self, cond: Cond, dst: u8) {
        let d = hw(dst);
        match cond {
            Cond::E => x64!(self.ops; sete Rb(d)),
            Cond::Ne => x64!(self.ops; setne Rb(d)),
            Cond::L => x64!(self.ops; setl Rb(d)),
            Cond::Le => x64!(self.ops; setle Rb(d)),
            Cond::G => x64!(self.ops; setg Rb(d)),
            Cond::Ge => x64!(self.ops; setge Rb(d)),
            Cond::B => x64!(self.ops; setb Rb(d)),
            Cond::Be => x64!(self.ops; setbe Rb(d)),
            Cond::A => x64!(self.ops; seta Rb(d)),
            Cond::Ae => x64!(self.ops; setae Rb(d)),
            Cond::O => x64!(self.ops; seto Rb(d)),
            Cond::No => x64!(self.ops; setno Rb(d)),
            Cond::P => x64!(self.ops; setp Rb(d)),
            Cond::Np => x64!(self.ops; setnp Rb(d)),
        }
    }

    /// `cmp a, b` on integers.
    pub(super) fn int_cmp(&mut self, a: Loc, b: Loc) {
        let ra = hw(self.int_reg(a, R11));
        match b {
            Loc::Const(c) if fits_i32(const_bits(c)) => {
                x64!(self.ops; cmp Rq(ra), DWORD const_bits(c) as i32)
            }
            _ => {
                let rb = hw(self.int_reg(b, R10));
                x64!(self.ops; cmp Rq(ra), Rq(rb));
            }
        }
    }

    /// `ucomisd a, b`.
    pub(super) fn float_cmp(&mut self, a: Loc, b: Loc) {
        let ra = hw(self.float_reg(a, XMM15));
        match b {
            Loc::Slot(n) => x64!(self.ops; ucomisd Rx(ra), QWORD [rbp + slot_disp(n)]),
            _ => {
                let rb = hw(self.float_reg(b, XMM14));
                x64!(self.ops; ucomisd Rx(ra), Rx(rb));
            }
        }
    }

    /// Materialises the flags as 0/1 in `dst` (without changing them);
    /// returns `cond` for a following guard.
    fn set_flags_result(&mut self, cond: Cond, dst: Reg) -> Cond {
        if !self.flags_only {
            self.setcc(cond, dst);
            x64!(self.ops; movzx Rd(hw(dst)), Rb(hw(dst)));
        }
        cond
    }

    /// `cast_float_to_int`: truncation that saturates, NaN giving 0.
    fn float_to_int(&mut self, dst: u8, a: Loc) {
        let x = hw(self.float_reg(a, XMM15));
        let d = hw(dst);
        x64!(self.ops
            ; cvttsd2si Rq(d), Rx(x)
            ; mov tmp, QWORD i64::MIN
            ; cmp Rq(d), tmp
            ; jne >done
            ; ucomisd Rx(x), Rx(x)
            ; jp >nan
            ; xorpd xmm14, xmm14
            ; ucomisd Rx(x), xmm14
            ; jb >done
            ; not Rq(d)
            ; jmp >done
            ; nan:
            ; mov Rd(d), DWORD 0
            ; done:
        );
    }

    // -- small floats in refs (`majit_ir::flonum`) --

    /// `float_tag`: the bits rotated left by three, the low two bits `10`.
    fn float_tag(&mut self, dst: u8, a: Loc) {
        let d = hw(dst);
        self.float_bits(dst, a);
        x64!(self.ops
            ; rol Rq(d), 3
            ; and Rq(d), -4
            ; or Rq(d), 2
        );
    }

    /// `float_untag`: an arithmetic shift right by two (the word's sign
    /// bit, the exponent's third, refills the top two), a rotation right
    /// by one and the exponent's top bit flipped.
    fn float_untag(&mut self, dst: u8, a: Loc) {
        self.load_int(R11, a);
        x64!(self.ops
            ; sar tmp, 2
            ; ror tmp, 1
            ; btc tmp, 62
            ; movq Rx(hw(dst)), tmp
        );
    }

    /// `float_fits_tag`: the bits minus 2^-255's, rotated left by one (the
    /// sign to the bottom), are below 2^62 exactly for the middle exponents:
    /// the flags say equal then.
    fn float_fits_tag(&mut self, a: Loc) {
        self.float_bits(R11, a);
        self.mov_imm(R10, (flonum::LOW as i64).wrapping_neg());
        x64!(self.ops
            ; add mtmp, tmp
            ; rol mtmp, 1
            ; shr mtmp, 62
        );
    }
}

impl Encoder for X64Emitter {
    const PAD: u8 = 0xcc;
    const SCRATCH: Reg = R11;

    const REGS: &'static RegFile = &regs::REG_FILE;

    /// Integer register `dst` := the value at `from`.
    fn load_int(&mut self, dst: Reg, from: Loc) {
        let d = hw(dst);
        match from {
            Loc::Reg(r) if r == dst => {}
            Loc::Reg(r) => x64!(self.ops; mov Rq(d), Rq(hw(r))),
            Loc::Slot(n) => x64!(self.ops; mov Rq(d), QWORD [rbp + slot_disp(n)]),
            Loc::Const(c) => self.mov_imm(dst, const_bits(c)),
        }
    }

    /// Float register `dst` := the value at `from` (constants via `r10`).
    fn load_float(&mut self, dst: Reg, from: Loc) {
        let d = hw(dst);
        match from {
            Loc::Reg(r) if r == dst => {}
            Loc::Reg(r) => x64!(self.ops; movaps Rx(d), Rx(hw(r))),
            Loc::Slot(n) => x64!(self.ops; movsd Rx(d), QWORD [rbp + slot_disp(n)]),
            Loc::Const(c) => {
                self.mov_imm(R10, const_bits(c));
                x64!(self.ops; movq Rx(d), mtmp);
            }
        }
    }

    fn store_slot(&mut self, n: u32, from: Loc, _kind: Kind) {
        self.store_frame(slot_disp(n), from);
    }

    fn store_frame_word(&mut self, word: usize, from: Loc) {
        self.store_frame((word * 8) as i32, from);
    }

    fn cycle_temp(bank: Bank) -> Reg {
        match bank {
            Bank::Int => R11,
            Bank::Float => XMM15,
        }
    }

    fn int_op(&mut self, op: IntOp, dst: Reg, a: Loc, b: Loc) {
        // A sum or difference into a register other than its operands: one
        // `lea` instead of a move and the op (no flags are read after a
        // plain int op; only the `_ovf` forms, which do not come here).
        let k = match (op, b) {
            (IntOp::Add, Loc::Const(c)) => Some(const_bits(c)),
            (IntOp::Sub, Loc::Const(c)) => const_bits(c).checked_neg(),
            _ => None,
        };
        match (op, a, b, k) {
            (_, Loc::Reg(r), _, Some(k)) if r != dst && fits_i32(k) => {
                x64!(self.ops; lea Rq(hw(dst)), [Rq(hw(r)) + k as i32]);
            }
            (IntOp::Add, Loc::Reg(r), Loc::Reg(s), _) if r != dst && s != dst => {
                x64!(self.ops; lea Rq(hw(dst)), [Rq(hw(r)) + Rq(hw(s))]);
            }
            _ => self.int_binop(op, dst, a, b),
        }
    }

    fn ovf_op(&mut self, op: OvfOp, dst: Reg, a: Loc, b: Loc) -> Cond {
        self.int_binop(op.int_op(), dst, a, b);
        Cond::O
    }

    /// Where `idiv`/`div` would trap, the defined results come from
    /// explicit checks.
    fn div_mod(&mut self, is_mod: bool, signed: bool, dst: Reg, a: Loc, b: Loc) {
        if let Loc::Const(c) = b {
            let v = const_bits(c);
            if v == 0 || (signed && v == -1) {
                match (is_mod, v) {
                    (false, 0) | (true, -1) => self.mov_imm(dst, 0),
                    (true, _) => self.load_int(dst, a),
                    (false, _) => {
                        self.load_int(dst, a);
                        x64!(self.ops; neg Rq(hw(dst)));
                    }
                }
                return;
            }
            if let Some(magic) = signed.then(|| crate::emit::plan::signed_magic(v)).flatten() {
                return self.div_by_constant(is_mod, dst, a, v, magic);
            }
        }
        self.load_int(R11, b);
        self.load_int(regs::RAX, a);
        let checks = !matches!(b, Loc::Const(_));
        if checks {
            x64!(self.ops; test tmp, tmp; jz >zero);
            if signed {
                x64!(self.ops; cmp tmp, -1; je >minus_one);
            }
        }
        if signed {
            x64!(self.ops; cqo; idiv tmp);
        } else {
            x64!(self.ops; xor edx, edx; div tmp);
        }
        if is_mod {
            x64!(self.ops; mov rax, rdx);
        }
        if checks {
            self.div_mod_edge_cases(is_mod, signed);
        }
        self.load_int(dst, Loc::Reg(regs::RAX));
    }

    fn shift(&mut self, op: ShiftOp, dst: Reg, a: Loc, count: Loc) {
        let d = hw(dst);
        if let Loc::Const(c) = count {
            let n = (const_bits(c) & 63) as i8;
            self.load_int(dst, a);
            match op {
                ShiftOp::Left => x64!(self.ops; shl Rq(d), BYTE n),
                ShiftOp::Right => x64!(self.ops; sar Rq(d), BYTE n),
                ShiftOp::UintRight => x64!(self.ops; shr Rq(d), BYTE n),
            }
            return;
        }
        self.load_int(R11, a);
        self.load_int(regs::RCX, count);
        match op {
            ShiftOp::Left => x64!(self.ops; shl tmp, cl),
            ShiftOp::Right => x64!(self.ops; sar tmp, cl),
            ShiftOp::UintRight => x64!(self.ops; shr tmp, cl),
        }
        self.load_int(dst, Loc::Reg(R11));
    }

    fn compare(&mut self, op: CmpOp, dst: Reg, a: Loc, b: Loc) -> Option<Cond> {
        let cond = match op {
            // a < b  <=>  b > a, unordered (NaN) gives false for "above".
            CmpOp::FLt => {
                self.float_cmp(b, a);
                return Some(self.set_flags_result(Cond::A, dst));
            }
            CmpOp::FLe => {
                self.float_cmp(b, a);
                return Some(self.set_flags_result(Cond::Ae, dst));
            }
            CmpOp::FGt => {
                self.float_cmp(a, b);
                return Some(self.set_flags_result(Cond::A, dst));
            }
            CmpOp::FGe => {
                self.float_cmp(a, b);
                return Some(self.set_flags_result(Cond::Ae, dst));
            }
            CmpOp::FEq | CmpOp::FNe => {
                // Equal means ZF=1 and PF=0; not-equal is its negation.
                self.float_cmp(a, b);
                let d = hw(dst);
                if op == CmpOp::FEq {
                    x64!(self.ops; setnp r11b; sete Rb(d); and Rb(d), r11b);
                } else {
                    x64!(self.ops; setp r11b; setne Rb(d); or Rb(d), r11b);
                }
                x64!(self.ops; movzx Rd(d), Rb(d));
                return None;
            }
            CmpOp::FitsTag => {
                self.load_int(R11, a);
                x64!(self.ops; add tmp, tmp);
                return Some(self.set_flags_result(Cond::No, dst));
            }
            CmpOp::Tagged => {
                let r = hw(self.int_reg(a, R11));
                x64!(self.ops; test Rb(r), 1);
                return Some(self.set_flags_result(Cond::Ne, dst));
            }
            CmpOp::FloatTagged => {
                self.load_int(R11, a);
                x64!(self.ops; and tmp, 3; cmp tmp, 2);
                return Some(self.set_flags_result(Cond::E, dst));
            }
            CmpOp::FloatFitsTag => {
                self.float_fits_tag(a);
                return Some(self.set_flags_result(Cond::E, dst));
            }
            CmpOp::IsZero | CmpOp::IsTrue => {
                let r = hw(self.int_reg(a, R11));
                x64!(self.ops; test Rq(r), Rq(r));
                let cond = if op == CmpOp::IsZero {
                    Cond::E
                } else {
                    Cond::Ne
                };
                return Some(self.set_flags_result(cond, dst));
            }
            CmpOp::Lt => Cond::L,
            CmpOp::Le => Cond::Le,
            CmpOp::Gt => Cond::G,
            CmpOp::Ge => Cond::Ge,
            CmpOp::Eq => Cond::E,
            CmpOp::Ne => Cond::Ne,
            CmpOp::ULt => Cond::B,
            CmpOp::ULe => Cond::Be,
            CmpOp::UGt => Cond::A,
            CmpOp::UGe => Cond::Ae,
        };
        self.int_cmp(a, b);
        Some(self.set_flags_result(cond, dst))
    }

    fn float_op(&mut self, op: FloatOp, dst: Reg, a: Loc, b: Loc) {
        let (a, b) = if b == Loc::Reg(dst) && a != Loc::Reg(dst) {
            if op.is_commutative() {
                (b, a)
            } else {
                self.load_float(XMM15, b);
                (a, Loc::Reg(XMM15))
            }
        } else {
            (a, b)
        };
        self.load_float(dst, a);
        let d = hw(dst);
        let rb = hw(self.float_reg(b, XMM14));
        match op {
            FloatOp::Add => x64!(self.ops; addsd Rx(d), Rx(rb)),
            FloatOp::Sub => x64!(self.ops; subsd Rx(d), Rx(rb)),
            FloatOp::Mul => x64!(self.ops; mulsd Rx(d), Rx(rb)),
            FloatOp::Div => x64!(self.ops; divsd Rx(d), Rx(rb)),
        }
    }

    fn unary(&mut self, op: UnaryOp, dst: Reg, a: Loc) {
        let d = hw(dst);
        match op {
            UnaryOp::IntNeg => {
                self.load_int(dst, a);
                x64!(self.ops; neg Rq(d));
            }
            UnaryOp::IntInvert => {
                self.load_int(dst, a);
                x64!(self.ops; not Rq(d));
            }
            UnaryOp::FloatSqrt => {
                let r = hw(self.float_reg(a, XMM15));
                x64!(self.ops; sqrtsd Rx(d), Rx(r));
            }
            UnaryOp::FloatNeg | UnaryOp::FloatAbs => {
                let neg = op == UnaryOp::FloatNeg;
                self.load_float(dst, a);
                self.mov_imm(R10, if neg { i64::MIN } else { i64::MAX });
                x64!(self.ops; movq xmm15, mtmp);
                if neg {
                    x64!(self.ops; xorpd Rx(d), xmm15);
                } else {
                    x64!(self.ops; andpd Rx(d), xmm15);
                }
            }
            UnaryOp::FloatToInt => self.float_to_int(dst, a),
            UnaryOp::IntToFloat => {
                let r = hw(self.int_reg(a, R11));
                x64!(self.ops; cvtsi2sd Rx(d), Rq(r));
            }
            UnaryOp::FloatBits => match a {
                Loc::Reg(r) => x64!(self.ops; movq Rq(d), Rx(hw(r))),
                other => self.load_int(dst, other),
            },
            UnaryOp::BitsToFloat => {
                let r = hw(self.int_reg(a, R11));
                x64!(self.ops; movq Rx(d), Rq(r));
            }
            UnaryOp::IntTag => {
                let r = hw(self.int_reg(a, R11));
                x64!(self.ops; lea Rq(d), [Rq(r) + Rq(r) + 1]);
            }
            UnaryOp::IntUntag => {
                self.load_int(dst, a);
                x64!(self.ops; sar Rq(d), 1);
            }
            UnaryOp::FloatTag => self.float_tag(dst, a),
            UnaryOp::FloatUntag => self.float_untag(dst, a),
            UnaryOp::Copy if is_xmm(dst) => self.load_float(dst, a),
            UnaryOp::Copy => self.load_int(dst, a),
        }
    }

    fn ptr_add(&mut self, dst: Reg, base: Loc, off: Loc) {
        let base = hw(self.int_reg(base, R11));
        match off {
            Loc::Const(c) if fits_i32(const_bits(c)) => {
                x64!(self.ops; lea Rq(hw(dst)), [Rq(base) + const_bits(c) as i32])
            }
            other => {
                let off = hw(self.int_reg(other, R10));
                x64!(self.ops; lea Rq(hw(dst)), [Rq(base) + Rq(off)]);
            }
        }
    }
}
