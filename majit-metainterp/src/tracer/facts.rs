//! What the tracer knows about its boxes beyond their concrete values, so
//! that an op whose result is already known records nothing.
//!
//! Every fact holds on the trace's path from where it is learned: a pure op
//! recorded before gives the same result for the same arguments (pure ops
//! have no effects, and an array's length never changes; elidable calls are
//! not cached here), an overflow-checked op whose `guard_no_overflow` passed
//! does not overflow for the same arguments again, a fresh allocation is
//! non-null, an object's class never changes, a guard makes its condition
//! known after it (the trace only goes on when it passed), and an index
//! checked below a length makes the smaller constant indexes in bounds. The
//! optimizer would find the same facts; knowing them while tracing saves
//! recording, snapshotting and optimizing the ops.

use super::{FastMap, FastSet};
use majit_ir::{Const, OpCode, OpRef, Trace};

/// The arguments of a cached op (pure ops have at most three).
type Args = ([OpRef; 3], u8);

fn args_key(code: OpCode, args: &[OpRef]) -> Option<Args> {
    if args.len() > 3 {
        return None;
    }
    let mut a = [OpRef::input(0); 3];
    a[..args.len()].copy_from_slice(args);
    if code.is_commutative() {
        a[..args.len()].sort();
    }
    Some((a, args.len() as u8))
}

/// A known result.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(super) enum Fold {
    /// An integer constant (a comparison's outcome).
    Int(i64),
    /// An existing box.
    Same(OpRef),
}

/// The facts.
#[derive(Debug, Default)]
pub(super) struct Facts {
    /// Recorded pure ops by opcode and arguments: their result (or the
    /// constant a guard made it).
    pure: FastMap<(OpCode, Args), OpRef>,
    /// Overflow-checked ops whose `guard_no_overflow` was recorded.
    no_overflow: FastMap<(OpCode, Args), OpRef>,
    /// References known non-null (fresh allocations, guarded ones).
    nonnull: FastSet<OpRef>,
    /// Boxes a guard made constant: box → constant.
    known: FastMap<OpRef, OpRef>,
    /// The largest constant `k >= 0` a passed guard proved below box `n`
    /// (`uint_lt(k, n)`, an index checked against a length): every
    /// constant index up to it is in bounds too.
    above: FastMap<OpRef, i64>,
    /// Objects whose class a passed `guard_class` proved (an object's
    /// class never changes).
    classes: FastMap<OpRef, i64>,
}

/// `r` is 0 or 1 (a comparison's or a test's result).
fn is_bool(trace: &Trace, r: OpRef) -> bool {
    trace.def(r).is_some_and(|d| d.opcode.is_boolean())
}

/// `r` is the null constant.
fn is_null(trace: &Trace, r: OpRef) -> bool {
    trace.get_const(r) == Some(Const::Ref(0))
}

impl Facts {
    /// What `r` is known to be: its constant, if a guard fixed it.
    pub(super) fn resolve(&self, r: OpRef) -> OpRef {
        self.known.get(&r).copied().unwrap_or(r)
    }

    pub(super) fn set_nonnull(&mut self, r: OpRef) {
        self.nonnull.insert(r);
    }

    pub(super) fn is_nonnull(&self, r: OpRef) -> bool {
        self.nonnull.contains(&r)
    }

    /// The class a guard proved object `r` has.
    pub(super) fn class_of(&self, r: OpRef) -> Option<i64> {
        self.classes.get(&r).copied()
    }

    /// A `guard_class` proved object `r` has class `class` (and is non-null).
    pub(super) fn set_class(&mut self, r: OpRef, class: i64) {
        self.classes.insert(r, class);
        self.set_nonnull(r);
    }

    /// `r` is `c` (a constant) from here on.
    pub(super) fn set_known(&mut self, r: OpRef, c: OpRef) {
        self.known.insert(r, c);
    }

    /// The result of pure op `code(args)` when it is known without
    /// recording: a comparison of a box with itself, a non-null reference
    /// compared with null, or an op recorded before.
    pub(super) fn fold_pure(&self, trace: &Trace, code: OpCode, args: &[OpRef]) -> Option<Fold> {
        use OpCode::*;
        if let [a, b] = *args {
            if a == b {
                match code {
                    IntEq | IntLe | IntGe | UintLe | UintGe | PtrEq => return Some(Fold::Int(1)),
                    IntNe | IntLt | IntGt | UintLt | UintGt | PtrNe => return Some(Fold::Int(0)),
                    _ => {}
                }
            }
            // A comparison's result (0 or 1) against another constant.
            let not_bool = |k: OpRef| {
                trace
                    .get_const(k)
                    .is_some_and(|c| !matches!(c, Const::Int(0 | 1)))
            };
            let bool_vs_other =
                (is_bool(trace, a) && not_bool(b)) || (is_bool(trace, b) && not_bool(a));
            if matches!(code, IntEq | IntNe) && bool_vs_other {
                return Some(Fold::Int((code == IntNe) as i64));
            }
            let nonnull_vs_null = (is_null(trace, a) && self.is_nonnull(b))
                || (is_null(trace, b) && self.is_nonnull(a));
            if matches!(code, PtrEq | PtrNe) && nonnull_vs_null {
                return Some(Fold::Int((code == PtrNe) as i64));
            }
        }
        if let Some(truth) = self.fold_below(trace, code, args) {
            return Some(Fold::Int(truth as i64));
        }
        if !code.is_always_pure() {
            return None;
        }
        let r = self.pure.get(&(code, args_key(code, args)?))?;
        Some(Fold::Same(self.resolve(*r)))
    }

    /// `uint_lt(k, n)` or `uint_gt(n, k)` for a constant `k` at most one
    /// already proved below `n`: true.
    fn fold_below(&self, trace: &Trace, code: OpCode, args: &[OpRef]) -> Option<bool> {
        let (k, n) = match (code, args) {
            (OpCode::UintLt, &[k, n]) | (OpCode::UintGt, &[n, k]) => (k, n),
            _ => return None,
        };
        let Some(Const::Int(k)) = trace.get_const(k) else {
            return None;
        };
        let bound = *self.above.get(&n)?;
        (0..=bound).contains(&k).then_some(true)
    }

    /// Pure op `code(args)` was recorded with result `r`.
    pub(super) fn remember_pure(&mut self, code: OpCode, args: &[OpRef], r: OpRef) {
        if code.is_always_pure() {
            if let Some(k) = args_key(code, args) {
                self.pure.insert((code, k), r);
            }
        }
    }

    /// The result of `code(a, b)` (overflow-checked) when it was recorded
    /// before and did not overflow.
    pub(super) fn fold_ovf(&self, code: OpCode, a: OpRef, b: OpRef) -> Option<OpRef> {
        let r = self.no_overflow.get(&(code, args_key(code, &[a, b])?))?;
        Some(self.resolve(*r))
    }

    /// `code(a, b)` was recorded with result `r` and `guard_no_overflow`.
    pub(super) fn remember_no_overflow(&mut self, code: OpCode, a: OpRef, b: OpRef, r: OpRef) {
        if let Some(k) = args_key(code, &[a, b]) {
            self.no_overflow.insert((code, k), r);
        }
    }

    /// A guard passed with `c` true (`truth`) or false: what follows, as
    /// boxes that became constants (for the caller to substitute). A
    /// comparison's result is 0 or 1, its negation and its swapped forms
    /// become known, an equality with a constant makes the other side that
    /// constant, a null test makes the reference null or non-null, and
    /// `int_is_zero`/`int_is_true` of a comparison teach the comparison's.
    pub(super) fn learn_truth(
        &mut self,
        trace: &mut Trace,
        c: OpRef,
        truth: bool,
    ) -> Vec<(OpRef, OpRef)> {
        use OpCode::*;
        let mut fixed = Vec::new();
        let Some(def) = trace.def(c) else {
            return fixed;
        };
        let (code, args) = (def.opcode, def.args.to_vec());
        let is_cmp = code.swapped_comparison().is_some();
        if is_bool(trace, c) || !truth {
            fixed.push((c, trace.add_const(Const::Int(truth as i64))));
        }
        if is_cmp {
            self.learn_comparison(trace, code, &args, truth);
        }
        match (code, args.as_slice()) {
            // The negation of a comparison: the comparison's own facts.
            (IntIsZero, &[x]) if is_bool(trace, x) => {
                fixed.extend(self.learn_truth(trace, x, !truth))
            }
            (IntIsTrue, &[x]) if is_bool(trace, x) => {
                fixed.extend(self.learn_truth(trace, x, truth))
            }
            (IntIsZero, &[x]) if truth => fixed.push((x, trace.add_const(Const::Int(0)))),
            (IntIsTrue, &[x]) if !truth => fixed.push((x, trace.add_const(Const::Int(0)))),
            (IntEq | PtrEq, &[a, b]) => self.learn_equality(trace, a, b, truth, &mut fixed),
            (IntNe | PtrNe, &[a, b]) => self.learn_equality(trace, a, b, !truth, &mut fixed),
            _ => {}
        }
        fixed
    }

    /// `code(args)` is `truth`: so are its swapped form and the negations.
    fn learn_comparison(&mut self, trace: &mut Trace, code: OpCode, args: &[OpRef], truth: bool) {
        let [a, b] = *args else { return };
        if truth {
            self.learn_below(trace, code, a, b);
        }
        let yes = trace.add_const(Const::Int(truth as i64));
        let no = trace.add_const(Const::Int(!truth as i64));
        let swapped = code.swapped_comparison();
        let forms = [
            (Some(code), [a, b], yes),
            (swapped, [b, a], yes),
            (code.negated_comparison(), [a, b], no),
            (swapped.and_then(|s| s.negated_comparison()), [b, a], no),
        ];
        for (form, args, k) in forms {
            if let Some(form) = form {
                self.remember_pure(form, &args, k);
            }
        }
    }

    /// `uint_lt(k, n)` or `uint_gt(n, k)` holds: constant `k >= 0` is below `n`.
    fn learn_below(&mut self, trace: &Trace, code: OpCode, a: OpRef, b: OpRef) {
        let (k, n) = match code {
            OpCode::UintLt => (a, b),
            OpCode::UintGt => (b, a),
            _ => return,
        };
        if let (Some(Const::Int(k)), false) = (trace.get_const(k), n.is_const()) {
            if k >= 0 {
                let bound = self.above.entry(n).or_insert(k);
                *bound = (*bound).max(k);
            }
        }
    }

    /// `a == b` is `equal`: a side compared with a constant becomes it
    /// (when equal); a reference compared with null becomes non-null.
    fn learn_equality(
        &mut self,
        trace: &Trace,
        a: OpRef,
        b: OpRef,
        equal: bool,
        fixed: &mut Vec<(OpRef, OpRef)>,
    ) {
        let (x, k) = match (a.is_const(), b.is_const()) {
            (false, true) => (a, b),
            (true, false) => (b, a),
            _ => return,
        };
        if equal {
            fixed.push((x, k));
        } else if is_null(trace, k) {
            self.set_nonnull(x);
        }
    }
}
