//! pure: common-subexpression elimination of pure ops and elidable calls.
//!
//! An op without side effects whose result depends only on its arguments
//! (the `PURE` flag: arithmetic, comparisons, casts, `arraylen_gc`,
//! `call_pure_*`) is looked up by (opcode, arguments, descr); a repeat
//! becomes the earlier result. Commutative ops are keyed with their
//! arguments sorted. An all-constant op that [`eval_pure`] can evaluate is
//! folded (rewrite does the same earlier in the default order; this keeps
//! folding when rewrite is disabled). Elidable calls on constants are not
//! evaluated at compile time: that would run user code inside the
//! optimizer. A call whose descr is `loop_invariant` (no arguments besides
//! the function) is keyed the same way, so a repeat in one iteration
//! reuses the first result; its entries are not exported to the peeled
//! loop, so each iteration calls it once. A tag whose round trip is the
//! identity (`int_tag` of a value bounded to 63 bits, `float_tag` of a
//! float known to fit) also records its inverse, `untag(tag(x)) = x`, as
//! PyPy's `pure_from_args` does: a later untag is `x`, and through the
//! short preamble a loop that keeps a value tagged carries it untagged.
//!
//! Invariant: an entry is added only when its op is committed, so a
//! result is reused only where it is defined; a `label` clears the table
//! (values from before it are not available after it).

use super::cx::{Cx, OptOp};
use super::eval::eval_pure;
use super::rewrite::fits_small_int;
use super::{Outcome, Pass};
use majit_ir::hash::FastMap;
use majit_ir::{CallEffect, Descr, OpCode, OpRef};

type Key = (OpCode, Vec<OpRef>, Option<Descr>);

/// The pure pass.
#[derive(Default)]
pub struct Pure {
    seen: FastMap<Key, OpRef>,
    /// The keys of `seen` in insertion order (exports are deterministic).
    order: Vec<Key>,
}

/// Whether `op` is a call of a `loop_invariant` function.
fn loop_invariant(op: &OptOp) -> bool {
    let call = op.op.descr.as_ref().and_then(|d| d.as_call());
    call.is_some_and(|c| c.effect.effect == CallEffect::LoopInvariant)
}

fn key(cx: &Cx, op: &OptOp) -> Option<Key> {
    let code = op.op.opcode;
    let pure = code.is_always_pure() || loop_invariant(op);
    if !pure || code.result().kind().is_none() {
        return None;
    }
    let mut args: Vec<OpRef> = op.op.args.iter().map(|a| cx.resolve(*a)).collect();
    if code.is_commutative() {
        args.sort();
    }
    Some((code, args, op.op.descr.clone()))
}

/// For a tag whose round trip is the identity (`rewrite`'s rule: a small
/// integer bounded to 63 bits, a float known to fit), the untag opcode and
/// the tagged value.
fn untag_of(cx: &Cx, op: &OptOp) -> Option<(OpCode, OpRef)> {
    let x = *op.op.args.first()?;
    match op.op.opcode {
        OpCode::IntTag if fits_small_int(cx.bound(x)) => Some((OpCode::IntUntag, x)),
        OpCode::FloatTag if cx.fits_tag(x) => Some((OpCode::FloatUntag, x)),
        _ => None,
    }
}

impl Pure {
    /// `k`'s result is `res` from now on (the first one stays); `export`:
    /// it may enter the short preamble.
    fn remember(&mut self, k: Key, res: OpRef, export: bool) {
        if !self.seen.contains_key(&k) {
            if export {
                self.order.push(k.clone());
            }
            self.seen.insert(k, res);
        }
    }
}

impl Pass for Pure {
    fn name(&self) -> &'static str {
        "pure"
    }

    fn feed(&mut self, cx: &mut Cx, op: OptOp) -> Outcome {
        if op.op.opcode == OpCode::Label {
            self.seen.clear();
            self.order.clear();
            return Outcome::Emit(op);
        }
        let Some(k) = key(cx, &op) else {
            return Outcome::Emit(op);
        };
        if let Some(&r) = self.seen.get(&k) {
            return Outcome::Same(cx.resolve(r));
        }
        let consts: Option<Vec<_>> = k.1.iter().map(|a| cx.const_of(*a)).collect();
        if let Some(c) = consts.and_then(|cs| eval_pure(k.0, &cs)) {
            return Outcome::Same(cx.konst(c));
        }
        Outcome::Emit(op)
    }

    fn committed(&mut self, cx: &mut Cx, op: &OptOp) {
        if let Some(k) = key(cx, op) {
            self.remember(k, op.res, !loop_invariant(op));
        }
        if let Some((untag, x)) = untag_of(cx, op) {
            // untag(tag(x)) is x: a later untag reuses x, and the peeled
            // loop's untag of a label argument becomes a label argument
            // itself (the value travels untagged).
            self.remember((untag, vec![op.res], None), cx.resolve(x), true);
        }
    }

    fn export(&self, _cx: &Cx) -> Vec<OptOp> {
        self.order
            .iter()
            .map(|k| {
                let mut op = majit_ir::Op::new(k.0, &k.1);
                op.descr = k.2.clone();
                OptOp {
                    op,
                    res: self.seen[k],
                }
            })
            .collect()
    }
}
