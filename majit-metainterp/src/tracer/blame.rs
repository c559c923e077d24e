//! Too-long traces: which inlined function to blame, and how calls of a
//! function marked don't-inline are traced.
//!
//! The tracer counts, per inlined call (`inline_call`), the ops recorded
//! while the callee and its own callees ran ([`CallSizes`]); the calls of
//! one function add up (a recursive call counts once, in its outermost
//! activation). When the trace outgrows `trace_limit`, the function with
//! the most ops that has a residual form (`JitCodeSet::set_residual`) and
//! is not marked yet is blamed (ties: the lower `FuncId`), so blame
//! depends on op counts and ids only and is deterministic. The driver
//! marks it don't-inline and lets the key trace again; each mark takes a
//! function out of the candidates, so this ends. Inlined calls of the
//! interpreted program come first: the outermost one still running, else
//! the one (by entry greens) that recorded the most ops and is not marked
//! yet; the driver marks its greens don't-inline.
//!
//! A call of a marked function is traced as a residual call of its
//! residual form: the function runs natively (while tracing too) and the
//! trace records `call_*` with the form's descr, plus `guard_no_exception`
//! when the descr can raise. The blackhole still runs the jitcode.

use super::{Step, TBox, TraceEnd, Tracer};
use crate::blackhole::bad_return;
use crate::jitcode::eval::ConcreteError;
use crate::jitcode::{FuncId, Insn, JitCode, JitCodeSet};
use crate::stats::AbortReason;
use crate::warmstate::GreenKey;
use majit_ir::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// What a too-long trace can blame and the driver marks don't-inline: an
/// inlined jitcode function (inlined portal calls, keyed by the callee's
/// greens, are to join).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Inlinee {
    /// A jitcode function with a residual form.
    Function(FuncId),
}

/// The blame of a too-long trace.
#[derive(Clone, Debug, PartialEq)]
pub struct Blame {
    pub inlinee: Inlinee,
    /// The function's name.
    pub name: String,
    /// The ops recorded while its calls ran.
    pub ops: usize,
    /// The length of the trace when it was aborted.
    pub trace_ops: usize,
}

/// Ops recorded per inlined function.
#[derive(Clone, Debug, Default)]
pub(super) struct CallSizes {
    /// The open inlined calls, outermost first, one per tracer frame above
    /// the outermost: the callee (`None`: not in the set) and the trace
    /// length when it was entered.
    open: Vec<(Option<FuncId>, usize)>,
    /// The ops of finished calls, per function.
    done: BTreeMap<FuncId, usize>,
    /// The ops of finished inlined calls of the interpreted program, per
    /// callee's entry greens, in the order they first finished.
    callees: Vec<(GreenKey, usize)>,
}

impl CallSizes {
    /// For a bridge starting in the frames `codes` (outermost first): the
    /// inner ones are open calls from trace length `at` on.
    pub(super) fn open_at<'c>(
        set: &JitCodeSet,
        codes: impl Iterator<Item = &'c Arc<JitCode>>,
        at: usize,
    ) -> CallSizes {
        CallSizes {
            open: codes.skip(1).map(|c| (set.id_of(c), at)).collect(),
            ..CallSizes::default()
        }
    }

    /// A call of `f` starts at trace length `at`.
    pub(super) fn enter(&mut self, f: FuncId, at: usize) {
        self.open.push((Some(f), at));
    }

    /// The innermost call returns at trace length `at`.
    pub(super) fn leave(&mut self, at: usize) {
        let Some((Some(f), start)) = self.open.pop() else {
            return;
        };
        if !self.open.iter().any(|&(g, _)| g == Some(f)) {
            *self.done.entry(f).or_default() += at - start;
        }
    }

    /// An inlined call of the interpreted program, entered at `key`,
    /// returned after recording `ops` ops.
    pub(super) fn callee_done(&mut self, key: &GreenKey, ops: usize) {
        match self.callees.iter_mut().find(|(k, _)| k == key) {
            Some((_, n)) => *n += ops,
            None => self.callees.push((key.clone(), ops)),
        }
    }

    /// The finished inlined callee with the most ops that `may_mark`
    /// accepts (ties: the first to finish).
    pub(super) fn biggest_callee(&self, may_mark: impl Fn(&GreenKey) -> bool) -> Option<&GreenKey> {
        let mut best: Option<&(GreenKey, usize)> = None;
        for c in self.callees.iter().filter(|(k, n)| *n > 0 && may_mark(k)) {
            if best.is_none_or(|b| c.1 > b.1) {
                best = Some(c);
            }
        }
        best.map(|(k, _)| k)
    }

    /// The ops per function at trace length `at` (open calls up to `at`).
    fn totals(&self, at: usize) -> BTreeMap<FuncId, usize> {
        let mut totals = self.done.clone();
        for (i, &(f, start)) in self.open.iter().enumerate() {
            let Some(f) = f else { continue };
            if !self.open[..i].iter().any(|&(g, _)| g == Some(f)) {
                *totals.entry(f).or_default() += at - start;
            }
        }
        totals
    }
}

impl Tracer<'_> {
    /// The abort of a trace longer than `trace_limit`, blaming the
    /// biggest inlined function that can be marked.
    pub(super) fn too_long(&self) -> TraceEnd {
        let at = self.trace.ops.len();
        let codes = self.env.codes;
        // An inlined call of the interpreted program is blamed first: the
        // driver stops inlining it (`tracer/portal.rs`).
        let callee = self.inlined_callee().map(Box::new);
        let blamed = callee
            .is_none()
            .then(|| self.sizes.totals(at))
            .into_iter()
            .flatten()
            .filter(|&(f, n)| n > 0 && codes.residual(f).is_some() && !self.marked(f))
            .max_by_key(|&(f, n)| (n, std::cmp::Reverse(f)))
            .map(|(f, ops)| Blame {
                inlinee: Inlinee::Function(f),
                name: codes.get(f).map_or_else(String::new, |c| c.name.clone()),
                ops,
                trace_ops: at,
            });
        match self.abort(AbortReason::TraceTooLong, None) {
            TraceEnd::Aborted {
                reason,
                frames,
                ended,
                ..
            } => TraceEnd::Aborted {
                reason,
                frames,
                ended,
                blamed,
                callee,
            },
            done => done,
        }
    }

    /// Whether function `f` is marked don't-inline.
    pub(super) fn marked(&self, f: FuncId) -> bool {
        self.env.dont_inline.contains(&Inlinee::Function(f))
    }

    /// The inline call `insn` of the marked function `callee`, traced as a
    /// residual call of its residual form.
    pub(super) fn call_residually(
        &mut self,
        insn: &Insn,
        callee: FuncId,
    ) -> Result<Step, ConcreteError> {
        let codes = self.env.codes;
        let (Some(code), Some(form)) = (codes.get(callee), codes.residual(callee)) else {
            return Err(ConcreteError::BadJitCode(format!(
                "function #{} is marked don't-inline without a residual form",
                callee.0
            )));
        };
        let args: Vec<TBox> = insn.list(1).iter().map(|&r| self.get(r)).collect();
        let kinds = args.iter().map(|b| b.v.kind());
        if !kinds.eq(code.params.iter().map(|p| p.kind)) {
            return Err(ConcreteError::BadJitCode(format!(
                "call of {} does not match its parameters",
                code.name
            )));
        }
        let descr = form.descr.clone();
        let result = descr.as_call().and_then(|cd| cd.result.kind());
        if insn.dst.is_some_and(|dst| result != Some(dst.kind)) {
            return Err(bad_return(code));
        }
        let func = self.konst(Value::Int(form.func as i64));
        self.call_with(descr, func, args, insn.dst, insn.next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_of_one_function_add_up_and_nested_calls_count_for_both() {
        let (f, g) = (FuncId(1), FuncId(2));
        let mut s = CallSizes::default();
        s.enter(f, 10);
        s.enter(g, 12);
        s.leave(20); // g: 8
        s.leave(25); // f: 15
        s.enter(g, 30);
        let t = s.totals(33); // g open: 3 more
        assert_eq!(t[&f], 15);
        assert_eq!(t[&g], 11);
    }

    #[test]
    fn a_recursive_call_counts_once() {
        let f = FuncId(3);
        let mut s = CallSizes::default();
        s.enter(f, 0);
        s.enter(f, 5);
        s.leave(9);
        assert_eq!(s.totals(10)[&f], 10);
        s.leave(12);
        assert_eq!(s.totals(50)[&f], 12);
    }
}
