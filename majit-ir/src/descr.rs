//! Descriptors: the static information an operation carries besides its
//! arguments (object layouts, field offsets, call signatures, guard and
//! loop identities).
//!
//! Descriptors are shared, immutable and named: an op holds a [`Descr`]
//! (a cheap `Arc` clone), and the text format refers to each by its name.
//! Two descriptors are equal when their contents are equal, so a trace
//! parsed back from its text equals the original.
//!
//! Memory layout conventions every crate relies on: offsets are in bytes
//! from the object pointer. A headered object starts with one 8-byte header
//! word (owned by majit-gc), so its first field sits at offset 8; a
//! headerless object has no header and its first field sits at offset 0.

use crate::opcode::{Kind, ResultKind};
use std::fmt;
use std::sync::Arc;

/// The layout of a fixed-size object (`new`, `new_with_vtable`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SizeDescr {
    pub name: String,
    /// Total size in bytes, header included.
    pub size: u32,
    /// The type id majit-gc registered for this layout (written into the
    /// header of headered objects; selects the region of headerless ones).
    pub type_id: u32,
    /// No header word: allocated from the layout's own region.
    pub headerless: bool,
    /// For `new_with_vtable`: the class word (`guard_class` compares it).
    pub vtable: Option<u64>,
    /// The names of this layout's field descriptors, in offset order.
    pub fields: Vec<String>,
}

/// One field of a layout (or of raw memory).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FieldDescr {
    /// Conventionally `Owner.field`.
    pub name: String,
    /// The `SizeDescr` name of the owner.
    pub owner: String,
    /// Byte offset from the object pointer.
    pub offset: u32,
    /// Width in bytes: 1, 2, 4 or 8.
    pub size: u8,
    /// Sign-extend narrow integer loads.
    pub signed: bool,
    pub kind: Kind,
    /// Never changes after initialisation (loads may be CSE'd freely).
    pub immutable: bool,
    /// Quasi-immutable: rarely written. A trace reading it from a constant
    /// object uses the current value as a constant and depends on it
    /// (`quasiimmut_field`); a write invalidates the traces that depend on
    /// that object's field (see majit-metainterp's `quasi` module).
    pub quasi_immutable: bool,
}

impl FieldDescr {
    /// A mutable signed 8-byte integer field `Owner.field` at offset 0:
    /// a word of memory the JIT itself keeps (a counter, a flag).
    ///
    /// ```
    /// use majit_ir::{FieldDescr, Kind};
    /// let d = FieldDescr::word("Budget", "left");
    /// assert_eq!((d.name.as_str(), d.offset, d.size, d.kind), ("Budget.left", 0, 8, Kind::Int));
    /// ```
    pub fn word(owner: &str, field: &str) -> FieldDescr {
        FieldDescr {
            name: format!("{owner}.{field}"),
            owner: owner.to_string(),
            offset: 0,
            size: 8,
            signed: true,
            kind: Kind::Int,
            immutable: false,
            quasi_immutable: false,
        }
    }
}

/// The layout of an array (`new_array`, `getarrayitem_*`, raw arrays).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ArrayDescr {
    pub name: String,
    /// Offset of item 0 from the object pointer (0 for raw arrays).
    pub base_offset: u32,
    /// Offset of the length word (GC arrays only).
    pub len_offset: u32,
    /// Width of one item in bytes: 1, 2, 4 or 8.
    pub item_size: u8,
    pub signed: bool,
    pub kind: Kind,
    /// The GC type id of arrays of this layout.
    pub type_id: u32,
}

/// What a called function may do, as declared by its caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CallEffect {
    /// Anything: reads and writes any memory, may raise, may collect.
    #[default]
    Random,
    /// Reads and writes only the listed fields/arrays; may collect.
    Declared,
    /// Pure: the result depends only on the arguments and immutable memory.
    Elidable,
    /// A function without arguments whose result is the same for a whole
    /// loop iteration (RPython's `loop_invariant`): it may do anything, like
    /// `Random`, but the optimizer keeps only the first call of each
    /// iteration and reuses its result.
    LoopInvariant,
}

/// The effect summary of a call.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct EffectInfo {
    pub effect: CallEffect,
    pub can_raise: bool,
    /// May run a collection (allocates).
    pub can_collect: bool,
    /// May force virtuals / the frame (`call_may_force_*`).
    pub may_force: bool,
    /// Descriptor names read (for `Declared`).
    pub reads: Vec<String>,
    /// Descriptor names written (for `Declared`).
    pub writes: Vec<String>,
}

/// A call signature plus its effects.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CallDescr {
    pub name: String,
    /// Kinds of the arguments after the function address.
    pub args: Vec<Kind>,
    pub result: ResultKind,
    pub effect: EffectInfo,
}

/// Identity of a guard or `finish` exit; the metainterp keys its resume
/// data by `id`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FailDescr {
    pub name: String,
    pub id: u32,
    /// A `finish` where the portal returns (its one argument, if any, is
    /// the result): native code leaves it with the result in a fixed
    /// frame word, so a caller needs no exit lookup (`call_assembler`).
    pub returns: bool,
}

/// Identity of a `label` that `jump`s target.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TargetDescr {
    pub name: String,
}

/// A descriptor of any sort.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Descr {
    Size(Arc<SizeDescr>),
    Field(Arc<FieldDescr>),
    Array(Arc<ArrayDescr>),
    Call(Arc<CallDescr>),
    Fail(Arc<FailDescr>),
    Target(Arc<TargetDescr>),
}

impl Descr {
    /// The descriptor's name as written in trace text.
    pub fn name(&self) -> &str {
        match self {
            Descr::Size(d) => &d.name,
            Descr::Field(d) => &d.name,
            Descr::Array(d) => &d.name,
            Descr::Call(d) => &d.name,
            Descr::Fail(d) => &d.name,
            Descr::Target(d) => &d.name,
        }
    }

    /// The sort of descriptor, as a word for error messages.
    pub fn sort(&self) -> &'static str {
        match self {
            Descr::Size(_) => "size",
            Descr::Field(_) => "field",
            Descr::Array(_) => "array",
            Descr::Call(_) => "call",
            Descr::Fail(_) => "fail",
            Descr::Target(_) => "target",
        }
    }

    pub fn as_size(&self) -> Option<&Arc<SizeDescr>> {
        match self {
            Descr::Size(d) => Some(d),
            _ => None,
        }
    }
    pub fn as_field(&self) -> Option<&Arc<FieldDescr>> {
        match self {
            Descr::Field(d) => Some(d),
            _ => None,
        }
    }
    pub fn as_array(&self) -> Option<&Arc<ArrayDescr>> {
        match self {
            Descr::Array(d) => Some(d),
            _ => None,
        }
    }
    pub fn as_call(&self) -> Option<&Arc<CallDescr>> {
        match self {
            Descr::Call(d) => Some(d),
            _ => None,
        }
    }
    pub fn as_fail(&self) -> Option<&Arc<FailDescr>> {
        match self {
            Descr::Fail(d) => Some(d),
            _ => None,
        }
    }
    pub fn as_target(&self) -> Option<&Arc<TargetDescr>> {
        match self {
            Descr::Target(d) => Some(d),
            _ => None,
        }
    }
}

impl fmt::Display for Descr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl From<SizeDescr> for Descr {
    fn from(d: SizeDescr) -> Self {
        Descr::Size(Arc::new(d))
    }
}
impl From<FieldDescr> for Descr {
    fn from(d: FieldDescr) -> Self {
        Descr::Field(Arc::new(d))
    }
}
impl From<ArrayDescr> for Descr {
    fn from(d: ArrayDescr) -> Self {
        Descr::Array(Arc::new(d))
    }
}
impl From<CallDescr> for Descr {
    fn from(d: CallDescr) -> Self {
        Descr::Call(Arc::new(d))
    }
}
impl From<FailDescr> for Descr {
    fn from(d: FailDescr) -> Self {
        Descr::Fail(Arc::new(d))
    }
}
impl From<TargetDescr> for Descr {
    fn from(d: TargetDescr) -> Self {
        Descr::Target(Arc::new(d))
    }
}
