//! How called helpers talk back to whatever called them (the reference
//! executor, native code): exceptions, frame forcing and panics.
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
//!
//! A panic cannot unwind out of an `extern "C"` helper. [`catch_panic`]
//! (which the shims `#[jit_interp]` generates run their helper in) catches
//! it, keeps the message as a [`HelperPanic`] and raises a sentinel
//! exception, so the trace's `guard_no_exception` after the call fails;
//! the jitcode evaluator and the driver then take the panic
//! ([`take_panic`]) and end the run with it.

use std::cell::{Cell, RefCell};
use std::fmt;

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

/// A panic inside a helper that jitcode or a trace called: where
/// (`place`, e.g. "helper `emit`") and the panic's message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HelperPanic {
    /// The helper or the check that panicked.
    pub place: String,
    /// The panic message (what the plain interpreter's panic prints).
    pub message: String,
}

impl fmt::Display for HelperPanic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "panic in {}: {}", self.place, self.message)
    }
}

thread_local! {
    static PANICKED: RefCell<Option<HelperPanic>> = const { RefCell::new(None) };
}

/// The exception a panicking helper raises: an address outside any GC
/// heap (collectors ignore it), which only tells `guard_no_exception` to
/// fail; the panic itself waits in [`take_panic`].
static PANIC_SENTINEL: u64 = 0;

/// Runs `helper` (the body of an `extern "C"` shim called from jitcode
/// or a trace). If it panics, the panic is recorded as a [`HelperPanic`]
/// at `place` with its message and raised as an exception (see the module
/// docs); the shim then returns `R::default()`, which nothing reads.
pub fn catch_panic<R: Default>(place: &str, helper: impl FnOnce() -> R) -> R {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(helper)) {
        Ok(r) => r,
        Err(payload) => {
            report_panic(place, panic_message(payload.as_ref()));
            R::default()
        }
    }
}

/// The message of a caught panic's payload (`panic!` gives a `&str` or
/// a `String`).
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with a non-string payload".to_string()
    }
}

/// Records a failure at `place` as if a helper had panicked with
/// `message` (a failed check such as a bounds check, reported without
/// unwinding): the caller's next `guard_no_exception` fails and the run
/// ends with it.
pub fn report_panic(place: &str, message: String) {
    PANICKED.with(|p| {
        *p.borrow_mut() = Some(HelperPanic {
            place: place.to_string(),
            message,
        })
    });
    raise_failure();
}

/// Raises the sentinel exception of a failure kept elsewhere (a panic
/// here, a nested run's error in `portal.rs`): the caller's
/// `guard_no_exception` fails and the run ends with that failure.
pub(crate) fn raise_failure() {
    raise(&PANIC_SENTINEL as *const u64 as usize);
}

/// Takes the panic a helper reported since the last call, if any.
pub fn take_panic() -> Option<HelperPanic> {
    PANICKED.with(|p| p.borrow_mut().take())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caught_panic_is_reported_with_its_message_and_raises() {
        take();
        let r: i64 = catch_panic("helper `f`", || panic!("bad {}", 7));
        assert_eq!(r, 0);
        assert!(take().exception.is_some(), "guard_no_exception must fail");
        let p = take_panic().expect("the panic was recorded");
        assert_eq!(
            (p.place.as_str(), p.message.as_str()),
            ("helper `f`", "bad 7")
        );
        assert_eq!(p.to_string(), "panic in helper `f`: bad 7");
        assert_eq!(take_panic(), None);
        assert_eq!(catch_panic("helper `g`", || 5i64), 5);
        assert_eq!((take(), take_panic()), (Signals::default(), None));
    }
}
