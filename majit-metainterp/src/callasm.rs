//! `call_assembler`: a call of the interpreted program made by compiled
//! code enters the callee's compiled entry trace directly (RPython's
//! `call_assembler`), without re-entering the interpreter and the driver's
//! `enter_portal`.
//!
//! The tracer records a residual call of the interpreted program as
//! `call_assembler_*(trampoline, token, greens.., reds..)`: the portal
//! runner trampoline with a *token* naming the callee's entry greens
//! (`JitDriver::call_target`). The backends lower it as a call of the
//! trampoline (a runtime helper), whose body ([`crate::portal::call`])
//! comes here with the token:
//!
//! - fast path: the token's loop (the one compiled at the callee's entry
//!   greens, filled in when it is compiled, so a recursive call of the
//!   function being traced names the trace being compiled) is live and
//!   fits the callee's frame (its array length): it runs on a pooled
//!   jitframe (`Backend::call_in`) with the reds as inputs (an entry trace
//!   reads the frame itself); when it leaves through its return `finish`
//!   (the trace wrote the frame back before it) the result is returned
//!   without building a dead frame;
//! - slow path: it left through a guard or at a merge point; the driver
//!   finishes the callee as after any exit (blackhole, bridges, other
//!   loops) and, when that ends at a merge point without code, runs the
//!   interpreter from there through the portal runner;
//! - no token (the tracer's and the blackhole's calls pass 0), no loop, a
//!   retired or freed one (invalidated code), or a frame of another shape:
//!   the runner runs the interpreter as before (`JitDriver::run_portal`).
//!
//! The callee's uncaught exception is raised in the caller (its
//! `guard_no_exception` fails), a failure of the nested run ends the outer
//! run with the same error, as with the runner.
//!
//! *Direct calls*: a backend that can enter code itself is told each
//! token's [`CallCell`] (`Backend::call_target`), which names the entry
//! address of the token's live entry trace and the frame array length it
//! needs. Its `call_assembler_*` then enters the callee from machine code
//! when the cell names code and the frame fits, and comes back to the
//! driver only when the callee leaves other than by a return
//! ([`crate::portal::leave_direct`], then the slow path above); otherwise
//! it calls the trampoline as above.

use crate::backend::{Backend, Exited};
use crate::driver::{JitDriver, JitError, Next};
use crate::runtime::signal;
use crate::warmstate::GreenKey;
use majit_ir::Value;
use std::collections::HashMap;

/// What compiled code reads to enter a call target directly: a backend
/// told the cell of a token ([`Backend::call_target`]) may branch on it.
#[repr(C)]
#[derive(Debug, Default)]
pub struct CallCell {
    /// Where the target's entry trace is entered
    /// ([`Backend::entry_address`]); 0 while there is none (not compiled,
    /// not an entry trace, retired): the call goes through the runner.
    pub code: usize,
    /// The length the callee frame's array must have (the entry trace
    /// loads that many items, unchecked); unused without an array.
    pub items: i64,
}

/// How a `call_assembler_*`'s arguments look, for a backend that enters
/// call targets directly: the last `reds` arguments are the entry trace's
/// inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallShape {
    pub reds: usize,
    /// With a virtualizable frame that has an array: which red is the
    /// frame, the byte offset of its array field, and the byte offset of
    /// the array's length, to check the length against [`CallCell::items`].
    pub array: Option<(usize, i64, i64)>,
}

/// One call target: the loop compiled at its entry greens, its cell.
struct Target {
    compiled: Option<usize>,
    cell: Box<CallCell>,
}

/// The call targets met by the tracer: token `t` (from 1) names
/// `targets[t - 1]`.
#[derive(Default)]
pub(crate) struct Targets {
    tokens: HashMap<GreenKey, i64>,
    targets: Vec<Target>,
}

impl Targets {
    /// The token of `key` and, if it is new, its cell's address; made on
    /// first use with the loop compiled there so far, if any.
    fn token(&mut self, key: &GreenKey, compiled: Option<usize>) -> (i64, Option<usize>) {
        if let Some(&t) = self.tokens.get(key) {
            return (t, None);
        }
        let cell = Box::<CallCell>::default();
        let at = &*cell as *const CallCell as usize;
        self.targets.push(Target { compiled, cell });
        let t = self.targets.len() as i64;
        self.tokens.insert(key.clone(), t);
        (t, Some(at))
    }

    /// The target `token` names.
    fn target(&self, token: i64) -> Option<&Target> {
        let i = usize::try_from(token).ok()?.checked_sub(1)?;
        self.targets.get(i)
    }

    /// Loop `li` was compiled at `key`: calls of that target enter it,
    /// compiled code at `entry` when it has an address there (an entry
    /// trace for a frame array of `items`).
    pub(crate) fn set_loop(&mut self, key: &GreenKey, li: usize, entry: Option<(usize, i64)>) {
        if let Some(&t) = self.tokens.get(key) {
            let t = &mut self.targets[t as usize - 1];
            t.compiled = Some(li);
            let (code, items) = entry.unwrap_or((0, 0));
            t.cell.code = code;
            t.cell.items = items;
        }
    }

    /// Loop `li` is never entered again: compiled code stops entering it.
    pub(crate) fn retire(&mut self, li: usize) {
        for t in self.targets.iter_mut().filter(|t| t.compiled == Some(li)) {
            t.cell.code = 0;
        }
    }

    /// The loop `token` names, if it has one.
    fn loop_of(&self, token: i64) -> Option<usize> {
        self.target(token)?.compiled
    }
}

impl<B: Backend> JitDriver<B> {
    /// The token of the call target at `key` (for the tracer's
    /// `call_assembler_*`).
    pub(crate) fn call_target(&self, key: &GreenKey) -> i64 {
        let compiled = self.warm.borrow().loop_at(key);
        let (token, new) = self.targets.borrow_mut().token(key, compiled);
        if let Some(cell) = new {
            let shape = self.call_shape();
            self.backend.borrow_mut().call_target(token, cell, &shape);
            if let Some(li) = compiled {
                let entry = self.direct_entry(li);
                self.targets.borrow_mut().set_loop(key, li, entry);
            }
        }
        token
    }

    /// What a `call_assembler_*` of this driver passes (see [`CallShape`]).
    fn call_shape(&self) -> CallShape {
        let array = self.vable.as_ref().and_then(|info| {
            let (f, a) = info.array()?;
            Some((info.red(), f.offset as i64, a.len_offset as i64))
        });
        CallShape {
            reds: self.red_kinds.len(),
            array,
        }
    }

    /// Where compiled code enters loop `li` directly, with the frame array
    /// length it needs: entry traces only (they take the reds alone).
    pub(crate) fn direct_entry(&self, li: usize) -> Option<(usize, i64)> {
        let (code, entry) = {
            let l = &self.compiled.borrow().loops[li];
            (l.code, l.entry)
        };
        if !entry || !self.lifetime.borrow().is_live(li) {
            return None;
        }
        let address = self.backend.borrow().entry_address(code)?;
        Some((address, self.entry_items(li)))
    }

    /// A call of the interpreted program through the runner with the
    /// callee's `token` (0: none): see the module docs.
    pub(crate) fn call_assembler(
        &self,
        token: i64,
        greens: &[Value],
        reds: &[Value],
    ) -> Result<Option<Value>, JitError> {
        let Some(li) = self.live_target(token) else {
            return self.run_portal(greens, reds);
        };
        // An entry trace (the usual target) takes the reds alone.
        if self.compiled.borrow().loops[li].entry {
            return match self.entry_fits(li, reds)? {
                true => self.run_target(li, reds),
                false => self.run_portal(greens, reds),
            };
        }
        match self.loop_inputs(li, reds)? {
            Some(inputs) => self.run_target(li, &inputs),
            None => self.run_portal(greens, reds),
        }
    }

    /// The live loop `token` names, if any.
    fn live_target(&self, token: i64) -> Option<usize> {
        if token == 0 {
            return None;
        }
        self.sync_code();
        let li = self.targets.borrow().loop_of(token)?;
        self.lifetime.borrow().is_live(li).then_some(li)
    }

    /// Runs loop `li` from `inputs` to the callee's return (the fast path)
    /// or finishes the callee after another exit (the slow path).
    fn run_target(&self, li: usize, inputs: &[Value]) -> Result<Option<Value>, JitError> {
        self.count(|s| {
            s.portal_runs += 1;
            s.call_assembler += 1;
            s.loop_entries += 1;
            s.portal_entries += 1;
        });
        let df = match self.execute_call(li, inputs, true)? {
            Exited::Returned(value) => {
                self.count(|s| s.portal_returns += 1);
                return Ok(value);
            }
            Exited::Left(df) => df,
        };
        self.finish_left(df)
    }

    /// A direct call left its callee's code at `frame` other than by a
    /// portal return (see [`crate::portal::leave_direct`]).
    pub(crate) fn leave_direct(&self, frame: usize) -> Result<Option<Value>, JitError> {
        self.direct_left.set(self.direct_left.get() + 1);
        let df = B::leave_call(&self.backend, frame);
        if let Some(p) = crate::runtime::signal::take_panic() {
            return Err(p.into());
        }
        if let Some(e) = crate::portal::take_nested() {
            return Err(e);
        }
        self.finish_left(df?)
    }

    /// The slow path: the callee left its code through `df`; the driver
    /// finishes it as after any exit.
    fn finish_left(&self, df: crate::backend::DeadFrame) -> Result<Option<Value>, JitError> {
        self.count(|s| s.call_assembler_slow += 1);
        let next = match self.handle_exit(df)? {
            Next::MergePoint(g, r) => self.continue_at(g, r)?,
            done => done,
        };
        match next {
            Next::Finished(v) => Ok(v),
            Next::Raised(e) => {
                signal::raise_value(e);
                Ok(None)
            }
            Next::MergePoint(g, r) => self.run_from(&g, &r),
        }
    }

    /// Runs the interpreter from a merge point to the callee's return
    /// (the runner's `run`, not counted as another nested run).
    fn run_from(&self, greens: &[Value], reds: &[Value]) -> Result<Option<Value>, JitError> {
        let runner = self.runner.get().ok_or_else(|| {
            JitError::BadState("a call of the interpreted program without a portal runner".into())
        })?;
        (runner.run)(self, greens, reds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_names_its_cell_and_learns_the_loop_compiled_there() {
        let mut t = Targets::default();
        let (fib, ack) = (
            GreenKey::new(&[Value::Int(1)]),
            GreenKey::new(&[Value::Int(9)]),
        );
        // Made while tracing fib, before fib's entry trace is compiled.
        let (f, cell_f) = t.token(&fib, None);
        let cell_f = cell_f.expect("a new target has a cell");
        assert_eq!(t.token(&fib, None), (f, None), "one token per key");
        assert_eq!(t.loop_of(f), None);
        // SAFETY: the cells live as long as `t`.
        let cell = |at: usize| unsafe { &*(at as *const CallCell) };
        assert_eq!(cell(cell_f).code, 0);
        t.set_loop(&fib, 4, Some((0x1000, 3)));
        assert_eq!(t.loop_of(f), Some(4));
        assert_eq!((cell(cell_f).code, cell(cell_f).items), (0x1000, 3));
        // A key with a loop already compiled; a recompiled loop replaces it.
        let (a, cell_a) = t.token(&ack, Some(2));
        let cell_a = cell_a.expect("a new target has a cell");
        assert_ne!(a, f);
        assert_eq!(t.loop_of(a), Some(2));
        t.set_loop(&ack, 7, None);
        assert_eq!((t.loop_of(a), cell(cell_a).code), (Some(7), 0));
        // Retiring a loop stops direct entries of the targets naming it.
        t.retire(4);
        assert_eq!(cell(cell_f).code, 0);
        // No token (the tracer's and the blackhole's calls) or a foreign one.
        for bad in [0, -1, 3, i64::MAX] {
            assert_eq!(t.loop_of(bad), None, "{bad}");
        }
    }
}
