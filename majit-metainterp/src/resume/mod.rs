//! Resume data: what each guard of an optimized trace needs to rebuild the
//! values the interpreter expects when that guard fails.
//!
//! The tracer gives every guard a list of fail args: the interpreter-visible
//! values live at that point. The optimizer changes what exists at run time
//! (a value may have become a constant, an allocation may have become
//! virtual, a store may have been delayed), so for each guard it records a
//! [`GuardResume`]:
//!
//! - `values[i]` says where ORIGINAL fail arg `i` comes from now: a slot of
//!   the optimized guard's own fail args ([`Tagged::Box`]), such a slot's
//!   number put in a ref ([`Tagged::Tag`]: the trace never tagged it), a
//!   constant, or a virtual object described in `virtuals`
//!   ([`Tagged::Virtual`]).
//! - `virtuals` (`rd_virtuals`): one entry per object that exists only
//!   virtually: its layout and, per field that was set, a tagged value.
//!   Entries may name each other, cycles included; one entry is one object.
//! - `pending` (`rd_pendingfields`): stores the optimizer delayed past the
//!   guard because their value was virtual. They are performed only when
//!   the guard fails. A pending target is never virtual.
//!
//! [`rebuild`] turns a dead frame's values plus a `GuardResume` back into
//! the original fail-arg values, allocating the virtuals on real memory.
//!
//! Invariants producers (the optimizer) guarantee and consumers rely on:
//! - Every `Box(i)` has `i < ` the optimized guard's fail-arg count.
//! - Every `Virtual(i)` has `i < virtuals.len()`.
//! - A virtual's field values and a pending value match the kind of the
//!   field they fill; pending targets are `Box` or `Const` refs.

mod rebuild;

pub use rebuild::{rebuild, RebuildError};

use majit_ir::{ArrayDescr, Const, FieldDescr, OpCode, SizeDescr};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// Where one value comes from when a guard fails.
#[derive(Clone, Debug, PartialEq)]
pub enum Tagged {
    /// Slot `i` of the optimized guard's fail args (the dead frame's
    /// `values[i]`).
    Box(u32),
    /// A constant known at compile time.
    Const(Const),
    /// Entry `i` of the guard's `virtuals`.
    Virtual(u32),
    /// Slot `i` of the fail args tagged by the op (`int_tag` or
    /// `float_tag`): a small number in a ref that only a failure needs.
    Tag(u32, OpCode),
}

/// The shape of a virtual object.
#[derive(Clone, Debug, PartialEq)]
pub enum Layout {
    /// A fixed-size object from `new` (or `new_with_vtable` when `vtable`).
    Struct { size: Arc<SizeDescr>, vtable: bool },
    /// An array of constant length from `new_array`/`new_array_clear`.
    Array { descr: Arc<ArrayDescr>, len: u32 },
}

/// A memory location relative to an object: a field, or an array item at a
/// constant index.
#[derive(Clone, Debug, PartialEq)]
pub enum Slot {
    Field(Arc<FieldDescr>),
    Item(Arc<ArrayDescr>, u32),
}

impl Slot {
    /// The descriptor name plus index, for messages and logs.
    pub fn describe(&self) -> String {
        match self {
            Slot::Field(f) => f.name.clone(),
            Slot::Item(a, i) => format!("{}[{i}]", a.name),
        }
    }
}

/// One object the optimized trace does not allocate: `rd_virtuals[i]`.
#[derive(Clone, Debug, PartialEq)]
pub struct VirtualDesc {
    pub layout: Layout,
    /// The fields that were set, in offset (or index) order; unset fields
    /// are zero or null.
    pub fields: Vec<(Slot, Tagged)>,
}

/// A delayed store: `target.slot := value`, performed only on failure.
#[derive(Clone, Debug, PartialEq)]
pub struct PendingField {
    /// `Box` or `Const`, never `Virtual`.
    pub target: Tagged,
    pub slot: Slot,
    pub value: Tagged,
}

/// The resume description of one guard of an optimized trace.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct GuardResume {
    /// The `FailDescr` id of the input-trace guard this guard comes from
    /// (its own id, except for copies unroll makes).
    pub original: u32,
    /// One entry per ORIGINAL fail arg of the guard, in order.
    pub values: Vec<Tagged>,
    /// `rd_virtuals`.
    pub virtuals: Vec<VirtualDesc>,
    /// `rd_pendingfields`, in the order they must be applied.
    pub pending: Vec<PendingField>,
}

/// The resume data of a whole optimized trace, keyed by `FailDescr::id`.
pub type ResumeMap = BTreeMap<u32, GuardResume>;

impl fmt::Display for Tagged {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tagged::Box(i) => write!(f, "BOX{i}"),
            Tagged::Const(Const::Int(v)) => write!(f, "{v}"),
            Tagged::Const(Const::Ref(0)) => write!(f, "null"),
            Tagged::Const(Const::Ref(a)) => write!(f, "ptr({a:#x})"),
            Tagged::Const(Const::Float(b)) => write!(f, "{}", f64::from_bits(*b)),
            Tagged::Virtual(i) => write!(f, "VIRTUAL{i}"),
            Tagged::Tag(i, code) => write!(f, "{code}(BOX{i})"),
        }
    }
}

/// Prints resume data the way the JIT primer writes it in trace comments:
/// `values`, then one line per virtual and pending field.
impl fmt::Display for GuardResume {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let vals: Vec<String> = self.values.iter().map(|t| t.to_string()).collect();
        writeln!(f, "values [{}]", vals.join(", "))?;
        for (i, v) in self.virtuals.iter().enumerate() {
            let name = match &v.layout {
                Layout::Struct { size, .. } => size.name.clone(),
                Layout::Array { descr, len } => format!("{}[{len}]", descr.name),
            };
            let fields: Vec<String> = v
                .fields
                .iter()
                .map(|(s, t)| format!("{}: {t}", s.describe()))
                .collect();
            writeln!(f, "rd_virtuals[{i}] {name}{{{}}}", fields.join(", "))?;
        }
        for p in &self.pending {
            writeln!(
                f,
                "rd_pendingfields {}.{} := {}",
                p.target,
                p.slot.describe(),
                p.value
            )?;
        }
        Ok(())
    }
}
