//! virtualize: allocation removal.
//!
//! `new`, `new_with_vtable` and `new_array[_clear]` of a constant, small
//! length make a *virtual*: an [`Info`](super::info::Info) with a field map,
//! nothing emitted. Stores into a virtual update the map, loads from it
//! fold to the stored value (an unset field reads as zero/null), `arraylen`
//! folds to the length, `ptr_eq` of a virtual with anything else is false,
//! and guards about its nullness or class are decided from what is known
//! (the class of a headered layout is its vtable, or its type id when it
//! has none, whichever op allocated it; headerless layouts have no class).
//!
//! A virtual is forced ([`Cx::force`]) exactly where a real pointer must
//! exist: passed to a call, returned by `finish`, carried by a `jump` or
//! `label`, used by an op this pass does not model, or stored into a
//! non-virtual object (that store is left to heap, which may delay it; the
//! optimizer's output step forces whatever still reaches it). Guards never
//! force: a virtual alive at a guard is described in its resume data.
//!
//! Invariant: a virtual never escapes before it is forced, so no value
//! defined while it is virtual can alias it.

use super::cx::{Cx, OptOp};
use super::info::{array_fits, field_fits, Virtual};
use super::ledger::LedgerKind;
use super::{Outcome, Pass};
use crate::resume::{Layout, Slot};
use majit_ir::{Const, Descr, Kind, OpCode, SizeDescr};

/// Arrays longer than this stay real (resume data and forcing grow with
/// the length).
pub const MAX_VIRTUAL_ARRAY: i64 = 64;

/// The virtualize pass.
#[derive(Default)]
pub struct Virtualize;

impl Pass for Virtualize {
    fn name(&self) -> &'static str {
        "virtualize"
    }

    fn feed(&mut self, cx: &mut Cx, op: OptOp) -> Outcome {
        use OpCode::*;
        match op.op.opcode {
            New | NewWithVtable => self.opt_new(cx, op),
            NewArray | NewArrayClear => self.opt_new_array(cx, op),
            SetfieldGc => self.opt_setfield_gc(cx, op),
            GetfieldGcI | GetfieldGcR | GetfieldGcF => self.opt_getfield_gc(cx, op),
            SetarrayitemGc => self.opt_setarrayitem_gc(cx, op),
            GetarrayitemGcI | GetarrayitemGcR | GetarrayitemGcF => self.opt_getarrayitem_gc(cx, op),
            ArraylenGc => self.opt_arraylen_gc(cx, op),
            PtrEq | PtrNe => self.opt_ptr_eq(cx, op),
            SameAsR => self.opt_same_as_r(cx, op),
            // A virtual is an object, never a small integer or float.
            PtrIsTagged | PtrIsFloatTagged if cx.is_virtual(op.op.arg(0)) => {
                Outcome::Same(cx.konst(Const::Int(0)))
            }
            GuardNonnull | GuardIsnull | GuardClass | GuardNonnullClass | GuardValue => {
                self.opt_guard_ptr(cx, op)
            }
            _ if op.op.opcode.is_guard() => Outcome::Emit(op),
            Jump | Label => escape(cx, op, "live across the loop back edge"),
            Finish => escape(cx, op, "returned by `finish`"),
            _ if op.op.opcode.is_call() => escape(cx, op, "passed to a call"),
            code => {
                let why = format!("used by `{code}`, which virtualize does not model");
                escape(cx, op, &why)
            }
        }
    }
}

/// Forces every virtual argument of `op`, then emits it.
fn escape(cx: &mut Cx, op: OptOp, why: &str) -> Outcome {
    cx.force_args(&op.op, why);
    Outcome::Emit(op)
}

/// The zero of a load's result kind (what an unset field reads as).
fn zero(cx: &mut Cx, code: OpCode) -> majit_ir::OpRef {
    let c = match code.result().kind() {
        Some(Kind::Ref) => Const::Ref(0),
        Some(Kind::Float) => Const::float(0.0),
        _ => Const::Int(0),
    };
    cx.konst(c)
}

/// The class word of objects of a fixed layout, as `guard_class`
/// compares it: its vtable, or its type id when it has none (what the
/// header of a headered object holds, mapped the way the executors map
/// it); `None` for headerless layouts, which have no class.
fn class_word(size: &SizeDescr) -> Option<i64> {
    (!size.headerless).then(|| size.vtable.map_or(i64::from(size.type_id), |v| v as i64))
}

impl Virtualize {
    fn make_virtual(cx: &mut Cx, op: &OptOp, layout: Layout) -> Outcome {
        let class = match &layout {
            Layout::Struct { size, .. } => class_word(size),
            _ => None,
        };
        let info = cx.info_mut(op.res);
        info.nonnull = true;
        info.fresh = true;
        info.class = class;
        info.layout = Some(layout.clone());
        info.virt = Some(Virtual::new(layout));
        Outcome::Drop
    }

    fn opt_new(&mut self, cx: &mut Cx, op: OptOp) -> Outcome {
        let Some(Descr::Size(size)) = &op.op.descr else {
            return Outcome::Emit(op);
        };
        let layout = Layout::Struct {
            size: size.clone(),
            vtable: op.op.opcode == OpCode::NewWithVtable,
        };
        Self::make_virtual(cx, &op, layout)
    }

    fn opt_new_array(&mut self, cx: &mut Cx, op: OptOp) -> Outcome {
        let Some(Descr::Array(descr)) = &op.op.descr else {
            return Outcome::Emit(op);
        };
        let origin = cx.origin(op.res);
        match cx.int_const(op.op.arg(0)) {
            Some(len) if (0..=MAX_VIRTUAL_ARRAY).contains(&len) => {
                let layout = Layout::Array {
                    descr: descr.clone(),
                    len: len as u32,
                };
                Self::make_virtual(cx, &op, layout)
            }
            Some(len) => {
                let why = format!("array length {len} exceeds {MAX_VIRTUAL_ARRAY}");
                cx.note(LedgerKind::NotVirtual, origin, why);
                Outcome::Emit(op)
            }
            None => {
                cx.note(
                    LedgerKind::NotVirtual,
                    origin,
                    "array length is not constant".into(),
                );
                Outcome::Emit(op)
            }
        }
    }

    /// The field slot `op` addresses in the virtual `obj`, if it fits.
    fn field_slot(cx: &Cx, op: &OptOp) -> Option<Slot> {
        let v = cx.virtual_of(op.op.arg(0))?;
        let f = op.op.descr.as_ref()?.as_field()?;
        field_fits(&v.layout, f).then(|| Slot::Field(f.clone()))
    }

    /// The item slot `op` addresses in the virtual array `arr`, if it fits
    /// (constant index in range, same array descr).
    fn item_slot(cx: &Cx, op: &OptOp) -> Option<Slot> {
        let v = cx.virtual_of(op.op.arg(0))?;
        let a = op.op.descr.as_ref()?.as_array()?;
        let index = cx.int_const(op.op.arg(1))?;
        let len = i64::from(v.array_len()?);
        (array_fits(&v.layout, a) && (0..len).contains(&index))
            .then(|| Slot::Item(a.clone(), index as u32))
    }

    fn opt_setfield_gc(&mut self, cx: &mut Cx, op: OptOp) -> Outcome {
        match Self::field_slot(cx, &op) {
            Some(slot) => {
                let value = op.op.arg(1);
                cx.virtual_mut(op.op.arg(0))
                    .expect("checked")
                    .set(slot, value);
                Outcome::Drop
            }
            None => {
                cx.force(op.op.arg(0), "store through a field it does not have");
                Outcome::Emit(op)
            }
        }
    }

    fn opt_getfield_gc(&mut self, cx: &mut Cx, op: OptOp) -> Outcome {
        match Self::field_slot(cx, &op) {
            Some(slot) => {
                let v = cx.virtual_of(op.op.arg(0)).expect("checked").get(&slot);
                Outcome::Same(v.unwrap_or_else(|| zero(cx, op.op.opcode)))
            }
            None => escape(cx, op, "read through a field it does not have"),
        }
    }

    fn opt_setarrayitem_gc(&mut self, cx: &mut Cx, op: OptOp) -> Outcome {
        match Self::item_slot(cx, &op) {
            Some(slot) => {
                let value = op.op.arg(2);
                cx.virtual_mut(op.op.arg(0))
                    .expect("checked")
                    .set(slot, value);
                Outcome::Drop
            }
            None => escape(cx, op, "array store at a non-constant or foreign index"),
        }
    }

    fn opt_getarrayitem_gc(&mut self, cx: &mut Cx, op: OptOp) -> Outcome {
        match Self::item_slot(cx, &op) {
            Some(slot) => {
                let v = cx.virtual_of(op.op.arg(0)).expect("checked").get(&slot);
                Outcome::Same(v.unwrap_or_else(|| zero(cx, op.op.opcode)))
            }
            None => escape(cx, op, "array load at a non-constant or foreign index"),
        }
    }

    fn opt_arraylen_gc(&mut self, cx: &mut Cx, op: OptOp) -> Outcome {
        match cx.virtual_of(op.op.arg(0)).and_then(|v| v.array_len()) {
            Some(len) => Outcome::Same(cx.konst(Const::Int(i64::from(len)))),
            None => escape(cx, op, "`arraylen_gc` of a non-array"),
        }
    }

    /// `ptr_eq(v, v)` is true; a virtual equals nothing else (it has not
    /// escaped, so no other value can point to it).
    fn opt_ptr_eq(&mut self, cx: &mut Cx, op: OptOp) -> Outcome {
        let (a, b) = (cx.resolve(op.op.arg(0)), cx.resolve(op.op.arg(1)));
        if !cx.is_virtual(a) && !cx.is_virtual(b) {
            return Outcome::Emit(op);
        }
        let eq = a == b;
        let v = (eq == (op.op.opcode == OpCode::PtrEq)) as i64;
        Outcome::Same(cx.konst(Const::Int(v)))
    }

    fn opt_same_as_r(&mut self, cx: &mut Cx, op: OptOp) -> Outcome {
        if cx.is_virtual(op.op.arg(0)) {
            Outcome::Same(op.op.arg(0))
        } else {
            Outcome::Emit(op)
        }
    }

    /// Guards about a virtual's identity are decided statically.
    fn opt_guard_ptr(&mut self, cx: &mut Cx, op: OptOp) -> Outcome {
        use OpCode::*;
        let code = op.op.opcode;
        if code == GuardValue {
            let (a, b) = (cx.resolve(op.op.arg(0)), cx.resolve(op.op.arg(1)));
            return match (cx.is_virtual(a) || cx.is_virtual(b), a == b) {
                (_, true) => Outcome::Drop,
                (true, false) => Outcome::Invalid("guard_value on a fresh allocation".into()),
                (false, false) => Outcome::Emit(op),
            };
        }
        let Some(v) = cx.virtual_of(op.op.arg(0)) else {
            return Outcome::Emit(op);
        };
        match code {
            GuardNonnull => Outcome::Drop,
            GuardIsnull => Outcome::Invalid("guard_isnull on a fresh allocation".into()),
            _ => {
                let class = match &v.layout {
                    Layout::Struct { size, .. } => class_word(size),
                    _ => None,
                };
                let wanted = cx.int_const(op.op.arg(1));
                match (class, wanted) {
                    (Some(have), Some(want)) if have == want => Outcome::Drop,
                    (Some(_), Some(_)) => {
                        Outcome::Invalid(format!("`{code}` on an object of another class"))
                    }
                    _ => escape(cx, op, "class guard on an object without a known vtable"),
                }
            }
        }
    }
}
