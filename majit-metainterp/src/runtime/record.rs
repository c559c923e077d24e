//! Recording residual calls on one side of a checked loop entry and
//! replaying them on the other (differential mode, `diff/`).
//!
//! A helper with effects cannot run twice: the reference execution in the
//! forked child would read stdin a second time (it is `/dev/null` there),
//! or see a clock, a pid or a file offset that moved. So in differential
//! mode every call whose descr is not elidable goes through a shim (the
//! diff module rewrites the trace, both sides run the rewritten one): the
//! call passes the shim a [`Site`] (the original signature) and the
//! function address before its own arguments. The shim then
//!
//! - calls the function and, while recording (native side), appends the
//!   function, the arguments, the result and what the helper signalled
//!   ([`raise`](super::raise), [`force_frame`](super::force_frame)) to the
//!   log;
//! - while replaying (reference side, in the child), does not call: it
//!   checks the call against the next log entry and returns the recorded
//!   result and signals. A call that differs (another function, other
//!   int or float arguments) or that the log does not have is a departure,
//!   which the check reports as a divergence at that call;
//! - otherwise (entries that are not checked) just calls the function.
//!
//! A replayed ref result or ref exception that is one of the call's ref
//! arguments on the native side is that argument on the reference side
//! (a helper returning or raising an object it was given: the two sides'
//! fresh objects have different addresses).
//!
//! Limits: ref arguments are not compared (the sides' fresh objects have
//! different addresses); memory a helper writes is not replayed, so a
//! trace that reads back what a residual helper stored in the heap may be
//! reported as diverging; calls that nested executions make inside a
//! helper are neither recorded nor replayed.

use super::call::{self, CallArgs, MAX_FLOAT_ARGS, MAX_INT_ARGS};
use super::signal::{self, Raised, Signals};
use majit_ir::{Kind, Value};
use std::cell::RefCell;

/// The int arguments a shim takes before the original ones: the site and
/// the function address.
pub(crate) const SHIM_ARGS: usize = 2;

/// What a rewritten call site calls: the original signature.
#[derive(Debug)]
pub(crate) struct Site {
    /// The call descr's name, for reports.
    pub name: String,
    /// Kinds of the original arguments (after the function address).
    pub kinds: Box<[Kind]>,
    pub float_result: bool,
    /// The result is a ref.
    pub ref_result: bool,
}

/// One recorded call.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Entry {
    /// The [`Site`]'s address.
    pub site: usize,
    pub func: usize,
    /// The argument bits, in the site's `kinds` order.
    pub args: Vec<u64>,
    pub result: u64,
    pub signals: Signals,
}

enum Mode {
    /// Calls go through.
    Off,
    /// Calls go through and are logged; `depth` counts the calls running
    /// (only outermost ones are logged).
    Record { log: Vec<Entry>, depth: u32 },
    /// Calls are answered from `log`, from entry `next` on.
    Replay {
        log: Vec<Entry>,
        next: usize,
        departed: Option<String>,
    },
}

thread_local! {
    static MODE: RefCell<Mode> = const { RefCell::new(Mode::Off) };
}

/// Starts logging this thread's calls through the shim.
pub(crate) fn record() {
    MODE.with(|m| {
        *m.borrow_mut() = Mode::Record {
            log: Vec::new(),
            depth: 0,
        }
    });
}

/// Stops recording; the calls logged since [`record`].
pub(crate) fn recorded() -> Vec<Entry> {
    match MODE.with(|m| m.replace(Mode::Off)) {
        Mode::Record { log, .. } => log,
        _ => Vec::new(),
    }
}

/// Answers this thread's calls through the shim from `log`.
pub(crate) fn replay(log: Vec<Entry>) {
    MODE.with(|m| {
        *m.borrow_mut() = Mode::Replay {
            log,
            next: 0,
            departed: None,
        }
    });
}

/// Stops replaying: `Err` says how the calls departed from the log (or
/// that some logged calls were not made).
pub(crate) fn replayed() -> Result<(), String> {
    match MODE.with(|m| m.replace(Mode::Off)) {
        Mode::Replay {
            departed: Some(why),
            ..
        } => Err(why),
        Mode::Replay { log, next, .. } if next < log.len() => Err(format!(
            "native code made {} residual calls with effects, the reference executor {next}",
            log.len()
        )),
        _ => Ok(()),
    }
}

/// Defines a shim: the canonical parameters (see `call.rs`) passed to
/// [`shim`], its result bits converted by `$convert`.
macro_rules! define_shim {
    ($(#[$doc:meta])* $name:ident -> $ret:ty, $convert:expr) => {
        $(#[$doc])*
        #[allow(clippy::too_many_arguments)]
        #[rustfmt::skip]
        pub(crate) unsafe extern "C" fn $name(
            i0: i64, i1: i64, i2: i64, i3: i64, i4: i64, i5: i64, i6: i64, i7: i64,
            i8: i64, i9: i64, i10: i64, i11: i64, i12: i64, i13: i64, i14: i64, i15: i64,
            f0: f64, f1: f64, f2: f64, f3: f64, f4: f64, f5: f64, f6: f64, f7: f64,
        ) -> $ret {
            let ints = [i0, i1, i2, i3, i4, i5, i6, i7, i8, i9, i10, i11, i12, i13, i14, i15];
            // SAFETY: this function's contract.
            let bits = unsafe { shim(&ints, &[f0, f1, f2, f3, f4, f5, f6, f7]) };
            $convert(bits)
        }
    };
}

define_shim! {
    /// The shim for calls with an int, ref or no result (see the module
    /// docs).
    ///
    /// # Safety
    /// The first int argument is the address of a live [`Site`], the
    /// second a function that the site's signature describes, as for
    /// [`call::call`]; the rest are that function's arguments.
    shim_int -> i64, |bits: u64| bits as i64
}

define_shim! {
    /// [`shim_int`] for calls with a float result.
    ///
    /// # Safety
    /// As for [`shim_int`].
    shim_float -> f64, f64::from_bits
}

/// The shims' common body, on the canonical argument sequences.
///
/// # Safety
/// As for [`shim_int`].
unsafe fn shim(ints: &[i64; MAX_INT_ARGS], floats: &[f64; MAX_FLOAT_ARGS]) -> u64 {
    // SAFETY: the caller passes a live site first.
    let site = unsafe { &*(ints[0] as usize as *const Site) };
    let func = ints[1] as usize;
    let args = original_args(site, &ints[SHIM_ARGS..], floats);
    let call = Entry {
        site: site as *const Site as usize,
        func,
        args,
        result: 0,
        signals: Signals::default(),
    };
    let logging = match MODE.with(|m| begin(&mut m.borrow_mut(), site, &call)) {
        Begin::Answered(bits) => return bits,
        Begin::Call { logging } => logging,
    };
    let call_args = CallArgs::new(&site.kinds, call.args.iter().copied());
    // SAFETY: the caller's contract: `func` has the site's signature, which
    // the trace's call descr checked against the canonical call's limits.
    let result = unsafe { call::call(func, &call_args, site.float_result) };
    let entry = Entry {
        result,
        signals: signal::peek(),
        ..call
    };
    MODE.with(|m| {
        if let Mode::Record { log, depth } = &mut *m.borrow_mut() {
            // Every call counted in `begin` leaves; only outermost ones
            // are logged (a nested run's calls happen inside them).
            *depth -= 1;
            if logging {
                log.push(entry);
            }
        }
    });
    result
}

/// What the shim does with a call.
enum Begin {
    /// Replayed: return these bits (the recorded signals are pending).
    Answered(u64),
    /// Make the call; log it afterwards when `logging`.
    Call { logging: bool },
}

/// The mode's decision for `call` (the first step of the shim).
fn begin(mode: &mut Mode, site: &Site, call: &Entry) -> Begin {
    match mode {
        Mode::Off => Begin::Call { logging: false },
        Mode::Record { depth, .. } => {
            *depth += 1;
            Begin::Call {
                logging: *depth == 1,
            }
        }
        Mode::Replay {
            log,
            next,
            departed,
        } => {
            let k = *next;
            *next += 1;
            if departed.is_some() {
                return Begin::Answered(0);
            }
            match log.get(k) {
                Some(e) if same_call(site, e, call) => {
                    signal::set(own_signals(site, e, call));
                    let result = match site.ref_result {
                        true => own_ref(site, e, call, e.result),
                        false => e.result,
                    };
                    Begin::Answered(result)
                }
                logged => {
                    *departed = Some(departure(k, site, logged, call));
                    Begin::Answered(0)
                }
            }
        }
    }
}

/// The ref `bits` of the `logged` call as the replaying side knows it: its
/// own argument where `bits` was one of the native side's ref arguments.
fn own_ref(site: &Site, logged: &Entry, call: &Entry, bits: u64) -> u64 {
    site.kinds
        .iter()
        .zip(logged.args.iter().zip(&call.args))
        .find(|&(&k, (&native, _))| k == Kind::Ref && native == bits && bits != 0)
        .map_or(bits, |(_, (_, &own))| own)
}

/// The `logged` call's signals as the replaying side knows them: a ref
/// exception through [`own_ref`].
fn own_signals(site: &Site, logged: &Entry, call: &Entry) -> Signals {
    let mut signals = logged.signals;
    if let Some(Raised::Value(Value::Ref(p))) = signals.exception {
        let own = own_ref(site, logged, call, p as u64) as usize;
        signals.exception = Some(Raised::Value(Value::Ref(own)));
    }
    signals
}

/// Whether `call` is the `logged` one: same site and function, same int
/// and float arguments (refs are not compared, see the module docs).
fn same_call(site: &Site, logged: &Entry, call: &Entry) -> bool {
    logged.site == call.site
        && logged.func == call.func
        && site
            .kinds
            .iter()
            .zip(logged.args.iter().zip(&call.args))
            .all(|(&k, (a, b))| k == Kind::Ref || a == b)
}

/// The report of residual call `k` departing from the log.
fn departure(k: usize, site: &Site, logged: Option<&Entry>, call: &Entry) -> String {
    let made = format!("{}({:?})", site.name, call.args);
    match logged {
        Some(e) => format!(
            "residual call {k} departs from the native run: native called {:#x} with {:?}, \
             the reference executor {made} at {:#x}",
            e.func, e.args, call.func
        ),
        None => format!(
            "the reference executor made residual call {k}, {made}, which native code did not make"
        ),
    }
}

/// The original arguments' bits, in `site.kinds` order, from the int and
/// float sequences.
fn original_args(site: &Site, ints: &[i64], floats: &[f64]) -> Vec<u64> {
    let (mut ni, mut nf) = (ints.iter(), floats.iter());
    site.kinds
        .iter()
        .map(|k| match k {
            Kind::Float => nf.next().map_or(0, |f| f.to_bits()),
            Kind::Int | Kind::Ref => ni.next().map_or(0, |&i| i as u64),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    extern "C" fn triple(x: i64) -> i64 {
        3 * x
    }

    /// Calls `triple(x)` through [`shim_int`] at `site`.
    fn through_shim(site: &Site, x: i64) -> i64 {
        let (s, f) = (site as *const Site as i64, triple as *const () as i64);
        // SAFETY: `site` is live and describes `triple`'s signature.
        unsafe {
            shim_int(
                s, f, x, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0., 0., 0., 0., 0., 0., 0., 0.,
            )
        }
    }

    fn site() -> Site {
        Site {
            name: "triple".into(),
            kinds: Box::new([Kind::Int]),
            float_result: false,
            ref_result: false,
        }
    }

    /// Raises its argument and returns it.
    extern "C" fn give_back(p: usize) -> usize {
        crate::runtime::raise(p);
        p
    }

    #[test]
    fn a_replayed_ref_that_was_an_argument_is_the_replaying_sides_argument() {
        let site = Site {
            name: "give_back".into(),
            kinds: Box::new([Kind::Ref]),
            float_result: false,
            ref_result: true,
        };
        let call = |p: usize| {
            let (s, f) = (&site as *const Site as i64, give_back as *const () as i64);
            // SAFETY: `site` is live and describes `give_back`'s signature.
            let r = unsafe {
                shim_int(
                    s, f, p as i64, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0., 0., 0., 0., 0., 0.,
                    0., 0.,
                )
            };
            (r, signal::take().exception)
        };
        signal::take();
        record();
        assert_eq!(
            call(0x1000),
            (0x1000, Some(Raised::Value(Value::Ref(0x1000))))
        );
        replay(recorded());
        // The same call on the other side, with its own object.
        assert_eq!(
            call(0x2000),
            (0x2000, Some(Raised::Value(Value::Ref(0x2000))))
        );
        assert_eq!(replayed(), Ok(()));
    }

    #[test]
    fn recorded_calls_are_replayed_without_calling() {
        let site = site();
        record();
        assert_eq!(through_shim(&site, 5), 15);
        let mut log = recorded();
        assert_eq!(log.len(), 1);
        assert_eq!((log[0].args.clone(), log[0].result), (vec![5], 15));
        log[0].result = 99; // a replayed call returns the record, not 15
        replay(log);
        assert_eq!(through_shim(&site, 5), 99);
        assert_eq!(replayed(), Ok(()));
        assert_eq!(through_shim(&site, 5), 15, "off: calls go through");
    }

    #[test]
    fn departures_from_the_record_are_reported() {
        let site = site();
        record();
        through_shim(&site, 5);
        let log = recorded();
        replay(log.clone());
        through_shim(&site, 6);
        let why = replayed().unwrap_err();
        assert!(
            why.contains("residual call 0 departs") && why.contains("[6]"),
            "{why}"
        );
        replay(log.clone());
        through_shim(&site, 5);
        through_shim(&site, 5);
        assert!(replayed().unwrap_err().contains("did not make"));
        replay(log);
        assert!(replayed().unwrap_err().contains("made 1 residual calls"));
    }
}
