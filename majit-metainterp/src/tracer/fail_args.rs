//! Gathering one guard's fail args: each non-constant box once, in the
//! order the snapshot meets it.
//!
//! Every guard's snapshot looks up each live box of each frame and of the
//! virtualizable. Searching the args gathered so far made a guard's cost
//! quadratic in its args (long traces with deep inlining have the most).
//! Here each box's slot is found by its trace position, in tables stamped
//! per guard so that starting a guard clears nothing.

use super::{SnapValue, TBox};
use majit_ir::{OpRef, RefTarget};

/// The fail args of the guard being recorded, with an index from box to
/// slot (see the module docs).
#[derive(Debug, Default)]
pub(super) struct FailArgs {
    args: Vec<OpRef>,
    /// Which guard the index entries below belong to.
    stamp: u32,
    /// Per op position: (stamp, slot).
    ops: Vec<(u32, u32)>,
    /// Per input position: (stamp, slot).
    inputs: Vec<(u32, u32)>,
}

impl FailArgs {
    /// Starts a guard's args: none yet.
    pub fn begin(&mut self) {
        self.args.clear();
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            // Entries of 2^32 guards ago would look current: forget them.
            self.ops.clear();
            self.inputs.clear();
            self.stamp = 1;
        }
    }

    /// The args so far.
    pub fn args(&self) -> &[OpRef] {
        &self.args
    }

    /// Appends boxes known to be distinct from each other and from the
    /// args so far (a shared frame's args).
    pub fn extend(&mut self, boxes: &[OpRef]) {
        for &r in boxes {
            let slot = self.args.len() as u32;
            *self.entry(r) = (self.stamp, slot);
            self.args.push(r);
        }
    }

    /// Where box `b` comes from at the guard: a constant, or its slot
    /// (appended when new).
    pub fn value(&mut self, b: TBox) -> SnapValue {
        if b.r.is_const() {
            return SnapValue::Const(b.v);
        }
        let (stamp, next) = (self.stamp, self.args.len() as u32);
        let e = self.entry(b.r);
        if e.0 == stamp {
            return SnapValue::Arg(e.1);
        }
        *e = (stamp, next);
        self.args.push(b.r);
        SnapValue::Arg(next)
    }

    /// The slot of box `r` if this guard's args already hold it.
    pub fn slot_of(&mut self, r: OpRef) -> Option<SnapValue> {
        if r.is_const() {
            return None;
        }
        let stamp = self.stamp;
        let e = self.entry(r);
        (e.0 == stamp).then_some(SnapValue::Arg(e.1))
    }

    fn entry(&mut self, r: OpRef) -> &mut (u32, u32) {
        let (table, i) = match r.target() {
            RefTarget::Op(i) => (&mut self.ops, i),
            RefTarget::Input(i) => (&mut self.inputs, i),
            RefTarget::Const(_) => unreachable!("constants have no fail-arg slot"),
        };
        if i >= table.len() {
            table.resize(i + 1, (0, 0));
        }
        &mut table[i]
    }
}
