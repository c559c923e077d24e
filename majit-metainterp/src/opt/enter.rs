//! enter: a bridge that ends at a peeled loop's start jumps straight
//! into one of the loop's peeled labels whose state its end fits.
//!
//! A peeled label ([`LoopLabel`]) takes each loop-carried value in a
//! state: boxed, or as an unboxed virtual whose leaves are label slots;
//! after the leaves come the short preamble's values (cached loads, pure
//! results), and the body assumes facts about every slot. The bridge is
//! optimized as usual up to its closing `jump(args, descr=L)`; then each
//! argument is flattened against its state (a virtual of the same shape
//! where the label unboxes one; where it takes a boxed value, a virtual
//! only when `force` allows forcing it there), the short-preamble ops are
//! fed over the leaves, and every fact must be proven by the bridge's own
//! trace: no entry guards here (the short-preamble path in `bridge.rs`
//! has them, for labels without virtuals). If all holds, the bridge ends
//! with `jump(slots, descr=label)` and the preamble never runs for it;
//! otherwise the caller gets the reason and ends the bridge another way
//! (a retrace, `unroll::retrace`, or the loop's start).

use super::driver::{Pipeline, Stage};
use super::unroll::{self, Fact, LoopLabel};
use super::vstate::{self, VState};
use super::{OptError, Optimized};
use majit_ir::hash::FastSet;
use majit_ir::{Op, OpCode, OpRef, Trace};

/// Optimizes `bridge`, which ends by jumping to the start of the loop
/// `label` belongs to, so that it jumps into `label` instead; `Err(why)`
/// when its end does not fit the label.
pub(super) fn enter(
    bridge: &Trace,
    stages: &[Stage],
    label: &LoopLabel,
    force: bool,
) -> Result<Result<Optimized, String>, OptError> {
    let Some(jump) = bridge.ops.last().filter(|o| o.opcode == OpCode::Jump) else {
        return Ok(Err("the bridge does not end in a jump".into()));
    };
    if jump.args.len() != label.states.len() {
        return Ok(Err("the jump's arity differs from the loop's".into()));
    }
    let last = bridge.ops.len() - 1;
    let mut p = Pipeline::new(bridge, stages);
    p.feed_trace(bridge, &|k| k == last)?;
    let j: Vec<OpRef> = jump.args.iter().map(|a| p.rename(bridge, *a)).collect();
    let mut slots = match leaves(&mut p, &j, label, force) {
        Ok(s) => s,
        Err(why) => return Ok(Err(why)),
    };
    let n = slots.len();
    if !Fact::all_hold(&label.facts[..n], &p.cx, &slots) {
        return Ok(Err(
            "the bridge does not prove the facts the body assumes".into()
        ));
    }
    if let Err(why) = unroll::short_values(&mut p, &label.short, &mut slots)? {
        return Ok(Err(why));
    }
    if !Fact::all_hold(&label.facts[n..], &p.cx, &slots[n..]) {
        return Ok(Err(
            "the bridge does not prove the facts about the short values".into(),
        ));
    }
    for &k in &label.pruned {
        slots.remove(k);
    }
    p.feed_extra(Op::new(OpCode::Jump, &slots).with_descr(label.descr.clone()))?;
    if let Some(k) = unroll::escaped(&p.cx, &j, &label.states) {
        return Ok(Err(format!("jump argument {k} escaped at the jump")));
    }
    Ok(Ok(p.finish()))
}

/// The label's leaf slots for the jump arguments `j`; `Err(why)` when one
/// does not fit its state.
fn leaves(
    p: &mut Pipeline,
    j: &[OpRef],
    label: &LoopLabel,
    force: bool,
) -> Result<Vec<OpRef>, String> {
    let mut out = Vec::new();
    let mut seen = FastSet::default();
    for (k, (r, st)) in j.iter().zip(&label.states).enumerate() {
        let fits = match st {
            Some(st) => vstate::flatten(&mut p.cx, *r, st, &mut seen, &mut out),
            None if !force && p.cx.is_virtual(*r) => false,
            None => vstate::flatten(&mut p.cx, *r, &VState::Leaf, &mut seen, &mut out),
        };
        if !fits {
            return Err(format!("jump argument {k} does not fit the label's state"));
        }
    }
    Ok(out)
}
