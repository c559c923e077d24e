//! Bounded checked entries: in differential mode every loop trace starts,
//! right after its `label`, with a countdown of an iteration budget kept in
//! one memory word, and a `guard_true` that leaves when it runs out. The
//! guard's fail args are the label's inputs, i.e. the reds at the merge
//! point, so leaving there resumes the interpreter at the loop's own merge
//! point (an `Exit::MergePoint` of the driver, which re-enters the loop): no
//! snapshot, no blackhole, no bridge. The unroll pass peels it like any
//! guard; the peeled loop's copy carries resume data that rebuilds the reds
//! (virtuals included) at the top of an iteration.
//!
//! Before each entry the driver sets the word: [`ENTRY_BUDGET`] for a
//! checked entry, `i64::MAX` otherwise. The forked reference execution
//! starts from the same word, so both sides leave through the same guard
//! after the same number of iterations and an entry of a loop that runs
//! for 10^7 iterations is checked in slices instead of exceeding the
//! reference executor's step limit. The word is addressed as an int field
//! of a constant object (`DiffBudget.left`): the heap pass keeps it in a
//! register across iterations and does not forget its other caches at the
//! store, as it would at a raw store. With diff mode off nothing is
//! recorded.

use majit_ir::{Const, Descr, FieldDescr, Op, OpCode, OpRef, Trace};
use std::cell::Cell;
use std::sync::Arc;

/// Iterations a checked entry runs before it leaves through the budget
/// guard: far below the reference executor's step limit for a trace of
/// `trace_limit` ops.
pub const ENTRY_BUDGET: i64 = 1000;

/// The budget word shared by every loop of one driver.
pub(crate) struct Budget {
    word: Box<Cell<i64>>,
}

impl Budget {
    pub(crate) fn new() -> Budget {
        Budget {
            word: Box::new(Cell::new(i64::MAX)),
        }
    }

    /// The word's address (a constant of the traces).
    pub(crate) fn addr(&self) -> usize {
        self.word.as_ptr() as usize
    }

    /// Arms the budget for an entry: bounded when it is checked.
    pub(crate) fn arm(&self, checked: bool) {
        self.word.set(if checked { ENTRY_BUDGET } else { i64::MAX });
    }

    /// The iterations left.
    pub(crate) fn left(&self) -> i64 {
        self.word.get()
    }

    /// Sets the iterations left.
    pub(crate) fn set_left(&self, left: i64) {
        self.word.set(left);
    }
}

/// Appends the countdown of the word at `word` and its guard (fail descr
/// `descr`, fail args the label's) to `trace`, whose last op is the loop's
/// label.
pub(crate) fn record(trace: &mut Trace, word: usize, descr: Descr, label_args: &[OpRef]) {
    let field = Descr::Field(Arc::new(FieldDescr::word("DiffBudget", "left")));
    let obj = trace.add_const(Const::Ref(word));
    let (one, zero) = (
        trace.add_const(Const::Int(1)),
        trace.add_const(Const::Int(0)),
    );
    let left = trace.push(Op::new(OpCode::GetfieldGcI, &[obj]).with_descr(field.clone()));
    let left = trace.push(Op::new(OpCode::IntSub, &[left, one]));
    trace.push(Op::new(OpCode::SetfieldGc, &[obj, left]).with_descr(field));
    let more = trace.push(Op::new(OpCode::IntGt, &[left, zero]));
    trace.push(
        Op::new(OpCode::GuardTrue, &[more])
            .with_descr(descr)
            .with_fail_args(label_args),
    );
}
