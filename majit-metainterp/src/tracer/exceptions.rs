//! Exceptions in traces: the guard after a call that can raise, and
//! unwinding.
//!
//! The tracer runs every call for real, so it knows whether this call
//! raised. One that did not records `guard_no_exception`; one that did
//! records `guard_exception` then `save_exception_i`/`_r`, whose result is
//! the exception's box, and the exception unwinds: to the
//! `catch_exception` after the call (its destination gets the box, control
//! its label), else out of the frame to the catch after the caller's
//! `inline_call`, and so on. Unwinding records nothing: like a return, it
//! is control flow the trace follows. An exception that leaves the portal
//! ends the program: tracing aborts with [`Outcome::Raised`].
//!
//! Both guards resume at the `-live-` marker after the call
//! ([`ResumeAt::AfterCall`]) with the call's result in its destination; a
//! failed `guard_no_exception` hands the exception to the blackhole (or a
//! bridge), which delivers it as the tracer would have. A bridge from it
//! starts with `guard_exception` and `save_exception_*` (recorded by
//! `bridge::bridge_start`, before anything that can allocate) and then
//! unwinds that box here ([`Tracer::raise_pending`]).

use super::{ResumeAt, Snapshot, Step, TBox, Tracer};
use crate::blackhole::Outcome;
use crate::jitcode::eval::{self, ConcreteError};
use crate::jitcode::Insn;
use crate::stats::AbortReason;
use majit_ir::{Kind, Op, OpCode, Value};

impl Tracer<'_> {
    /// After a call that can raise, whose destination and frame position
    /// (the `-live-` marker after it) are already set: the guard on
    /// whether it raised, then the exception's way if it did.
    pub(super) fn after_call(&mut self, raised: Option<Value>) -> Result<Step, ConcreteError> {
        let pc = self.top().pc;
        self.top().live_pc = pc;
        let Some(e) = raised else {
            self.guard(OpCode::GuardNoException, &[]);
            self.mark_after_call();
            return Ok(Step::Next);
        };
        self.guard(OpCode::GuardException, &[]);
        self.mark_after_call();
        let save = match e.kind() {
            Kind::Ref => OpCode::SaveExceptionR,
            _ => OpCode::SaveExceptionI,
        };
        let b = self.record(Op::new(save, &[]), e);
        self.unwind(b)
    }

    /// The guard just recorded resumes after its call.
    fn mark_after_call(&mut self) {
        if let Some((_, snap)) = self.guards.last_mut() {
            snap.resume_at = ResumeAt::AfterCall;
        }
    }

    /// `int_raise` / `ref_raise`: the frame ends with the exception.
    pub(super) fn raise(&mut self, insn: &Insn) -> Result<Step, ConcreteError> {
        let e = self.get(insn.reg(0));
        self.frames.pop();
        self.unwind(e)
    }

    /// A bridge from a failed `guard_no_exception`: delivers its exception
    /// (the box of the `save_exception_*` the bridge starts with).
    pub(super) fn raise_pending(&mut self) -> Result<Option<Step>, ConcreteError> {
        match self.pending.take() {
            Some(e) => self.unwind(e).map(Some),
            None => Ok(None),
        }
    }

    /// Delivers exception `e` to the top frame, which stands right after
    /// the call that raised: to the catch there, else frame by frame to
    /// the callers'. Out of the portal, tracing aborts: the program ended.
    fn unwind(&mut self, e: TBox) -> Result<Step, ConcreteError> {
        while let Some(f) = self.frames.last() {
            let (code, pc) = (f.code.clone(), f.pc);
            if let Some(catch) = code.catch_after(pc) {
                eval::check_exception_kind(catch.dst.map(|d| d.kind), e.v)?;
                if let Some(d) = catch.dst {
                    self.set(d, e);
                }
                self.top().pc = catch.label(0);
                return Ok(Step::Next);
            }
            self.frames.pop();
        }
        let ended = Some(Outcome::Raised(e.v));
        Ok(Step::End(self.abort(AbortReason::PortalReturned, ended)))
    }
}

/// The snapshot of the `guard_exception` a bridge from a
/// `guard_no_exception` starts with: it fails only on a helper's panic,
/// which ends the run, so it resumes nowhere.
pub(crate) fn panic_only_snapshot() -> Snapshot {
    Snapshot {
        frames: Vec::new(),
        tested: None,
        vable: std::sync::Arc::from([]),
        resume_at: ResumeAt::Never,
    }
}
