//! The trace-time heap cache: the box last loaded from or stored to each
//! (object, field), so a repeated load records nothing.
//!
//! Aliasing: a store of field `f` of object `o` keeps the other entries of
//! `f` only for objects provably distinct from `o`. Objects are told apart
//! by freshness: an object the trace allocated (`new`) differs from every
//! other allocation of the trace and from every object the trace could
//! name before that allocation (an input, or an op result recorded
//! earlier). Nothing else is distinct: two loaded references may be the
//! same object, and a reference loaded after an allocation may be that
//! object. Constants are never distinct from anything (a promoted fresh
//! object is a constant). A residual call drops the fields it may write
//! (all of them without declared effects); elidable calls write nothing.
//!
//! Stores to fresh objects are recorded late: the cache keeps them pending
//! until something could observe the field (a guard, whose resume would
//! read the heap; a call; a recorded load of that field; a store of that
//! field to another object; the end of the trace), so a store overwritten
//! before that is never recorded. Only the first pending store of an
//! (object, field) keeps its place in the order; pending stores are to
//! distinct fresh objects or fields, so their order does not matter.
//!
//! The cache is not a GC root: a moving collection leaves the concrete
//! value of a cached ref box stale. Only the box's trace ref is used (a hit
//! takes its concrete value from the load the tracer performs anyway), so
//! an allocation costs nothing per cached entry.

use super::{FastMap, FastSet, TBox};
use majit_ir::{CallEffect, Descr, EffectInfo, FieldDescr, OpRef, RefTarget};
use std::collections::BTreeMap;

/// The known boxes of one field.
#[derive(Debug, Default)]
struct FieldEntries {
    /// Of fresh objects, ordered by allocation (a store to an older object
    /// drops the ones allocated before it).
    fresh: BTreeMap<OpRef, TBox>,
    /// Of every other object.
    other: FastMap<OpRef, TBox>,
}

/// The cache. Fields are told apart by name (descriptors of one field may
/// be separate `Arc`s in different jitcodes).
#[derive(Debug, Default)]
pub(super) struct HeapCache {
    fields: Vec<(String, FieldEntries)>,
    /// The results of the trace's `new`/`new_array` ops.
    fresh: FastSet<OpRef>,
    /// Stores to fresh objects not recorded yet: object, field, value.
    pending: Vec<(OpRef, Descr, TBox)>,
}

/// Whether two field descriptors name the same field.
fn same_field(a: &Descr, b: &Descr) -> bool {
    match (a.as_field(), b.as_field()) {
        (Some(x), Some(y)) => x.name == y.name,
        _ => false,
    }
}

/// When `r` came to be, for ordering: inputs first, then ops by position;
/// `None` for constants.
fn birth(r: OpRef) -> Option<usize> {
    match r.target() {
        RefTarget::Input(_) => Some(0),
        RefTarget::Op(i) => Some(i + 1),
        RefTarget::Const(_) => None,
    }
}

impl HeapCache {
    /// Whether `obj` was allocated by the trace.
    pub(super) fn is_fresh(&self, obj: OpRef) -> bool {
        self.fresh.contains(&obj)
    }

    /// Store `obj.f = value` (`obj` fresh) is to be recorded later.
    pub(super) fn delay(&mut self, obj: OpRef, f: Descr, value: TBox) {
        let same = |p: &&mut (OpRef, Descr, TBox)| p.0 == obj && same_field(&p.1, &f);
        match self.pending.iter_mut().find(same) {
            Some(p) => p.2 = value,
            None => self.pending.push((obj, f, value)),
        }
    }

    /// The pending stores to record now: of field `f`, or all of them.
    pub(super) fn take_pending(&mut self, f: Option<&FieldDescr>) -> Vec<(OpRef, Descr, TBox)> {
        let Some(f) = f else {
            return std::mem::take(&mut self.pending);
        };
        let of_f = |p: &(OpRef, Descr, TBox)| p.1.as_field().is_some_and(|d| d.name == f.name);
        let (taken, kept) = std::mem::take(&mut self.pending)
            .into_iter()
            .partition(of_f);
        self.pending = kept;
        taken
    }

    /// `obj` was just allocated by the trace.
    pub(super) fn allocated(&mut self, obj: OpRef) {
        self.fresh.insert(obj);
    }

    fn field(&self, f: &FieldDescr) -> Option<&FieldEntries> {
        self.fields.iter().find(|e| e.0 == f.name).map(|e| &e.1)
    }

    fn field_mut(&mut self, f: &FieldDescr) -> &mut FieldEntries {
        let i = match self.fields.iter().position(|e| e.0 == f.name) {
            Some(i) => i,
            None => {
                self.fields.push((f.name.clone(), FieldEntries::default()));
                self.fields.len() - 1
            }
        };
        &mut self.fields[i].1
    }

    pub(super) fn get(&self, obj: OpRef, f: &FieldDescr) -> Option<TBox> {
        let e = self.field(f)?;
        if self.fresh.contains(&obj) {
            e.fresh.get(&obj).copied()
        } else {
            e.other.get(&obj).copied()
        }
    }

    /// `value` was loaded from `obj.f`.
    pub(super) fn remember(&mut self, obj: OpRef, f: &FieldDescr, value: TBox) {
        let fresh = self.fresh.contains(&obj);
        let e = self.field_mut(f);
        if fresh {
            e.fresh.insert(obj, value);
        } else {
            e.other.insert(obj, value);
        }
    }

    /// `value` was stored to `obj.f`: entries of `f` for objects that may
    /// be `obj` are dropped.
    pub(super) fn store(&mut self, obj: OpRef, f: &FieldDescr, value: TBox) {
        let fresh = self.fresh.contains(&obj);
        let e = self.field_mut(f);
        match birth(obj) {
            // A fresh object: only objects named after it may be it.
            Some(b) if fresh => e.other.retain(|&x, _| birth(x).is_some_and(|bx| bx < b)),
            // An input is none of the fresh objects, but may be any other.
            Some(0) => e.other.clear(),
            // Another object may be any of them but a fresh object
            // allocated after it was named.
            Some(_) => {
                e.other.clear();
                e.fresh = e.fresh.split_off(&obj);
            }
            None => {
                e.other.clear();
                e.fresh.clear();
            }
        }
        self.remember(obj, f, value);
    }

    /// A call with `effect` ran.
    pub(super) fn call(&mut self, effect: &EffectInfo) {
        let writes = |name: &String| match effect.effect {
            CallEffect::Elidable => false,
            CallEffect::Declared => effect.writes.contains(name),
            CallEffect::Random | CallEffect::LoopInvariant => true,
        };
        for (name, e) in &mut self.fields {
            if writes(name) {
                e.fresh.clear();
                e.other.clear();
            }
        }
    }
}
