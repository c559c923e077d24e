//! What a plain run's panic said and where: a panic hook that records
//! the message and location of this thread's panics (and prints nothing
//! while a test expects them), so a test can compare them with the
//! `JitError::Panic` of the JIT run.

// Each test that includes this file uses a part of it.
#![allow(dead_code)]

use std::cell::{Cell, RefCell};
use std::panic::{catch_unwind, AssertUnwindSafe, UnwindSafe};
use std::sync::Once;

/// A recorded panic: its message and `file:line:column`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caught {
    pub message: String,
    pub location: String,
}

thread_local! {
    static LAST: RefCell<Option<Caught>> = const { RefCell::new(None) };
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

fn install() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let caught = Caught {
                message: info.payload_as_str().unwrap_or("").to_string(),
                location: info
                    .location()
                    .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
                    .unwrap_or_default(),
            };
            LAST.with(|l| *l.borrow_mut() = Some(caught));
            if !QUIET.with(Cell::get) {
                default(info);
            }
        }));
    });
}

/// Runs `f` (a plain run); its panic, if any, as a [`Caught`].
pub fn catch<R>(f: impl FnOnce() -> R + UnwindSafe) -> Result<R, Caught> {
    install();
    QUIET.with(|q| q.set(true));
    let r = catch_unwind(f);
    QUIET.with(|q| q.set(false));
    r.map_err(|_| {
        LAST.with(|l| l.borrow_mut().take())
            .expect("the hook saw the panic")
    })
}

/// Runs `f` (a JIT run whose helpers may panic) without printing the
/// panics it catches.
pub fn quietly<R>(f: impl FnOnce() -> R) -> R {
    install();
    QUIET.with(|q| q.set(true));
    let r = f();
    QUIET.with(|q| q.set(false));
    r
}

/// What a run said: its panic's message, or else its result printed (a
/// JIT run reports a helper's panic as `Err(JitError::Panic ..)`).
pub fn said<R: std::fmt::Debug>(f: impl FnOnce() -> R) -> String {
    match catch(AssertUnwindSafe(f)) {
        Ok(r) => format!("{r:?}"),
        Err(c) => c.message,
    }
}
