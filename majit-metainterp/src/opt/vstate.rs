//! Virtual state: the shape of a loop-carried value, so that unroll can
//! pass it through the peeled loop's label unboxed.
//!
//! A [`VState`] is a tree: a leaf is one label argument (a non-virtual
//! value); a tagged node is a small number in a ref (`int_tag(x)` or
//! `float_tag(x)`) whose one leaf is `x`; a virtual node is a virtual
//! struct of a given layout whose set fields are again states. At the end
//! of the preamble a jump argument that is such a tree (no sharing of
//! virtuals with other arguments, no cycle) is *captured*; its leaves
//! become label arguments. The peeled loop starts by *rebuilding* the value
//! from those label arguments (a virtual again, or the tagging op), and at
//! its end the jump argument must *flatten* against the same state: a
//! virtual of the same layout at every virtual node, with no field set that
//! the state lacks, and the same tagging (or a constant tagged so) at every
//! tagged node. Otherwise unroll retries with that argument boxed (forced).
//!
//! A tagged number travels as the number: the loop's tag tests and untags
//! of it fold, and its tag is recomputed only where something reads it.
//!
//! Invariant: one virtual object is carried by one position only, so
//! rebuilding it once per iteration preserves identity (a tagged number has
//! no identity: its bits are its value).

use super::cx::Cx;
use super::driver::Pipeline;
use super::info::Virtual;
use super::OptError;
use crate::resume::{Layout, Slot};
use majit_ir::hash::FastSet;
use majit_ir::{Const, Kind, Op, OpCode, OpRef};

/// The shape of a loop-carried value. See the module docs.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum VState {
    Leaf,
    /// The result of the tagging op (`int_tag` or `float_tag`) of a leaf.
    Tagged(OpCode),
    Virtual {
        layout: Layout,
        fields: Vec<(Slot, VState)>,
    },
}

impl VState {
    /// Whether the state has a virtual node (a bridge holding a real
    /// object cannot enter a label that expects its fields).
    pub(super) fn has_virtual(&self) -> bool {
        matches!(self, VState::Virtual { .. })
    }
}

/// The tagged state of `r`, when a tagging op defines it.
fn tagged(cx: &Cx, r: OpRef) -> Option<VState> {
    let code = cx.def(r)?.opcode;
    matches!(code, OpCode::IntTag | OpCode::FloatTag).then_some(VState::Tagged(code))
}

/// The leaf of `r` under the tagging op `code`: its operand, or the
/// untagged constant.
fn untagged(cx: &mut Cx, r: OpRef, code: OpCode) -> Option<OpRef> {
    if let Some(d) = cx.def(r).filter(|d| d.opcode == code) {
        return Some(cx.resolve(d.args[0]));
    }
    match (code, cx.const_of(r)?) {
        (OpCode::IntTag, Const::Ref(bits)) if bits & 1 == 1 => {
            Some(cx.konst(Const::Int(bits as i64 >> 1)))
        }
        _ => None,
    }
}

/// The state of `r` if it is an unshared, acyclic tree of virtual structs
/// (`seen` collects the virtuals of every position captured so far).
pub(super) fn capture(cx: &Cx, r: OpRef, seen: &mut FastSet<OpRef>) -> Option<VState> {
    let r = cx.resolve(r);
    if let Some(t) = tagged(cx, r) {
        return Some(t);
    }
    let v = cx.virtual_of(r)?;
    if !matches!(v.layout, Layout::Struct { .. }) || !seen.insert(r) {
        return None;
    }
    let mut fields = Vec::new();
    for (slot, value) in &v.fields {
        let value = cx.resolve(*value);
        let sub = if cx.is_virtual(value) {
            capture(cx, value, seen)?
        } else {
            tagged(cx, value).unwrap_or(VState::Leaf)
        };
        fields.push((slot.clone(), sub));
    }
    Some(VState::Virtual {
        layout: v.layout.clone(),
        fields,
    })
}

/// Appends the leaves of `r` under `state` to `out`; `false` when `r` does
/// not fit the state (or shares a virtual with an earlier position).
pub(super) fn flatten(
    cx: &mut Cx,
    r: OpRef,
    state: &VState,
    seen: &mut FastSet<OpRef>,
    out: &mut Vec<OpRef>,
) -> bool {
    let r = cx.resolve(r);
    let (layout, fields) = match state {
        VState::Leaf => {
            out.push(r);
            return true;
        }
        VState::Tagged(code) => match untagged(cx, r, *code) {
            Some(x) => {
                out.push(x);
                return true;
            }
            None => return false,
        },
        VState::Virtual { layout, fields } => (layout, fields),
    };
    let Some(v) = cx.virtual_of(r).cloned() else {
        return false;
    };
    let fits = v.layout == *layout
        && v.fields
            .iter()
            .all(|(s, _)| fields.iter().any(|(f, _)| f == s))
        && seen.insert(r);
    if !fits {
        return false;
    }
    for (slot, sub) in fields {
        let value = match v.get(slot) {
            Some(x) => x,
            None => zero(cx, slot),
        };
        if !flatten(cx, value, sub, seen, out) {
            return false;
        }
    }
    true
}

/// What an unset field reads as.
fn zero(cx: &mut Cx, slot: &Slot) -> OpRef {
    let kind = match slot {
        Slot::Field(f) => f.kind,
        Slot::Item(a, _) => a.kind,
    };
    cx.konst(match kind {
        Kind::Int => Const::Int(0),
        Kind::Ref => Const::Ref(0),
        Kind::Float => Const::float(0.0),
    })
}

/// Recreates a value of `state` whose leaves are the next values of
/// `leaves` (a virtual, or the tagging op fed through `p`); returns its
/// value ref (the leaf itself for a leaf state).
pub(super) fn rebuild(
    p: &mut Pipeline,
    state: &VState,
    leaves: &mut dyn Iterator<Item = OpRef>,
) -> Result<OpRef, OptError> {
    let (layout, fields) = match state {
        VState::Leaf => return Ok(leaves.next().expect("one label argument per leaf")),
        VState::Tagged(code) => {
            let x = leaves.next().expect("one label argument per leaf");
            return Ok(p.feed_extra(Op::new(*code, &[x]))?.0);
        }
        VState::Virtual { layout, fields } => (layout, fields),
    };
    let mut v = Virtual::new(layout.clone());
    for (slot, sub) in fields {
        let value = rebuild(p, sub, leaves)?;
        v.set(slot.clone(), value);
    }
    let r = p.cx.fresh(Some(Kind::Ref));
    let info = p.cx.info_mut(r);
    info.nonnull = true;
    info.fresh = true;
    info.layout = Some(layout.clone());
    info.virt = Some(v);
    Ok(r)
}

/// Whether every virtual node of `state` at `r` is still virtual (nothing
/// forced it at the jump: it did not escape another way).
pub(super) fn still_virtual(cx: &Cx, r: OpRef, state: &VState) -> bool {
    let VState::Virtual { fields, .. } = state else {
        return true;
    };
    let Some(v) = cx.virtual_of(r) else {
        return false;
    };
    fields.iter().all(|(slot, sub)| match v.get(slot) {
        Some(x) => still_virtual(cx, cx.resolve(x), sub),
        None => !sub.has_virtual(),
    })
}
