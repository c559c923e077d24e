//! Bridges: attaching compiled code to a guard, and freeing trees of
//! loops and bridges.
//!
//! A bridge's inputs start exactly where the guard's fail args are (the
//! guard's exit record), so entering it needs no moves: the guard's stub
//! jumps through its patch word, and attaching rewrites that word (one
//! W^X-flipped 8-byte write) from the stub's exit half to the bridge's
//! first instruction. A bridge ends in a `finish` or a `jump` to any known
//! label, by `TargetDescr` name. Frames are sized at entry for the deepest
//! trace compiled so far, so a bridge may use more spill slots than its
//! loop. Freeing a loop frees every bridge attached to it, transitively;
//! freeing a bridge restores its guard's patch word.

use crate::arch::Arch;
use crate::native::NativeBackend;
use majit_ir::Trace;
use majit_metainterp::{CodeId, CompileError, ExitId};

impl<A: Arch> NativeBackend<A> {
    /// Compiles `bridge` and makes guard `guard` jump to it.
    pub(crate) fn attach_bridge(
        &mut self,
        guard: ExitId,
        bridge: &Trace,
    ) -> Result<CodeId, CompileError> {
        let parent = self
            .traces
            .get(&guard.code)
            .ok_or_else(|| CompileError::UnknownTarget(format!("code {}", guard.code.0)))?;
        let exit = parent
            .exits
            .iter()
            .find(|e| e.op_index == guard.op_index as usize)
            .ok_or_else(|| {
                CompileError::UnknownTarget(format!(
                    "no exit at op {} of code {}",
                    guard.op_index, guard.code.0
                ))
            })?;
        let word = exit.patch_word.ok_or_else(|| {
            CompileError::UnknownTarget(format!(
                "op {} of code {} is a finish, not a guard",
                guard.op_index, guard.code.0
            ))
        })?;
        let kinds: Vec<_> = exit.values().map(|v| v.1).collect();
        if kinds != bridge.inputs {
            return Err(CompileError::Invalid(format!(
                "bridge inputs {:?} do not match the guard's fail args {kinds:?}",
                bridge.inputs
            )));
        }
        let entry = exit.values().map(|v| v.0).collect();
        let old = parent.block.pool_word(word);
        let id = self.install(bridge, entry, Some((guard.code, word, old)))?;
        let addr = self.traces[&id].block.addr();
        if let Err(e) = self.traces[&guard.code].block.patch_pool_word(word, addr) {
            self.remove(id);
            return Err(e);
        }
        Ok(id)
    }

    /// Frees `code` and every bridge attached to it, transitively. A
    /// bridge whose guard word in a surviving parent cannot be restored
    /// (`mprotect` failed) stays mapped with its own bridges, so the parent
    /// never jumps to freed memory; that is the error.
    pub fn free_tree(&mut self, code: CodeId) -> Result<(), CompileError> {
        let mut doomed = vec![code];
        loop {
            let more: Vec<CodeId> = self
                .traces
                .iter()
                .filter(|(id, t)| {
                    !doomed.contains(id) && t.attached_to.is_some_and(|a| doomed.contains(&a.0))
                })
                .map(|(&id, _)| id)
                .collect();
            if more.is_empty() {
                break;
            }
            doomed.extend(more);
        }
        // Detach the subtree from a surviving parent first: nothing is
        // unmapped unless its guard word no longer points into it.
        let root = self.traces.get(&code).and_then(|t| t.attached_to);
        if let Some((parent, word, old)) = root {
            if let Some(p) = self.traces.get(&parent) {
                p.block.patch_pool_word(word, old)?;
            }
        }
        for &id in &doomed {
            self.remove(id);
        }
        Ok(())
    }
}
