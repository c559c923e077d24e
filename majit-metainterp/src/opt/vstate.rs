//! Virtual state: the shape of a loop-carried virtual, so that unroll can
//! pass it through the peeled loop's label unboxed.
//!
//! A [`VState`] is a tree: a leaf is one label argument (a non-virtual
//! value); a node is a virtual struct of a given layout whose set fields
//! are again states. At the end of the preamble a jump argument that is a
//! virtual tree (no sharing with other arguments, no cycle) is *captured*;
//! its leaves become label arguments. The peeled loop starts by
//! *rebuilding* the virtual from those label arguments, and at its end the
//! jump argument must *flatten* against the same state: a virtual of the
//! same layout at every node, with no field set that the state lacks.
//! Otherwise unroll retries with that argument boxed (forced).
//!
//! Invariant: one virtual object is carried by one position only, so
//! rebuilding it once per iteration preserves identity.

use super::cx::Cx;
use super::info::Virtual;
use crate::resume::{Layout, Slot};
use majit_ir::{Const, Kind, OpRef};
use std::collections::HashSet;

/// The shape of a loop-carried value. See the module docs.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum VState {
    Leaf,
    Virtual {
        layout: Layout,
        fields: Vec<(Slot, VState)>,
    },
}

/// The state of `r` if it is an unshared, acyclic tree of virtual structs
/// (`seen` collects the virtuals of every position captured so far).
pub(super) fn capture(cx: &Cx, r: OpRef, seen: &mut HashSet<OpRef>) -> Option<VState> {
    let r = cx.resolve(r);
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
            VState::Leaf
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
    seen: &mut HashSet<OpRef>,
    out: &mut Vec<OpRef>,
) -> bool {
    let r = cx.resolve(r);
    let VState::Virtual { layout, fields } = state else {
        out.push(r);
        return true;
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

/// Recreates a virtual of `state` whose leaves are the next values of
/// `leaves`; returns its value ref (the leaf itself for a leaf state).
pub(super) fn rebuild(
    cx: &mut Cx,
    state: &VState,
    leaves: &mut dyn Iterator<Item = OpRef>,
) -> OpRef {
    let VState::Virtual { layout, fields } = state else {
        return leaves.next().expect("one label argument per leaf");
    };
    let mut v = Virtual::new(layout.clone());
    for (slot, sub) in fields {
        let value = rebuild(cx, sub, leaves);
        v.set(slot.clone(), value);
    }
    let r = cx.fresh(Some(Kind::Ref));
    let info = cx.info_mut(r);
    info.nonnull = true;
    info.fresh = true;
    info.layout = Some(layout.clone());
    info.virt = Some(v);
    r
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
        None => matches!(sub, VState::Leaf),
    })
}
