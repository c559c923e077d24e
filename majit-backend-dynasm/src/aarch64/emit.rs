//! The aarch64 emitter: its state, immediates, moves, and the per-op
//! emitters of arithmetic, comparisons and conversions.
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
use crate::arch::{Assembled, Bank, EmitEnv, Emitter, JumpTarget, Loc, OpCx, PoolWord};
use crate::frame;
use crate::guard::ExitRecord;
use crate::regalloc::moves::{sequentialize, Move};
use dynasmrt::aarch64::Aarch64Relocation;
use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi, VecAssembler};
use majit_ir::{Const, Kind, OpCode};
use majit_metainterp::CompileError;

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

impl Cond {
    /// The condition that holds exactly when `self` does not.
    pub fn negate(self) -> Cond {
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

/// What the condition flags hold after an op.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Flags {
    /// The op that set them.
    pub op: usize,
    /// The condition meaning "the op's boolean result is true" (for
    /// overflow-checked ops: "it overflowed").
    pub cond: Cond,
    /// Set by an `int_*_ovf` op.
    pub overflow: bool,
}

/// Where a pool word's value comes from.
#[derive(Copy, Clone, Debug)]
pub(super) enum PoolSource {
    Abs(usize),
    Label(DynamicLabel),
}

/// A guard's cold stub waiting to be emitted.
pub(super) struct Stub {
    pub label: DynamicLabel,
    pub exit: ExitRecord,
}

/// Emitter state for one trace.
pub struct A64Emitter {
    pub(super) ops: VecAssembler<Aarch64Relocation>,
    pool: Vec<(DynamicLabel, PoolSource)>,
    exit_word: DynamicLabel,
    labels: Vec<(usize, DynamicLabel)>,
    pub(super) stubs: Vec<Stub>,
    /// Exits emitted inline (`finish`): label of the token and the record.
    pub(super) inline_exits: Vec<(DynamicLabel, ExitRecord)>,
    /// The flags the previous op left; cleared by every op that may
    /// change them.
    pub(super) flags: Option<Flags>,
    /// Class words and the GC contract.
    pub(super) env: EmitEnv,
}

/// The 64 bits a constant stands for.
pub(super) fn const_bits(c: Const) -> i64 {
    match c {
        Const::Int(v) => v,
        Const::Ref(v) => v as i64,
        Const::Float(b) => b as i64,
    }
}

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
    /// A fresh emitter for the backend facts `env`.
    pub fn new(env: EmitEnv) -> Self {
        let mut ops = VecAssembler::new(0);
        let exit_word = ops.new_dynamic_label();
        A64Emitter {
            ops,
            pool: vec![(exit_word, PoolSource::Abs(env.exit_routine))],
            exit_word,
            labels: Vec::new(),
            stubs: Vec::new(),
            inline_exits: Vec::new(),
            flags: None,
            env,
        }
    }

    /// A pool word holding `src`; returns its label and index.
    pub(super) fn pool_word(&mut self, src: PoolSource) -> (DynamicLabel, usize) {
        let l = self.ops.new_dynamic_label();
        self.pool.push((l, src));
        (l, self.pool.len() - 1)
    }

    pub(super) fn exit_word(&self) -> DynamicLabel {
        self.exit_word
    }

    // -- immediates and frame access --

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

    /// Integer register `dst` := the value at `from` (uses no scratch).
    pub(super) fn load_int(&mut self, dst: u8, from: Loc) {
        let d = hw(dst);
        match from {
            Loc::Reg(r) if r == dst => {}
            Loc::Reg(r) if is_float(r) => a64!(self.ops; fmov X(d), D(hw(r))),
            Loc::Reg(r) => a64!(self.ops; mov X(d), X(hw(r))),
            Loc::Slot(n) => self.frame_ldr_x(dst, slot_disp(n)),
            Loc::Const(c) => self.mov_imm(dst, const_bits(c)),
        }
    }

    /// Float register `dst` := the value at `from` (may use `x16`).
    pub(super) fn load_float(&mut self, dst: u8, from: Loc) {
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

    /// Spill slot `n` := the value at `from` (uses `x16` and `d30`).
    fn store_slot(&mut self, n: u32, from: Loc) {
        let off = slot_disp(n);
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

    /// Runs a parallel move (cycles broken through `x17`/`d31`).
    pub(super) fn parallel_move(&mut self, moves: &[Move]) -> Result<(), CompileError> {
        let seq = sequentialize(moves, |b| match b {
            Bank::Int => Loc::Reg(X17),
            Bank::Float => Loc::Reg(D31),
        });
        for m in seq {
            self.emit_move(m.from, m.to, m.kind)?;
        }
        Ok(())
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

    fn int_binop(&mut self, op: OpCode, dst: u8, a: Loc, b: Loc) {
        let d = hw(dst);
        let ra = hw(self.int_reg(a, X16));
        let rb = hw(self.int_reg(b, X17));
        match op {
            OpCode::IntMul => a64!(self.ops; mul X(d), X(ra), X(rb)),
            OpCode::IntAnd => a64!(self.ops; and X(d), X(ra), X(rb)),
            OpCode::IntOr => a64!(self.ops; orr X(d), X(ra), X(rb)),
            _ => a64!(self.ops; eor X(d), X(ra), X(rb)),
        }
    }

    /// `int_mul_ovf`: the low half in `dst`, and flags NE exactly when the
    /// high half is not the sign extension of the low half.
    fn mul_ovf(&mut self, dst: u8, a: Loc, b: Loc) {
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

    /// `int_floordiv`/`int_mod`: `sdiv` gives 0 for a zero divisor and
    /// `MIN` for `MIN / -1`, and `a - (a / b) * b` then gives `a` and 0,
    /// exactly the defined results.
    fn int_divmod(&mut self, is_mod: bool, dst: u8, a: Loc, b: Loc) {
        if let (Loc::Const(x), Loc::Const(y)) = (a, b) {
            let (x, y) = (const_bits(x), const_bits(y));
            let q = if y == 0 { 0 } else { x.wrapping_div(y) };
            let v = if is_mod {
                x.wrapping_sub(q.wrapping_mul(y))
            } else {
                q
            };
            return self.mov_imm(dst, v);
        }
        let d = hw(dst);
        let ra = self.int_reg(a, X16);
        let rb = self.int_reg(b, X17);
        let (ha, hb) = (hw(ra), hw(rb));
        if !is_mod {
            a64!(self.ops; sdiv X(d), X(ha), X(hb));
            return;
        }
        let q = hw(if ra == X16 { X17 } else { X16 });
        a64!(self.ops
            ; sdiv X(q), X(ha), X(hb)
            ; msub X(d), X(q), X(hb), X(ha)
        );
    }

    /// Shifts by a register count, which the hardware takes modulo 64.
    fn shift(&mut self, op: OpCode, dst: u8, a: Loc, count: Loc) {
        let d = hw(dst);
        let ra = hw(self.int_reg(a, X16));
        let count = match count {
            Loc::Const(c) => Loc::Const(Const::Int(const_bits(c) & 63)),
            other => other,
        };
        let rc = hw(self.int_reg(count, X17));
        match op {
            OpCode::IntLshift => a64!(self.ops; lslv X(d), X(ra), X(rc)),
            OpCode::IntRshift => a64!(self.ops; asrv X(d), X(ra), X(rc)),
            _ => a64!(self.ops; lsrv X(d), X(ra), X(rc)),
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

    fn compare(&mut self, cx: &OpCx, dst: u8) {
        use OpCode::*;
        let a = cx.args[0];
        let b = cx.args.get(1).copied().unwrap_or(a);
        let cond = match cx.op.opcode {
            IntLt => Cond::Lt,
            IntLe => Cond::Le,
            IntGt => Cond::Gt,
            IntGe => Cond::Ge,
            IntEq | PtrEq => Cond::Eq,
            IntNe | PtrNe => Cond::Ne,
            UintLt => Cond::Lo,
            UintLe => Cond::Ls,
            UintGt => Cond::Hi,
            UintGe => Cond::Hs,
            IntIsZero => Cond::Eq,
            IntIsTrue => Cond::Ne,
            // After `fcmp`, unordered sets C and V: each condition below
            // is false for NaN except NE, as the float ops require.
            FloatLt => Cond::Mi,
            FloatLe => Cond::Ls,
            FloatGt => Cond::Gt,
            FloatGe => Cond::Ge,
            FloatEq => Cond::Eq,
            FloatNe => Cond::Ne,
            _ => unreachable!("compare() called for {}", cx.op.opcode),
        };
        match cx.op.opcode {
            FloatLt | FloatLe | FloatGt | FloatGe | FloatEq | FloatNe => self.float_cmp(a, b),
            IntIsZero | IntIsTrue => self.int_cmp(a, Loc::Const(Const::Int(0))),
            _ => self.int_cmp(a, b),
        }
        self.cset(cond, dst);
        self.flags = Some(Flags {
            op: cx.index,
            cond,
            overflow: false,
        });
    }

    fn float_binop(&mut self, op: OpCode, dst: u8, a: Loc, b: Loc) {
        let d = hw(dst);
        let ra = hw(self.float_reg(a, D30));
        let rb = hw(self.float_reg(b, D31));
        match op {
            OpCode::FloatAdd => a64!(self.ops; fadd D(d), D(ra), D(rb)),
            OpCode::FloatSub => a64!(self.ops; fsub D(d), D(ra), D(rb)),
            OpCode::FloatMul => a64!(self.ops; fmul D(d), D(ra), D(rb)),
            _ => a64!(self.ops; fdiv D(d), D(ra), D(rb)),
        }
    }

    fn unary(&mut self, cx: &OpCx, dst: u8) {
        use OpCode::*;
        let a = cx.args[0];
        let d = hw(dst);
        match cx.op.opcode {
            IntNeg => {
                let r = hw(self.int_reg(a, X16));
                a64!(self.ops; neg X(d), X(r));
            }
            IntInvert => {
                let r = hw(self.int_reg(a, X16));
                a64!(self.ops; mvn X(d), X(r));
            }
            FloatNeg => {
                let r = hw(self.float_reg(a, D30));
                a64!(self.ops; fneg D(d), D(r));
            }
            FloatAbs => {
                let r = hw(self.float_reg(a, D30));
                a64!(self.ops; fabs D(d), D(r));
            }
            // Truncates, saturates and maps NaN to 0, exactly Rust's `as`.
            CastFloatToInt => {
                let r = hw(self.float_reg(a, D30));
                a64!(self.ops; fcvtzs X(d), D(r));
            }
            CastIntToFloat => {
                let r = hw(self.int_reg(a, X16));
                a64!(self.ops; scvtf D(d), X(r));
            }
            ConvertFloatBytesToLonglong => self.load_int(dst, a),
            ConvertLonglongBytesToFloat => self.load_float(dst, a),
            _ => {
                // same_as_*, cast_ptr_to_int, cast_int_to_ptr
                if is_float(dst) {
                    self.load_float(dst, a);
                } else {
                    self.load_int(dst, a);
                }
            }
        }
    }

    fn nursery_ptr_increment(&mut self, dst: u8, base: Loc, off: Loc) {
        self.add_sub(false, false, dst, base, off);
    }

    /// Resolves a dynamic label after `commit`.
    fn resolve(&self, l: DynamicLabel) -> Result<usize, CompileError> {
        self.ops
            .labels()
            .resolve_dynamic(l)
            .map(|o| o.0)
            .map_err(|e| CompileError::ImplLimit(format!("assembler label: {e}")))
    }
}

impl Emitter for A64Emitter {
    fn emit_move(&mut self, from: Loc, to: Loc, _kind: Kind) -> Result<(), CompileError> {
        match to {
            Loc::Reg(r) if is_float(r) => self.load_float(r, from),
            Loc::Reg(r) => self.load_int(r, from),
            Loc::Slot(n) => self.store_slot(n, from),
            Loc::Const(_) => {
                return Err(CompileError::Invalid(format!(
                    "move into a constant from {from:?}"
                )))
            }
        }
        Ok(())
    }

    fn emit_op(&mut self, cx: &OpCx) -> Result<(), CompileError> {
        use OpCode::*;
        self.flags = None;
        let dst = match cx.result {
            Some(Loc::Reg(r)) => r,
            Some(other) => {
                return Err(CompileError::Invalid(format!(
                    "result of {} in {other:?}",
                    cx.op.opcode
                )))
            }
            None => u8::MAX,
        };
        let (a, b) = (cx.args.first().copied(), cx.args.get(1).copied());
        let two = || (a.expect("binary op"), b.expect("binary op"));
        match cx.op.opcode {
            IntAdd | IntSub => {
                let (a, b) = two();
                self.add_sub(cx.op.opcode == IntSub, false, dst, a, b)
            }
            IntAddOvf | IntSubOvf => {
                let (a, b) = two();
                self.add_sub(cx.op.opcode == IntSubOvf, true, dst, a, b);
                self.flags = Some(Flags {
                    op: cx.index,
                    cond: Cond::Vs,
                    overflow: true,
                });
            }
            IntMulOvf => {
                let (a, b) = two();
                self.mul_ovf(dst, a, b);
                self.flags = Some(Flags {
                    op: cx.index,
                    cond: Cond::Ne,
                    overflow: true,
                });
            }
            IntMul | IntAnd | IntOr | IntXor => {
                let (a, b) = two();
                self.int_binop(cx.op.opcode, dst, a, b)
            }
            IntFloorDiv | IntMod => {
                let (a, b) = two();
                self.int_divmod(cx.op.opcode == IntMod, dst, a, b)
            }
            IntLshift | IntRshift | UintRshift => {
                let (a, b) = two();
                self.shift(cx.op.opcode, dst, a, b)
            }
            IntLt | IntLe | IntEq | IntNe | IntGt | IntGe | UintLt | UintLe | UintGt | UintGe
            | PtrEq | PtrNe | FloatLt | FloatLe | FloatEq | FloatNe | FloatGt | FloatGe
            | IntIsZero | IntIsTrue => self.compare(cx, dst),
            FloatAdd | FloatSub | FloatMul | FloatTrueDiv => {
                let (a, b) = two();
                self.float_binop(cx.op.opcode, dst, a, b)
            }
            IntNeg
            | IntInvert
            | FloatNeg
            | FloatAbs
            | CastFloatToInt
            | CastIntToFloat
            | ConvertFloatBytesToLonglong
            | ConvertLonglongBytesToFloat
            | CastPtrToInt
            | CastIntToPtr
            | SameAsI
            | SameAsR
            | SameAsF => self.unary(cx, dst),
            GetfieldGcI | GetfieldGcR | GetfieldGcF | GetfieldRawI | GetfieldRawF
            | GetarrayitemGcI | GetarrayitemGcR | GetarrayitemGcF | GetarrayitemRawI
            | GetarrayitemRawF | RawLoadI | RawLoadF | ArraylenGc => self.load(cx, dst)?,
            SetfieldGc | SetfieldRaw | SetarrayitemGc | SetarrayitemRaw | RawStore => {
                self.store(cx)?
            }
            NurseryPtrIncrement => {
                let (a, b) = two();
                self.nursery_ptr_increment(dst, a, b)
            }
            CallI | CallR | CallF | CallN | CallPureI | CallPureR | CallPureF | CallPureN
            | CallMayForceI | CallMayForceR | CallMayForceF | CallMayForceN => {
                self.call(cx, dst)?
            }
            CallMallocNursery | CallMallocNurseryHeaderless => self.malloc_nursery(cx, dst)?,
            CondCallGcWb | CondCallGcWbArray => self.write_barrier(cx)?,
            CallMallocNurseryVarsize => self.malloc_varsize(cx, dst)?,
            New | NewWithVtable | NewArray | NewArrayClear => {
                return Err(super::unsupported(cx.op, "needs the GC rewrite"))
            }
            GuardTrue | GuardFalse | GuardValue | GuardClass | GuardNonnull | GuardIsnull
            | GuardNonnullClass | GuardNoException | GuardNotInvalidated | GuardNoOverflow
            | GuardOverflow | GuardNotForced | Label | Jump | Finish => {
                return Err(CompileError::Invalid(format!(
                    "{} reached emit_op",
                    cx.op.opcode
                )))
            }
            DebugMergePoint => {}
        }
        Ok(())
    }

    fn emit_guard(&mut self, cx: &OpCx, exit: ExitRecord) -> Result<(), CompileError> {
        self.guard(cx, exit)
    }

    fn emit_label(&mut self, op_index: usize) -> Result<(), CompileError> {
        self.flags = None;
        let l = self.ops.new_dynamic_label();
        a64!(self.ops; =>l);
        self.labels.push((op_index, l));
        Ok(())
    }

    fn emit_jump(&mut self, args: &[(Loc, Kind)], target: &JumpTarget) -> Result<(), CompileError> {
        self.flags = None;
        let moves: Vec<Move> = args
            .iter()
            .zip(&target.locs)
            .map(|(&(from, kind), &to)| Move { from, to, kind })
            .collect();
        self.parallel_move(&moves)?;
        match target.external {
            None => {
                let l = self
                    .labels
                    .iter()
                    .find(|(i, _)| *i == target.label_op)
                    .map(|x| x.1)
                    .ok_or_else(|| {
                        CompileError::UnknownTarget(format!("label op {}", target.label_op))
                    })?;
                a64!(self.ops; b =>l);
            }
            Some(addr) => {
                let (w, _) = self.pool_word(PoolSource::Abs(addr));
                a64!(self.ops; ldr tmp, =>w; br tmp);
            }
        }
        Ok(())
    }

    fn emit_finish(&mut self, exit: ExitRecord) -> Result<(), CompileError> {
        self.flags = None;
        let here = self.ops.new_dynamic_label();
        let w = self.exit_word;
        a64!(self.ops
            ; =>here
            ; adr tmp, =>here
            ; str tmp, [frame, (frame::EXIT * 8) as u32]
            ; ldr tmp, =>w
            ; br tmp
        );
        self.inline_exits.push((here, exit));
        Ok(())
    }

    fn emit_clear_exception(&mut self) -> Result<(), CompileError> {
        a64!(self.ops; str xzr, [frame, (frame::EXCEPTION * 8) as u32]);
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<Assembled, CompileError> {
        self.emit_stubs();
        self.ops.align(8, 0);
        let pool = std::mem::take(&mut self.pool);
        for (l, _) in &pool {
            a64!(self.ops; =>*l; .u64 0);
        }
        let code_len = self.ops.offset().0 - 8 * pool.len();
        self.ops
            .commit()
            .map_err(|e| CompileError::ImplLimit(format!("assembler: {e}")))?;
        let mut words = Vec::with_capacity(pool.len());
        for (_, src) in &pool {
            words.push(match *src {
                PoolSource::Abs(a) => PoolWord::Abs(a),
                PoolSource::Label(l) => PoolWord::Own(self.resolve(l)?),
            });
        }
        let mut labels = Vec::with_capacity(self.labels.len());
        for &(i, l) in &self.labels {
            labels.push((i, self.resolve(l)?));
        }
        let mut exits = Vec::new();
        for s in std::mem::take(&mut self.stubs) {
            let mut e = s.exit;
            e.stub_offset = self.resolve(s.label)?;
            exits.push(e);
        }
        for (l, mut e) in std::mem::take(&mut self.inline_exits) {
            e.stub_offset = self.resolve(l)?;
            exits.push(e);
        }
        exits.sort_by_key(|e| e.number);
        let mut code = self
            .ops
            .take()
            .map_err(|e| CompileError::ImplLimit(format!("assembler: {e}")))?;
        code.truncate(code_len);
        Ok(Assembled {
            code,
            pool: words,
            labels,
            exits,
        })
    }
}

#[cfg(test)]
mod tests {
    //! Encodings: (emitter call, bytes, disassembly) triples. The
    //! disassembly (checked with `aarch64-linux-gnu-objdump` when the
    //! triple was written) documents what the little-endian words mean.
    use super::*;

    fn hex(f: impl FnOnce(&mut A64Emitter)) -> String {
        let mut e = A64Emitter::new(EmitEnv::default());
        f(&mut e);
        e.ops.commit().expect("assembles");
        let bytes = e.ops.take().expect("bytes");
        bytes
            .chunks(4)
            .map(|w| format!("{:08x}", u32::from_le_bytes([w[0], w[1], w[2], w[3]])))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn encodings() {
        let cases: Vec<(&str, String, &str)> = vec![
            ("mov_imm small", hex(|e| e.mov_imm(0, 5)), "d28000a0"), // mov x0, #5
            ("mov_imm -1", hex(|e| e.mov_imm(1, -1)), "92800001"),   // movn x1, #0
            (
                "mov_imm two halves",
                hex(|e| e.mov_imm(2, 0x1234_0000_5678)),
                "d28acf02 f2c24682", // mov x2, #0x5678; movk x2, #0x1234, lsl #32
            ),
            ("mov_imm MIN", hex(|e| e.mov_imm(3, i64::MIN)), "d2f00003"), // movz x3, #0x8000, lsl #48
            (
                "mov_imm mostly ones",
                hex(|e| e.mov_imm(4, 0xffff_ffff_0000_ffff_u64 as i64)),
                "92bfffe4", // movn x4, #0xffff, lsl #16
            ),
            ("near frame word", hex(|e| e.frame_ldr(5, 544)), "f94113a5"), // ldr x5, [x29, #544]
            (
                "far frame word",
                hex(|e| e.frame_ldr(6, 40544)),
                "d293cc06 f8666ba6", // mov x6, #0x9e60; ldr x6, [x29, x6]
            ),
            (
                "far float store",
                hex(|e| e.frame_str(33, 40544)),
                "d293cc10 fc306ba1", // mov x16, #0x9e60; str d1, [x29, x16]
            ),
            (
                "compare with an immediate",
                hex(|e| e.int_cmp(Loc::Reg(0), Loc::Const(Const::Int(7)))),
                "f1001c1f", // cmp x0, #7
            ),
            (
                "compare with a negative immediate",
                hex(|e| e.int_cmp(Loc::Reg(0), Loc::Const(Const::Int(-7)))),
                "b1001c1f", // cmn x0, #7
            ),
            ("cset", hex(|e| e.cset(Cond::Lt, 1)), "9a9fa7e1"), // cset x1, lt
        ];
        for (what, found, expected) in cases {
            assert_eq!(found, expected, "{what}");
        }
    }
}
