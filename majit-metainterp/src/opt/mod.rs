//! # The optimizer
//!
//! Passes over traces, one file each, run in the order `enable_opts` gives
//! (default [`DEFAULT_OPTS`]: `intbounds:rewrite:virtualize:heap:pure:unroll`),
//! plus the embedder's own passes at named positions ([`UserPasses`],
//! `user.rs`; set through `JitParams::with_passes`).
//!
//! Read first: this file (the contract and the [`Pass`] trait), then
//! [`cx`] (the shared state, value ids and forcing), [`info`] (facts about
//! values), `driver.rs` (how ops flow through the passes) and `encode.rs`
//! (resume data), then the passes: [`intbounds`], [`rewrite`],
//! [`virtualize`], [`heap`], [`pure`], [`unroll`] (with `vstate.rs`, the
//! virtual state of loop-carried virtuals, and `enter.rs`, bridges jumping
//! into a peeled label). [`eval`] evaluates pure ops on
//! constants; [`ledger`] records what could not be done.
//!
//! ## Pipeline
//!
//! Ops are fed one at a time, in trace order. Each pass answers with an
//! [`Outcome`]: hand the op (maybe rewritten) to the next pass, say its
//! result equals an existing value, drop it, or declare the trace invalid
//! (a guard that always fails: abandon the compile). A pass may also emit
//! extra ops through [`Cx::emit`] (a forced allocation, a delayed store);
//! they enter the pipeline right after that pass, before the op it is
//! handling. An op leaving the last pass is committed to the output; then
//! every pass that emitted it gets its `committed` hook, last pass first.
//! Facts a guard establishes are applied in `committed`, after the guard's
//! resume data was built.
//!
//! Hooks besides `feed`: `at_guard` (before a guard: heap emits delayed
//! stores of real values and records pending fields), `flush` (before
//! `label`, `jump`, `finish`: emit everything delayed), `committed`,
//! `export` (facts unroll may carry into the peeled loop) and `finish`
//! (end of trace; ledger entries). Passes add ledger entries through
//! [`Cx::note`] while they run.
//!
//! ## Input contract
//!
//! A trace that verifies, in which every guard carries a [`FailDescr`]
//! (unique `id`), and whose fail args are the interpreter-visible live
//! values at that guard. A loop is `[inputs] label(inputs, descr=L) ...
//! jump(args, descr=L)` (label first, its arguments the inputs in order,
//! no other label); `unroll` peels only that shape and optimizes anything
//! else as straight code.
//!
//! ## Output contract ([`Optimized`])
//!
//! - `trace`: the optimized trace; it verifies. Guards keep their
//!   `FailDescr`; their fail args are the distinct run-time values the
//!   resume data needs (the "boxes").
//! - `resume`: per guard, by `FailDescr::id`, a [`GuardResume`](crate::resume::GuardResume): for each
//!   ORIGINAL fail arg where its value comes from now (`Box(i)` = slot `i`
//!   of the new fail args, `Const`, or `Virtual(i)` into `virtuals`),
//!   `virtuals` (layout plus tagged field values, possibly naming each other)
//!   and `pending` fields (delayed stores of virtual values, applied only on
//!   failure). [`crate::resume::rebuild`] turns a dead frame back into the
//!   original fail-arg values.
//!   `original` names the input guard a guard was copied from (unroll's
//!   copies in the peeled loop get `id + offset` and a `.peeled` name).
//! - `ledger`: what the passes could not do; at least one entry per
//!   allocation left in the trace, with the reason it escaped.
//! - `short_preamble`: set when unroll peeled a loop whose label carries no
//!   unboxed virtual; see below.
//! - `label`: set when unroll peeled a loop (or retraced one): the peeled
//!   label as a bridge may enter it, [`LoopLabel`].
//!
//! With `unroll`, a loop comes out as
//! `[inputs] label(inputs, descr=L) <preamble> label(args', descr=L.peeled)
//! <peeled body> jump(args'', descr=L.peeled)`: the preamble is one
//! optimized iteration that falls into the peeled loop; `L` stays the
//! entry for jumps from elsewhere with the original arguments; `args'` are
//! the loop-carried values (virtuals unboxed into their fields) plus the
//! values of facts the preamble proved (cached loads, pure results), and
//! the short preamble recomputes those from the original arguments for a
//! bridge that wants to enter `L.peeled`.
//!
//! Bridges ending in `jump(args, descr=L)` at such a loop go through
//! [`optimize_bridge`] to end elsewhere ([`BridgeEnd`]): `Enter` jumps into
//! a peeled label whose state the bridge's end fits (`enter.rs`), `Retrace`
//! peels the loop's recorded body once more with the bridge as preamble
//! (`unroll.rs`), giving `<bridge> label(.., descr=L.peeled.k) <body>
//! jump(.., descr=L.peeled.k)`.
//!
//! ```
//! use majit_ir::{Kind, Op, OpCode, Trace, Const};
//! use majit_metainterp::opt::optimize;
//! let mut t = Trace::new(&[Kind::Int]);
//! let zero = t.add_const(Const::Int(0));
//! let x = t.push(Op::new(OpCode::IntAdd, &[t.input(0), zero]));
//! t.push(Op::new(OpCode::Finish, &[x]));
//! let out = optimize(&t, "rewrite").unwrap();
//! assert_eq!(out.trace.ops.len(), 1); // finish(i0)
//! ```
//!
//! [`FailDescr`]: majit_ir::FailDescr

pub mod cx;
mod driver;
mod encode;
mod enter;
pub mod eval;
pub mod heap;
pub mod info;
pub mod intbounds;
pub mod ledger;
pub mod pure;
pub mod rewrite;
pub mod unroll;
mod user;
pub mod virtualize;
mod vstate;

pub use cx::{Cx, OptOp, PendingStore};
pub use driver::{optimize, optimize_bridge, optimize_with, BridgeEnd};
pub use ledger::{Ledger, LedgerEntry, LedgerKind};
pub use unroll::LoopLabel;
pub use user::{PassFactory, Position, UserPasses};

use crate::resume::ResumeMap;
use majit_ir::Trace;
use std::fmt;

/// What a pass does with one op.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Hand this op (maybe rewritten; its result id unchanged) to the next
    /// pass.
    Emit(OptOp),
    /// The op's result equals this existing value; the op disappears.
    Same(majit_ir::OpRef),
    /// The op disappears (a proven guard, a delayed store, a virtual).
    Drop,
    /// The trace cannot run past this op (a guard that always fails).
    Invalid(String),
}

/// One optimization pass. See the module docs for the protocol.
pub trait Pass {
    /// The pass's `enable_opts` word.
    fn name(&self) -> &'static str;

    /// Handles one op.
    fn feed(&mut self, cx: &mut Cx, op: OptOp) -> Outcome;

    /// Called after `op`, which this pass emitted, reached the output.
    /// Guards apply the facts they prove here.
    fn committed(&mut self, _cx: &mut Cx, _op: &OptOp) {}

    /// Called at a guard, before `feed`, so the pass can emit what must
    /// precede the guard (delayed stores) and record pending fields.
    fn at_guard(&mut self, _cx: &mut Cx, _guard: &OptOp) {}

    /// Called at a `label`, `jump` or `finish`, before `feed`, so the pass
    /// can emit everything it delays.
    fn flush(&mut self, _cx: &mut Cx) {}

    /// The facts this pass holds that unroll may carry into the peeled
    /// loop: ops whose result is known to be `res` (a cached load, a pure
    /// op already computed), over values available at this point.
    fn export(&self, _cx: &Cx) -> Vec<OptOp> {
        Vec::new()
    }

    /// Called once after the last op; a pass may add ledger entries about
    /// what it left undone ([`Cx::note`]).
    fn finish(&mut self, _cx: &mut Cx) {}
}

/// A pass constructor.
pub type PassCtor = fn() -> Box<dyn Pass>;

/// Every pass, in pipeline order, by `enable_opts` word.
pub const ALL_PASSES: &[(&str, PassCtor)] = &[
    ("intbounds", || Box::new(intbounds::IntBounds::default())),
    ("rewrite", || Box::new(rewrite::Rewrite::default())),
    ("virtualize", || Box::new(virtualize::Virtualize)),
    ("heap", || Box::new(heap::Heap::default())),
    ("pure", || Box::new(pure::Pure::default())),
    ("unroll", || Box::new(unroll::Unroll)),
];

/// The default `enable_opts`.
pub const DEFAULT_OPTS: &str = "intbounds:rewrite:virtualize:heap:pure:unroll";

/// The result of [`optimize`].
#[derive(Clone, Debug)]
pub struct Optimized {
    pub trace: Trace,
    pub resume: ResumeMap,
    pub ledger: Ledger,
    /// When unroll peeled the loop: the short preamble, a trace from the
    /// loop label's original arguments to a jump into the peeled loop,
    /// which a bridge entering the peeled loop replays; its guards check
    /// what the peeled loop assumes about its label arguments.
    pub short_preamble: Option<Trace>,
    /// When unroll peeled the loop (or retraced it behind a bridge): the
    /// peeled label as a bridge may enter it ([`optimize_bridge`]).
    pub label: Option<unroll::LoopLabel>,
}

/// Why optimization failed. The caller keeps interpreting the loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptError {
    /// An `enable_opts` word names no pass (the user or embedder acts).
    UnknownPass {
        word: String,
        valid: Vec<&'static str>,
    },
    /// The trace can never run to its end: a guard always fails (nobody
    /// acts; the loop stays interpreted).
    Invalid {
        pass: &'static str,
        op_index: usize,
        reason: String,
    },
    /// The input breaks the contract, e.g. a guard without a unique
    /// `FailDescr` (a bug in whoever built the trace).
    BadInput(String),
    /// The optimizer broke an invariant, e.g. its output does not verify
    /// (checked in debug builds; majit's developers act).
    Internal(String),
    /// A user pass produced a trace that does not verify, or panicked
    /// (its author acts; see [`UserPasses`]).
    UserPass { pass: String, reason: String },
}

impl fmt::Display for OptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptError::UnknownPass { word, valid } => write!(
                f,
                "unknown optimization `{word}` in enable_opts; valid: {}",
                valid.join(", ")
            ),
            OptError::Invalid {
                pass,
                op_index,
                reason,
            } => write!(f, "trace invalid at op {op_index} ({pass}): {reason}"),
            OptError::BadInput(m) => write!(f, "bad optimizer input: {m}"),
            OptError::Internal(m) => write!(f, "optimizer bug: {m}"),
            OptError::UserPass { pass, reason } => write!(f, "user pass `{pass}`: {reason}"),
        }
    }
}

impl std::error::Error for OptError {}

/// Parses `enable_opts` (`:`-separated words, in any order; an empty string
/// enables nothing) into pass constructors in pipeline order.
pub fn parse_opts(enable_opts: &str) -> Result<Vec<&'static str>, OptError> {
    let mut wanted = Vec::new();
    for word in enable_opts.split(':').filter(|w| !w.is_empty()) {
        if !ALL_PASSES.iter().any(|(n, _)| *n == word) {
            return Err(OptError::UnknownPass {
                word: word.to_string(),
                valid: ALL_PASSES.iter().map(|(n, _)| *n).collect(),
            });
        }
        wanted.push(word);
    }
    Ok(ALL_PASSES
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| wanted.contains(n))
        .collect())
}
