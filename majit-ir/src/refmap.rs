//! [`RefMap`]: a map keyed by [`OpRef`], stored densely by index.
//!
//! An optimizer pass looks facts up by value several times per op; a hash
//! map pays a hash and a probe each time, while the refs of one trace are
//! small dense indexes (inputs, op results, constants), so a vector per
//! kind of ref answers with one bounds check.

use crate::op::{OpRef, RefTarget};

/// A map from [`OpRef`] to `V`, one vector slot per index of each kind of
/// ref. Memory grows with the largest index inserted, so it suits maps
/// that hold something for many of a trace's values.
///
/// ```
/// use majit_ir::{OpRef, RefMap};
/// let mut kinds: RefMap<&str> = RefMap::default();
/// kinds.insert(OpRef::op(3), "int");
/// assert_eq!(kinds.get(&OpRef::op(3)), Some(&"int"));
/// assert_eq!(kinds.get(&OpRef::input(3)), None);
/// *kinds.get_or_default(OpRef::input(0)) = "ref";
/// assert_eq!(kinds.remove(&OpRef::input(0)), Some("ref"));
/// ```
#[derive(Clone, Debug)]
pub struct RefMap<V> {
    inputs: Vec<Option<V>>,
    ops: Vec<Option<V>>,
    consts: Vec<Option<V>>,
}

impl<V> Default for RefMap<V> {
    fn default() -> RefMap<V> {
        RefMap {
            inputs: Vec::new(),
            ops: Vec::new(),
            consts: Vec::new(),
        }
    }
}

impl<V> RefMap<V> {
    fn slots(&self, r: OpRef) -> (&Vec<Option<V>>, usize) {
        match r.target() {
            RefTarget::Input(i) => (&self.inputs, i),
            RefTarget::Op(i) => (&self.ops, i),
            RefTarget::Const(i) => (&self.consts, i),
        }
    }

    fn slots_mut(&mut self, r: OpRef) -> (&mut Vec<Option<V>>, usize) {
        match r.target() {
            RefTarget::Input(i) => (&mut self.inputs, i),
            RefTarget::Op(i) => (&mut self.ops, i),
            RefTarget::Const(i) => (&mut self.consts, i),
        }
    }

    /// The value at `r`, if any.
    pub fn get(&self, r: &OpRef) -> Option<&V> {
        let (v, i) = self.slots(*r);
        v.get(i)?.as_ref()
    }

    /// The value at `r`, mutably, if any.
    pub fn get_mut(&mut self, r: &OpRef) -> Option<&mut V> {
        let (v, i) = self.slots_mut(*r);
        v.get_mut(i)?.as_mut()
    }

    /// Whether `r` has a value.
    pub fn contains_key(&self, r: &OpRef) -> bool {
        self.get(r).is_some()
    }

    /// Sets the value at `r`, returning the one it replaces.
    pub fn insert(&mut self, r: OpRef, value: V) -> Option<V> {
        let (v, i) = self.slots_mut(r);
        if v.len() <= i {
            v.resize_with(i + 1, || None);
        }
        v[i].replace(value)
    }

    /// Removes the value at `r`, returning it.
    pub fn remove(&mut self, r: &OpRef) -> Option<V> {
        let (v, i) = self.slots_mut(*r);
        v.get_mut(i)?.take()
    }

    /// The value at `r`, inserting `V::default()` first if there is none.
    pub fn get_or_default(&mut self, r: OpRef) -> &mut V
    where
        V: Default,
    {
        let (v, i) = self.slots_mut(r);
        if v.len() <= i {
            v.resize_with(i + 1, || None);
        }
        v[i].get_or_insert_with(V::default)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_of_refs_do_not_collide_and_holes_read_as_absent() {
        let mut m: RefMap<u32> = RefMap::default();
        assert_eq!(m.insert(OpRef::op(10), 1), None);
        assert_eq!(m.insert(OpRef::input(10), 2), None);
        assert_eq!(m.insert(OpRef::konst(10), 3), None);
        assert_eq!(m.insert(OpRef::op(10), 4), Some(1));
        assert_eq!(m.get(&OpRef::op(9)), None, "a hole");
        assert_eq!(m.get(&OpRef::op(11)), None, "past the end");
        assert_eq!(m.get(&OpRef::input(10)), Some(&2));
        *m.get_mut(&OpRef::konst(10)).unwrap() += 1;
        assert_eq!(m.remove(&OpRef::konst(10)), Some(4));
        assert!(!m.contains_key(&OpRef::konst(10)));
        assert_eq!(m.remove(&OpRef::konst(99)), None);
        *m.get_or_default(OpRef::op(12)) += 5;
        assert_eq!(m.get(&OpRef::op(12)), Some(&5));
    }
}
