//! The output channel of the test interpreters: `emit` is their residual
//! helper, `take_output` what a test compares between plain and JIT runs.

use std::cell::RefCell;

thread_local! {
    static OUT: RefCell<Vec<i64>> = const { RefCell::new(Vec::new()) };
}

/// Records a printed value (declared `residual fn emit(x: i64)`).
pub fn emit(x: i64) {
    OUT.with(|o| o.borrow_mut().push(x));
}

/// The values printed since the last call.
pub fn take_output() -> Vec<i64> {
    OUT.with(|o| std::mem::take(&mut *o.borrow_mut()))
}
