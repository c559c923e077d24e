//! Calls of the interpreted program: the interpreter runs a callee on a
//! new frame by calling itself (a recursive call of the portal).
//!
//! In jitcode such a call is an ordinary `inline_call` of the interpreter's
//! *entry* function (its parameters, the setup before the dispatch loop,
//! then an `inline_call` of the portal with the greens and reds), so the
//! callee's portal frame is one more jitcode frame. What makes it a call of
//! the interpreted program is its merge point: a merge point in a portal
//! frame that is not the outermost one (the callee reached its first
//! instruction, or a later one) is where
//!
//! - the tracer inlines the callee (it traces on through the callee's
//!   merge points) or, for a recursive call (the callee's greens are
//!   already on the trace's portal-frame stack) or a callee marked
//!   don't-inline, records a residual call of the *portal runner* and
//!   drops the callee's frames (`tracer/portal.rs`);
//! - the blackhole calls the portal runner, so the callee runs with the
//!   JIT (its compiled code, or the interpreter) instead of in the
//!   blackhole.
//!
//! The portal runner is an `extern "C"` trampoline (`#[jit_interp]` emits
//! one per recursive interpreter) taking the greens and reds as the
//! canonical call's arguments and returning the portal's result. Its body
//! is [`call`]: it runs the interpreter from that merge point on the driver
//! that is running right now (`Current`), through the Rust function the
//! interpreter registered ([`PortalRunner::run`]), which enters compiled
//! code at the merge point when there is some ([`JitDriver::enter_portal`]).
//!
//! Re-entrancy: the trampoline runs while an outer `can_enter_jit` of the
//! same driver executes compiled code, traces, or runs the blackhole. The
//! driver's state is behind `RefCell`s and `Cell`s that every step borrows
//! only for its own duration (never across running compiled code, a
//! blackhole or tracer run, or a call), so the nested run gets its own
//! `&JitDriver` and nothing aliases a `&mut`. A nested run may trace while
//! an outer trace is recorded, the same key too (the outer trace is then
//! dropped: `AbortReason::CompiledMeanwhile`). A
//! failure of the nested run ([`JitError`]) crosses the
//! trampoline as a raised exception and ends the outer run with the same
//! error.

use crate::backend::Backend;
use crate::driver::{JitDriver, JitError};
use crate::jitcode::JitCode;
use crate::runtime::{catch_panic, signal};
use majit_ir::{CallDescr, CallEffect, Descr, EffectInfo, Kind, ResultKind, Value};
use std::cell::{Cell, RefCell};
use std::sync::Arc;

/// Runs the interpreter from a merge point with these greens and reds (in
/// the merge point's order) on a driver, to the portal's return; `None`
/// for a portal without a result.
pub type RunFrom<B> = fn(&JitDriver<B>, &[Value], &[Value]) -> Result<Option<Value>, JitError>;

/// How a driver runs a call of the interpreted program: the trampoline
/// that traces and compiled code call, and the interpreter function it
/// runs (`#[jit_interp]` registers both, see [`JitDriver::set_portal_runner`]).
pub struct PortalRunner<B: Backend> {
    /// The address of an `extern "C"` function whose parameters are a
    /// token (`i64`, see [`call`]) and the greens' and reds' values (64-bit
    /// ints or addresses, `f64` for floats) and whose result is the
    /// portal's, with [`call`] as body.
    pub trampoline: usize,
    /// The portal's result kind.
    pub result: ResultKind,
    /// The interpreter from a merge point, on the driver it is given.
    pub run: RunFrom<B>,
}

impl<B: Backend> Clone for PortalRunner<B> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<B: Backend> Copy for PortalRunner<B> {}

/// What the tracer and the blackhole know of the portal: its code, and the
/// runner trampoline with its call descr when one is registered (without
/// one, every call of the interpreted program is inlined).
#[derive(Clone, Debug)]
pub struct PortalCall {
    pub code: Arc<JitCode>,
    pub runner: Option<(usize, Descr)>,
}

impl PortalCall {
    /// Whether `code` is the portal.
    pub fn is_portal(&self, code: &Arc<JitCode>) -> bool {
        Arc::ptr_eq(&self.code, code)
    }
}

/// The name of the runner trampoline's call descr (no Rust identifier, so
/// no helper has it): differential mode cannot replay such calls (a
/// nested run writes the heap the trace reads back), so it leaves the
/// traces making them unchecked (`diff/instrument.rs`).
pub const RUNNER: &str = "majit.portal";

/// The call descr of the runner trampoline: the token, greens and reds
/// in, the portal's result out; it may do anything, including collecting and
/// reading or writing the virtualizable frame (`may_force`: the trace
/// writes the frame back before the call and reloads it after), and it
/// raises when the nested run fails.
pub(crate) fn runner_descr(args: Vec<Kind>, result: ResultKind) -> Descr {
    Descr::from(CallDescr {
        name: RUNNER.into(),
        args,
        result,
        effect: EffectInfo {
            effect: CallEffect::Random,
            can_raise: true,
            can_collect: true,
            may_force: true,
            ..Default::default()
        },
    })
}

/// [`run_erased`] for some backend.
type ErasedRun = unsafe fn(*const (), i64, &[Value], &[Value]) -> Result<Option<Value>, JitError>;

/// [`leave_erased`] for some backend.
type ErasedLeave = unsafe fn(*const (), usize) -> Result<Option<Value>, JitError>;

/// A type-erased `&JitDriver<B>`, the function running its portal and the
/// one finishing a direct call that left its callee's code (`callasm.rs`).
#[derive(Copy, Clone)]
struct Erased {
    driver: *const (),
    run: ErasedRun,
    leave: ErasedLeave,
}

thread_local! {
    /// The driver whose `can_enter_jit` (or `enter_portal`) runs on this
    /// thread right now, innermost: see [`Current`].
    static CURRENT: Cell<Option<Erased>> = const { Cell::new(None) };
    /// The failure of a nested run, waiting for the outer run to take it
    /// (see [`take_nested`]).
    static NESTED: RefCell<Option<JitError>> = const { RefCell::new(None) };
}

/// Makes a driver the one [`call`] runs on, for the guard's lifetime;
/// dropping it restores the previous one.
///
/// Invariant: [`CURRENT`] names a driver only while a guard made from a
/// `&JitDriver` borrow of it is alive, i.e. while that borrow is; guards
/// nest (they live in stack frames of the driver's methods), so the
/// innermost one is always the one set.
pub(crate) struct Current {
    prev: Option<Erased>,
}

impl Current {
    /// Sets `driver` as the current driver.
    pub(crate) fn enter<B: Backend>(driver: &JitDriver<B>) -> Current {
        let erased = Erased {
            driver: driver as *const JitDriver<B> as *const (),
            run: run_erased::<B>,
            leave: leave_erased::<B>,
        };
        Current {
            prev: CURRENT.with(|c| c.replace(Some(erased))),
        }
    }
}

impl Drop for Current {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.prev));
    }
}

/// Runs the portal of the driver `driver` points to: the callee's
/// compiled code directly when `token` names some (`callasm.rs`).
///
/// # Safety
/// `driver` comes from a `&JitDriver<B>` that is alive (the invariant of
/// [`Current`]).
unsafe fn run_erased<B: Backend>(
    driver: *const (),
    token: i64,
    greens: &[Value],
    reds: &[Value],
) -> Result<Option<Value>, JitError> {
    // SAFETY: by the caller's contract; the driver is only ever used
    // through shared references (its state is in cells).
    let driver = unsafe { &*(driver as *const JitDriver<B>) };
    driver.call_assembler(token, greens, reds)
}

/// Finishes a direct call that left at `frame` on the driver `driver`
/// points to (`callasm.rs`).
///
/// # Safety
/// As for [`run_erased`].
unsafe fn leave_erased<B: Backend>(
    driver: *const (),
    frame: usize,
) -> Result<Option<Value>, JitError> {
    // SAFETY: by the caller's contract, as in `run_erased`.
    let driver = unsafe { &*(driver as *const JitDriver<B>) };
    driver.leave_direct(frame)
}

/// What compiled code calls when a callee it entered directly
/// (`Backend::call_target`) left the callee's code at the jitframe
/// `frame` other than by a portal return: the current driver finishes the
/// callee as after any exit. Returns the callee's result as bits (0 for
/// none); a failure is reported as [`call`] reports one.
pub extern "C" fn leave_direct(frame: usize) -> u64 {
    let Some(current) = CURRENT.with(Cell::get) else {
        report(JitError::BadState(
            "a direct call left its callee while no JIT driver runs".into(),
        ));
        return 0;
    };
    let leave = || {
        // SAFETY: `CURRENT` is set, so its driver is alive.
        match unsafe { (current.leave)(current.driver, frame) } {
            Ok(v) => v.map_or(0, Value::to_bits),
            Err(e) => {
                report(e);
                0
            }
        }
    };
    catch_panic("a direct call's exit", leave)
}

/// The body of a portal runner trampoline: runs the interpreter from the
/// merge point with `greens` and `reds` on the current driver and returns
/// the portal's result. `token` is the callee's call target when
/// compiled code makes the call (`call_assembler_*`, see `callasm.rs`):
/// its compiled entry trace then runs directly; 0 (the tracer, the
/// blackhole) or a token without live code runs the interpreter. A failure (the nested run's error, a panic, no
/// driver running) is reported as a raised exception, so the caller's
/// `guard_no_exception` (or the tracer's, the blackhole's call) fails and
/// the outer run ends with the error; the result is then `None`.
pub fn call(token: i64, greens: &[Value], reds: &[Value]) -> Option<Value> {
    let Some(current) = CURRENT.with(Cell::get) else {
        report(JitError::BadState(
            "a portal runner was called while no JIT driver runs".into(),
        ));
        return None;
    };
    let run = || {
        // SAFETY: `CURRENT` is set, so its driver is alive (the invariant
        // of `Current`).
        match unsafe { (current.run)(current.driver, token, greens, reds) } {
            Ok(v) => v,
            Err(e) => {
                report(e);
                None
            }
        }
    };
    catch_panic("the portal runner", run)
}

/// Keeps `e` for the outer run and raises (see [`call`]).
fn report(e: JitError) {
    NESTED.with(|n| *n.borrow_mut() = Some(e));
    signal::raise_failure();
}

/// Takes the failure of a nested run that a trampoline reported.
pub(crate) fn take_nested() -> Option<JitError> {
    NESTED.with(|n| n.borrow_mut().take())
}

impl<B: Backend> JitDriver<B> {
    /// Registers how calls of the interpreted program run (see the module
    /// docs): without a runner the tracer inlines every call and the
    /// blackhole runs callees itself. `#[jit_interp]` registers its runner
    /// whenever a recursive interpreter's `NAME_jit` starts.
    pub fn set_portal_runner(&self, runner: PortalRunner<B>) {
        self.runner.set(Some(runner));
    }

    /// [`JitDriver::set_portal_runner`] while building the driver.
    pub fn with_portal_runner(self, runner: PortalRunner<B>) -> JitDriver<B> {
        self.set_portal_runner(runner);
        self
    }

    /// Called by the interpreter at the first merge point of every run of
    /// the portal (a call of the interpreted program's function, or the
    /// program's start), with the state there: like
    /// [`JitDriver::can_enter_jit`] it counts the key, runs compiled code
    /// for it and traces it when hot, but the trace it starts is an *entry
    /// trace*, which ends with a `finish` when the portal returns
    /// ([`JitAction::Finished`](crate::driver::JitAction::Finished) with the
    /// result).
    pub fn enter_portal(
        &self,
        greens: &mut [Value],
        reds: &mut [Value],
    ) -> Result<crate::driver::JitAction, JitError> {
        self.visit(greens, reds, true)
    }

    /// A call of the interpreted program from compiled code, the tracer or
    /// the blackhole: runs the registered runner from the merge point with
    /// `greens` and `reds`.
    pub(crate) fn run_portal(
        &self,
        greens: &[Value],
        reds: &[Value],
    ) -> Result<Option<Value>, JitError> {
        let runner = self.runner.get().ok_or_else(|| {
            JitError::BadState("a call of the interpreted program without a portal runner".into())
        })?;
        self.count(|s| s.portal_runs += 1);
        (runner.run)(self, greens, reds)
    }

    /// What the tracer and the blackhole know of the portal.
    pub(crate) fn portal_call(&self) -> PortalCall {
        let runner = self.runner.get().map(|r| {
            let state = self.green_kinds.iter().chain(&self.red_kinds);
            let kinds = std::iter::once(&Kind::Int).chain(state).copied();
            (r.trampoline, runner_descr(kinds.collect(), r.result))
        });
        PortalCall {
            code: self.portal.clone(),
            runner,
        }
    }

    /// How many frames of a guard's snapshot are portal frames (more than
    /// one: the guard is inside an inlined call of the interpreted
    /// program).
    pub(crate) fn portal_frames(&self, snap: &crate::tracer::Snapshot) -> usize {
        let portal = &self.portal;
        snap.frames
            .iter()
            .filter(|f| Arc::ptr_eq(&f.code, portal))
            .count()
    }
}
