//! Materialising resume data on real memory when a guard fails.
//!
//! [`rebuild`] follows the phases of the JIT primer (section 4):
//! 1. copy the dead frame's values (the caller keeps them rooted until
//!    `rebuild` returns);
//! 2. allocate EVERY virtual, zeroed, into a table indexed like
//!    `rd_virtuals`; each allocation gets all refs held so far as roots, so
//!    a moving allocator can update them;
//! 3. fill all fields from the table, the frame values and constants;
//!    nothing allocates any more, so addresses stay valid; ref stores go
//!    through the write barrier (an earlier virtual may have become old);
//! 4. apply the pending fields in order, through the barrier.
//!
//! Allocating everything before filling anything is what makes cycles and
//! shared objects work (every address is known when fields are written)
//! and confines collections to a phase where no object holds an
//! uninitialised ref.

use super::{GuardResume, Layout, Slot, Tagged};
use crate::runtime::{Access, Allocator};
use majit_ir::{Kind, Value};
use std::fmt;

/// Why resume data could not be materialised.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RebuildError {
    /// The resume data names a frame slot or virtual that does not exist,
    /// or a pending target that is not a ref (a bug in the optimizer).
    Malformed(String),
    /// A pending field's target is null (a bug in the optimizer or trace).
    NullTarget(String),
    /// The allocator ran out of memory.
    OutOfMemory,
}

impl fmt::Display for RebuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RebuildError::Malformed(m) => write!(f, "malformed resume data: {m}"),
            RebuildError::NullTarget(m) => write!(f, "pending field into null: {m}"),
            RebuildError::OutOfMemory => write!(f, "out of memory while rebuilding virtuals"),
        }
    }
}

impl std::error::Error for RebuildError {}

/// Reconstructs the ORIGINAL fail-arg values of a guard from `frame` (the
/// dead frame's values, i.e. the optimized guard's fail args) and `rd`,
/// allocating virtuals through `alloc` and performing pending stores.
///
/// # Safety
/// Every ref in `frame` and every ref constant in `rd` must be null or
/// point to a live object whose layout matches the slots `rd` stores into
/// (what holds when `rd` is the optimizer's description of the guard that
/// produced `frame`). `alloc` must return valid, zeroed objects.
pub unsafe fn rebuild(
    frame: &[Value],
    rd: &GuardResume,
    alloc: &mut dyn Allocator,
) -> Result<Vec<Value>, RebuildError> {
    let mut frame = frame.to_vec();
    let mut objs: Vec<usize> = Vec::with_capacity(rd.virtuals.len());
    for v in &rd.virtuals {
        let mut roots = roots_of(&frame, &objs);
        let addr = match &v.layout {
            Layout::Struct { size, .. } => alloc.new_object(size, &mut roots),
            Layout::Array { descr, len } => alloc.new_array(descr, *len as usize, &mut roots),
        }
        .map_err(|_| RebuildError::OutOfMemory)?;
        write_back_roots(&mut frame, &mut objs, &roots);
        objs.push(addr);
    }
    let value = |t: &Tagged| -> Result<Value, RebuildError> {
        let slot = |i: u32| {
            frame
                .get(i as usize)
                .copied()
                .ok_or_else(|| RebuildError::Malformed(format!("BOX{i} out of range")))
        };
        match t {
            Tagged::Box(i) => slot(*i),
            Tagged::Tag(i, code) => majit_ir::eval::eval_pure(*code, &[slot(*i)?])
                .ok_or_else(|| RebuildError::Malformed(format!("{t} of a {:?}", slot(*i)))),
            Tagged::Const(c) => Ok(c.value()),
            Tagged::Virtual(i) => objs
                .get(*i as usize)
                .map(|&a| Value::Ref(a))
                .ok_or_else(|| RebuildError::Malformed(format!("VIRTUAL{i} out of range"))),
        }
    };
    for (v, &obj) in rd.virtuals.iter().zip(&objs) {
        for (slot, t) in &v.fields {
            // SAFETY: `obj` is a fresh object of the layout `slot` belongs to.
            unsafe { store(alloc, obj, slot, value(t)?) };
        }
    }
    for p in &rd.pending {
        let target = match value(&p.target)? {
            Value::Ref(0) => return Err(RebuildError::NullTarget(p.slot.describe())),
            Value::Ref(a) => a,
            other => {
                let m = format!("pending target {other:?} is not a ref");
                return Err(RebuildError::Malformed(m));
            }
        };
        // SAFETY: the caller guarantees targets are live objects with `slot`.
        unsafe { store(alloc, target, &p.slot, value(&p.value)?) };
    }
    rd.values.iter().map(value).collect()
}

/// Every ref held so far: the frame's refs, then the virtuals allocated.
fn roots_of(frame: &[Value], objs: &[usize]) -> Vec<usize> {
    let refs = frame.iter().map(|v| match v {
        Value::Ref(a) => *a,
        _ => 0,
    });
    refs.chain(objs.iter().copied()).collect()
}

/// Copies moved refs back after an allocation.
fn write_back_roots(frame: &mut [Value], objs: &mut [usize], roots: &[usize]) {
    let n = frame.len();
    for (v, &r) in frame.iter_mut().zip(roots) {
        if let Value::Ref(a) = v {
            *a = r;
        }
    }
    objs.copy_from_slice(&roots[n..]);
}

/// Stores `value` into `slot` of `obj` (barrier first for refs).
///
/// # Safety
/// `obj` is a live object that has `slot`.
unsafe fn store(alloc: &mut dyn Allocator, obj: usize, slot: &Slot, value: Value) {
    let (offset, width) = match slot {
        Slot::Field(f) => (f.offset as usize, f.size),
        Slot::Item(a, i) => (
            a.base_offset as usize + *i as usize * a.item_size as usize,
            a.item_size,
        ),
    };
    if value.kind() == Kind::Ref {
        match slot {
            Slot::Field(_) => alloc.write_barrier(obj),
            Slot::Item(_, i) => alloc.write_barrier_array(obj, i64::from(*i)),
        }
    }
    let access = Access {
        size: width,
        signed: false,
    };
    // SAFETY: `obj + offset .. + width` lies inside the object (caller).
    unsafe { access.store(obj + offset, value.to_bits()) };
}
