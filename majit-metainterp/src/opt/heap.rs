//! heap: caching of GC loads and delaying of stores ("lazy sets").
//!
//! Per field descr, the pass knows the value of the field in some objects
//! (from loads and stores it has seen); per array descr, the value of items
//! at constant indexes. A load of a known value becomes that value; a store
//! of the value already known is removed. A store into a non-virtual object
//! is delayed: at most one lazy set per field descr and per (array descr,
//! constant index). The lazy set is emitted when something could observe
//! memory: a load or store of that descr through a possibly aliasing object,
//! a call that reads or writes the descr (random effects: every descr), a
//! guard (see below), or a `label`, `jump` or `finish`. A lazy set whose
//! value equals what memory held before the first delayed store vanishes.
//!
//! At a guard, lazy sets whose value is a real object are emitted before
//! the guard (before an `int_*_ovf` that feeds it: the pass holds an
//! overflow op back until its guard so nothing separates the two); lazy
//! sets whose value is virtual stay delayed and become the guard's pending
//! fields, performed only if it fails.
//!
//! Invalidation: a store of descr `d` into `obj` drops the known `d` values
//! of every object that may alias `obj` ([`Cx::may_alias`]: fresh objects
//! alias nothing older). A call drops the descrs it may write (its
//! `EffectInfo`: random = all, declared = its write list, elidable =
//! none); immutable fields survive calls. A `label` drops everything.
//!
//! `guard_not_invalidated(word)` is kept once per word between labels and
//! calls with effects (see `crate::quasi`); a label keeps it in each part
//! of a peeled loop, so a bridge jumping into the body still tests it.
//!
//! Invariant: a known value is what a load would return at that point of
//! the optimized trace, counting the lazy sets as performed.

use super::cx::{Cx, OptOp, PendingStore};
use super::{Outcome, Pass};
use crate::resume::Slot;
use majit_ir::{ArrayDescr, CallEffect, Const, Descr, FieldDescr, Kind, Op, OpCode, OpRef};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A delayed store `obj.slot := value`; `mem` is what memory held before
/// the first delayed store, when known.
#[derive(Clone, Debug)]
struct Lazy {
    obj: OpRef,
    value: OpRef,
    mem: Option<OpRef>,
}

/// The knowledge about one field descr.
#[derive(Clone, Debug)]
struct FieldCache {
    descr: Arc<FieldDescr>,
    known: Vec<(OpRef, OpRef)>,
    lazy: Option<Lazy>,
}

/// The knowledge about one array descr.
#[derive(Clone, Debug)]
struct ArrayCache {
    descr: Arc<ArrayDescr>,
    known: Vec<((OpRef, i64), OpRef)>,
    lazy: BTreeMap<i64, Lazy>,
}

/// The heap pass.
#[derive(Default)]
pub struct Heap {
    fields: BTreeMap<String, FieldCache>,
    arrays: BTreeMap<String, ArrayCache>,
    /// An overflow-checked op held back until its guard.
    postponed: Option<OptOp>,
    /// The validity words a `guard_not_invalidated` tested since the last
    /// label or call with effects (only a call writes a quasi-immutable
    /// field, so a repeat is redundant).
    validated: Vec<OpRef>,
}

impl Pass for Heap {
    fn name(&self) -> &'static str {
        "heap"
    }

    fn feed(&mut self, cx: &mut Cx, op: OptOp) -> Outcome {
        use OpCode::*;
        let code = op.op.opcode;
        if let Some(p) = self.postponed.take() {
            if !matches!(code, GuardNoOverflow | GuardOverflow) {
                cx.emit(p);
            } else {
                self.postponed = Some(p);
            }
        }
        match code {
            GetfieldGcI | GetfieldGcR | GetfieldGcF => self.opt_getfield_gc(cx, op),
            SetfieldGc => self.opt_setfield_gc(cx, op),
            GetarrayitemGcI | GetarrayitemGcR | GetarrayitemGcF => self.opt_getarrayitem_gc(cx, op),
            SetarrayitemGc => self.opt_setarrayitem_gc(cx, op),
            IntAddOvf | IntSubOvf | IntMulOvf => {
                self.postponed = Some(op);
                Outcome::Drop
            }
            GuardNoOverflow | GuardOverflow => {
                if let Some(p) = self.postponed.take() {
                    cx.emit(p);
                }
                Outcome::Emit(op)
            }
            Label => {
                self.fields.clear();
                self.arrays.clear();
                self.validated.clear();
                Outcome::Emit(op)
            }
            GuardNotInvalidated => {
                let word = cx.resolve(op.op.arg(0));
                if self.validated.contains(&word) {
                    return Outcome::Drop;
                }
                self.validated.push(word);
                Outcome::Emit(op)
            }
            GuardNotForced => {
                self.forget_all();
                Outcome::Emit(op)
            }
            _ if code.is_call() => self.opt_call(cx, op),
            SetfieldRaw | SetarrayitemRaw | RawStore => {
                // Raw memory may be the bytes of any GC object.
                self.flush(cx);
                self.forget_all();
                Outcome::Emit(op)
            }
            GetfieldRawI | GetfieldRawF | GetarrayitemRawI | GetarrayitemRawF | RawLoadI
            | RawLoadF => {
                self.flush(cx);
                Outcome::Emit(op)
            }
            _ => Outcome::Emit(op),
        }
    }

    fn committed(&mut self, cx: &mut Cx, op: &OptOp) {
        use OpCode::*;
        match op.op.opcode {
            GetfieldGcI | GetfieldGcR | GetfieldGcF => {
                if let Some(fc) = self.field_cache(&op.op) {
                    let obj = cx.resolve(op.op.arg(0));
                    fc.known.push((obj, op.res));
                }
            }
            GetarrayitemGcI | GetarrayitemGcR | GetarrayitemGcF => {
                let (obj, index) = (cx.resolve(op.op.arg(0)), cx.int_const(op.op.arg(1)));
                if let (Some(ac), Some(i)) = (self.array_cache(&op.op), index) {
                    ac.known.push(((obj, i), op.res));
                }
            }
            _ => {}
        }
    }

    fn at_guard(&mut self, cx: &mut Cx, _guard: &OptOp) {
        for fc in self.fields.values_mut() {
            let Some(l) = &fc.lazy else { continue };
            if cx.is_virtual(l.value) {
                cx.add_pending(PendingStore {
                    target: cx.resolve(l.obj),
                    slot: Slot::Field(fc.descr.clone()),
                    value: cx.resolve(l.value),
                });
            } else {
                emit_lazy_field(cx, fc);
            }
        }
        for ac in self.arrays.values_mut() {
            let indexes: Vec<i64> = ac.lazy.keys().copied().collect();
            for i in indexes {
                let l = &ac.lazy[&i];
                if cx.is_virtual(l.value) {
                    cx.add_pending(PendingStore {
                        target: cx.resolve(l.obj),
                        slot: Slot::Item(ac.descr.clone(), i as u32),
                        value: cx.resolve(l.value),
                    });
                } else {
                    emit_lazy_item(cx, ac, i);
                }
            }
        }
    }

    /// Known field values (array items stay behind: their constant
    /// indexes would need new constants).
    fn export(&self, cx: &Cx) -> Vec<OptOp> {
        let mut out = Vec::new();
        for fc in self.fields.values() {
            let code = match fc.descr.kind {
                Kind::Int => OpCode::GetfieldGcI,
                Kind::Ref => OpCode::GetfieldGcR,
                Kind::Float => OpCode::GetfieldGcF,
            };
            for &(obj, value) in &fc.known {
                let op = Op::new(code, &[cx.resolve(obj)]);
                out.push(OptOp {
                    op: op.with_descr(Descr::Field(fc.descr.clone())),
                    res: cx.resolve(value),
                });
            }
        }
        out
    }

    fn flush(&mut self, cx: &mut Cx) {
        if let Some(p) = self.postponed.take() {
            cx.emit(p);
        }
        for fc in self.fields.values_mut() {
            emit_lazy_field(cx, fc);
        }
        for ac in self.arrays.values_mut() {
            emit_lazy_items(cx, ac);
        }
    }
}

/// Emits the lazy set of `fc`, if any (forcing its value).
fn emit_lazy_field(cx: &mut Cx, fc: &mut FieldCache) {
    let Some(l) = fc.lazy.take() else { return };
    let value = cx.resolve(l.value);
    if l.mem.map(|m| cx.resolve(m)) == Some(value) {
        return;
    }
    cx.force(value, "stored into a non-virtual object");
    let obj = cx.resolve(l.obj);
    cx.emit_new(
        Op::new(OpCode::SetfieldGc, &[obj, value]).with_descr(Descr::Field(fc.descr.clone())),
    );
}

/// Emits the lazy set of item `i` of `ac`, if any.
fn emit_lazy_item(cx: &mut Cx, ac: &mut ArrayCache, i: i64) {
    let Some(l) = ac.lazy.remove(&i) else { return };
    let value = cx.resolve(l.value);
    if l.mem.map(|m| cx.resolve(m)) == Some(value) {
        return;
    }
    cx.force(value, "stored into a non-virtual array");
    let obj = cx.resolve(l.obj);
    let index = cx.konst(Const::Int(i));
    let op = Op::new(OpCode::SetarrayitemGc, &[obj, index, value]);
    cx.emit_new(op.with_descr(Descr::Array(ac.descr.clone())));
}

/// Emits every lazy item set of `ac`, in index order.
fn emit_lazy_items(cx: &mut Cx, ac: &mut ArrayCache) {
    let indexes: Vec<i64> = ac.lazy.keys().copied().collect();
    for i in indexes {
        emit_lazy_item(cx, ac, i);
    }
}

impl Heap {
    /// Forgets every known value (lazy sets must have been emitted).
    fn forget_all(&mut self) {
        for fc in self.fields.values_mut() {
            fc.known.clear();
        }
        for ac in self.arrays.values_mut() {
            ac.known.clear();
        }
    }

    fn field_cache(&mut self, op: &Op) -> Option<&mut FieldCache> {
        let f = op.descr.as_ref()?.as_field()?;
        Some(
            self.fields
                .entry(f.name.clone())
                .or_insert_with(|| FieldCache {
                    descr: f.clone(),
                    known: Vec::new(),
                    lazy: None,
                }),
        )
    }

    fn array_cache(&mut self, op: &Op) -> Option<&mut ArrayCache> {
        let a = op.descr.as_ref()?.as_array()?;
        Some(
            self.arrays
                .entry(a.name.clone())
                .or_insert_with(|| ArrayCache {
                    descr: a.clone(),
                    known: Vec::new(),
                    lazy: BTreeMap::new(),
                }),
        )
    }

    fn opt_getfield_gc(&mut self, cx: &mut Cx, op: OptOp) -> Outcome {
        let obj = cx.resolve(op.op.arg(0));
        let Some(fc) = self.field_cache(&op.op) else {
            return Outcome::Emit(op);
        };
        if let Some(&(_, v)) = fc.known.iter().find(|(o, _)| cx.resolve(*o) == obj) {
            return Outcome::Same(cx.resolve(v));
        }
        if fc.lazy.as_ref().is_some_and(|l| cx.may_alias(l.obj, obj)) {
            emit_lazy_field(cx, fc);
        }
        Outcome::Emit(op)
    }

    fn opt_setfield_gc(&mut self, cx: &mut Cx, op: OptOp) -> Outcome {
        let (obj, value) = (cx.resolve(op.op.arg(0)), cx.resolve(op.op.arg(1)));
        if cx.is_virtual(obj) {
            return Outcome::Emit(op);
        }
        let Some(fc) = self.field_cache(&op.op) else {
            return Outcome::Emit(op);
        };
        let known = fc
            .known
            .iter()
            .find(|(o, _)| cx.resolve(*o) == obj)
            .map(|(_, v)| cx.resolve(*v));
        if known == Some(value) {
            return Outcome::Drop;
        }
        if fc.lazy.as_ref().is_some_and(|l| cx.resolve(l.obj) != obj) {
            emit_lazy_field(cx, fc);
        }
        fc.known.retain(|(o, _)| !cx.may_alias(*o, obj));
        fc.known.push((obj, value));
        match &mut fc.lazy {
            Some(l) => {
                l.value = value;
                if l.mem.map(|m| cx.resolve(m)) == Some(value) {
                    fc.lazy = None;
                }
            }
            None => {
                fc.lazy = Some(Lazy {
                    obj,
                    value,
                    mem: known,
                })
            }
        }
        Outcome::Drop
    }

    fn opt_getarrayitem_gc(&mut self, cx: &mut Cx, op: OptOp) -> Outcome {
        let obj = cx.resolve(op.op.arg(0));
        let index = cx.int_const(op.op.arg(1));
        let Some(ac) = self.array_cache(&op.op) else {
            return Outcome::Emit(op);
        };
        match index {
            Some(i) => {
                let hit = ac
                    .known
                    .iter()
                    .find(|((o, j), _)| *j == i && cx.resolve(*o) == obj);
                if let Some(&(_, v)) = hit {
                    return Outcome::Same(cx.resolve(v));
                }
                if ac.lazy.get(&i).is_some_and(|l| cx.may_alias(l.obj, obj)) {
                    emit_lazy_item(cx, ac, i);
                }
            }
            None => emit_lazy_items(cx, ac),
        }
        Outcome::Emit(op)
    }

    fn opt_setarrayitem_gc(&mut self, cx: &mut Cx, op: OptOp) -> Outcome {
        let obj = cx.resolve(op.op.arg(0));
        let value = cx.resolve(op.op.arg(2));
        let index = cx.int_const(op.op.arg(1));
        if cx.is_virtual(obj) {
            return Outcome::Emit(op);
        }
        let Some(ac) = self.array_cache(&op.op) else {
            return Outcome::Emit(op);
        };
        let Some(i) = index else {
            emit_lazy_items(cx, ac);
            ac.known.retain(|((o, _), _)| !cx.may_alias(*o, obj));
            return Outcome::Emit(op);
        };
        let known = ac
            .known
            .iter()
            .find(|((o, j), _)| *j == i && cx.resolve(*o) == obj)
            .map(|(_, v)| cx.resolve(*v));
        if known == Some(value) {
            return Outcome::Drop;
        }
        if ac.lazy.get(&i).is_some_and(|l| cx.resolve(l.obj) != obj) {
            emit_lazy_item(cx, ac, i);
        }
        ac.known
            .retain(|((o, j), _)| *j != i || !cx.may_alias(*o, obj));
        ac.known.push(((obj, i), value));
        match ac.lazy.get_mut(&i) {
            Some(l) => {
                l.value = value;
                if l.mem.map(|m| cx.resolve(m)) == Some(value) {
                    ac.lazy.remove(&i);
                }
            }
            None => {
                ac.lazy.insert(
                    i,
                    Lazy {
                        obj,
                        value,
                        mem: known,
                    },
                );
            }
        }
        Outcome::Drop
    }

    /// Calls: flush the lazy sets of descrs the call may read or write,
    /// forget the known values of descrs it may write.
    fn opt_call(&mut self, cx: &mut Cx, op: OptOp) -> Outcome {
        let code = op.op.opcode;
        let effect = op
            .op
            .descr
            .as_ref()
            .and_then(|d| d.as_call())
            .map(|c| c.effect.clone())
            .unwrap_or_default();
        // `call_pure_*` (the only pure calls).
        let pure = code.is_always_pure();
        let random = matches!(
            effect.effect,
            CallEffect::Random | CallEffect::LoopInvariant
        ) || effect.may_force;
        if pure || (effect.effect == CallEffect::Elidable && !random) {
            return Outcome::Emit(op);
        }
        // It may write a quasi-immutable field.
        self.validated.clear();
        let touches = |name: &str| {
            random
                || effect.reads.iter().any(|n| n == name)
                || effect.writes.iter().any(|n| n == name)
        };
        let writes = |name: &str| random || effect.writes.iter().any(|n| n == name);
        for (name, fc) in self.fields.iter_mut() {
            if touches(name) {
                emit_lazy_field(cx, fc);
            }
            if writes(name) && !fc.descr.immutable {
                fc.known.clear();
            }
        }
        for (name, ac) in self.arrays.iter_mut() {
            if touches(name) {
                emit_lazy_items(cx, ac);
            }
            if writes(name) {
                ac.known.clear();
            }
        }
        Outcome::Emit(op)
    }
}
