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

use crate::backend::{Backend, Exited};
use crate::driver::{JitDriver, JitError, Next};
use crate::runtime::signal;
use crate::warmstate::GreenKey;
use majit_ir::Value;
use std::collections::HashMap;

/// The call targets met by the tracer: token `t` (from 1) names the
/// entry greens `targets[t - 1]` and caches the loop compiled there.
#[derive(Default)]
pub(crate) struct Targets {
    tokens: HashMap<GreenKey, i64>,
    targets: Vec<(GreenKey, Option<usize>)>,
}

impl Targets {
    /// The token of `key`, made on first use with the loop compiled there
    /// so far, if any.
    fn token(&mut self, key: &GreenKey, compiled: Option<usize>) -> i64 {
        if let Some(&t) = self.tokens.get(key) {
            return t;
        }
        self.targets.push((key.clone(), compiled));
        let t = self.targets.len() as i64;
        self.tokens.insert(key.clone(), t);
        t
    }

    /// Loop `li` was compiled at `key`: calls of that target enter it.
    pub(crate) fn set_loop(&mut self, key: &GreenKey, li: usize) {
        if let Some(&t) = self.tokens.get(key) {
            self.targets[t as usize - 1].1 = Some(li);
        }
    }

    /// The loop token `token` names, if it has one.
    fn loop_of(&self, token: i64) -> Option<usize> {
        let i = usize::try_from(token).ok()?.checked_sub(1)?;
        self.targets.get(i).and_then(|t| t.1)
    }
}

impl<B: Backend> JitDriver<B> {
    /// The token of the call target at `key` (for the tracer's
    /// `call_assembler_*`).
    pub(crate) fn call_target(&self, key: &GreenKey) -> i64 {
        let compiled = self.warm.borrow().loop_at(key);
        self.targets.borrow_mut().token(key, compiled)
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
    fn a_token_names_its_key_and_learns_the_loop_compiled_there() {
        let mut t = Targets::default();
        let (fib, ack) = (
            GreenKey::new(&[Value::Int(1)]),
            GreenKey::new(&[Value::Int(9)]),
        );
        // Made while tracing fib, before fib's entry trace is compiled.
        let f = t.token(&fib, None);
        assert_eq!(t.token(&fib, None), f, "one token per key");
        assert_eq!(t.loop_of(f), None);
        t.set_loop(&fib, 4);
        assert_eq!(t.loop_of(f), Some(4));
        // A key with a loop already compiled; a recompiled loop replaces it.
        let a = t.token(&ack, Some(2));
        assert_ne!(a, f);
        assert_eq!(t.loop_of(a), Some(2));
        t.set_loop(&ack, 7);
        assert_eq!(t.loop_of(a), Some(7));
        // No token (the tracer's and the blackhole's calls) or a foreign one.
        for bad in [0, -1, 3, i64::MAX] {
            assert_eq!(t.loop_of(bad), None, "{bad}");
        }
    }
}
