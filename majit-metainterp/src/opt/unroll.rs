//! unroll: loop peeling (placeholder being built).

use super::cx::{Cx, OptOp};
use super::{OptError, Optimized, Outcome, Pass};
use majit_ir::Trace;

/// The unroll pass's place in the pipeline: it passes ops through; the
/// peeling itself is done by [`optimize_loop`], which runs the other passes
/// twice.
pub struct Unroll;

impl Pass for Unroll {
    fn name(&self) -> &'static str {
        "unroll"
    }
    fn feed(&mut self, _cx: &mut Cx, op: OptOp) -> Outcome {
        Outcome::Emit(op)
    }
}

/// Optimizes a loop with peeling; `None` when the trace is not a loop.
pub(super) fn optimize_loop(
    _trace: &Trace,
    _names: &[&'static str],
) -> Result<Option<Optimized>, OptError> {
    Ok(None)
}
