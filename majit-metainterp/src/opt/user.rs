//! User passes: a [`Pass`] of the embedder's (a language-specific fold, a
//! custom check) inserted at a named position of the pipeline through
//! [`crate::params::JitParams::with_passes`], as the backend's decision
//! points take user strategies.
//!
//! A user pass speaks the built-in passes' protocol (see the [module
//! docs](super)) and may be wrong, so the optimizer never trusts it:
//! - after every user pass the verifier runs on what the pipeline up to
//!   and including it produces (a separate run of that prefix, before the
//!   full pipeline runs), and the full output is verified too;
//! - a panic inside any of its hooks is caught.
//!
//! Either becomes [`OptError::UserPass`] naming the pass; the driver
//! counts it as a `CompileFailed` abort with that message and keeps
//! interpreting the loop (it is traced once), so a user pass can make a
//! loop slow but never wrong. Each pipeline (a trace, and unroll's preamble
//! and peeled loop) gets fresh passes from the factories.
//!
//! ```
//! use majit_metainterp::opt::{Cx, OptOp, Outcome, Pass, Position, UserPasses};
//! use majit_metainterp::params::JitParams;
//!
//! /// Passes every op on unchanged.
//! struct Nop;
//! impl Pass for Nop {
//!     fn name(&self) -> &'static str {
//!         "nop"
//!     }
//!     fn feed(&mut self, _cx: &mut Cx, op: OptOp) -> Outcome {
//!         Outcome::Emit(op)
//!     }
//! }
//!
//! let passes = UserPasses::none().with(Position::After("rewrite"), || Box::new(Nop));
//! let params = JitParams::default().with_passes(passes);
//! assert!(!params.passes.is_empty());
//! ```

use super::{Cx, OptError, OptOp, Outcome, Pass, ALL_PASSES};
use crate::strategy::panic_text;
use std::cell::RefCell;
use std::fmt;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// Builds a fresh user pass.
pub type PassFactory = Arc<dyn Fn() -> Box<dyn Pass> + Send + Sync>;

/// Where a user pass runs: next to a built-in pass, named by its
/// `enable_opts` word. The place holds whether or not that pass is
/// enabled (`unroll` wraps the whole pipeline, so both of its positions
/// are the end).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Position {
    Before(&'static str),
    After(&'static str),
}

impl Position {
    fn word(self) -> &'static str {
        match self {
            Position::Before(w) | Position::After(w) => w,
        }
    }
}

/// The user passes a driver runs, each with its position; several at one
/// position run in the order they were added. Two values are equal when
/// they hold the same factories (the same `Arc`s) at the same positions.
#[derive(Clone, Default)]
pub struct UserPasses {
    entries: Vec<(Position, PassFactory)>,
}

impl UserPasses {
    /// No user passes.
    pub fn none() -> UserPasses {
        UserPasses::default()
    }

    /// Builder-style: run the passes `make` builds at `at`.
    pub fn with(
        mut self,
        at: Position,
        make: impl Fn() -> Box<dyn Pass> + Send + Sync + 'static,
    ) -> UserPasses {
        self.entries.push((at, Arc::new(make)));
        self
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every position names a built-in pass.
    pub fn check(&self) -> Result<(), OptError> {
        for (at, _) in &self.entries {
            if !ALL_PASSES.iter().any(|(n, _)| *n == at.word()) {
                return Err(OptError::UnknownPass {
                    word: at.word().to_string(),
                    valid: ALL_PASSES.iter().map(|(n, _)| *n).collect(),
                });
            }
        }
        Ok(())
    }

    /// The factories at `at`, in the order added.
    pub(super) fn at(&self, at: Position) -> impl Iterator<Item = &PassFactory> {
        self.entries
            .iter()
            .filter(move |(p, _)| *p == at)
            .map(|(_, f)| f)
    }
}

impl PartialEq for UserPasses {
    fn eq(&self, other: &UserPasses) -> bool {
        let same = |(a, f): &(Position, PassFactory), (b, g): &(Position, PassFactory)| {
            a == b && Arc::ptr_eq(f, g)
        };
        self.entries.len() == other.entries.len()
            && self
                .entries
                .iter()
                .zip(&other.entries)
                .all(|(x, y)| same(x, y))
    }
}

impl Eq for UserPasses {}

impl fmt::Debug for UserPasses {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.entries.iter().map(|(at, _)| at))
            .finish()
    }
}

thread_local! {
    /// The user pass that panicked and its message, set by [`Guarded`]
    /// while the panic unwinds to [`catch_user_panic`].
    static PANICKED: RefCell<Option<(&'static str, String)>> = const { RefCell::new(None) };
}

/// Runs `f`; a panic inside a user pass becomes [`OptError::UserPass`],
/// any other panic goes on.
pub(super) fn catch_user_panic<T>(f: impl FnOnce() -> Result<T, OptError>) -> Result<T, OptError> {
    PANICKED.with(|p| p.borrow_mut().take());
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => match PANICKED.with(|p| p.borrow_mut().take()) {
            Some((pass, message)) => Err(OptError::UserPass {
                pass: pass.to_string(),
                reason: format!("panicked: {message}"),
            }),
            None => resume_unwind(payload),
        },
    }
}

/// A user pass whose panics are recorded (then unwound further) so that
/// [`catch_user_panic`] can name it.
pub(super) struct Guarded(pub Box<dyn Pass>);

/// Runs `f`, a hook of user pass `name`; records a panic before letting
/// it unwind.
fn guarded<T>(name: &'static str, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let message = panic_text(&*payload).to_string();
        PANICKED.with(|p| *p.borrow_mut() = Some((name, message)));
        resume_unwind(payload)
    })
}

impl Pass for Guarded {
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn feed(&mut self, cx: &mut Cx, op: OptOp) -> Outcome {
        guarded(self.0.name(), || self.0.feed(cx, op))
    }
    fn committed(&mut self, cx: &mut Cx, op: &OptOp) {
        guarded(self.0.name(), || self.0.committed(cx, op))
    }
    fn at_guard(&mut self, cx: &mut Cx, guard: &OptOp) {
        guarded(self.0.name(), || self.0.at_guard(cx, guard))
    }
    fn flush(&mut self, cx: &mut Cx) {
        guarded(self.0.name(), || self.0.flush(cx))
    }
    fn export(&self, cx: &Cx) -> Vec<OptOp> {
        guarded(self.0.name(), || self.0.export(cx))
    }
    fn finish(&mut self, cx: &mut Cx) {
        guarded(self.0.name(), || self.0.finish(cx))
    }
}
