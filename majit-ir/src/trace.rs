//! A trace: input arguments, a linear list of ops, interned constants.
//!
//! Ops refer to values by [`OpRef`]. The trace owns the constant pool;
//! `add_const` interns, so one constant value has one `OpRef`. Equality of
//! traces is structural with constants compared by value and descriptors
//! by content, so `parse(print(t)) == t` holds whatever order constants
//! were interned in.

use crate::descr::Descr;
use crate::hash::FastMap;
use crate::op::{Const, Op, OpRef, RefTarget};
use crate::opcode::{Kind, OpCode};

/// A linear trace (a loop, a bridge, or any straight-line code).
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// Kinds of the input arguments.
    pub inputs: Vec<Kind>,
    pub ops: Vec<Op>,
    consts: Vec<Const>,
    const_index: FastMap<Const, u32>,
}

impl Trace {
    /// A trace with the given input kinds and no ops.
    ///
    /// ```
    /// use majit_ir::{Trace, Kind, OpCode, Op, Const};
    /// let mut t = Trace::new(&[Kind::Int]);
    /// let one = t.add_const(Const::Int(1));
    /// let sum = t.push(Op::new(OpCode::IntAdd, &[t.input(0), one]));
    /// t.push(Op::new(OpCode::Finish, &[sum]));
    /// assert_eq!(t.ops.len(), 2);
    /// ```
    pub fn new(inputs: &[Kind]) -> Trace {
        Trace {
            inputs: inputs.to_vec(),
            ..Trace::default()
        }
    }

    /// The `OpRef` of input argument `i`.
    pub fn input(&self, i: usize) -> OpRef {
        OpRef::input(i)
    }

    /// Appends an op and returns the reference to its result.
    pub fn push(&mut self, op: Op) -> OpRef {
        self.ops.push(op);
        OpRef::op(self.ops.len() - 1)
    }

    /// Interns a constant.
    pub fn add_const(&mut self, c: Const) -> OpRef {
        if let Some(&i) = self.const_index.get(&c) {
            return OpRef::konst(i as usize);
        }
        let i = self.consts.len();
        self.consts.push(c);
        self.const_index.insert(c, i as u32);
        OpRef::konst(i)
    }

    /// The constant pool, in interning order.
    pub fn consts(&self) -> &[Const] {
        &self.consts
    }

    /// The constant `r` names, if it is a constant of this trace.
    pub fn get_const(&self, r: OpRef) -> Option<Const> {
        match r.target() {
            RefTarget::Const(i) => self.consts.get(i).copied(),
            _ => None,
        }
    }

    /// The op that defines `r`, if `r` is an op result.
    pub fn def(&self, r: OpRef) -> Option<&Op> {
        match r.target() {
            RefTarget::Op(i) => self.ops.get(i),
            _ => None,
        }
    }

    /// The kind of the value `r` names, or `None` when `r` is out of range
    /// or names an op without a result.
    pub fn kind_of(&self, r: OpRef) -> Option<Kind> {
        match r.target() {
            RefTarget::Input(i) => self.inputs.get(i).copied(),
            RefTarget::Op(i) => self.ops.get(i).and_then(|op| op.opcode.result().kind()),
            RefTarget::Const(i) => self.consts.get(i).map(|c| c.kind()),
        }
    }

    /// Every distinct descriptor used by the ops, in first-use order.
    pub fn descrs(&self) -> Vec<Descr> {
        // A set, not a scan of `out`: a long trace has a fail descr per
        // guard, thousands of them.
        let mut seen: std::collections::HashSet<&Descr> = std::collections::HashSet::new();
        let used = self.ops.iter().filter_map(|op| op.descr.as_ref());
        used.filter(|d| seen.insert(*d)).cloned().collect()
    }

    /// The index of the last `label` op, if any.
    pub fn label_index(&self) -> Option<usize> {
        self.ops.iter().rposition(|op| op.opcode == OpCode::Label)
    }

    fn same_ref(&self, a: OpRef, other: &Trace, b: OpRef) -> bool {
        match (self.get_const(a), other.get_const(b)) {
            (Some(x), Some(y)) => x == y,
            (None, None) => a == b,
            _ => false,
        }
    }

    fn same_refs(&self, a: &[OpRef], other: &Trace, b: &[OpRef]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(&x, &y)| self.same_ref(x, other, y))
    }
}

impl PartialEq for Trace {
    fn eq(&self, other: &Trace) -> bool {
        self.inputs == other.inputs
            && self.ops.len() == other.ops.len()
            && self.ops.iter().zip(&other.ops).all(|(a, b)| {
                a.opcode == b.opcode
                    && a.descr == b.descr
                    && self.same_refs(&a.args, other, &b.args)
                    && match (&a.fail_args, &b.fail_args) {
                        (Some(x), Some(y)) => self.same_refs(x, other, y),
                        (None, None) => true,
                        _ => false,
                    }
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_are_interned() {
        let mut t = Trace::new(&[]);
        let a = t.add_const(Const::Int(7));
        let b = t.add_const(Const::Int(7));
        let c = t.add_const(Const::float(7.0));
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(t.kind_of(c), Some(Kind::Float));
    }

    #[test]
    fn equality_ignores_constant_order() {
        let mut a = Trace::new(&[Kind::Int]);
        a.add_const(Const::Int(99));
        let one = a.add_const(Const::Int(1));
        a.push(Op::new(OpCode::IntAdd, &[OpRef::input(0), one]));
        let mut b = Trace::new(&[Kind::Int]);
        let one = b.add_const(Const::Int(1));
        b.push(Op::new(OpCode::IntAdd, &[OpRef::input(0), one]));
        assert_eq!(a, b);
    }
}
