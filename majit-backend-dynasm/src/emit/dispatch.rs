//! The one per-op dispatch ([`family`]: every opcode, no catch-all) and
//! the [`Emitter`] every [`Encoder`] is: moves, the op families, guards
//! (fused with a preceding comparison), jumps, exits, stubs and the GC
//! sequences, each in terms of encoder methods.

use super::buffer::{Asm, Flags, PoolSource, Stub};
use super::{
    plan, Bump, CallEncoder, CondCode, DirectEncoder, Encoder, GcEncoder, GuardEncoder,
    MemoryEncoder,
};
use crate::arch::{Assembled, Emitter, JumpTarget, Loc, OpCx, Reg};
use crate::frame;
use crate::gcmap;
use crate::guard::ExitRecord;
use crate::regalloc::moves::{sequentialize, Move};
use dynasmrt::relocations::Relocation;
use dynasmrt::DynasmLabelApi;
use majit_gc::JitGcInfo;
use majit_ir::{Const, Kind, OpCode, RefTarget};
use majit_metainterp::CompileError;

/// Two-operand integer ops.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IntOp {
    Add,
    Sub,
    Mul,
    And,
    Or,
    Xor,
}

impl IntOp {
    /// Whether the operands may be swapped.
    pub fn is_commutative(self) -> bool {
        !matches!(self, IntOp::Sub)
    }
}

/// Overflow-checked integer ops.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OvfOp {
    Add,
    Sub,
    Mul,
}

impl OvfOp {
    /// The same op without the check.
    pub fn int_op(self) -> IntOp {
        match self {
            OvfOp::Add => IntOp::Add,
            OvfOp::Sub => IntOp::Sub,
            OvfOp::Mul => IntOp::Mul,
        }
    }
}

/// Shifts.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ShiftOp {
    Left,
    /// Arithmetic right shift.
    Right,
    /// Logical right shift.
    UintRight,
}

/// Comparisons producing 0/1 (`ptr_eq`/`ptr_ne` are `Eq`/`Ne`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Lt,
    Le,
    Eq,
    Ne,
    Gt,
    Ge,
    ULt,
    ULe,
    UGt,
    UGe,
    FLt,
    FLe,
    FEq,
    FNe,
    FGt,
    FGe,
    /// `int_is_zero(a)`.
    IsZero,
    /// `int_is_true(a)`.
    IsTrue,
    /// `int_fits_tag(a)`: `a + a` does not overflow.
    FitsTag,
    /// `ptr_is_tagged(a)`: the low bit is set (a comparison, so the
    /// guard testing it branches on the flags).
    Tagged,
    /// `ptr_is_float_tagged(a)`: the low two bits are `10`.
    FloatTagged,
    /// `float_fits_tag(a)`: the exponent in the middle range.
    FloatFitsTag,
}

/// Two-operand float ops.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FloatOp {
    Add,
    Sub,
    Mul,
    Div,
}

impl FloatOp {
    /// Whether the operands may be swapped.
    pub fn is_commutative(self) -> bool {
        matches!(self, FloatOp::Add | FloatOp::Mul)
    }
}

/// One-operand ops.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    IntNeg,
    IntInvert,
    FloatNeg,
    FloatAbs,
    FloatSqrt,
    /// `cast_float_to_int`: truncation that saturates, NaN giving 0.
    FloatToInt,
    IntToFloat,
    /// `convert_float_bytes_to_longlong`.
    FloatBits,
    /// `convert_longlong_bytes_to_float`.
    BitsToFloat,
    /// `same_as_*`, `cast_ptr_to_int`, `cast_int_to_ptr`: a move.
    Copy,
    /// `int_tag`: `2v + 1`.
    IntTag,
    /// `int_untag`: an arithmetic shift right by one.
    IntUntag,
    /// `float_tag`: `majit_ir::flonum`'s rotation.
    FloatTag,
    /// `float_untag`: the inverse rotation.
    FloatUntag,
}

/// What the address of a memory op indexes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Access {
    /// `base + offset` (fields, array lengths).
    Field,
    /// `base + offset + index * item size`.
    Array,
    /// `base + index` in bytes (plus the descr's offset).
    Raw,
}

impl Access {
    /// The index argument of `cx`'s memory op, if it has one (the second).
    pub fn index(self, cx: &OpCx) -> Option<Loc> {
        match self {
            Access::Field => None,
            Access::Array | Access::Raw => Some(cx.args[1]),
        }
    }
}

/// Guards (what each tests is in [`Emitter::emit_guard`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GuardOp {
    True,
    False,
    Nonnull,
    Isnull,
    Value,
    Class { nonnull: bool },
    NoOverflow,
    Overflow,
    NoException,
    Exception,
    NotForced,
    NotInvalidated,
}

/// How an op is emitted.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Family {
    Int(IntOp),
    Ovf(OvfOp),
    DivMod {
        is_mod: bool,
        signed: bool,
    },
    Shift(ShiftOp),
    Compare(CmpOp),
    Float(FloatOp),
    Unary(UnaryOp),
    Load(Access),
    Store(Access),
    PtrAdd,
    Call,
    /// `call_assembler_*`: a call, or a direct entry of the callee's code.
    CallAssembler,
    MallocNursery,
    MallocVarsize,
    WriteBarrier,
    /// `cond_call_gc_collect`: a collection when the heap asked for one.
    CollectPoll,
    /// `save_exception_*`: take the pending exception.
    SaveException,
    Guard(GuardOp),
    /// `label`, `jump`, `finish`: the driver's (`emit_label`, ...).
    Control,
    /// Emits nothing.
    Nop,
    /// Never compiled, for the reason given.
    Unsupported(&'static str),
}

/// The family of `opcode`. Every opcode has an arm: a new op is a
/// compile error here until it is given a family.
pub fn family(opcode: OpCode) -> Family {
    use Family as F;
    use OpCode::*;
    match opcode {
        IntAdd => F::Int(IntOp::Add),
        IntSub => F::Int(IntOp::Sub),
        IntMul => F::Int(IntOp::Mul),
        IntAnd => F::Int(IntOp::And),
        IntOr => F::Int(IntOp::Or),
        IntXor => F::Int(IntOp::Xor),
        IntAddOvf => F::Ovf(OvfOp::Add),
        IntSubOvf => F::Ovf(OvfOp::Sub),
        IntMulOvf => F::Ovf(OvfOp::Mul),
        IntFloorDiv => F::DivMod {
            is_mod: false,
            signed: true,
        },
        IntMod => F::DivMod {
            is_mod: true,
            signed: true,
        },
        UintFloorDiv => F::DivMod {
            is_mod: false,
            signed: false,
        },
        UintMod => F::DivMod {
            is_mod: true,
            signed: false,
        },
        IntLshift => F::Shift(ShiftOp::Left),
        IntRshift => F::Shift(ShiftOp::Right),
        UintRshift => F::Shift(ShiftOp::UintRight),
        IntLt => F::Compare(CmpOp::Lt),
        IntLe => F::Compare(CmpOp::Le),
        IntEq | PtrEq => F::Compare(CmpOp::Eq),
        IntNe | PtrNe => F::Compare(CmpOp::Ne),
        IntGt => F::Compare(CmpOp::Gt),
        IntGe => F::Compare(CmpOp::Ge),
        UintLt => F::Compare(CmpOp::ULt),
        UintLe => F::Compare(CmpOp::ULe),
        UintGt => F::Compare(CmpOp::UGt),
        UintGe => F::Compare(CmpOp::UGe),
        FloatLt => F::Compare(CmpOp::FLt),
        FloatLe => F::Compare(CmpOp::FLe),
        FloatEq => F::Compare(CmpOp::FEq),
        FloatNe => F::Compare(CmpOp::FNe),
        FloatGt => F::Compare(CmpOp::FGt),
        FloatGe => F::Compare(CmpOp::FGe),
        IntIsZero => F::Compare(CmpOp::IsZero),
        IntIsTrue => F::Compare(CmpOp::IsTrue),
        IntFitsTag => F::Compare(CmpOp::FitsTag),
        FloatAdd => F::Float(FloatOp::Add),
        FloatSub => F::Float(FloatOp::Sub),
        FloatMul => F::Float(FloatOp::Mul),
        FloatTrueDiv => F::Float(FloatOp::Div),
        IntNeg => F::Unary(UnaryOp::IntNeg),
        IntInvert => F::Unary(UnaryOp::IntInvert),
        FloatNeg => F::Unary(UnaryOp::FloatNeg),
        FloatAbs => F::Unary(UnaryOp::FloatAbs),
        FloatSqrt => F::Unary(UnaryOp::FloatSqrt),
        CastFloatToInt => F::Unary(UnaryOp::FloatToInt),
        CastIntToFloat => F::Unary(UnaryOp::IntToFloat),
        ConvertFloatBytesToLonglong => F::Unary(UnaryOp::FloatBits),
        ConvertLonglongBytesToFloat => F::Unary(UnaryOp::BitsToFloat),
        CastPtrToInt | CastIntToPtr | SameAsI | SameAsR | SameAsF => F::Unary(UnaryOp::Copy),
        IntTag => F::Unary(UnaryOp::IntTag),
        IntUntag => F::Unary(UnaryOp::IntUntag),
        PtrIsTagged => F::Compare(CmpOp::Tagged),
        FloatTag => F::Unary(UnaryOp::FloatTag),
        FloatUntag => F::Unary(UnaryOp::FloatUntag),
        PtrIsFloatTagged => F::Compare(CmpOp::FloatTagged),
        FloatFitsTag => F::Compare(CmpOp::FloatFitsTag),
        GetfieldGcI | GetfieldGcR | GetfieldGcF | GetfieldRawI | GetfieldRawF | ArraylenGc => {
            F::Load(Access::Field)
        }
        GetarrayitemGcI | GetarrayitemGcR | GetarrayitemGcF | GetarrayitemRawI
        | GetarrayitemRawF => F::Load(Access::Array),
        RawLoadI | RawLoadF => F::Load(Access::Raw),
        SetfieldGc | SetfieldRaw => F::Store(Access::Field),
        SetarrayitemGc | SetarrayitemRaw => F::Store(Access::Array),
        RawStore => F::Store(Access::Raw),
        NurseryPtrIncrement => F::PtrAdd,
        CallI | CallR | CallF | CallN | CallPureI | CallPureR | CallPureF | CallPureN
        | CallMayForceI | CallMayForceR | CallMayForceF | CallMayForceN => F::Call,
        // A call of the runner trampoline with the callee's token, which
        // enters the callee's compiled code (`majit_metainterp::callasm`).
        CallAssemblerI | CallAssemblerR | CallAssemblerF | CallAssemblerN => F::CallAssembler,
        CallMallocNursery | CallMallocNurseryHeaderless => F::MallocNursery,
        CallMallocNurseryVarsize => F::MallocVarsize,
        CondCallGcWb | CondCallGcWbArray => F::WriteBarrier,
        CondCallGcCollect => F::CollectPoll,
        New | NewWithVtable | NewArray | NewArrayClear => F::Unsupported("needs the GC rewrite"),
        GuardTrue => F::Guard(GuardOp::True),
        GuardFalse => F::Guard(GuardOp::False),
        GuardNonnull => F::Guard(GuardOp::Nonnull),
        GuardIsnull => F::Guard(GuardOp::Isnull),
        GuardValue => F::Guard(GuardOp::Value),
        GuardClass => F::Guard(GuardOp::Class { nonnull: false }),
        GuardNonnullClass => F::Guard(GuardOp::Class { nonnull: true }),
        GuardNoOverflow => F::Guard(GuardOp::NoOverflow),
        GuardOverflow => F::Guard(GuardOp::Overflow),
        GuardNoException => F::Guard(GuardOp::NoException),
        GuardException => F::Guard(GuardOp::Exception),
        SaveExceptionI | SaveExceptionR => F::SaveException,
        GuardNotForced => F::Guard(GuardOp::NotForced),
        GuardNotInvalidated => F::Guard(GuardOp::NotInvalidated),
        Label | Jump | Finish => F::Control,
        DebugMergePoint | QuasiimmutField => F::Nop,
    }
}

/// The null frame argument of the GC entry points: the frame is
/// registered for the whole run.
const NULL: Loc = Loc::Const(Const::Int(0));

impl<R: Relocation, C: CondCode> Asm<R, C>
where
    Self: Encoder<Cond = C>,
{
    /// Runs a parallel move (cycles broken through the cycle temporaries).
    pub(crate) fn parallel_move(&mut self, moves: &[Move]) -> Result<(), CompileError> {
        for m in sequentialize(moves, |b| Loc::Reg(Self::cycle_temp(b))) {
            self.emit_move(m.from, m.to, m.kind)?;
        }
        Ok(())
    }

    /// `call_malloc_nursery*`: the inline bump, else the GC's slow path.
    fn malloc_nursery(&mut self, cx: &OpCx, dst: Reg) -> Result<(), CompileError> {
        let gc = plan::gc(&self.env, cx)?;
        let p = plan::nursery(cx, &gc)?;
        self.load_int(Self::SCRATCH, cx.args[0]);
        let (slow, done) = (self.ops.new_dynamic_label(), self.ops.new_dynamic_label());
        if !p.always_slow {
            let at = Bump {
                free: p.free,
                top: p.top,
                slow,
                done,
            };
            self.nursery_bump(cx, dst, at)?;
        }
        self.ops.dynamic_label(slow);
        let second = match p.slow_arg {
            Some(id) => Loc::Const(Const::Int(id)),
            None => Loc::Reg(Self::SCRATCH),
        };
        let a = &Self::REGS.int_args;
        let args = [(a[1], second), (a[2], NULL)];
        self.slow_call(cx, &gc, p.slow_fn, &args, true, Some(dst))?;
        self.ops.dynamic_label(done);
        Ok(())
    }

    /// `cond_call_gc_wb(obj)` and `cond_call_gc_wb_array(obj, index)`
    /// (the array form records the whole object).
    fn write_barrier(&mut self, cx: &OpCx) -> Result<(), CompileError> {
        let gc = plan::gc(&self.env, cx)?;
        self.load_int(Self::SCRATCH, cx.args[0]);
        let done = self.ops.new_dynamic_label();
        self.card_test(cx, &gc, done)?;
        let args = [(Self::REGS.int_args[1], Loc::Reg(Self::SCRATCH))];
        self.slow_call(cx, &gc, gc.write_barrier_fn, &args, false, None)?;
        self.ops.dynamic_label(done);
        Ok(())
    }

    /// `cond_call_gc_collect()`: the GC's collection, when the heap's
    /// request flag is set.
    fn collect_poll(&mut self, cx: &OpCx) -> Result<(), CompileError> {
        let gc = plan::gc(&self.env, cx)?;
        let done = self.ops.new_dynamic_label();
        self.flag_test(gc.collect_requested_addr, done);
        let args = [(Self::REGS.int_args[1], NULL)];
        self.slow_call(cx, &gc, gc.collect_fn, &args, true, None)?;
        self.ops.dynamic_label(done);
        Ok(())
    }

    /// `call_assembler_*`: with a token the driver registered, the
    /// callee's code is entered directly when it can be (the steps of
    /// `DirectEncoder`); otherwise the runner is called.
    fn call_assembler(&mut self, cx: &OpCx, dst: Reg) -> Result<(), CompileError> {
        let target = match cx.args.get(1) {
            Some(&Loc::Const(Const::Int(t))) => self.env.direct.targets.get(&t).cloned(),
            _ => None,
        };
        let Some((cell, shape)) = target.filter(|(_, s)| s.reds + 2 <= cx.args.len()) else {
            return self.call(cx, dst);
        };
        let [slow, left, done] = [(); 3].map(|_| self.ops.new_dynamic_label());
        self.direct_checks(cx, cell, &shape, slow);
        // From here on the arguments are dead: the allocator moved every
        // value living across the call out of the registers it clobbers.
        self.direct_inputs(cx, &shape);
        let rooted = self.direct_enter(cx);
        self.direct_returned(left);
        self.direct_end(cx, dst, rooted);
        self.jump_label(done);
        self.ops.dynamic_label(left);
        self.direct_left();
        self.direct_end(cx, dst, rooted);
        self.jump_label(done);
        self.ops.dynamic_label(slow);
        self.call(cx, dst)?;
        self.ops.dynamic_label(done);
        Ok(())
    }

    /// `call_malloc_nursery_varsize(length)`: always the GC's entry point
    /// (arrays are rarer than fixed-size objects in traces).
    fn malloc_varsize(&mut self, cx: &OpCx, dst: Reg) -> Result<(), CompileError> {
        let gc = plan::gc(&self.env, cx)?;
        let array = cx
            .op
            .descr
            .as_ref()
            .and_then(|d| d.as_array())
            .ok_or_else(|| plan::unsupported(cx.op, "needs an array descr"))?;
        let id = Loc::Const(Const::Int(array.type_id as i64));
        self.load_int(Self::SCRATCH, cx.args[0]);
        let a = &Self::REGS.int_args;
        let args = [(a[1], id), (a[2], Loc::Reg(Self::SCRATCH)), (a[3], NULL)];
        self.slow_call(cx, &gc, gc.malloc_varsize_fn, &args, true, Some(dst))
    }

    /// Calls `f(heap, args...)` preserving every live register; with
    /// `gc_point`, roots the live refs through this site's gcmap and exits
    /// with "out of memory" when `f` returns 0; `dst` gets the result.
    /// Argument sources are constants or `SCRATCH`, never an argument
    /// register.
    fn slow_call(
        &mut self,
        cx: &OpCx,
        gc: &JitGcInfo,
        f: usize,
        args: &[(Reg, Loc)],
        gc_point: bool,
        dst: Option<Reg>,
    ) -> Result<(), CompileError> {
        let saved = plan::slow_path_saves(Self::REGS, cx.live, dst);
        for &r in &saved {
            self.save_reg(r);
        }
        if gc_point {
            let map = gcmap::build(Self::REGS, cx.live);
            let first = self.pool_word(PoolSource::Abs(map[0] as usize)).0;
            for &w in &map[1..] {
                self.pool_word(PoolSource::Abs(w as usize));
            }
            self.set_gcmap(first);
        }
        for &(r, from) in args {
            self.load_int(r, from);
        }
        let (heap, _) = self.pool_word(PoolSource::Abs(gc.heap));
        let (func, _) = self.pool_word(PoolSource::Abs(f));
        self.call_gc(heap, func);
        if gc_point {
            let oom = self.ops.new_dynamic_label();
            self.after_gc_point(oom);
            let mut exit = ExitRecord::new(u32::MAX, cx.index, None, Vec::new());
            exit.out_of_memory = true;
            self.stubs.push(Stub { label: oom, exit });
        }
        if let Some(d) = dst {
            self.load_int(d, Loc::Reg(Self::REGS.int_result));
        }
        for &r in &saved {
            self.reload_reg(r);
        }
        Ok(())
    }

    /// Emits guard `cx` (of kind `g`) with its exit record.
    fn guard(&mut self, cx: &OpCx, g: GuardOp, exit: ExitRecord) -> Result<(), CompileError> {
        let stub = self.ops.new_dynamic_label();
        let flags = self.flags.take();
        let tested = |i: usize| cx.op.args.first().map(|a| a.target()) == Some(RefTarget::Op(i));
        match g {
            GuardOp::True | GuardOp::False => {
                let want_true = g == GuardOp::True;
                match flags {
                    Some(Flags {
                        op,
                        cond,
                        overflow: false,
                    }) if tested(op) => {
                        self.branch(if want_true { cond.negate() } else { cond }, stub)
                    }
                    _ => self.guard_truth(cx.args[0], want_true, stub),
                }
            }
            GuardOp::Nonnull => self.guard_truth(cx.args[0], true, stub),
            GuardOp::Isnull => self.guard_truth(cx.args[0], false, stub),
            GuardOp::Value => {
                self.value_cmp(cx.kinds[0], cx.args[0], cx.args[1]);
                self.branch(C::NE, stub);
            }
            GuardOp::Class { nonnull } => {
                let ids = plan::class_ids(&self.env, cx)?;
                self.guard_class(cx.args[0], nonnull, &ids, stub);
            }
            GuardOp::NoOverflow | GuardOp::Overflow => {
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
                let exit_when = if g == GuardOp::NoOverflow {
                    cond
                } else {
                    cond.negate()
                };
                self.branch(exit_when, stub);
            }
            GuardOp::NoException => self.guard_frame_word(frame::EXCEPTION, stub),
            GuardOp::Exception => self.guard_exception(stub),
            GuardOp::NotForced => self.guard_frame_word(frame::FORCED, stub),
            GuardOp::NotInvalidated => {
                // The validity word (`majit_metainterp::quasi`): data that
                // writers set, so no instruction is ever rewritten.
                self.load_int(Self::SCRATCH, cx.args[0]);
                self.guard_word_at(Self::SCRATCH, stub);
            }
        }
        self.stubs.push(Stub { label: stub, exit });
        Ok(())
    }

    /// Appends every guard's cold stub: a jump through its patch word,
    /// which initially points at the exit half right after it (see
    /// `guard.rs` at the crate root).
    fn emit_stubs(&mut self) {
        let exit_word = self.exit_word();
        let mut stubs = std::mem::take(&mut self.stubs);
        for s in &mut stubs {
            let exit_half = self.ops.new_dynamic_label();
            let (patch, index) = self.pool_word(PoolSource::Label(exit_half));
            self.ops.dynamic_label(s.label);
            self.jump_word(patch);
            self.ops.dynamic_label(exit_half);
            self.store_exit_token(s.label);
            self.jump_word(exit_word);
            s.exit.patch_word = Some(index);
        }
        self.stubs = stubs;
    }

    /// The register of an op's result (`Reg::MAX` when it has none).
    fn result_reg(cx: &OpCx) -> Result<Reg, CompileError> {
        match cx.result {
            Some(Loc::Reg(r)) => Ok(r),
            Some(other) => Err(CompileError::Invalid(format!(
                "result of {} in {other:?}",
                cx.op.opcode
            ))),
            None => Ok(Reg::MAX),
        }
    }
}

impl<R: Relocation, C: CondCode> Emitter for Asm<R, C>
where
    Self: Encoder<Cond = C>,
{
    fn emit_move(&mut self, from: Loc, to: Loc, kind: Kind) -> Result<(), CompileError> {
        match to {
            Loc::Reg(r) if Self::REGS.info(r).bank == crate::arch::Bank::Float => {
                self.load_float(r, from)
            }
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
        self.flags = None;
        let dst = Self::result_reg(cx)?;
        let (a, b) = (cx.args.first().copied(), cx.args.get(1).copied());
        let two = || (a.expect("binary op"), b.expect("binary op"));
        match family(cx.op.opcode) {
            Family::Int(op) => {
                let (a, b) = two();
                self.int_op(op, dst, a, b)
            }
            Family::Ovf(op) => {
                let (a, b) = two();
                let cond = self.ovf_op(op, dst, a, b);
                self.flags = Some(Flags {
                    op: cx.index,
                    cond,
                    overflow: true,
                });
            }
            Family::DivMod { is_mod, signed } => {
                let (a, b) = two();
                self.div_mod(is_mod, signed, dst, a, b)
            }
            Family::Shift(op) => {
                let (a, b) = two();
                self.shift(op, dst, a, b)
            }
            Family::Compare(op) => {
                let a = a.expect("comparison");
                self.flags_only = cx.flags_only;
                let cond = self.compare(op, dst, a, b.unwrap_or(a));
                self.flags_only = false;
                self.flags = cond.map(|cond| Flags {
                    op: cx.index,
                    cond,
                    overflow: false,
                });
            }
            Family::Float(op) => {
                let (a, b) = two();
                self.float_op(op, dst, a, b)
            }
            Family::Unary(op) => self.unary(op, dst, a.expect("unary op")),
            Family::Load(access) => self.load(cx, access, dst)?,
            Family::Store(access) => self.store(cx, access)?,
            Family::PtrAdd => {
                let (a, b) = two();
                self.ptr_add(dst, a, b)
            }
            Family::Call => self.call(cx, dst)?,
            Family::CallAssembler => self.call_assembler(cx, dst)?,
            Family::MallocNursery => self.malloc_nursery(cx, dst)?,
            Family::MallocVarsize => self.malloc_varsize(cx, dst)?,
            Family::WriteBarrier => self.write_barrier(cx)?,
            Family::CollectPoll => self.collect_poll(cx)?,
            Family::SaveException => self.take_exception(dst),
            Family::Unsupported(why) => return Err(plan::unsupported(cx.op, why)),
            Family::Guard(_) | Family::Control => {
                return Err(CompileError::Invalid(format!(
                    "{} reached emit_op",
                    cx.op.opcode
                )))
            }
            Family::Nop => {}
        }
        Ok(())
    }

    fn emit_guard(&mut self, cx: &OpCx, exit: ExitRecord) -> Result<(), CompileError> {
        match family(cx.op.opcode) {
            Family::Guard(g) => self.guard(cx, g, exit),
            _ => Err(CompileError::Invalid(format!(
                "{} is not a guard",
                cx.op.opcode
            ))),
        }
    }

    fn emit_label(&mut self, op_index: usize) -> Result<(), CompileError> {
        self.flags = None;
        self.label_op(op_index);
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
                let l = self.label_of(target.label_op)?;
                self.jump_label(l);
            }
            Some(addr) => {
                let (w, _) = self.pool_word(PoolSource::Abs(addr));
                self.jump_word(w);
            }
        }
        Ok(())
    }

    fn emit_finish(&mut self, exit: ExitRecord) -> Result<(), CompileError> {
        self.flags = None;
        let returns = exit
            .descr
            .as_ref()
            .and_then(|d| d.as_fail())
            .is_some_and(|f| f.returns);
        if returns {
            let value = exit.values().next();
            if let Some((loc, _)) = value {
                self.store_frame_word(frame::RESULT, loc);
            }
            let tag = frame::returned_tag(value.map(|v| v.1)) as i64;
            self.store_frame_word(frame::RETURNED, Loc::Const(Const::Int(tag)));
        }
        let here = self.ops.new_dynamic_label();
        self.ops.dynamic_label(here);
        for (loc, _) in exit.values() {
            if let Loc::Reg(r) = loc {
                self.store_frame_word(frame::HEADER + r as usize, loc);
            }
        }
        self.store_exit_token(here);
        let w = self.leave_word();
        self.jump_word(w);
        self.inline_exit(here, exit);
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<Assembled, CompileError> {
        self.emit_stubs();
        self.assemble(Self::PAD)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::{Arch, Bank, OpCx};
    use majit_ir::Op;

    #[cfg(target_arch = "x86_64")]
    type Host = crate::x86_64::X86_64;
    #[cfg(target_arch = "aarch64")]
    type Host = crate::aarch64::Aarch64;

    /// An allocatable register of `kind`'s bank, the `n`th.
    fn reg(kind: Kind, n: usize) -> Loc {
        let regs = Host::regs();
        let bank = Bank::of(kind);
        let mut of_bank = regs
            .alloc_order
            .iter()
            .filter(|&&r| regs.info(r).bank == bank);
        Loc::Reg(*of_bank.nth(n).expect("enough registers"))
    }

    /// Every op of a register-operand family emits on the host arch (its
    /// arguments and result in registers of their kinds): nothing an arch
    /// supports falls through to an error.
    #[test]
    fn every_register_op_encodes_on_the_host() {
        for &op in OpCode::ALL {
            use Family as F;
            let f = family(op);
            let simple = matches!(
                f,
                F::Int(_)
                    | F::Ovf(_)
                    | F::DivMod { .. }
                    | F::Shift(_)
                    | F::Compare(_)
                    | F::Float(_)
                    | F::Unary(_)
                    | F::PtrAdd
            );
            if !simple {
                continue;
            }
            // The op table's argument letters: `i`nt, `r`ef, `f`loat.
            let kinds: Vec<Kind> = (op.info().args.chars())
                .filter_map(|c| match c {
                    'i' => Some(Kind::Int),
                    'r' => Some(Kind::Ref),
                    'f' => Some(Kind::Float),
                    _ => None,
                })
                .collect();
            let args: Vec<Loc> = kinds.iter().enumerate().map(|(i, &k)| reg(k, i)).collect();
            let result = op.result().kind().map(|k| reg(k, kinds.len()));
            let ir = Op::new(op, &[]);
            let cx = OpCx {
                index: 0,
                op: &ir,
                args: &args,
                kinds: &kinds,
                result,
                live: &[],
                flags_only: false,
            };
            let mut e = Host::emitter(0);
            e.emit_op(&cx).unwrap_or_else(|err| panic!("{op}: {err}"));
            let code = e.finish().expect("assembles").code;
            assert!(
                !code.is_empty() || matches!(f, F::Unary(UnaryOp::Copy)),
                "{op}"
            );
        }
    }

    /// Every opcode has a family consistent with what the IR says about
    /// it, and `supports` follows the family: an op no encoder handles is
    /// declared `Unsupported`, never silently emitted as something else.
    #[test]
    fn every_opcode_has_a_family() {
        for &op in OpCode::ALL {
            let f = family(op);
            assert_eq!(matches!(f, Family::Guard(_)), op.is_guard(), "{op}: {f:?}");
            let call_like = matches!(
                f,
                Family::Call
                    | Family::CallAssembler
                    | Family::MallocNursery
                    | Family::MallocVarsize
                    | Family::WriteBarrier
                    | Family::CollectPoll
            );
            if op.is_call() {
                assert!(call_like, "{op}: {f:?}");
            }
            let unsupported = matches!(f, Family::Unsupported(_));
            assert_eq!(plan::supports(op, true), !unsupported, "{op}");
            if matches!(f, Family::Unary(UnaryOp::Copy)) {
                assert_eq!(op.arity(), 1, "{op} is a move");
            }
        }
    }
}
