//! How called helpers talk back to whatever called them (the reference
//! executor, native code): exceptions and frame forcing.
//!
//! A real `extern "C"` helper cannot return an exception. Instead it calls
//! [`raise`] (or [`force_frame`]) before returning; these set a
//! thread-local cell that the executor reads and clears right after every
//! call op. The executor then keeps the exception in its exception slot,
//! which `guard_no_exception` tests (like RPython's exception word that
//! every call may set, whatever its descr says), and the forced flag,
//! which the next `guard_not_forced` tests.
//!
//! Because the cell is read right after each call, nested executions (a
//! helper that runs compiled code itself) see only their own helpers'
//! signals.

use std::cell::Cell;

/// What a helper signalled during one call.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Signals {
    /// The exception object raised, if any (a ref, non-null).
    pub exception: Option<usize>,
    /// The helper forced the calling frame (`call_may_force_*`).
    pub forced: bool,
}

thread_local! {
    static PENDING: Cell<Signals> = const { Cell::new(Signals { exception: None, forced: false }) };
}

/// Raises `exception` (a non-null ref) from a helper a trace called (on
/// refexec or in native code): the exception is pending when the helper
/// returns, so the trace's next `guard_no_exception` fails. A later call
/// to `raise` within the same helper call replaces it. Has no effect
/// outside such a call.
pub fn raise(exception: usize) {
    PENDING.with(|p| {
        p.set(Signals {
            exception: Some(exception),
            ..p.get()
        })
    });
}

/// Marks the frame of the running `call_may_force_*` as forced: the
/// trace's next `guard_not_forced` fails.
pub fn force_frame() {
    PENDING.with(|p| {
        p.set(Signals {
            forced: true,
            ..p.get()
        })
    });
}

/// Reads and clears what the helper just signalled.
pub(crate) fn take() -> Signals {
    PENDING.with(|p| p.replace(Signals::default()))
}

/// What the helper signalled so far, left pending (a recorded call's
/// signals, see `record.rs`).
pub(crate) fn peek() -> Signals {
    PENDING.with(Cell::get)
}

/// Makes `signals` pending, as if a helper had raised them (a replayed
/// call, see `record.rs`).
pub(crate) fn set(signals: Signals) {
    PENDING.with(|p| p.set(signals));
}

/// For native backends, which call helpers from machine code: reads and
/// clears what the helpers signalled, as refexec does after each call.
/// Returns the raised exception (0: none) and stores the forced flag
/// (0 or 1) in `*forced`.
///
/// # Safety
/// `forced` must be valid for an 8-byte write.
pub unsafe extern "C" fn take_signals(forced: *mut u64) -> usize {
    let s = take();
    // SAFETY: the caller guarantees `forced` is writable.
    unsafe { forced.write(s.forced as u64) };
    s.exception.unwrap_or(0)
}
