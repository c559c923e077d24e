//! Virtualizable frames: an interpreter frame object whose listed fields
//! and array items live in trace boxes while compiled code runs.
//!
//! The VM author describes the frame once ([`VirtualizableInfo`]) and
//! gives it to the driver ([`crate::driver::JitDriver::with_virtualizable`]).
//! The frame stays a red. What changes:
//!
//! - **Entry.** The driver reads the listed fields, the array field and the
//!   array's items and passes them to the loop after the reds: a loop's
//!   inputs are `reds ++ fields ++ [array] ++ items` (the *virtualizable
//!   values*). A loop is entered only when the array's length equals the
//!   length it was traced with; that check replaces every bounds guard. An
//!   entry trace takes the reds alone and loads the values itself, after
//!   its label, so a call of the interpreted program (or a jump, which
//!   first stores what the frame does not hold) enters it cheaply.
//! - **Inside the trace.** `getfield`/`setfield` of a listed field of the
//!   frame, `getarrayitem`/`setarrayitem` of its array and `arraylen` of
//!   the array record nothing: they read or replace a box. An item index
//!   that is not a constant is promoted (`guard_value`), as the stack depth
//!   of a stack VM is constant at each bytecode position. The `jump` carries
//!   the boxes, so the optimizer sees plain loop-carried values.
//! - **Leaving.** Every guard's resume data lists the frame and the
//!   virtualizable values ([`crate::tracer::Snapshot::vable`]); when a
//!   guard fails the driver writes them back into the frame before the
//!   blackhole or a bridge runs. A value the frame still holds (loaded and
//!   not replaced since) is no fail arg and is not written back; a bridge
//!   loads it from the frame. A `finish` and the budget exit of
//!   differential mode carry them after the reds and are written back too;
//!   a `finish` at the portal's return is preceded by the stores that write
//!   them back, and carries the result alone.
//!   A bridge starts from the guard's boxes and those loads, and jumps with them.
//! - **Residual calls that may look at the frame** (`EffectInfo::may_force`)
//!   get a written-back frame: the trace stores every box into the frame
//!   before the call and reloads them all after it, so the callee may also
//!   change the frame. Other residual calls must not read or write it.
//! - **Calls of the interpreted program** (portal calls, `call_assembler`)
//!   may force too, unless the VM promises
//!   ([`VirtualizableInfo::opaque_to_callees`]) that code running for a
//!   callee never reads or writes its callers' virtualized fields and
//!   items: then the boxes stay in registers across the call, with no
//!   stores before it and no loads after it, as in a call of a compiled
//!   function in a static compiler. The tracer holds the VM to the write
//!   half of the promise: a portal call that changed the frame while the
//!   trace was recorded is an error.
//!
//! The frame identified is the red's own box: a frame reached another way
//! (a different ref to the same object) is an ordinary object, so the VM
//! must access its frame through the red. Replacing the array field inside
//! a trace aborts it (the VM grew its frame: the trace's inputs are the old
//! array's items); a residual call replacing it is an error.

use crate::jitcode::eval::{self, ConcreteError};
use crate::runtime::Allocator;
use crate::tracer::{getarrayitem_opcode, getfield_opcode};
use majit_ir::{ArrayDescr, Descr, FieldDescr, Kind, Op, OpCode, OpRef, Value};
use std::sync::Arc;

/// The description of a virtualizable frame: which red is the frame, which
/// of its fields live in boxes, and its array field (a ref field pointing
/// to a GC array whose items live in boxes).
///
/// ```
/// use majit_ir::{ArrayDescr, FieldDescr, Kind};
/// use majit_metainterp::vable::VirtualizableInfo;
/// use std::sync::Arc;
/// let field = |name: &str, offset, kind| Arc::new(FieldDescr {
///     name: format!("Frame.{name}"), owner: "Frame".into(), offset,
///     size: 8, signed: true, kind, immutable: false, quasi_immutable: false,
/// });
/// let stack = Arc::new(ArrayDescr {
///     name: "Stack".into(), base_offset: 16, len_offset: 8, item_size: 8,
///     signed: true, kind: Kind::Int, type_id: 7,
/// });
/// // The frame is red 0; `pc` and `sp` live in boxes, so do the items of
/// // the array at `Frame.stack`.
/// let info = VirtualizableInfo::new(0)
///     .with_fields(vec![field("pc", 8, Kind::Int), field("sp", 16, Kind::Int)])
///     .with_array(field("stack", 24, Kind::Ref), stack);
/// assert_eq!(info.fields().len(), 2);
/// ```
#[derive(Clone, Debug)]
pub struct VirtualizableInfo {
    red: usize,
    fields: Vec<Arc<FieldDescr>>,
    array: Option<(Arc<FieldDescr>, Arc<ArrayDescr>)>,
    opaque_to_callees: bool,
}

impl VirtualizableInfo {
    /// A frame that is red number `red` of the merge point, with no
    /// virtualized fields yet.
    pub fn new(red: usize) -> VirtualizableInfo {
        VirtualizableInfo {
            red,
            fields: Vec::new(),
            array: None,
            opaque_to_callees: false,
        }
    }

    /// The scalar fields that live in boxes.
    pub fn with_fields(mut self, fields: Vec<Arc<FieldDescr>>) -> VirtualizableInfo {
        self.fields = fields;
        self
    }

    /// The ref field `field` holds a GC array of layout `array` whose items
    /// live in boxes.
    pub fn with_array(
        mut self,
        field: Arc<FieldDescr>,
        array: Arc<ArrayDescr>,
    ) -> VirtualizableInfo {
        self.array = Some((field, array));
        self
    }

    /// Promises that while a call of the interpreted program runs (a
    /// portal call: the callee's compiled code, its interpreter, its
    /// helpers), nothing reads or writes the virtualized fields and array
    /// items of the frames that called it, nor replaces their arrays. A VM
    /// whose error paths walk the caller chain reads only what compiled
    /// code never changes (a return address set when the frame was made).
    /// Compiled code then keeps the caller's boxes in registers across
    /// `call_assembler` instead of writing the frame back and reloading it.
    ///
    /// ```
    /// use majit_metainterp::vable::VirtualizableInfo;
    /// let info = VirtualizableInfo::new(0).opaque_to_callees();
    /// assert!(info.is_opaque_to_callees());
    /// ```
    pub fn opaque_to_callees(mut self) -> VirtualizableInfo {
        self.opaque_to_callees = true;
        self
    }

    /// Whether the VM made the promise of
    /// [`VirtualizableInfo::opaque_to_callees`].
    pub fn is_opaque_to_callees(&self) -> bool {
        self.opaque_to_callees
    }

    /// The index of the frame among the reds.
    pub fn red(&self) -> usize {
        self.red
    }

    /// The virtualized scalar fields.
    pub fn fields(&self) -> &[Arc<FieldDescr>] {
        &self.fields
    }

    /// The array field and the array's layout, if any.
    pub fn array(&self) -> Option<&(Arc<FieldDescr>, Arc<ArrayDescr>)> {
        self.array.as_ref()
    }

    /// Why this description does not fit reds of `red_kinds`, if it does
    /// not.
    pub(crate) fn check(&self, red_kinds: &[Kind]) -> Result<(), String> {
        if red_kinds.get(self.red) != Some(&Kind::Ref) {
            return Err(format!(
                "the virtualizable frame is red {} but the reds are {red_kinds:?}",
                self.red
            ));
        }
        match &self.array {
            Some((f, _)) if f.kind != Kind::Ref => Err(format!(
                "the virtualizable array field {} is not a ref field",
                f.name
            )),
            Some((f, _)) if self.fields.contains(f) => Err(format!(
                "{} is both the array field and a virtualized field",
                f.name
            )),
            _ => Ok(()),
        }
    }

    /// The position of field `fd` among the virtualizable values: a listed
    /// field's index, or the array field's (after the fields).
    pub(crate) fn field_slot(&self, fd: &FieldDescr) -> Option<usize> {
        if let Some(i) = self.fields.iter().position(|f| **f == *fd) {
            return Some(i);
        }
        self.array
            .as_ref()
            .filter(|(f, _)| **f == *fd)
            .map(|_| self.fields.len())
    }

    /// The position of the array among the virtualizable values.
    pub(crate) fn array_slot(&self) -> usize {
        self.fields.len()
    }

    /// The position of array item 0 among the virtualizable values.
    pub(crate) fn items_start(&self) -> usize {
        self.fields.len() + 1
    }

    /// The length of `frame`'s array (0 without an array).
    pub(crate) fn array_len(&self, frame: usize) -> Result<i64, ConcreteError> {
        let Some((f, a)) = &self.array else {
            return Ok(0);
        };
        let arr = eval::getfield(frame, f)?;
        eval::arraylen(arr.as_ref().unwrap_or(0), a)
    }

    /// The number of virtualizable values of `frame`.
    pub(crate) fn value_count(&self, frame: usize) -> Result<usize, ConcreteError> {
        match &self.array {
            Some(_) => Ok(self.items_start() + self.array_len(frame)? as usize),
            None => Ok(self.fields.len()),
        }
    }

    /// The virtualizable values of `frame`: its fields, then (with an
    /// array) the array ref and its items.
    pub(crate) fn read(&self, frame: usize) -> Result<Vec<Value>, ConcreteError> {
        let mut out = Vec::new();
        self.read_into(frame, &mut out)?;
        Ok(out)
    }

    /// [`VirtualizableInfo::read`], appending to `out`.
    pub(crate) fn read_into(
        &self,
        frame: usize,
        out: &mut Vec<Value>,
    ) -> Result<(), ConcreteError> {
        for f in &self.fields {
            out.push(eval::getfield(frame, f)?);
        }
        if let Some((f, a)) = &self.array {
            let arr = eval::getfield(frame, f)?;
            let p = arr.as_ref().unwrap_or(0);
            out.push(arr);
            let n = eval::arraylen(p, a)?;
            out.reserve(usize::try_from(n).unwrap_or(0));
            for i in 0..n {
                out.push(eval::getarrayitem(p, i, a)?);
            }
        }
        Ok(())
    }

    /// The ops storing the virtualizable values `boxes` (in
    /// [`VirtualizableInfo::read`]'s order) into `frame` and its array,
    /// but not value `k` when `held(k, box)` (its place holds that box
    /// already); `index(i)` is the constant array index `i`. The array ref
    /// is not stored (the frame's array never changes in a trace).
    pub(crate) fn store_ops(
        &self,
        frame: OpRef,
        boxes: &[OpRef],
        mut held: impl FnMut(usize, OpRef) -> bool,
        mut index: impl FnMut(i64) -> OpRef,
    ) -> Vec<Op> {
        let mut ops = Vec::new();
        for (k, (f, &b)) in self.fields.iter().zip(boxes).enumerate() {
            if !held(k, b) {
                let d = Descr::Field(f.clone());
                ops.push(Op::new(OpCode::SetfieldGc, &[frame, b]).with_descr(d));
            }
        }
        if let Some((_, a)) = &self.array {
            let arr = boxes[self.array_slot()];
            for (i, &b) in boxes[self.items_start()..].iter().enumerate() {
                if !held(self.items_start() + i, b) {
                    let d = Descr::Array(a.clone());
                    let idx = index(i as i64);
                    ops.push(Op::new(OpCode::SetarrayitemGc, &[arr, idx, b]).with_descr(d));
                }
            }
        }
        ops
    }

    /// The op loading virtualizable value `k` (in [`VirtualizableInfo::read`]'s
    /// order) from `frame`, or for an item from `array`; `index(i)` is the
    /// constant array index `i`.
    pub(crate) fn load_op(
        &self,
        k: usize,
        frame: OpRef,
        array: OpRef,
        index: impl FnOnce(i64) -> OpRef,
    ) -> Op {
        let field = |f: &Arc<FieldDescr>| {
            Op::new(getfield_opcode(f.kind), &[frame]).with_descr(Descr::Field(f.clone()))
        };
        match (self.fields.get(k), &self.array) {
            (Some(f), _) => field(f),
            (None, Some((f, _))) if k == self.array_slot() => field(f),
            (None, Some((_, a))) => {
                let idx = index((k - self.items_start()) as i64);
                Op::new(getarrayitem_opcode(a.kind), &[array, idx])
                    .with_descr(Descr::Array(a.clone()))
            }
            (None, None) => unreachable!("virtualizable value {k} of a frame without an array"),
        }
    }

    /// Writes virtualizable values back into `frame` and its array:
    /// `value(k)` is value `k` (in [`VirtualizableInfo::read`]'s order), or
    /// `None` when the frame holds it already. The array ref is not
    /// stored: the frame's array never changes while compiled code runs.
    pub(crate) fn write_back(
        &self,
        alloc: &mut dyn Allocator,
        frame: usize,
        value: impl Fn(usize) -> Option<Value>,
    ) -> Result<(), ConcreteError> {
        for (k, f) in self.fields.iter().enumerate() {
            if let Some(v) = value(k) {
                eval::setfield(alloc, frame, f, v)?;
            }
        }
        if let Some((f, a)) = &self.array {
            let arr = match value(self.array_slot()) {
                Some(arr) => arr,
                None => eval::getfield(frame, f)?,
            };
            let arr = arr.as_ref().unwrap_or(0);
            for i in 0..eval::arraylen(arr, a)? {
                if let Some(v) = value(self.items_start() + i as usize) {
                    eval::setarrayitem(alloc, arr, i, a, v)?;
                }
            }
        }
        Ok(())
    }
}
