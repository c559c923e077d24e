//! Code lifetime: when the code of a loop and its bridges can be freed,
//! and how much code is in use.
//!
//! The unit is a *tree*: a loop and every bridge attached (directly or
//! through other bridges) to its guards; the backend frees a tree at once
//! ([`crate::Backend::free`]). A tree is *live* while the warm state may
//! enter it. It is *retired* when its loop was invalidated (a field it
//! depends on was written, [`crate::quasi`]); the driver then never enters
//! it again and its green key is traced again when hot. A retired tree's
//! code is freed once nothing can run it:
//!
//! - no execution entered at it is running (the driver may be re-entered
//!   by compiled code, e.g. from a helper, so each tree counts its active
//!   executions), and
//! - no tree that is not freed jumps to one of its labels (a loop that
//!   ends by jumping into it, or a bridge that does): while one does, it
//!   stays, and those jumps leave it at its `guard_not_invalidated`.
//!
//! Freeing a tree removes its jumps, so trees it jumped to may become
//! freeable in turn. Trees are numbered by loop index.

use crate::backend::{Backend, CodeId, ExitId};
use crate::bridge::Rejected;
use crate::driver::JitDriver;
use crate::quasi::Validity;
use crate::stats::AbortReason;
use majit_ir::{OpCode, Trace};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// Where a tree is in its life.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TreeState {
    /// Entered by the warm state.
    Live,
    /// Invalidated: never entered again, freed when unreachable.
    Retired,
    /// Its code was freed.
    Freed,
}

/// One compiled trace of a tree.
#[derive(Clone, Debug)]
pub(crate) struct Member {
    pub code: CodeId,
    pub bytes: usize,
    pub validity: Rc<Validity>,
    /// Its invalidation was counted already.
    pub noticed: bool,
}

/// One tree: the loop first, then its bridges in compilation order.
#[derive(Clone, Debug)]
pub(crate) struct Tree {
    pub state: TreeState,
    pub members: Vec<Member>,
    /// Executions entered at this tree that are running.
    pub active: u32,
    /// Other trees whose labels this tree's code jumps to.
    pub jumps_to: BTreeSet<usize>,
}

/// The trees of one driver.
#[derive(Debug, Default)]
pub(crate) struct Lifetime {
    pub trees: Vec<Tree>,
    /// The tree each compiled trace belongs to.
    root: BTreeMap<CodeId, usize>,
    /// Bytes of code of the trees not freed.
    in_use: usize,
    /// How many trees are retired (not freed yet).
    retired: usize,
}

/// What freeing a tree released.
#[derive(Debug)]
pub(crate) struct Freed {
    pub members: Vec<Member>,
    pub bytes: usize,
}

impl Lifetime {
    /// Bytes of code not freed.
    pub fn in_use(&self) -> usize {
        self.in_use
    }

    /// Loop `tree` (the next loop index) was compiled as `m`.
    pub fn add_loop(&mut self, tree: usize, m: Member) {
        debug_assert_eq!(tree, self.trees.len(), "loops are added in order");
        self.in_use += m.bytes;
        self.root.insert(m.code, tree);
        self.trees.push(Tree {
            state: TreeState::Live,
            members: vec![m],
            active: 0,
            jumps_to: BTreeSet::new(),
        });
    }

    /// A bridge `m` was attached to a guard of compiled trace `parent`.
    pub fn add_bridge(&mut self, parent: CodeId, m: Member) {
        let Some(&tree) = self.root.get(&parent) else {
            return;
        };
        self.in_use += m.bytes;
        self.root.insert(m.code, tree);
        self.trees[tree].members.push(m);
    }

    /// The tree compiled trace `code` belongs to.
    pub fn tree_of(&self, code: CodeId) -> Option<usize> {
        self.root.get(&code).copied()
    }

    /// Compiled trace `from` jumps to a label of loop `to`.
    pub fn jump(&mut self, from: CodeId, to: usize) {
        if let Some(tree) = self.tree_of(from).filter(|&t| t != to) {
            self.trees[tree].jumps_to.insert(to);
        }
    }

    pub fn enter(&mut self, tree: usize) {
        self.trees[tree].active += 1;
    }

    pub fn leave(&mut self, tree: usize) {
        self.trees[tree].active -= 1;
    }

    pub fn is_live(&self, tree: usize) -> bool {
        self.trees[tree].state == TreeState::Live
    }

    /// Tree `tree` is never entered again.
    pub fn retire(&mut self, tree: usize) {
        if self.trees[tree].state == TreeState::Live {
            self.trees[tree].state = TreeState::Retired;
            self.retired += 1;
        }
    }

    /// Whether some tree is retired and not freed yet.
    pub fn has_retired(&self) -> bool {
        self.retired > 0
    }

    /// The retired trees nothing can run: not running, and jumped to only
    /// by trees that are freed or in this set (checked to a fixpoint:
    /// freeing a tree releases the trees it jumps to).
    pub fn freeable(&self) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        let unreachable = |i: usize, out: &[usize]| {
            self.trees.iter().enumerate().all(|(j, other)| {
                other.state == TreeState::Freed || out.contains(&j) || !other.jumps_to.contains(&i)
            })
        };
        while let Some(i) = (0..self.trees.len()).find(|&i| {
            let t = &self.trees[i];
            t.state == TreeState::Retired
                && t.active == 0
                && !out.contains(&i)
                && unreachable(i, &out)
        }) {
            out.push(i);
        }
        out
    }

    /// Marks tree `tree` freed; returns its members and bytes.
    pub fn free(&mut self, tree: usize) -> Freed {
        let t = &mut self.trees[tree];
        if t.state == TreeState::Retired {
            self.retired -= 1;
        }
        t.state = TreeState::Freed;
        t.jumps_to.clear();
        let members = std::mem::take(&mut t.members);
        let bytes = members.iter().map(|m| m.bytes).sum();
        for m in &members {
            self.root.remove(&m.code);
        }
        self.in_use -= bytes;
        Freed { members, bytes }
    }
}

impl<B: Backend> JitDriver<B> {
    /// Accounts for the code `code` just compiled (a loop, or a bridge of
    /// `bridge_of`) from `trace`: counted against `max_code` (over it, the
    /// code is freed again and the trace rejected as `CodeFull`), then
    /// added to its tree with the label it jumps to.
    pub(crate) fn admit(
        &self,
        code: CodeId,
        bridge_of: Option<ExitId>,
        trace: &Trace,
        validity: &Rc<Validity>,
    ) -> Result<(), Rejected> {
        let bytes = self.backend.borrow().code_size(code);
        let in_use = self.lifetime.borrow().in_use();
        if in_use.saturating_add(bytes) > self.params.max_code {
            // Nothing borrows the backend here: it just compiled `code`.
            self.backend.borrow_mut().free(code);
            let what = if bridge_of.is_some() {
                "bridge"
            } else {
                "loop"
            };
            let why = format!(
                "code memory full: the {what} takes {bytes} bytes, {in_use} of \
                 MAJIT_MAX_CODE={} are in use; it stays interpreted",
                self.params.max_code
            );
            return Err((AbortReason::CodeFull, why));
        }
        let member = Member {
            code,
            bytes,
            validity: validity.clone(),
            noticed: false,
        };
        let jump = self.jump_target(trace);
        let mut lifetime = self.lifetime.borrow_mut();
        match bridge_of {
            None => lifetime.add_loop(self.compiled.borrow().loops.len(), member),
            Some(guard) => lifetime.add_bridge(guard.code, member),
        }
        if let Some(to) = jump {
            lifetime.jump(code, to);
        }
        let in_use = lifetime.in_use() as u64;
        self.count(|s| {
            s.code_in_use = in_use;
            s.code_peak = s.code_peak.max(in_use);
        });
        Ok(())
    }

    /// The loop whose label `trace` ends by jumping to, if compiled.
    fn jump_target(&self, trace: &Trace) -> Option<usize> {
        let last = trace.ops.last().filter(|op| op.opcode == OpCode::Jump)?;
        let name = last.descr.as_ref()?.name();
        // `L`, `L.peeled`, or a retrace's `L.peeled.k`.
        let loop_name = name.split('.').next().unwrap_or(name);
        self.compiled
            .borrow()
            .loops
            .iter()
            .position(|l| l.target.name() == loop_name)
    }

    /// Acts on invalidations since the last call (counts them, retires
    /// invalidated loops: their keys are traced again when hot), then
    /// frees the retired trees nothing can run. Cheap when nothing
    /// happened: a comparison.
    pub(crate) fn sync_code(&self) {
        if self.invalidated.get() != self.invalidated_seen.get() {
            self.invalidated_seen.set(self.invalidated.get());
            self.notice_invalidations();
        }
        if self.lifetime.borrow().has_retired() {
            self.free_unreachable();
        }
    }

    fn notice_invalidations(&self) {
        let mut retired = Vec::new();
        let mut noticed = 0;
        let mut lifetime = self.lifetime.borrow_mut();
        for (i, tree) in lifetime.trees.iter_mut().enumerate() {
            for m in tree.members.iter_mut().filter(|m| !m.noticed) {
                if !m.validity.is_valid() {
                    m.noticed = true;
                    noticed += 1;
                }
            }
            let loop_valid = tree.members.first().is_none_or(|m| m.validity.is_valid());
            if tree.state == TreeState::Live && !loop_valid {
                retired.push(i);
            }
        }
        self.count(|s| s.invalidations += noticed);
        for i in retired {
            lifetime.retire(i);
            self.targets.borrow_mut().retire(i);
            let key = self.compiled.borrow().loops[i].key.clone();
            self.warm.borrow_mut().forget_loop(&key, i);
        }
    }

    fn free_unreachable(&self) {
        // Runs borrow the backend only to set up and read their frames
        // (`Backend::execute_in`), never across a driver call; should one
        // ever do, the next call frees the code instead.
        let Ok(mut backend) = self.backend.try_borrow_mut() else {
            return;
        };
        // A callee that compiled code entered directly may run any code.
        if backend.direct_calls().1 {
            return;
        }
        let mut lifetime = self.lifetime.borrow_mut();
        for tree in lifetime.freeable() {
            backend.free(self.compiled.borrow().loops[tree].code);
            let freed = lifetime.free(tree);
            for m in &freed.members {
                crate::quasi::forget(&m.validity);
                self.compiled.borrow_mut().forget_exits(m.code);
                if let Some(d) = &self.diff {
                    d.borrow_mut().freed(m.code);
                }
            }
            self.count(|s| {
                s.loops_freed += 1;
                s.bridges_freed += freed.members.len().saturating_sub(1) as u64;
                s.code_freed_bytes += freed.bytes as u64;
            });
        }
        let in_use = lifetime.in_use() as u64;
        self.count(|s| s.code_in_use = in_use);
    }

    /// Where loop `li` is in its life: live (entered), retired
    /// (invalidated, its code kept while something can run it) or freed.
    pub fn loop_state(&self, li: usize) -> Option<TreeState> {
        self.lifetime.borrow().trees.get(li).map(|t| t.state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn member(code: u32, bytes: usize) -> Member {
        Member {
            code: CodeId(code),
            bytes,
            validity: Validity::new(Rc::new(Cell::new(0))),
            noticed: false,
        }
    }

    #[test]
    fn a_retired_tree_waits_for_its_executions_and_its_jumpers() {
        let mut l = Lifetime::default();
        l.add_loop(0, member(0, 100));
        l.add_loop(1, member(1, 50));
        l.add_bridge(CodeId(1), member(2, 10));
        l.jump(CodeId(2), 0); // tree 1's bridge jumps into loop 0
        assert_eq!(l.in_use(), 160);
        l.retire(0);
        l.enter(0);
        assert!(l.freeable().is_empty(), "running, and tree 1 jumps to it");
        l.leave(0);
        assert!(l.freeable().is_empty(), "tree 1 still jumps to it");
        l.retire(1);
        l.enter(1);
        assert!(l.freeable().is_empty(), "tree 1 runs: it may jump into 0");
        l.leave(1);
        assert_eq!(l.freeable(), vec![1, 0], "freeing 1 releases 0");
        let f = l.free(1);
        assert_eq!((f.bytes, f.members.len()), (60, 2));
        assert_eq!(l.free(0).bytes, 100);
        assert_eq!(l.in_use(), 0);
        assert!(!l.has_retired());
    }

    #[test]
    fn a_live_tree_is_never_freeable() {
        let mut l = Lifetime::default();
        l.add_loop(0, member(0, 1));
        l.jump(CodeId(0), 0); // its own label: no edge
        assert!(l.trees[0].jumps_to.is_empty());
        assert!(l.freeable().is_empty());
        assert!(l.is_live(0));
    }
}
