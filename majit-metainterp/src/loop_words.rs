//! Loop words: how a trace that ended at a merge point before a loop was
//! compiled there comes to jump into that loop.
//!
//! An entry trace or a bridge that meets a merge point it has passed once
//! already, with no loop compiled there, ends in a `finish` to it: the
//! driver runs on from that merge point. Its loop is usually compiled
//! soon after (from the very merge point), but the `finish` stays, and
//! every later exit there would enter the loop through the driver: for a
//! function whose entry trace ends at its loop, every call.
//!
//! So before such a `finish` the trace reads the merge point's *loop
//! word* (0 while no loop is compiled at its greens, 1 once one is) and
//! leaves through a guard when it is set. The guard resumes at the merge
//! point (an `Exit::MergePoint` of the driver, fail args the reds and
//! virtualizable values the `finish` takes) and counts its failures; once
//! hot it gets a bridge that jumps to the loop's start label
//! (`bridge::to_loop_start`), as a bridge's entry guards do. The word is
//! read with `getfield_raw_i` from a constant address: a word per green
//! key, made on first use and never freed while the driver lives.

use crate::warmstate::GreenKey;
use majit_ir::{Const, Descr, FieldDescr, Op, OpCode, OpRef, Trace};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;

/// The loop words of one driver, by green key.
#[derive(Default)]
pub(crate) struct LoopWords {
    words: RefCell<HashMap<GreenKey, Box<Cell<i64>>>>,
}

impl LoopWords {
    /// The address of `key`'s word, made on first use with `compiled`
    /// (whether a loop is compiled at `key` already).
    pub(crate) fn addr(&self, key: &GreenKey, compiled: bool) -> usize {
        let mut words = self.words.borrow_mut();
        let word = words
            .entry(key.clone())
            .or_insert_with(|| Box::new(Cell::new(i64::from(compiled))));
        word.as_ptr() as usize
    }

    /// A loop was compiled at `key`: traces ending there leave through
    /// their loop-word guard from now on.
    pub(crate) fn set(&self, key: &GreenKey) {
        if let Some(word) = self.words.borrow().get(key) {
            word.set(1);
        }
    }
}

/// Appends the read of the loop word at `word` and its guard (fail descr
/// `descr`, fail args `args`, the `finish`'s) to `trace`.
pub(crate) fn record(trace: &mut Trace, word: usize, descr: Descr, args: &[OpRef]) {
    let field = Descr::Field(Arc::new(FieldDescr::word("LoopWord", "compiled")));
    let addr = trace.add_const(Const::Int(word as i64));
    let set = trace.push(Op::new(OpCode::GetfieldRawI, &[addr]).with_descr(field));
    trace.push(
        Op::new(OpCode::GuardFalse, &[set])
            .with_descr(descr)
            .with_fail_args(args),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use majit_ir::Value;

    #[test]
    fn a_word_is_made_once_per_key_and_set_when_a_loop_is_compiled() {
        let words = LoopWords::default();
        let (a, b) = (
            GreenKey::new(&[Value::Int(1)]),
            GreenKey::new(&[Value::Int(2)]),
        );
        let read = |at: usize| {
            // SAFETY: the words live as long as `words`, boxed (stable).
            unsafe { *(at as *const i64) }
        };
        let wa = words.addr(&a, false);
        assert_eq!(words.addr(&a, true), wa, "one word per key");
        assert_eq!(read(wa), 0);
        words.set(&b);
        let wb = words.addr(&b, true);
        assert_eq!(read(wb), 1, "made after its loop: set");
        words.set(&a);
        assert_eq!(read(wa), 1);
    }
}
