//! intbounds: integer ranges.
//!
//! Each int value gets an interval ([`IntBound`], stored in the shared
//! [`Info`](super::info::Info)). Forward: constants are exact, comparisons
//! are 0..=1, arithmetic combines its operands' intervals when no wrap is
//! possible (otherwise the result is the full range), narrow loads are
//! limited by their width. Backward: after `guard_true(int_lt(a, b))` (or
//! `guard_false` of the negated comparison) `a` and `b` are narrowed to make
//! `a < b` hold; `int_is_true`, `int_is_zero` and `guard_value` likewise.
//!
//! Uses: a comparison whose outcome the intervals decide folds to 0 or 1; a
//! `guard_true`/`guard_false` the intervals decide is removed (or makes the
//! trace invalid); `int_*_ovf` whose intervals exclude overflow becomes the
//! wrapping op and its `guard_no_overflow` goes away.
//!
//! Invariant: a guard's facts are applied in `committed`, after its resume
//! data was built; intervals only ever narrow.

use super::cx::{Cx, OptOp};
use super::info::IntBound;
use super::ledger::LedgerKind;
use super::rewrite::opt_guard_bool;
use super::{Outcome, Pass};
use majit_ir::{Const, Descr, OpCode, OpRef};

/// The intbounds pass.
#[derive(Default)]
pub struct IntBounds {
    /// An overflow-checked op was proven not to overflow and rewritten.
    removed_ovf: bool,
    /// The result of the last overflow-checked op kept, with the interval
    /// it has once `guard_no_overflow` passed.
    last_ovf: Option<(OpRef, IntBound)>,
}

impl Pass for IntBounds {
    fn name(&self) -> &'static str {
        "intbounds"
    }

    fn feed(&mut self, cx: &mut Cx, op: OptOp) -> Outcome {
        use OpCode::*;
        let code = op.op.opcode;
        let removed_ovf = std::mem::take(&mut self.removed_ovf);
        match code {
            GuardNoOverflow if removed_ovf => Outcome::Drop,
            GuardOverflow if removed_ovf => {
                Outcome::Invalid("guard_overflow after an op that cannot overflow".into())
            }
            GuardTrue | GuardFalse => opt_guard_bool(cx, op),
            IntAddOvf | IntSubOvf | IntMulOvf => self.opt_int_ovf(cx, op),
            _ if code.result().kind() == Some(majit_ir::Kind::Int) => opt_int_result(cx, op),
            _ => Outcome::Emit(op),
        }
    }

    fn committed(&mut self, cx: &mut Cx, op: &OptOp) {
        use OpCode::*;
        match op.op.opcode {
            GuardTrue => learn_truth(cx, op.op.arg(0), true),
            GuardFalse => learn_truth(cx, op.op.arg(0), false),
            GuardValue => {
                if let Some(Const::Int(v)) = cx.const_of(op.op.arg(1)) {
                    cx.narrow(op.op.arg(0), IntBound::exact(v));
                }
            }
            GuardNoOverflow => {
                if let Some((r, b)) = self.last_ovf.take() {
                    cx.narrow(r, b);
                }
            }
            // Here rather than in `feed`, so that the ops unroll imports
            // into the peeled loop get their interval too (a short
            // preamble's `arraylen_gc` is non-negative).
            code if code.result().kind() == Some(majit_ir::Kind::Int) => {
                let b = result_bound(cx, op);
                if !b.is_full() {
                    cx.narrow(op.res, b);
                }
            }
            _ => {}
        }
    }
}

/// Checked interval arithmetic: `None` when a corner overflows.
fn combine(code: OpCode, a: IntBound, b: IntBound) -> Option<IntBound> {
    use OpCode::*;
    let corners = |f: fn(i64, i64) -> Option<i64>| -> Option<IntBound> {
        let cs = [
            f(a.lo, b.lo)?,
            f(a.lo, b.hi)?,
            f(a.hi, b.lo)?,
            f(a.hi, b.hi)?,
        ];
        Some(IntBound::new(*cs.iter().min()?, *cs.iter().max()?))
    };
    match code {
        IntAdd | IntAddOvf => corners(i64::checked_add),
        IntSub | IntSubOvf => corners(i64::checked_sub),
        IntMul | IntMulOvf => corners(i64::checked_mul),
        _ => None,
    }
}

/// The interval of an int result, from its operands.
fn result_bound(cx: &Cx, op: &OptOp) -> IntBound {
    use OpCode::*;
    let code = op.op.opcode;
    let arg = |i: usize| cx.bound(op.op.arg(i));
    let nonneg = |b: IntBound| b.lo >= 0;
    match code {
        _ if code.is_boolean() => IntBound::BOOL,
        IntAdd | IntSub | IntMul => combine(code, arg(0), arg(1)).unwrap_or(IntBound::FULL),
        IntAnd if nonneg(arg(0)) || nonneg(arg(1)) => {
            let hi = [arg(0), arg(1)]
                .iter()
                .filter(|b| nonneg(**b))
                .map(|b| b.hi)
                .min()
                .unwrap_or(i64::MAX);
            IntBound::new(0, hi)
        }
        IntOr | IntXor if nonneg(arg(0)) && nonneg(arg(1)) => {
            let hi = arg(0).hi.max(arg(1).hi);
            let bits = 64 - hi.leading_zeros();
            IntBound::new(
                0,
                if bits >= 63 {
                    i64::MAX
                } else {
                    (1i64 << bits) - 1
                },
            )
        }
        // A left shift by a constant that loses no bit of either end.
        IntLshift => match cx.int_const(op.op.arg(1)) {
            Some(k) if (0..63).contains(&k) => {
                let (lo, hi) = (arg(0).lo, arg(0).hi);
                match (lo << k >> k == lo, hi << k >> k == hi) {
                    (true, true) => IntBound::new(lo << k, hi << k),
                    _ => IntBound::FULL,
                }
            }
            _ => IntBound::FULL,
        },
        // An arithmetic shift by a constant is monotonic.
        IntRshift if cx.int_const(op.op.arg(1)).is_some() => {
            let k = cx.int_const(op.op.arg(1)).unwrap_or(0) & 63;
            IntBound::new(arg(0).lo >> k, arg(0).hi >> k)
        }
        IntRshift if nonneg(arg(0)) => IntBound::new(0, arg(0).hi),
        IntUntag => IntBound::new(-(1 << 62), (1 << 62) - 1),
        UintRshift => match cx.int_const(op.op.arg(1)) {
            Some(k) if k & 63 != 0 => IntBound::new(0, (u64::MAX >> (k & 63)) as i64),
            _ => IntBound::FULL,
        },
        IntMod => match cx.int_const(op.op.arg(1)) {
            Some(c) if c > 0 && nonneg(arg(0)) => IntBound::new(0, c - 1),
            Some(c) if c > 0 => IntBound::new(-(c - 1), c - 1),
            _ => IntBound::FULL,
        },
        IntFloorDiv => match cx.int_const(op.op.arg(1)) {
            Some(c) if c > 0 => IntBound::new(arg(0).lo / c, arg(0).hi / c),
            _ => IntBound::FULL,
        },
        UintMod => match cx.int_const(op.op.arg(1)) {
            Some(c) if c > 0 => IntBound::new(0, c - 1),
            _ => IntBound::FULL,
        },
        UintFloorDiv => match cx.int_const(op.op.arg(1)) {
            Some(c) if !(0..=1).contains(&c) => IntBound::new(0, (u64::MAX / c as u64) as i64),
            _ => IntBound::FULL,
        },
        IntNeg if arg(0).lo > i64::MIN => IntBound::new(-arg(0).hi, -arg(0).lo),
        ArraylenGc => IntBound::new(0, i64::MAX),
        GetfieldGcI | GetfieldRawI | GetarrayitemGcI | GetarrayitemRawI => load_bound(&op.op.descr),
        _ => IntBound::FULL,
    }
}

/// Narrow loads are limited by their width and signedness.
fn load_bound(descr: &Option<Descr>) -> IntBound {
    let (size, signed) = match descr {
        Some(Descr::Field(f)) => (f.size, f.signed),
        Some(Descr::Array(a)) => (a.item_size, a.signed),
        _ => return IntBound::FULL,
    };
    if size >= 8 {
        return IntBound::FULL;
    }
    let bits = u32::from(size) * 8;
    if signed {
        IntBound::new(-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
    } else {
        IntBound::new(0, (1i64 << bits) - 1)
    }
}

/// Whether `a code b` is decided by the intervals.
fn compare(code: OpCode, a: IntBound, b: IntBound) -> Option<bool> {
    use OpCode::*;
    let both_nonneg = a.lo >= 0 && b.lo >= 0;
    match code {
        IntLt => (a.hi < b.lo)
            .then_some(true)
            .or((a.lo >= b.hi).then_some(false)),
        IntLe => (a.hi <= b.lo)
            .then_some(true)
            .or((a.lo > b.hi).then_some(false)),
        IntGt => compare(IntLt, b, a),
        IntGe => compare(IntLe, b, a),
        IntEq => match (a.as_const(), b.as_const()) {
            (Some(x), Some(y)) => Some(x == y),
            _ => a.intersect(b).is_none().then_some(false),
        },
        IntNe => compare(IntEq, a, b).map(|v| !v),
        UintLt if both_nonneg => compare(IntLt, a, b),
        UintLe if both_nonneg => compare(IntLe, a, b),
        UintGt if both_nonneg => compare(IntGt, a, b),
        UintGe if both_nonneg => compare(IntGe, a, b),
        _ => None,
    }
}

/// Folds decided comparisons (the result's interval is recorded when the
/// op is committed).
fn opt_int_result(cx: &mut Cx, op: OptOp) -> Outcome {
    let code = op.op.opcode;
    if code.swapped_comparison().is_some() && op.op.args.len() == 2 {
        let (a, b) = (cx.bound(op.op.arg(0)), cx.bound(op.op.arg(1)));
        if let Some(v) = compare(code, a, b) {
            return Outcome::Same(cx.konst(Const::Int(v as i64)));
        }
    }
    Outcome::Emit(op)
}

impl IntBounds {
    fn opt_int_ovf(&mut self, cx: &mut Cx, mut op: OptOp) -> Outcome {
        let code = op.op.opcode;
        let (a, b) = (cx.bound(op.op.arg(0)), cx.bound(op.op.arg(1)));
        match combine(code, a, b) {
            Some(r) => {
                op.op.opcode = match code {
                    OpCode::IntAddOvf => OpCode::IntAdd,
                    OpCode::IntSubOvf => OpCode::IntSub,
                    _ => OpCode::IntMul,
                };
                self.removed_ovf = true;
                cx.narrow(op.res, r);
            }
            None => {
                let sat = |f: fn(i64, i64) -> i64| {
                    let cs = [f(a.lo, b.lo), f(a.lo, b.hi), f(a.hi, b.lo), f(a.hi, b.hi)];
                    IntBound::new(
                        *cs.iter().min().unwrap_or(&i64::MIN),
                        *cs.iter().max().unwrap_or(&i64::MAX),
                    )
                };
                let r = match code {
                    OpCode::IntAddOvf => sat(i64::saturating_add),
                    OpCode::IntSubOvf => sat(i64::saturating_sub),
                    _ => sat(i64::saturating_mul),
                };
                self.last_ovf = Some((op.res, r));
                let origin = cx.origin(op.res);
                let why = format!("`{code}` kept: operands {a:?} and {b:?} may overflow");
                cx.note(LedgerKind::Missed, origin, why);
            }
        }
        Outcome::Emit(op)
    }
}

/// After a guard: `x` is known true (nonzero) or false (zero); when `x` is
/// a comparison, its operands are narrowed accordingly.
fn learn_truth(cx: &mut Cx, x: OpRef, truth: bool) {
    if truth {
        if cx.bound(x).within(IntBound::BOOL) {
            cx.narrow(x, IntBound::exact(1));
        } else {
            exclude(cx, x, 0);
        }
    } else {
        cx.narrow(x, IntBound::exact(0));
    }
    let Some(def) = cx.def(x).cloned() else {
        return;
    };
    match (def.opcode, def.args.as_slice()) {
        (OpCode::IntFitsTag, [a]) if truth => {
            cx.narrow(*a, IntBound::new(-(1 << 62), (1 << 62) - 1));
        }
        (OpCode::IntIsTrue, [a]) | (OpCode::IntIsZero, [a]) => {
            if truth == (def.opcode == OpCode::IntIsTrue) {
                exclude(cx, *a, 0);
            } else {
                cx.narrow(*a, IntBound::exact(0));
            }
        }
        (c, [a, b]) => {
            let holds = if truth {
                Some(c)
            } else {
                c.negated_comparison()
            };
            if let Some(h) = holds {
                learn_comparison(cx, h, *a, *b);
            }
        }
        _ => {}
    }
}

/// `x != v`: trims `v` off an end of `x`'s interval.
fn exclude(cx: &mut Cx, x: OpRef, v: i64) {
    let b = cx.bound(x);
    if b.lo == v && b.hi > v {
        cx.narrow(x, IntBound::new(v + 1, b.hi));
    } else if b.hi == v && b.lo < v {
        cx.narrow(x, IntBound::new(b.lo, v - 1));
    }
}

/// Narrows `a` and `b` so that `a code b` holds.
fn learn_comparison(cx: &mut Cx, code: OpCode, a: OpRef, b: OpRef) {
    use OpCode::*;
    let (ba, bb) = (cx.bound(a), cx.bound(b));
    match code {
        IntLt if bb.hi > i64::MIN && ba.lo < i64::MAX => {
            cx.narrow(a, IntBound::new(i64::MIN, bb.hi - 1));
            cx.narrow(b, IntBound::new(ba.lo + 1, i64::MAX));
        }
        IntLe => {
            cx.narrow(a, IntBound::new(i64::MIN, bb.hi));
            cx.narrow(b, IntBound::new(ba.lo, i64::MAX));
        }
        IntGt => learn_comparison(cx, IntLt, b, a),
        IntGe => learn_comparison(cx, IntLe, b, a),
        IntEq => {
            if let Some(m) = ba.intersect(bb) {
                cx.narrow(a, m);
                cx.narrow(b, m);
            }
        }
        IntNe => {
            if let Some(v) = bb.as_const() {
                exclude(cx, a, v);
            }
            if let Some(v) = ba.as_const() {
                exclude(cx, b, v);
            }
        }
        // on two non-negative values unsigned and signed agree
        UintLt if ba.lo >= 0 && bb.lo >= 0 => learn_comparison(cx, IntLt, a, b),
        UintLe if ba.lo >= 0 && bb.lo >= 0 => learn_comparison(cx, IntLe, a, b),
        // unsigned a < b with b >= 0 means 0 <= a < b
        UintLt if bb.lo >= 0 && bb.hi > 0 => {
            cx.narrow(a, IntBound::new(0, bb.hi - 1));
        }
        UintLe if bb.lo >= 0 => {
            cx.narrow(a, IntBound::new(0, bb.hi));
        }
        UintGt => learn_comparison(cx, UintLt, b, a),
        UintGe => learn_comparison(cx, UintLe, b, a),
        _ => {}
    }
}
