//! The x86_64 emitter: its state, moves, and the per-op emitters of
//! arithmetic, comparisons, conversions and memory access.
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
use crate::arch::{Assembled, EmitEnv, Emitter, JumpTarget, Loc, OpCx, PoolWord};
use crate::frame;
use crate::guard::ExitRecord;
use crate::regalloc::moves::{sequentialize, Move};
use dynasmrt::x64::X64Relocation;
use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi, VecAssembler};
use majit_ir::{Const, Kind, OpCode};
use majit_metainterp::CompileError;

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

impl Cond {
    /// The condition that holds exactly when `self` does not.
    pub fn negate(self) -> Cond {
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
pub struct X64Emitter {
    pub(super) ops: VecAssembler<X64Relocation>,
    pool: Vec<(DynamicLabel, PoolSource)>,
    exit_word: DynamicLabel,
    labels: Vec<(usize, DynamicLabel)>,
    pub(super) stubs: Vec<Stub>,
    /// Exits emitted inline (`finish`): label of the token and the record.
    pub(super) inline_exits: Vec<(DynamicLabel, ExitRecord)>,
    /// The op whose comparison set the flags, and the condition its
    /// result means; cleared by every op that may change the flags.
    pub(super) flags: Option<(usize, Cond)>,
    /// Class words and the GC contract.
    pub(super) env: EmitEnv,
}

pub(super) fn fits_i32(v: i64) -> bool {
    v == v as i32 as i64
}

/// The 64 bits a constant stands for.
pub(super) fn const_bits(c: Const) -> i64 {
    match c {
        Const::Int(v) => v,
        Const::Ref(v) => v as i64,
        Const::Float(b) => b as i64,
    }
}

pub(super) fn slot_disp(n: u32) -> i32 {
    frame::spill_offset(&regs::REG_FILE, n)
}

impl X64Emitter {
    /// A fresh emitter for the backend facts `env`.
    pub fn new(env: EmitEnv) -> Self {
        let mut ops = VecAssembler::new(0);
        let exit_word = ops.new_dynamic_label();
        X64Emitter {
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

    /// A pool word holding `src`; returns its label.
    pub(super) fn pool_word(&mut self, src: PoolSource) -> (DynamicLabel, usize) {
        let l = self.ops.new_dynamic_label();
        self.pool.push((l, src));
        (l, self.pool.len() - 1)
    }

    pub(super) fn exit_word(&self) -> DynamicLabel {
        self.exit_word
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

    /// Integer register `dst` := the value at `from`.
    pub(super) fn load_int(&mut self, dst: u8, from: Loc) {
        let d = hw(dst);
        match from {
            Loc::Reg(r) if r == dst => {}
            Loc::Reg(r) => x64!(self.ops; mov Rq(d), Rq(hw(r))),
            Loc::Slot(n) => x64!(self.ops; mov Rq(d), QWORD [rbp + slot_disp(n)]),
            Loc::Const(c) => self.mov_imm(dst, const_bits(c)),
        }
    }

    /// Float register `dst` := the value at `from` (constants via `r10`).
    pub(super) fn load_float(&mut self, dst: u8, from: Loc) {
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

    fn store_slot(&mut self, n: u32, from: Loc, kind: Kind) {
        let disp = slot_disp(n);
        match from {
            Loc::Reg(r) if is_xmm(r) => x64!(self.ops; movsd QWORD [rbp + disp], Rx(hw(r))),
            Loc::Reg(r) => x64!(self.ops; mov QWORD [rbp + disp], Rq(hw(r))),
            Loc::Const(c) if fits_i32(const_bits(c)) => {
                x64!(self.ops; mov QWORD [rbp + disp], DWORD const_bits(c) as i32)
            }
            _ => {
                let _ = kind;
                self.load_int(R10, from);
                x64!(self.ops; mov QWORD [rbp + disp], mtmp);
            }
        }
    }

    /// Runs a parallel move (cycles broken through `r11`/`xmm15`).
    pub(super) fn parallel_move(&mut self, moves: &[Move]) -> Result<(), CompileError> {
        let seq = sequentialize(moves, |b| match b {
            crate::arch::Bank::Int => Loc::Reg(R11),
            crate::arch::Bank::Float => Loc::Reg(XMM15),
        });
        for m in seq {
            self.emit_move(m.from, m.to, m.kind)?;
        }
        Ok(())
    }

    // -- arithmetic --

    fn int_binop(&mut self, op: OpCode, dst: u8, a: Loc, b: Loc) {
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
                    OpCode::IntAdd | OpCode::IntAddOvf => x64!(self.ops; add Rq(d), DWORD v),
                    OpCode::IntSub | OpCode::IntSubOvf => x64!(self.ops; sub Rq(d), DWORD v),
                    OpCode::IntMul | OpCode::IntMulOvf => {
                        x64!(self.ops; imul Rq(d), Rq(d), DWORD v)
                    }
                    OpCode::IntAnd => x64!(self.ops; and Rq(d), DWORD v),
                    OpCode::IntOr => x64!(self.ops; or Rq(d), DWORD v),
                    _ => x64!(self.ops; xor Rq(d), DWORD v),
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
            OpCode::IntAdd | OpCode::IntAddOvf => x64!(self.ops; add Rq(d), Rq(b)),
            OpCode::IntSub | OpCode::IntSubOvf => x64!(self.ops; sub Rq(d), Rq(b)),
            OpCode::IntMul | OpCode::IntMulOvf => x64!(self.ops; imul Rq(d), Rq(b)),
            OpCode::IntAnd => x64!(self.ops; and Rq(d), Rq(b)),
            OpCode::IntOr => x64!(self.ops; or Rq(d), Rq(b)),
            _ => x64!(self.ops; xor Rq(d), Rq(b)),
        }
    }

    /// `int_floordiv`/`int_mod` with the defined results for a zero
    /// divisor and `MIN / -1` (where `idiv` would trap).
    fn int_divmod(&mut self, is_mod: bool, dst: u8, a: Loc, b: Loc) {
        if let Loc::Const(c) = b {
            let v = const_bits(c);
            if v == 0 || v == -1 {
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
        }
        self.load_int(R11, b);
        self.load_int(regs::RAX, a);
        let checks = !matches!(b, Loc::Const(_));
        if checks {
            x64!(self.ops
                ; test tmp, tmp
                ; jz >zero
                ; cmp tmp, -1
                ; je >minus_one
            );
        }
        x64!(self.ops; cqo; idiv tmp);
        if is_mod {
            x64!(self.ops; mov rax, rdx);
        }
        if checks {
            x64!(self.ops; jmp >done; zero:);
            if !is_mod {
                x64!(self.ops; mov eax, 0);
            }
            x64!(self.ops; jmp >done; minus_one:);
            if is_mod {
                x64!(self.ops; mov eax, 0);
            } else {
                x64!(self.ops; neg rax);
            }
            x64!(self.ops; done:);
        }
        self.load_int(dst, Loc::Reg(regs::RAX));
    }

    fn shift(&mut self, op: OpCode, dst: u8, a: Loc, count: Loc) {
        let d = hw(dst);
        if let Loc::Const(c) = count {
            let n = (const_bits(c) & 63) as i8;
            self.load_int(dst, a);
            match op {
                OpCode::IntLshift => x64!(self.ops; shl Rq(d), BYTE n),
                OpCode::IntRshift => x64!(self.ops; sar Rq(d), BYTE n),
                _ => x64!(self.ops; shr Rq(d), BYTE n),
            }
            return;
        }
        self.load_int(R11, a);
        self.load_int(regs::RCX, count);
        match op {
            OpCode::IntLshift => x64!(self.ops; shl tmp, cl),
            OpCode::IntRshift => x64!(self.ops; sar tmp, cl),
            _ => x64!(self.ops; shr tmp, cl),
        }
        self.load_int(dst, Loc::Reg(R11));
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

    fn compare(&mut self, cx: &OpCx, dst: u8) {
        use OpCode::*;
        let a = cx.args[0];
        let b = cx.args.get(1).copied().unwrap_or(a);
        let cond = match cx.op.opcode {
            IntLt => Cond::L,
            IntLe => Cond::Le,
            IntGt => Cond::G,
            IntGe => Cond::Ge,
            IntEq | PtrEq => Cond::E,
            IntNe | PtrNe => Cond::Ne,
            UintLt => Cond::B,
            UintLe => Cond::Be,
            UintGt => Cond::A,
            UintGe => Cond::Ae,
            // a < b  <=>  b > a, unordered (NaN) gives false for "above".
            FloatLt => {
                self.float_cmp(b, a);
                return self.set_flags_result(cx.index, Cond::A, dst);
            }
            FloatLe => {
                self.float_cmp(b, a);
                return self.set_flags_result(cx.index, Cond::Ae, dst);
            }
            FloatGt => {
                self.float_cmp(a, b);
                return self.set_flags_result(cx.index, Cond::A, dst);
            }
            FloatGe => {
                self.float_cmp(a, b);
                return self.set_flags_result(cx.index, Cond::Ae, dst);
            }
            FloatEq | FloatNe => {
                // Equal means ZF=1 and PF=0; not-equal is its negation.
                self.float_cmp(a, b);
                let d = hw(dst);
                if cx.op.opcode == FloatEq {
                    x64!(self.ops; setnp r11b; sete Rb(d); and Rb(d), r11b);
                } else {
                    x64!(self.ops; setp r11b; setne Rb(d); or Rb(d), r11b);
                }
                x64!(self.ops; movzx Rd(d), Rb(d));
                return;
            }
            IntIsZero | IntIsTrue => {
                let r = hw(self.int_reg(a, R11));
                x64!(self.ops; test Rq(r), Rq(r));
                let cond = if cx.op.opcode == IntIsZero {
                    Cond::E
                } else {
                    Cond::Ne
                };
                return self.set_flags_result(cx.index, cond, dst);
            }
            _ => unreachable!("compare() called for {}", cx.op.opcode),
        };
        self.int_cmp(a, b);
        self.set_flags_result(cx.index, cond, dst);
    }

    /// Materialises the flags as 0/1 in `dst` (without changing them) and
    /// remembers them for a following guard.
    fn set_flags_result(&mut self, index: usize, cond: Cond, dst: u8) {
        self.setcc(cond, dst);
        x64!(self.ops; movzx Rd(hw(dst)), Rb(hw(dst)));
        self.flags = Some((index, cond));
    }

    fn float_binop(&mut self, op: OpCode, dst: u8, a: Loc, b: Loc) {
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
            OpCode::FloatAdd => x64!(self.ops; addsd Rx(d), Rx(rb)),
            OpCode::FloatSub => x64!(self.ops; subsd Rx(d), Rx(rb)),
            OpCode::FloatMul => x64!(self.ops; mulsd Rx(d), Rx(rb)),
            _ => x64!(self.ops; divsd Rx(d), Rx(rb)),
        }
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

    fn unary(&mut self, cx: &OpCx, dst: u8) {
        use OpCode::*;
        let a = cx.args[0];
        let d = hw(dst);
        match cx.op.opcode {
            IntNeg => {
                self.load_int(dst, a);
                x64!(self.ops; neg Rq(d));
            }
            IntInvert => {
                self.load_int(dst, a);
                x64!(self.ops; not Rq(d));
            }
            FloatNeg | FloatAbs => {
                let neg = cx.op.opcode == FloatNeg;
                self.load_float(dst, a);
                self.mov_imm(R10, if neg { i64::MIN } else { i64::MAX });
                x64!(self.ops; movq xmm15, mtmp);
                if neg {
                    x64!(self.ops; xorpd Rx(d), xmm15);
                } else {
                    x64!(self.ops; andpd Rx(d), xmm15);
                }
            }
            CastFloatToInt => self.float_to_int(dst, a),
            CastIntToFloat => {
                let r = hw(self.int_reg(a, R11));
                x64!(self.ops; cvtsi2sd Rx(d), Rq(r));
            }
            ConvertFloatBytesToLonglong => match a {
                Loc::Reg(r) => x64!(self.ops; movq Rq(d), Rx(hw(r))),
                other => self.load_int(dst, other),
            },
            ConvertLonglongBytesToFloat => {
                let r = hw(self.int_reg(a, R11));
                x64!(self.ops; movq Rx(d), Rq(r));
            }
            _ => {
                // same_as_*, cast_ptr_to_int, cast_int_to_ptr
                if is_xmm(dst) {
                    self.load_float(dst, a);
                } else {
                    self.load_int(dst, a);
                }
            }
        }
    }
}

impl Emitter for X64Emitter {
    fn emit_move(&mut self, from: Loc, to: Loc, kind: Kind) -> Result<(), CompileError> {
        match to {
            Loc::Reg(r) if is_xmm(r) => self.load_float(r, from),
            Loc::Reg(r) => self.load_int(r, from),
            Loc::Slot(n) => self.store_slot(n, from, kind),
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
        match cx.op.opcode {
            IntAdd | IntSub | IntMul | IntAnd | IntOr | IntXor => {
                self.int_binop(cx.op.opcode, dst, cx.args[0], cx.args[1])
            }
            IntAddOvf | IntSubOvf | IntMulOvf => {
                self.int_binop(cx.op.opcode, dst, cx.args[0], cx.args[1]);
                self.flags = Some((cx.index, Cond::O));
            }
            IntFloorDiv | IntMod => {
                self.int_divmod(cx.op.opcode == IntMod, dst, cx.args[0], cx.args[1])
            }
            IntLshift | IntRshift | UintRshift => {
                self.shift(cx.op.opcode, dst, cx.args[0], cx.args[1])
            }
            IntLt | IntLe | IntEq | IntNe | IntGt | IntGe | UintLt | UintLe | UintGt | UintGe
            | PtrEq | PtrNe | FloatLt | FloatLe | FloatEq | FloatNe | FloatGt | FloatGe
            | IntIsZero | IntIsTrue => self.compare(cx, dst),
            FloatAdd | FloatSub | FloatMul | FloatTrueDiv => {
                self.float_binop(cx.op.opcode, dst, cx.args[0], cx.args[1])
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
                let base = hw(self.int_reg(cx.args[0], R11));
                match cx.args[1] {
                    Loc::Const(c) if fits_i32(const_bits(c)) => {
                        x64!(self.ops; lea Rq(hw(dst)), [Rq(base) + const_bits(c) as i32])
                    }
                    other => {
                        let off = hw(self.int_reg(other, R10));
                        x64!(self.ops; lea Rq(hw(dst)), [Rq(base) + Rq(off)]);
                    }
                }
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
        x64!(self.ops; =>l);
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
                x64!(self.ops; jmp =>l);
            }
            Some(addr) => {
                let (w, _) = self.pool_word(PoolSource::Abs(addr));
                x64!(self.ops; jmp QWORD [=>w]);
            }
        }
        Ok(())
    }

    fn emit_finish(&mut self, exit: ExitRecord) -> Result<(), CompileError> {
        self.flags = None;
        let here = self.ops.new_dynamic_label();
        let w = self.exit_word;
        x64!(self.ops
            ; =>here
            ; lea tmp, [=>here]
            ; mov QWORD [rbp + (frame::EXIT * 8) as i32], tmp
            ; jmp QWORD [=>w]
        );
        self.inline_exits.push((here, exit));
        Ok(())
    }

    fn emit_clear_exception(&mut self) -> Result<(), CompileError> {
        x64!(self.ops; mov QWORD [rbp + (frame::EXCEPTION * 8) as i32], 0);
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<Assembled, CompileError> {
        self.emit_stubs();
        self.ops.align(8, 0xcc);
        let pool = std::mem::take(&mut self.pool);
        for (l, _) in &pool {
            x64!(self.ops; =>*l; .u64 0);
        }
        let code_len = self.ops.offset().0 - 8 * pool.len();
        self.ops
            .commit()
            .map_err(|e| CompileError::ImplLimit(format!("assembler: {e}")))?;
        let resolve = |ops: &VecAssembler<X64Relocation>, l: DynamicLabel| {
            ops.labels()
                .resolve_dynamic(l)
                .map(|o| o.0)
                .map_err(|e| CompileError::ImplLimit(format!("assembler label: {e}")))
        };
        let mut words = Vec::with_capacity(pool.len());
        for (_, src) in &pool {
            words.push(match *src {
                PoolSource::Abs(a) => PoolWord::Abs(a),
                PoolSource::Label(l) => PoolWord::Own(resolve(&self.ops, l)?),
            });
        }
        let mut labels = Vec::with_capacity(self.labels.len());
        for &(i, l) in &self.labels {
            labels.push((i, resolve(&self.ops, l)?));
        }
        let mut exits = Vec::new();
        for s in std::mem::take(&mut self.stubs) {
            let mut e = s.exit;
            e.stub_offset = resolve(&self.ops, s.label)?;
            exits.push(e);
        }
        for (l, mut e) in std::mem::take(&mut self.inline_exits) {
            e.stub_offset = resolve(&self.ops, l)?;
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
    //! disassembly (checked with objdump when the triple was written)
    //! documents what the bytes mean.
    use super::*;
    use crate::x86_64::regs::{R8, RAX, RCX, RSI};

    fn hex(f: impl FnOnce(&mut X64Emitter)) -> String {
        let mut e = X64Emitter::new(EmitEnv::default());
        f(&mut e);
        e.ops.commit().expect("assembles");
        let bytes = e.ops.take().expect("bytes");
        bytes
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn encodings() {
        let cases: Vec<(&str, String, &str)> = vec![
            (
                "mov_imm small",
                hex(|e| e.mov_imm(RAX, 5)),
                "48 c7 c0 05 00 00 00",
            ), // mov rax, 5
            (
                "mov_imm u32",
                hex(|e| e.mov_imm(R8, 0xffff_ffff)),
                "41 b8 ff ff ff ff",
            ), // mov r8d, 0xffffffff
            (
                "mov_imm i64",
                hex(|e| e.mov_imm(RCX, i64::MIN)),
                "48 b9 00 00 00 00 00 00 00 80", // movabs rcx, 0x8000000000000000
            ),
            (
                "reload a slot",
                hex(|e| e.load_int(RSI, Loc::Slot(0))),
                "48 8b b5 30 01 00 00", // mov rsi, [rbp + 0x130]
            ),
            (
                "spill a float",
                hex(|e| {
                    e.emit_move(Loc::Reg(17), Loc::Slot(1), Kind::Float)
                        .unwrap()
                }),
                // movsd [rbp + 0x138], xmm1 (dynasm adds an empty REX
                // prefix for dynamic registers)
                "f2 40 0f 11 8d 38 01 00 00",
            ),
            (
                "setcc on sil",
                hex(|e| e.setcc(Cond::L, RSI)),
                "40 0f 9c c6",
            ), // setl sil
            (
                "compare with an immediate",
                hex(|e| e.int_cmp(Loc::Reg(RAX), Loc::Const(Const::Int(7)))),
                "48 81 f8 07 00 00 00", // cmp rax, 7
            ),
        ];
        for (what, found, expected) in cases {
            assert_eq!(found, expected, "{what}");
        }
    }
}
