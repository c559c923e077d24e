//! The code store: every function's instructions in one append-only list
//! of words, so a program counter is a global index (the interpreter's
//! only green) and `load` can add code while the program runs. Words never
//! change once appended, which is what makes [`insn`] elidable.

use std::cell::{Cell, RefCell};

thread_local! {
    static CODE: RefCell<Vec<i64>> = const { RefCell::new(Vec::new()) };
    /// `CODE`'s words and length as of the last append: what [`insn`]
    /// reads, once per instruction of the plain interpreter.
    static WORDS: Cell<(*const i64, usize)> = const { Cell::new((std::ptr::null(), 0)) };
}

/// The word that stands for a program counter past the end of the code:
/// an opcode no instruction has, which the interpreter reports.
pub const BAD_PC: i64 = 0xff;

/// The instruction word at `pc` (elidable: a word never changes).
#[inline]
pub fn insn(pc: i64) -> i64 {
    let (words, len) = WORDS.with(Cell::get);
    // (A negative `pc` is a huge `u64`: one comparison checks both ends.)
    if (pc as u64) < len as u64 {
        // SAFETY: `words` points to `CODE`'s buffer of at least `len`
        // words, published by `append` after its last change; the buffer
        // only changes (moves) in `append`, which publishes it again.
        unsafe { *words.add(pc as usize) }
    } else {
        BAD_PC
    }
}

/// The program counter the next appended word will have.
pub fn next_pc() -> usize {
    CODE.with(|c| c.borrow().len())
}

/// Appends `words`; returns the program counter of the first.
pub fn append(words: &[i64]) -> usize {
    CODE.with(|c| {
        let mut c = c.borrow_mut();
        let start = c.len();
        c.extend_from_slice(words);
        WORDS.with(|w| w.set((c.as_ptr(), c.len())));
        start
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appended_words_are_read_back_and_the_end_is_bad() {
        let at = append(&[7, 8]);
        assert_eq!((insn(at as i64), insn(at as i64 + 1)), (7, 8));
        assert_eq!(insn(at as i64 + 2), BAD_PC);
        assert_eq!(insn(-1), BAD_PC);
        // Growing moves the buffer; reads follow it.
        let more: Vec<i64> = (0..10_000).collect();
        let at2 = append(&more);
        assert_eq!((insn(at as i64), insn(at2 as i64 + 9_999)), (7, 9_999));
    }
}
