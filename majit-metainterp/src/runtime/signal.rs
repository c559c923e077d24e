//! How called helpers talk back to whatever called them (the reference
//! executor, native code): exceptions, frame forcing and panics.
//!
//! A real `extern "C"` helper cannot return an exception. Instead it calls
//! [`raise`] / [`raise_int`] (or [`force_frame`]) as the last thing before
//! returning; these set a thread-local cell that the executor reads and
//! clears right after every call op. The executor then keeps the exception
//! ([`Raised`]: a one-word value, an int or a GC ref) pending, which
//! `guard_no_exception` and `guard_exception` test and `save_exception_*`
//! takes (like RPython's exception word that every call may set, whatever
//! its descr says), and the forced flag, which the next `guard_not_forced`
//! tests. Native code keeps the same state in three frame words laid out
//! as [`SignalWords`].
//!
//! Because the cell is read right after each call, nested executions (a
//! helper that runs compiled code itself) see only their own helpers'
//! signals.
//!
//! A panic cannot unwind out of an `extern "C"` helper. [`catch_panic`]
//! (which the shims `#[jit_interp]` generates run their helper in) catches
//! it, keeps the message as a [`HelperPanic`] and raises
//! [`Raised::Panic`], which no handler catches: the trace's
//! `guard_no_exception` (or `guard_exception`) after the call fails; the
//! jitcode evaluator and the driver then take the panic ([`take_panic`])
//! and end the run with it.

use majit_ir::{Kind, Value};
use std::cell::{Cell, RefCell};
use std::fmt;

/// An exception pending after a call.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Raised {
    /// A catchable exception: one word, an int or a GC ref (never a
    /// float).
    Value(Value),
    /// A helper panicked or a check failed: no handler catches it; the run
    /// ends with the [`HelperPanic`] that [`take_panic`] returns.
    Panic,
}

impl Raised {
    /// The tag word of no pending exception (native code's
    /// [`SignalWords::exception`]).
    pub const NONE: u64 = 0;
    /// The tag word of [`Raised::Panic`].
    pub const PANIC: u64 = 1;
    /// The tag word of an int exception; every tag from here on is
    /// catchable, so `guard_exception` is one unsigned comparison.
    pub const INT: u64 = 2;
    /// The tag word of a ref exception.
    pub const REF: u64 = 3;

    /// Native code's tag word for this exception.
    pub fn tag(self) -> u64 {
        match self {
            Raised::Panic => Raised::PANIC,
            Raised::Value(Value::Ref(_)) => Raised::REF,
            Raised::Value(_) => Raised::INT,
        }
    }

    /// Native code's value word for this exception (0 for a panic).
    pub fn bits(self) -> u64 {
        match self {
            Raised::Panic => 0,
            Raised::Value(v) => v.to_bits(),
        }
    }

    /// The exception that native code's tag and value words describe
    /// (`None`: none pending; an unknown tag is taken as a panic).
    pub fn from_words(tag: u64, bits: u64) -> Option<Raised> {
        match tag {
            Raised::NONE => None,
            Raised::INT => Some(Raised::Value(Value::from_bits(Kind::Int, bits))),
            Raised::REF => Some(Raised::Value(Value::from_bits(Kind::Ref, bits))),
            _ => Some(Raised::Panic),
        }
    }

    /// The catchable value, `None` for a panic.
    pub fn value(self) -> Option<Value> {
        match self {
            Raised::Value(v) => Some(v),
            Raised::Panic => None,
        }
    }
}

/// What a helper signalled during one call.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub(crate) struct Signals {
    /// The exception raised, if any.
    pub exception: Option<Raised>,
    /// The helper forced the calling frame (`call_may_force_*`).
    pub forced: bool,
}

/// The three words in which native code keeps what helpers signalled
/// (consecutive words of its frame; [`take_signals`] fills them).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SignalWords {
    /// The pending exception's tag ([`Raised::tag`]; [`Raised::NONE`]).
    pub exception: u64,
    /// The pending exception's value ([`Raised::bits`]).
    pub value: u64,
    /// 1 when the last call's helper forced the frame.
    pub forced: u64,
}

thread_local! {
    static PENDING: Cell<Signals> = const { Cell::new(Signals { exception: None, forced: false }) };
    /// Nonzero while `PENDING` holds a signal: native code reads this word
    /// after a call and calls [`take_signals`] only when it is set.
    static FLAG: Cell<u64> = const { Cell::new(0) };
}

/// Makes `signals` the pending ones, keeping [`FLAG`] in step.
fn store(signals: Signals) {
    PENDING.with(|p| p.set(signals));
    FLAG.with(|f| f.set(u64::from(signals != Signals::default())));
}

/// The address of this thread's word that is nonzero while a helper's
/// signal waits for [`take_signals`]: compiled code tests it after each
/// call that may raise and skips the call of `take_signals` when it is
/// zero. Code runs on the thread that compiled it (a driver is not
/// `Send`), so the address it embeds stays valid.
pub fn signal_flag_addr() -> usize {
    FLAG.with(|f| f.as_ptr() as usize)
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
    set_exception(Raised::Panic);
}

/// Takes the panic a helper reported since the last call, if any.
pub fn take_panic() -> Option<HelperPanic> {
    PANICKED.with(|p| p.borrow_mut().take())
}

/// Raises the GC ref `exception` from a helper that jitcode or a trace
/// called: the exception is pending when the helper returns, so the
/// trace's next `guard_no_exception` fails and the jitcode's handler of
/// the call (`catch_exception`) gets it. A later raise within the same
/// helper call replaces it. Call it last, after the helper's last
/// allocation: a pending ref is not a GC root until the caller takes it.
/// Has no effect outside such a call.
pub fn raise(exception: usize) {
    set_exception(Raised::Value(Value::Ref(exception)));
}

/// Raises the integer `exception` (see [`raise`]).
pub fn raise_int(exception: i64) {
    set_exception(Raised::Value(Value::Int(exception)));
}

/// Raises `exception`, an int or a ref (see [`raise`]): the exception a
/// callee run by `call_assembler` left uncaught.
pub(crate) fn raise_value(exception: Value) {
    set_exception(Raised::Value(exception));
}

fn set_exception(exception: Raised) {
    store(Signals {
        exception: Some(exception),
        ..peek()
    });
}

/// Marks the frame of the running `call_may_force_*` as forced: the
/// trace's next `guard_not_forced` fails.
pub fn force_frame() {
    store(Signals {
        forced: true,
        ..peek()
    });
}

/// Reads and clears what the helper just signalled.
pub(crate) fn take() -> Signals {
    let signals = peek();
    store(Signals::default());
    signals
}

/// What the helper signalled so far, left pending (a recorded call's
/// signals, see `record.rs`).
pub(crate) fn peek() -> Signals {
    PENDING.with(Cell::get)
}

/// Makes `signals` pending, as if a helper had raised them (a replayed
/// call, see `record.rs`).
pub(crate) fn set(signals: Signals) {
    store(signals);
}

/// For native backends, which call helpers from machine code: reads and
/// clears what the helpers signalled, as refexec does after each call:
/// a raised exception replaces the pending one in `words` (none keeps
/// it), the forced flag is the last call's.
///
/// # Safety
/// `words` must be valid for reads and writes of a [`SignalWords`].
pub unsafe extern "C" fn take_signals(words: *mut SignalWords) {
    let s = take();
    // SAFETY: the caller guarantees `words` is valid.
    let w = unsafe { &mut *words };
    if let Some(e) = s.exception {
        w.exception = e.tag();
        w.value = e.bits();
    }
    w.forced = u64::from(s.forced);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caught_panic_is_reported_with_its_message_and_raises() {
        take();
        let r: i64 = catch_panic("helper `f`", || panic!("bad {}", 7));
        assert_eq!(r, 0);
        assert_eq!(take().exception, Some(Raised::Panic));
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

    #[test]
    fn native_words_keep_the_pending_exception_until_another_is_raised() {
        take();
        let mut w = SignalWords::default();
        raise_int(0);
        // SAFETY: `w` is a valid `SignalWords`.
        unsafe { take_signals(&mut w) };
        assert_eq!((w.exception, w.value), (Raised::INT, 0));
        force_frame();
        unsafe { take_signals(&mut w) };
        assert_eq!((w.exception, w.forced), (Raised::INT, 1), "kept");
        raise(0x40);
        unsafe { take_signals(&mut w) };
        assert_eq!(
            Raised::from_words(w.exception, w.value),
            Some(Raised::Value(Value::Ref(0x40)))
        );
        assert_eq!(w.forced, 0);
        for e in [Raised::Panic, Raised::Value(Value::Int(-3))] {
            assert_eq!(Raised::from_words(e.tag(), e.bits()), Some(e));
        }
    }
}
