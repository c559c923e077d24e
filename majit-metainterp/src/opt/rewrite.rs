//! rewrite: constant folding, algebraic identities and guard cleanup.
//!
//! Each op is classified by its opcode and the shape of its two first
//! arguments (`Side`: a known integer constant, the result of a known
//! opcode, or anything) and matched against the rules below, LuaJIT's fold
//! key written as a `match`, with the algebra in a trailing comment. Guards
//! on known values are removed; the facts a guard proves are applied in
//! `committed` (so they hold after it, never in its own resume data):
//! `guard_value(x, c)` makes `x` the constant `c` from then on.
//!
//! Invariants every rule keeps:
//! - the result kind never changes;
//! - rules only rewrite toward cheaper or canonical forms (constants on the
//!   right of commutative ops and comparisons), so folding terminates;
//! - a guard is removed only when it provably holds; a guard that always
//!   fails makes the trace `Invalid` (abandon the compile), never a silent
//!   drop;
//! - an overflow-checked op is only folded together with its guard.

use super::cx::{Cx, OptOp};
use super::eval::{eval_ovf, eval_pure};
use super::info::{IntBound, Tag};
use super::{Outcome, Pass};
use majit_ir::{Const, Kind, Op, OpCode, OpRef};

/// The shape of an argument, as fold rules see it.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Side {
    Const(i64),
    Op(OpCode),
    Any,
}

/// What a fold rule decides.
enum Fold {
    Same(OpRef),
    Const(i64),
    Rewrite(Op),
}

/// The rewrite pass.
#[derive(Default)]
pub struct Rewrite {
    /// After folding an overflow-checked op: whether it overflowed, for the
    /// guard that must follow.
    folded_ovf: Option<bool>,
}

impl Pass for Rewrite {
    fn name(&self) -> &'static str {
        "rewrite"
    }

    fn feed(&mut self, cx: &mut Cx, op: OptOp) -> Outcome {
        use OpCode::*;
        let code = op.op.opcode;
        let folded_ovf = self.folded_ovf.take();
        match code {
            GuardNoOverflow | GuardOverflow if folded_ovf.is_some() => {
                opt_guard_overflow(code, folded_ovf.unwrap_or_default())
            }
            GuardTrue | GuardFalse => opt_guard_bool(cx, op),
            GuardValue => opt_guard_value(cx, op),
            GuardNonnull | GuardIsnull => opt_guard_null(cx, op),
            GuardClass | GuardNonnullClass => opt_guard_class(cx, op),
            IntAddOvf | IntSubOvf | IntMulOvf => self.opt_int_ovf(cx, op),
            _ if code.is_always_pure() && !code.is_call() && code.result().kind().is_some() => {
                opt_pure(cx, op)
            }
            _ => Outcome::Emit(op),
        }
    }

    fn committed(&mut self, cx: &mut Cx, op: &OptOp) {
        use OpCode::*;
        let arg = |i: usize| op.op.args.get(i).copied();
        match op.op.opcode {
            GuardTrue | GuardFalse => {
                let v = (op.op.opcode == GuardTrue) as i64;
                if let Some(x) = arg(0) {
                    if v == 0 {
                        cx.narrow(x, IntBound::exact(0));
                    } else if is_bool(cx, x) {
                        cx.narrow(x, IntBound::exact(1));
                    }
                    note_test(cx, x, v == 1);
                }
            }
            GuardValue => {
                if let (Some(x), Some(c)) = (arg(0), arg(1)) {
                    if cx.const_of(c).is_some() {
                        cx.replace(x, c);
                    }
                }
            }
            GuardNonnull => cx.info_mut(op.op.arg(0)).nonnull = true,
            IntTag | FloatTag => {
                let info = cx.info_mut(op.res);
                info.nonnull = true; // 2x + 1 is odd; a float's low bits are 10
                info.tag = Some(match op.op.opcode {
                    IntTag => Tag::Int,
                    _ => Tag::Float,
                });
            }
            FloatUntag => cx.info_mut(op.res).fits_tag = true, // every word decodes to one
            GuardIsnull => {
                let null = cx.konst(Const::Ref(0));
                cx.replace(op.op.arg(0), null);
            }
            GuardClass | GuardNonnullClass => {
                let class = cx.int_const(op.op.arg(1));
                let info = cx.info_mut(op.op.arg(0));
                info.nonnull = true;
                info.class = class;
            }
            _ => {}
        }
    }
}

/// After a guard that `c` is `held`: what the test `c` is proves of its
/// operand. `float_fits_tag(x)` held: `x` fits; `p != null` held (or
/// `p == null` failed): `p` is not null.
fn note_test(cx: &mut Cx, c: OpRef, held: bool) {
    let Some(d) = cx.def(c) else { return };
    let (code, args) = (d.opcode, d.args.clone());
    let null = |r: OpRef| cx.const_of(r) == Some(Const::Ref(0));
    match (code, held) {
        (OpCode::FloatFitsTag, true) => cx.info_mut(args[0]).fits_tag = true,
        (OpCode::PtrIsTagged | OpCode::PtrIsFloatTagged, true) => {
            let info = cx.info_mut(args[0]);
            info.nonnull = true;
            info.tag = Some(match code {
                OpCode::PtrIsTagged => Tag::Int,
                _ => Tag::Float,
            });
        }
        (OpCode::PtrNe, true) | (OpCode::PtrEq, false) => {
            if let Some(&p) = args.iter().find(|&&r| !null(r)) {
                if args.iter().any(|&r| null(r)) {
                    cx.info_mut(p).nonnull = true;
                }
            }
        }
        _ => {}
    }
}

/// Whether `r` is 0 or 1 (a comparison's or a test's result, or bounded so).
fn is_bool(cx: &Cx, r: OpRef) -> bool {
    cx.def(r).is_some_and(|d| d.opcode.is_boolean()) || cx.bound(r).within(IntBound::BOOL)
}

/// Whether `r` is the result of a comparison whose negation is one op.
fn is_negatable(cx: &Cx, r: OpRef) -> bool {
    cx.def(r)
        .is_some_and(|d| d.opcode.negated_comparison().is_some())
}

/// `r` as `x + k` when it is an addition of a constant.
fn split_add(cx: &Cx, r: OpRef) -> Option<(OpRef, i64)> {
    let d = cx.def(r)?;
    if d.opcode != OpCode::IntAdd {
        return None;
    }
    let (x, y) = (d.args[0], d.args[1]);
    match (cx.int_const(x), cx.int_const(y)) {
        (_, Some(k)) => Some((x, k)),
        (Some(k), None) => Some((y, k)),
        (None, None) => None,
    }
}

/// The constant argument `r` is, including ints with exact bounds.
fn const_arg(cx: &Cx, r: OpRef) -> Option<Const> {
    cx.const_of(r).or_else(|| match cx.kind(r) {
        Some(Kind::Int) => cx.int_const(r).map(Const::Int),
        _ => None,
    })
}

fn side(cx: &Cx, r: Option<OpRef>) -> Side {
    let Some(r) = r else { return Side::Any };
    if cx.kind(r) == Some(Kind::Int) {
        if let Some(v) = cx.int_const(r) {
            return Side::Const(v);
        }
    }
    match cx.def(r) {
        Some(d) => Side::Op(d.opcode),
        None => Side::Any,
    }
}

/// Puts a constant on the right of a commutative op or comparison.
fn canonical(cx: &Cx, mut op: OptOp) -> OptOp {
    let code = op.op.opcode;
    if op.op.args.len() != 2 {
        return op;
    }
    let (a, b) = (op.op.arg(0), op.op.arg(1));
    if const_arg(cx, a).is_none() || const_arg(cx, b).is_some() {
        return op;
    }
    let swapped = if code.is_commutative() {
        Some(code)
    } else {
        code.swapped_comparison()
    };
    if let Some(s) = swapped {
        op.op.opcode = s;
        op.op.args.swap(0, 1);
    }
    op
}

/// All-constant folding, then the algebraic rules.
fn opt_pure(cx: &mut Cx, op: OptOp) -> Outcome {
    let consts: Option<Vec<Const>> = op.op.args.iter().map(|a| const_arg(cx, *a)).collect();
    if let Some(c) = consts.and_then(|cs| eval_pure(op.op.opcode, &cs)) {
        return Outcome::Same(cx.konst(c));
    }
    let op = canonical(cx, op);
    match fold(cx, &op.op) {
        Some(Fold::Same(r)) => Outcome::Same(r),
        Some(Fold::Const(v)) => Outcome::Same(cx.konst(Const::Int(v))),
        Some(Fold::Rewrite(new)) => Outcome::Emit(OptOp {
            op: new,
            res: op.res,
        }),
        None => Outcome::Emit(op),
    }
}

/// The fold rules. `a`, `b` are the (canonical) first two arguments.
fn fold(cx: &mut Cx, op: &Op) -> Option<Fold> {
    use OpCode::*;
    use Side::{Const as K, Op as O};
    let code = op.opcode;
    let a = op.args.first().copied()?;
    let b = op.args.get(1).copied();
    let same = Some(a) == b;
    let inner = |cx: &Cx, r: OpRef, i: usize| cx.def(r).and_then(|d| d.args.get(i).copied());
    let bool_bound = is_bool(cx, a);
    Some(match (code, side(cx, Some(a)), side(cx, b)) {
        // -- integer algebra --
        (IntAdd, _, K(0)) => Fold::Same(a),       // x + 0 => x
        (IntSub, _, K(0)) => Fold::Same(a),       // x - 0 => x
        (IntSub, _, _) if same => Fold::Const(0), // x - x => 0
        (IntMul, _, K(0)) => Fold::Const(0),      // x * 0 => 0
        (IntMul, _, K(1)) => Fold::Same(a),       // x * 1 => x
        (IntMul, _, K(k)) if k > 1 && k.count_ones() == 1 => {
            let shift = cx.konst(Const::Int(i64::from(k.trailing_zeros())));
            Fold::Rewrite(Op::new(IntLshift, &[a, shift])) // x * 2^n => x << n
        }
        (IntFloorDiv | UintFloorDiv, _, K(1)) => Fold::Same(a), // x / 1 => x
        (UintFloorDiv, _, K(k)) if k > 1 && k.count_ones() == 1 => {
            let shift = cx.konst(Const::Int(i64::from(k.trailing_zeros())));
            Fold::Rewrite(Op::new(UintRshift, &[a, shift])) // x / 2^n => x >> n (unsigned)
        }
        (UintMod, _, K(k)) if k > 0 && k.count_ones() == 1 => {
            let mask = cx.konst(Const::Int(k - 1));
            Fold::Rewrite(Op::new(IntAnd, &[a, mask])) // x % 2^n => x & (2^n - 1) (unsigned)
        }
        (IntAnd, _, K(0)) => Fold::Const(0), // x & 0 => 0
        (IntAnd, _, K(-1)) => Fold::Same(a), // x & -1 => x
        (IntAnd | IntOr, _, _) if same => Fold::Same(a), // x & x => x, x | x => x
        (IntOr, _, K(-1)) => Fold::Const(-1), // x | -1 => -1
        (IntOr | IntXor, _, K(0)) => Fold::Same(a), // x | 0 => x, x ^ 0 => x
        (IntXor, _, _) if same => Fold::Const(0), // x ^ x => 0
        (IntLshift | IntRshift | UintRshift, _, K(0)) => Fold::Same(a), // x << 0 => x
        (IntLshift | IntRshift | UintRshift, K(0), _) => Fold::Const(0), // 0 << x => 0
        // -- reassociation --
        (IntAdd, O(IntAdd), K(k2)) => {
            let (x, k1) = split_add(cx, a)?;
            let k = cx.konst(Const::Int(k1.wrapping_add(k2)));
            Fold::Rewrite(Op::new(IntAdd, &[x, k])) // (x + k1) + k2 => x + (k1 + k2)
        }
        (IntSub, O(IntAdd), K(k2)) => {
            let (x, k1) = split_add(cx, a)?;
            let k = cx.konst(Const::Int(k1.wrapping_sub(k2)));
            Fold::Rewrite(Op::new(IntAdd, &[x, k])) // (x + k1) - k2 => x + (k1 - k2)
        }
        // -- unary --
        (IntNeg, O(IntNeg), _) => Fold::Same(inner(cx, a, 0)?), // -(-x) => x
        (IntInvert, O(IntInvert), _) => Fold::Same(inner(cx, a, 0)?), // ~~x => x
        (IntIsTrue, _, _) if bool_bound => Fold::Same(a),       // is_true(b) => b for b in 0..=1
        (IntIsZero, O(c), _) | (IntNe, O(c), K(1)) | (IntEq, O(c), K(0))
            if c.negated_comparison().is_some() =>
        {
            let d = cx.def(a)?;
            let neg = c.negated_comparison()?;
            Fold::Rewrite(Op::new(neg, &d.args)) // !(x < y), (x < y) != 1 => x >= y
        }
        (IntNe, _, K(0)) | (IntEq, _, K(1)) if bool_bound => Fold::Same(a), // b != 0 => b
        (IntNe, _, K(1)) | (IntEq, _, K(0)) if bool_bound => {
            Fold::Rewrite(Op::new(IntIsZero, &[a])) // b != 1 => !b, e.g. of a float comparison
        }
        // -- comparisons of a value with itself --
        (IntEq | IntLe | IntGe | UintLe | UintGe, _, _) if same => Fold::Const(1), // x == x => 1
        (IntNe | IntLt | IntGt | UintLt | UintGt, _, _) if same => Fold::Const(0), // x < x => 0
        // -- pointers --
        (PtrEq, _, _) if same => Fold::Const(1), // p == p => 1
        (PtrNe, _, _) if same => Fold::Const(0), // p != p => 0
        (PtrEq | PtrNe, _, _) if nonnull_vs_null(cx, a, b?) => {
            Fold::Const((code == PtrNe) as i64) // p == null => 0 for p nonnull
        }
        // -- small integers in refs --
        (IntUntag, O(IntTag), _) if fits_small_int(cx.bound(inner(cx, a, 0)?)) => {
            Fold::Same(inner(cx, a, 0)?) // untag(tag(x)) => x for x in 63 bits
        }
        (PtrIsTagged, O(IntTag), _) => Fold::Const(1), // is_tagged(tag(x)) => 1
        (IntFitsTag, _, _) if fits_small_int(cx.bound(a)) => Fold::Const(1), // x in 63 bits
        (IntEq, O(IntRshift), _) if shift_round_trips(cx, a, b?) => {
            Fold::Const(1) // (x << k) >> k == x => 1 for x in 64 - k bits
        }
        (PtrIsTagged | PtrIsFloatTagged, _, _) if cx.class_of(a).is_some() => {
            Fold::Const(0) // an object's is 0
        }
        // -- small floats in refs --
        // `float_tag` is total but a double that does not fit gets another
        // double's word (`flonum::encode`), so the round trip is `x` only
        // for an `x` known to fit: one a `guard_true(float_fits_tag(x))`
        // proved (the tracer guards that before every `float_tag`), or an
        // untagged one (every word decodes to a double that fits).
        (FloatUntag, O(FloatTag), _) if cx.fits_tag(inner(cx, a, 0)?) => {
            Fold::Same(inner(cx, a, 0)?) // untag(tag(x)) => x for x that fits
        }
        (FloatFitsTag, _, _) if cx.fits_tag(a) => Fold::Const(1),
        (PtrIsFloatTagged, _, _) if cx.tag_of(a) == Some(Tag::Int) => Fold::Const(0),
        (PtrIsTagged, _, _) if cx.tag_of(a) == Some(Tag::Float) => Fold::Const(0),
        (PtrIsFloatTagged, O(FloatTag), _) => Fold::Const(1), // float_tagged(float_tag(x)) => 1
        (PtrIsFloatTagged, O(IntTag), _) => Fold::Const(0),   // float_tagged(int_tag(x)) => 0
        (PtrIsTagged, O(FloatTag), _) => Fold::Const(0),      // is_tagged(float_tag(x)) => 0
        // -- copies --
        (SameAsI | SameAsR | SameAsF, _, _) => Fold::Same(a), // same_as(x) => x
        // -- booleans --
        (IntMul | IntAnd, _, _) if bool_bound && is_bool(cx, b?) => {
            return bool_and(cx, code, a, b?)
        }
        _ => return None,
    })
}

/// Whether `a` is `(x << k) >> k` (arithmetic, `k` constant) for `x`
/// whose interval shifts by `k` without losing bits: the test whether a
/// value fits a tagged ref, decided.
fn shift_round_trips(cx: &Cx, a: OpRef, x: OpRef) -> bool {
    let arg = |r: OpRef, i: usize| cx.def(r).and_then(|d| d.args.get(i).copied());
    let Some(shifted) = arg(a, 0) else {
        return false;
    };
    let is_shl = cx.def(shifted).map(|d| d.opcode) == Some(OpCode::IntLshift);
    let k = cx.int_const(arg(a, 1).unwrap_or(a));
    let (Some(k), true) = (k, is_shl && arg(shifted, 0) == Some(x)) else {
        return false;
    };
    let fits = |v: i64| (1..63).contains(&k) && (v << k) >> k == v;
    cx.int_const(arg(shifted, 1).unwrap_or(a)) == Some(k)
        && fits(cx.bound(x).lo)
        && fits(cx.bound(x).hi)
}

/// Whether every value of `b` fits in a tagged ref (`Obj::small_int`).
pub(super) fn fits_small_int(b: IntBound) -> bool {
    b.lo >= -(1 << 62) && b.hi < (1 << 62)
}

/// `a * b` or `a & b` of two booleans: two bounds on one value become one
/// range test, else the product becomes an `and` (cheaper than `imul`).
fn bool_and(cx: &mut Cx, code: OpCode, a: OpRef, b: OpRef) -> Option<Fold> {
    use OpCode::*;
    let (Some((x, lo1, hi1)), Some((y, lo2, hi2))) = (bound_test(cx, a), bound_test(cx, b)) else {
        // b1 * b2 => b1 & b2 for b1, b2 in 0..=1
        return (code == IntMul).then(|| Fold::Rewrite(Op::new(IntAnd, &[a, b])));
    };
    if x != y {
        return (code == IntMul).then(|| Fold::Rewrite(Op::new(IntAnd, &[a, b])));
    }
    let (lo, hi) = (lo1.max(lo2), hi1.min(hi2));
    let k = |cx: &mut Cx, v: i64| cx.konst(Const::Int(v));
    Some(match (lo, hi) {
        _ if lo > hi => Fold::Const(0), // (x >= 5) & (x <= 3) => 0
        (i64::MIN, _) => Fold::Rewrite(Op::new(IntLe, &[x, k(cx, hi)])), // (x <= 3) & (x <= 5) => x <= 3
        (_, i64::MAX) => Fold::Rewrite(Op::new(IntGe, &[x, k(cx, lo)])), // (x >= 3) & (x >= 5) => x >= 5
        _ => {
            // (x >= lo) & (x <= hi) => uint_le(x - lo, hi - lo): the
            // wrapped difference is at most hi - lo exactly inside.
            let base = match lo {
                0 => x,
                _ => {
                    let lo = k(cx, lo);
                    cx.emit_new(Op::new(IntSub, &[x, lo]))
                }
            };
            Fold::Rewrite(Op::new(UintLe, &[base, k(cx, hi.wrapping_sub(lo))]))
        }
    })
}

/// Boolean `r` as an inclusive range `(x, lo, hi)` it tests `x` against
/// (an open side is `i64::MIN` / `i64::MAX`), for a signed comparison
/// with a constant (on either side: `def` is the op as it came in).
fn bound_test(cx: &Cx, r: OpRef) -> Option<(OpRef, i64, i64)> {
    use OpCode::*;
    let d = cx.def(r)?;
    let (a, b) = (*d.args.first()?, *d.args.get(1)?);
    let (x, k, code) = match (cx.int_const(a), cx.int_const(b)) {
        (None, Some(k)) => (a, k, d.opcode),
        (Some(k), None) => (b, k, d.opcode.swapped_comparison()?),
        _ => return None,
    };
    Some(match code {
        IntGe => (x, k, i64::MAX),
        IntGt => (x, k.checked_add(1)?, i64::MAX),
        IntLe => (x, i64::MIN, k),
        IntLt => (x, i64::MIN, k.checked_sub(1)?),
        _ => return None,
    })
}

/// One side known non-null, the other the null constant.
fn nonnull_vs_null(cx: &Cx, a: OpRef, b: OpRef) -> bool {
    let null = |r: OpRef| cx.const_of(r) == Some(Const::Ref(0));
    (null(a) && cx.is_nonnull(b)) || (null(b) && cx.is_nonnull(a))
}

impl Rewrite {
    /// `int_*_ovf` on constants, or with a neutral operand.
    fn opt_int_ovf(&mut self, cx: &mut Cx, op: OptOp) -> Outcome {
        use OpCode::*;
        let code = op.op.opcode;
        let (a, b) = (op.op.arg(0), op.op.arg(1));
        let (sa, sb) = (side(cx, Some(a)), side(cx, Some(b)));
        let result = match (code, sa, sb) {
            (_, Side::Const(x), Side::Const(y)) => {
                let Some((v, ovf)) = eval_ovf(code, x, y) else {
                    return Outcome::Emit(op);
                };
                self.folded_ovf = Some(ovf);
                return Outcome::Same(cx.konst(Const::Int(v)));
            }
            (IntAddOvf | IntSubOvf, _, Side::Const(0)) => a, // x + 0 => x, no overflow
            (IntAddOvf, Side::Const(0), _) => b,             // 0 + x => x, no overflow
            (IntMulOvf, _, Side::Const(1)) => a,             // x * 1 => x, no overflow
            (IntMulOvf, Side::Const(1), _) => b,             // 1 * x => x, no overflow
            _ => return Outcome::Emit(op),
        };
        self.folded_ovf = Some(false);
        Outcome::Same(result)
    }
}

/// The guard after a folded overflow-checked op.
fn opt_guard_overflow(code: OpCode, overflowed: bool) -> Outcome {
    match (code, overflowed) {
        (OpCode::GuardNoOverflow, false) | (OpCode::GuardOverflow, true) => Outcome::Drop,
        _ => Outcome::Invalid(format!("`{code}` always fails: the overflow is known")),
    }
}

/// `guard_true`/`guard_false` on a value whose truth is known; on
/// `int_is_zero(x)`, the opposite guard on `x` (the test of `x` then fuses
/// into the branch instead of materialising a flag), unless `x` is a
/// comparison whose negation is one op (`int_is_zero` folds into it; a
/// float comparison has none, NaN being unordered).
pub(super) fn opt_guard_bool(cx: &mut Cx, mut op: OptOp) -> Outcome {
    let want_true = op.op.opcode == OpCode::GuardTrue;
    match cx.int_const(op.op.arg(0)) {
        Some(v) if (v != 0) == want_true => Outcome::Drop,
        Some(v) => Outcome::Invalid(format!("`{}` of the constant {v}", op.op.opcode)),
        None if want_true && !cx.bound(op.op.arg(0)).contains(0) => Outcome::Drop,
        None => match negation_of(cx, op.op.arg(0)) {
            // guard_true(int_is_zero(x)) => guard_false(x), and back
            Some(x) if !is_negatable(cx, x) => {
                op.op.args[0] = cx.resolve(x);
                op.op.opcode = if want_true {
                    OpCode::GuardFalse
                } else {
                    OpCode::GuardTrue
                };
                opt_guard_bool(cx, op)
            }
            _ => Outcome::Emit(op),
        },
    }
}

/// `x` when `r` is its negation: `int_is_zero(x)`, or `x != 1`, `x == 0`
/// of a boolean `x` (the fold rewrites those to `int_is_zero`, but `def`
/// gives the op as traced).
pub(super) fn negation_of(cx: &Cx, r: OpRef) -> Option<OpRef> {
    let d = cx.def(r)?;
    let k = d.args.get(1).and_then(|&b| cx.int_const(b));
    match (d.opcode, k) {
        (OpCode::IntIsZero, _) => Some(d.args[0]),
        (OpCode::IntNe, Some(1)) | (OpCode::IntEq, Some(0)) if is_bool(cx, d.args[0]) => {
            Some(d.args[0])
        }
        _ => None,
    }
}

fn opt_guard_value(cx: &mut Cx, op: OptOp) -> Outcome {
    let (x, c) = (op.op.arg(0), op.op.arg(1));
    let (kx, kc) = (const_arg(cx, x), const_arg(cx, c));
    match (kx, kc) {
        (Some(x), Some(c)) if x == c => Outcome::Drop,
        (Some(x), Some(c)) => Outcome::Invalid(format!("guard_value of {x:?} against {c:?}")),
        (None, Some(Const::Int(v))) if !cx.bound(x).contains(v) => Outcome::Invalid(format!(
            "guard_value against {v}, outside the value's bounds"
        )),
        (None, Some(Const::Int(v @ (0 | 1)))) if is_bool(cx, x) => {
            // guard_value(b, 1) => guard_true(b) for b in 0..=1
            let mut op = op;
            op.op.opcode = if v == 1 {
                OpCode::GuardTrue
            } else {
                OpCode::GuardFalse
            };
            op.op.args.truncate(1);
            Outcome::Emit(op)
        }
        _ => Outcome::Emit(op),
    }
}

fn opt_guard_null(cx: &mut Cx, op: OptOp) -> Outcome {
    let x = op.op.arg(0);
    let is_null = cx.const_of(x) == Some(Const::Ref(0));
    let nonnull = cx.is_nonnull(x);
    match (op.op.opcode, is_null, nonnull) {
        (OpCode::GuardNonnull, _, true) | (OpCode::GuardIsnull, true, _) => Outcome::Drop,
        (OpCode::GuardNonnull, true, _) => Outcome::Invalid("guard_nonnull of null".into()),
        (OpCode::GuardIsnull, _, true) => {
            Outcome::Invalid("guard_isnull of a non-null value".into())
        }
        _ => Outcome::Emit(op),
    }
}

fn opt_guard_class(cx: &mut Cx, op: OptOp) -> Outcome {
    let (x, cls) = (op.op.arg(0), cx.int_const(op.op.arg(1)));
    if op.op.opcode == OpCode::GuardNonnullClass && cx.const_of(x) == Some(Const::Ref(0)) {
        return Outcome::Invalid("guard_nonnull_class of null".into());
    }
    match (cx.class_of(x), cls) {
        (Some(have), Some(want)) if have == want => Outcome::Drop,
        (Some(_), Some(_)) => Outcome::Invalid("guard_class against another known class".into()),
        _ if op.op.opcode == OpCode::GuardNonnullClass && cx.is_nonnull(x) => {
            // guard_nonnull_class(p, c) => guard_class(p, c) for p non-null
            let mut op = op;
            op.op.opcode = OpCode::GuardClass;
            Outcome::Emit(op)
        }
        _ => Outcome::Emit(op),
    }
}
