//! What the optimizer knows about each value, shared by all passes.
//!
//! An [`Info`] holds the facts about one value of the optimized trace:
//! integer bounds ([`IntBound`], maintained by intbounds and read by
//! rewrite), pointer facts (non-null, known layout, allocated in this trace)
//! and, for objects that exist only virtually, their [`Virtual`] field map
//! (maintained by virtualize, read by heap, resume and unroll).
//!
//! Invariants:
//! - Facts only narrow: a pass never widens a bound or forgets non-nullness,
//!   because every fact was proven for every execution reaching that point.
//! - A guard's own facts are applied after the guard is committed (its resume
//!   data describes the state when it fails, where the fact is false).
//! - A virtual's field values are value refs of the optimized trace; they
//!   may name other virtuals, cycles included.

use crate::resume::{Layout, Slot};
use majit_ir::{ArrayDescr, FieldDescr, OpRef};
use std::sync::Arc;

/// A closed interval `lo..=hi` of `i64`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct IntBound {
    pub lo: i64,
    pub hi: i64,
}

impl IntBound {
    /// Every `i64`.
    pub const FULL: IntBound = IntBound {
        lo: i64::MIN,
        hi: i64::MAX,
    };
    /// The results of comparisons: 0 or 1.
    pub const BOOL: IntBound = IntBound { lo: 0, hi: 1 };

    pub fn new(lo: i64, hi: i64) -> IntBound {
        IntBound { lo, hi }
    }
    /// Exactly `v`.
    pub fn exact(v: i64) -> IntBound {
        IntBound { lo: v, hi: v }
    }
    /// The single value of the interval, if it has one.
    pub fn as_const(self) -> Option<i64> {
        (self.lo == self.hi).then_some(self.lo)
    }
    /// The intersection, or `None` when it is empty (the facts contradict).
    pub fn intersect(self, o: IntBound) -> Option<IntBound> {
        let b = IntBound::new(self.lo.max(o.lo), self.hi.min(o.hi));
        (b.lo <= b.hi).then_some(b)
    }
    pub fn contains(self, v: i64) -> bool {
        self.lo <= v && v <= self.hi
    }
    /// Whether `self` lies inside `o`.
    pub fn within(self, o: IntBound) -> bool {
        o.lo <= self.lo && self.hi <= o.hi
    }
    pub fn is_full(self) -> bool {
        self == IntBound::FULL
    }
}

/// An object that the optimized trace does not (yet) allocate.
#[derive(Clone, Debug, PartialEq)]
pub struct Virtual {
    pub layout: Layout,
    /// The fields set so far, kept sorted by offset (structs) or index
    /// (arrays); an absent entry reads as zero/null.
    pub fields: Vec<(Slot, OpRef)>,
}

impl Virtual {
    /// A fresh virtual with every field zero.
    pub fn new(layout: Layout) -> Virtual {
        Virtual {
            layout,
            fields: Vec::new(),
        }
    }

    fn position(&self, slot: &Slot) -> Result<usize, usize> {
        self.fields
            .binary_search_by_key(&slot_key(slot), |(s, _)| slot_key(s))
    }

    /// The value stored in `slot`, `None` when it was never set.
    pub fn get(&self, slot: &Slot) -> Option<OpRef> {
        self.position(slot).ok().map(|i| self.fields[i].1)
    }

    /// Stores `value` into `slot`.
    pub fn set(&mut self, slot: Slot, value: OpRef) {
        match self.position(&slot) {
            Ok(i) => self.fields[i].1 = value,
            Err(i) => self.fields.insert(i, (slot, value)),
        }
    }

    /// The array length, for array virtuals.
    pub fn array_len(&self) -> Option<u32> {
        match &self.layout {
            Layout::Array { len, .. } => Some(*len),
            Layout::Struct { .. } => None,
        }
    }
}

/// The ordering key of a slot inside one object (all slots of one virtual
/// are fields, or all are items).
fn slot_key(slot: &Slot) -> u32 {
    match slot {
        Slot::Field(f) => f.offset,
        Slot::Item(_, i) => *i,
    }
}

/// Whether a field descriptor belongs to a virtual's layout (a load through
/// a mismatched descr is left alone and forces the object).
pub fn field_fits(layout: &Layout, field: &FieldDescr) -> bool {
    match layout {
        Layout::Struct { size, .. } => size.fields.contains(&field.name),
        Layout::Array { .. } => false,
    }
}

/// Whether an array descriptor is the one a virtual array was made with.
pub fn array_fits(layout: &Layout, array: &ArrayDescr) -> bool {
    match layout {
        Layout::Array { descr, .. } => **descr == *array,
        Layout::Struct { .. } => false,
    }
}

/// Everything known about one value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Info {
    /// Integer range (ints only); `None` means the full range.
    pub bound: Option<IntBound>,
    /// Refs: known not to be null.
    pub nonnull: bool,
    /// Refs: the object's class word (vtable), when a guard or allocation
    /// proved it.
    pub class: Option<i64>,
    /// Refs: the object's layout, when known (allocated in this trace or
    /// checked by a guard).
    pub layout: Option<Layout>,
    /// Refs: the object was allocated in this trace (by the op defining the
    /// value), so it aliases no value defined before it.
    pub fresh: bool,
    /// Refs: the object exists only virtually.
    pub virt: Option<Virtual>,
    /// Floats: the value fits in a tagged ref (`float_fits_tag` is 1), so
    /// `float_untag(float_tag(x))` is `x`.
    pub fits_tag: bool,
    /// Refs: the word's tag, when a guard on `ptr_is_tagged` or
    /// `ptr_is_float_tagged` proved it.
    pub tag: Option<Tag>,
}

/// What a tagged ref word holds (`majit_ir::flonum`): the tags are
/// disjoint (low bit 1; low bits `10`), so knowing one answers the other
/// test, and a tagged word is never null.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Tag {
    /// A small integer (`int_tag`).
    Int,
    /// A small float (`float_tag`).
    Float,
}

impl Tag {
    /// The tag of a constant word, `None` for an object or null.
    pub fn of_word(w: u64) -> Option<Tag> {
        if w & 1 != 0 {
            Some(Tag::Int)
        } else if majit_ir::flonum::is_tagged(w) {
            Some(Tag::Float)
        } else {
            None
        }
    }
}

impl Info {
    /// The layout descriptor of a struct-shaped layout.
    pub fn size_descr(&self) -> Option<&Arc<majit_ir::SizeDescr>> {
        match &self.layout {
            Some(Layout::Struct { size, .. }) => Some(size),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intersect_and_constants() {
        let a = IntBound::new(0, 10);
        let b = IntBound::new(5, 20);
        assert_eq!(a.intersect(b), Some(IntBound::new(5, 10)));
        assert_eq!(a.intersect(IntBound::new(11, 12)), None);
        assert_eq!(IntBound::exact(3).as_const(), Some(3));
        assert!(IntBound::new(1, 2).within(a));
        assert!(!IntBound::FULL.within(a));
    }
}
