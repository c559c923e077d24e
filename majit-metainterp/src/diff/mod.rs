//! Differential mode: the first entries of every compiled loop run both on
//! the driver's backend and on the reference executor, and the two exits
//! are compared (`MAJIT_DIFF=N`, [`JitParams::diff`](crate::params::JitParams::diff)).
//!
//! A shadow [`RefExec`] compiles every loop and bridge the backend
//! compiles (an id map relates the two), so both sides run the same code
//! with the same bridges attached. For a checked entry the driver forks
//! (`child.rs`): the child runs the shadow's copy of the loop on the heap as
//! it was before the entry, with its standard streams on `/dev/null`, and
//! sends back its dead frame (`wire.rs`); the parent runs the backend as
//! usual. Memory is mutated and output printed once, by the parent.
//!
//! The sides agree when they leave through the same exit (same trace, op
//! and fail descr) with the same values, and the memory the reference
//! execution stored to (outside the objects it allocated) holds the same
//! contents afterwards on both sides (`memory.rs`). Refs compare by
//! address, except refs to objects the reference execution allocated:
//! those match native refs by a consistent one-to-one renaming (the two
//! sides allocate from different allocators). Otherwise the driver stops with
//! [`JitError::Divergence`](crate::driver::JitError::Divergence) and a
//! [`Divergence`] report. When a collection may have
//! moved objects during the native run (the GC epoch changed), every ref
//! matches through that renaming and memory is not compared (the
//! reference's addresses of old objects are stale in the parent); such
//! checks are counted in [`Stats::diff_renamed`](crate::stats::Stats).
//! A check that cannot conclude (the child hung past the timeout or
//! crashed, the reference ran out of steps, the shadow could not compile a
//! trace, a collection ran during the reference execution) is counted in [`Stats::diff_inconclusive`](crate::stats::Stats) and its
//! reason printed once to stderr.
//!
//! After a bridge is attached, the loop whose entries reach it is checked
//! for another N entries.
//!
//! A checked entry is bounded: loop traces count down an iteration budget
//! after their label and leave at the merge point when it runs out
//! (`budget.rs`), so a long-running loop is checked in slices that the
//! reference executor finishes within its step limit.

pub(crate) mod budget;
mod child;
mod instrument;
mod memory;
mod report;
mod wire;

pub use budget::ENTRY_BUDGET;
pub use report::{Divergence, ExitSite, MemoryDiff, ValueDiff};

use crate::backend::{Backend, CodeId, DeadFrame, ExecError, ExitId};
use crate::compiled::Compiled;
use crate::refexec::RefExec;
use crate::runtime::record::{self, Site};
use crate::runtime::{Allocated, MallocAllocator};
use crate::stats::Stats;
use majit_ir::{Trace, Value};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;
use wire::RefOutcome;

/// Why a check is inconclusive when a collection ran during the
/// reference execution (its refs to the heap may be stale).
const MOVED: &str = "a collection may have moved objects during the reference execution";

/// How long the parent waits for the reference execution by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The driver's differential-mode state.
pub(crate) struct DiffState {
    shadow: RefExec,
    /// Objects the shadow allocated (meaningful in the child only).
    fresh: Allocated,
    /// Backend code id -> shadow code id.
    ids: BTreeMap<CodeId, CodeId>,
    /// Backend code id -> the loop whose entries reach it.
    root: BTreeMap<CodeId, CodeId>,
    /// Loop code id -> entries still to check.
    remaining: BTreeMap<CodeId, u32>,
    /// Loop code id -> entries checked so far.
    checked: BTreeMap<CodeId, u32>,
    /// Loops the shadow cannot mirror, and why.
    unchecked: BTreeMap<CodeId, String>,
    entries: u32,
    pub(crate) timeout: Duration,
    /// Inconclusive reasons already printed.
    reported: BTreeSet<String>,
    /// A counter that changes whenever a collection may have moved
    /// objects (see
    /// [`JitDriver::set_diff_gc_epoch`](crate::driver::JitDriver::set_diff_gc_epoch)).
    pub(crate) gc_epoch: Option<Box<dyn Fn() -> u64>>,
    /// The call sites of the instrumented traces (their addresses are
    /// constants in compiled code).
    sites: Vec<std::rc::Rc<Site>>,
    /// Why the trace [`DiffState::instrument`] last saw cannot be checked.
    unrecordable: Option<String>,
}

impl DiffState {
    /// Checks the first `entries` entries of every loop.
    pub(crate) fn new(entries: u32) -> DiffState {
        let fresh = Allocated::default();
        let alloc = MallocAllocator::recording(fresh.clone());
        let mut shadow = RefExec::with_allocator(Box::new(alloc));
        shadow.record_stores(true);
        DiffState {
            shadow,
            fresh,
            ids: BTreeMap::new(),
            root: BTreeMap::new(),
            remaining: BTreeMap::new(),
            checked: BTreeMap::new(),
            unchecked: BTreeMap::new(),
            entries,
            timeout: DEFAULT_TIMEOUT,
            reported: BTreeSet::new(),
            gc_epoch: None,
            sites: Vec::new(),
            unrecordable: None,
        }
    }

    /// The copy of `trace` that both sides compile: its residual calls
    /// with effects go through the recording shim (`instrument.rs`).
    pub(crate) fn instrument(&mut self, trace: &Trace) -> Trace {
        match instrument::instrument(trace) {
            Ok((rewritten, sites)) => {
                self.sites.extend(sites);
                self.unrecordable = None;
                rewritten
            }
            Err(why) => {
                self.unrecordable = Some(why);
                trace.clone()
            }
        }
    }

    /// The backend freed `code` (its tree was invalidated and is no longer
    /// reachable): the shadow frees its copy.
    pub(crate) fn freed(&mut self, code: CodeId) {
        if let Some(shadow) = self.ids.remove(&code) {
            self.shadow.free(shadow);
        }
        self.root.remove(&code);
        self.remaining.remove(&code);
        self.checked.remove(&code);
        self.unchecked.remove(&code);
    }

    /// The backend compiled `trace` as `code` (a loop, or a bridge of
    /// `bridge_of`): the shadow compiles it too.
    pub(crate) fn compiled(&mut self, code: CodeId, bridge_of: Option<ExitId>, trace: &Trace) {
        let (root, shadow) = match bridge_of {
            None => (code, self.shadow.compile_loop(trace)),
            Some(guard) => {
                let root = self.root.get(&guard.code).copied().unwrap_or(guard.code);
                let shadow = match self.ids.get(&guard.code) {
                    Some(&parent) => self.shadow.compile_bridge(
                        ExitId {
                            code: parent,
                            op_index: guard.op_index,
                        },
                        trace,
                    ),
                    None => Err(crate::backend::CompileError::UnknownTarget(
                        "the guard's trace has no shadow".into(),
                    )),
                };
                (root, shadow)
            }
        };
        self.root.insert(code, root);
        self.remaining.insert(root, self.entries);
        if let Some(why) = self.unrecordable.take() {
            self.unchecked.entry(root).or_insert(why);
        }
        match shadow {
            Ok(id) => {
                self.ids.insert(code, id);
            }
            Err(e) => {
                let what = bridge_of.map_or("loop", |_| "bridge");
                let why = format!("the reference executor cannot compile a {what}: {e}");
                self.unchecked.entry(root).or_insert(why);
            }
        }
    }

    /// Whether this entry of loop `code` is checked (counts it if so).
    pub(crate) fn due(&mut self, code: CodeId) -> bool {
        match self.remaining.get_mut(&code) {
            Some(n) if *n > 0 => {
                *n -= 1;
                *self.checked.entry(code).or_default() += 1;
                true
            }
            _ => false,
        }
    }

    /// Forks the reference execution of the shadow of loop `code`.
    fn spawn(&mut self, code: CodeId, inputs: &[Value]) -> Result<child::Child, String> {
        let shadow_code = *self
            .ids
            .get(&code)
            .ok_or("the loop has no shadow on the reference executor")?;
        let epoch = self.epoch();
        let (shadow, fresh, gc_epoch) = (&mut self.shadow, &self.fresh, &self.gc_epoch);
        child::spawn(|calls| {
            let Some(calls) = wire::decode_calls(&calls) else {
                return wire::encode(&RefOutcome::Inconclusive(
                    "the record of native calls is truncated".into(),
                ));
            };
            record::replay(calls);
            let result = shadow.execute(shadow_code, inputs);
            let replayed = record::replayed();
            let moved = gc_epoch.as_ref().map(|f| f()) != epoch;
            let outcome = match (result, replayed) {
                _ if moved => RefOutcome::Inconclusive(MOVED.into()),
                (Err(ExecError::StepLimit), _) => {
                    RefOutcome::Inconclusive("the reference executor reached its step limit".into())
                }
                (_, Err(departed)) => RefOutcome::Failed(departed),
                (Ok(df), Ok(())) => {
                    let objects = fresh.borrow();
                    let is_fresh = |v: &Value| v.as_ref().is_some_and(|p| objects.contains_key(&p));
                    RefOutcome::Frame {
                        exit: df.exit,
                        fail_id: fail_id(&df),
                        fresh: df.values.iter().map(is_fresh).collect(),
                        values: df.values,
                        written: memory::written(&shadow.stores(), fresh),
                    }
                }
                (Err(e), Ok(())) => RefOutcome::Failed(e.to_string()),
            };
            wire::encode(&outcome)
        })
    }

    /// The GC epoch now, if there is a counter.
    fn epoch(&self) -> Option<u64> {
        self.gc_epoch.as_ref().map(|f| f())
    }

    /// Counts and (once per reason) prints an inconclusive check.
    fn inconclusive(&mut self, stats: &RefCell<Stats>, why: String) {
        stats.borrow_mut().diff_inconclusive += 1;
        if self.reported.insert(why.clone()) {
            eprintln!("majit diff: inconclusive: {why}");
        }
    }
}

/// The fail-descr id of a dead frame's exit.
fn fail_id(df: &DeadFrame) -> Option<u32> {
    df.descr.as_ref().and_then(|d| d.as_fail()).map(|f| f.id)
}

/// How a checked loop entry failed.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The backend's execution failed.
    Exec(ExecError),
    /// The backend and the reference executor disagreed.
    Diverged(Box<Divergence>),
}

impl From<ExecError> for Failure {
    fn from(e: ExecError) -> Failure {
        Failure::Exec(e)
    }
}

impl DiffState {
    /// Runs loop `li` of `compiled` with `inputs` through `run` (the
    /// backend), checked against the reference executor: an entry
    /// [`DiffState::due`] said is checked (counted in `stats`), with the
    /// iteration `budget` armed; a divergence is an error. `stats` and
    /// `compiled` are borrowed only before and after the native run,
    /// during which a nested run of the interpreter may use them (it runs
    /// unchecked: the caller holds this state).
    pub(crate) fn check(
        &mut self,
        run: &mut dyn FnMut(&[Value]) -> Result<DeadFrame, ExecError>,
        (stats, compiled): (&RefCell<Stats>, &RefCell<Compiled>),
        budget: &budget::Budget,
        li: usize,
        inputs: &[Value],
    ) -> Result<DeadFrame, Failure> {
        let code = compiled.borrow().loops[li].code;
        stats.borrow_mut().diff_checks += 1;
        if let Some(why) = self.unchecked.get(&code).cloned() {
            self.inconclusive(stats, why);
            budget.arm(false);
            return Ok(run(inputs)?);
        }
        budget.arm(true);
        let child = self.spawn(code, inputs);
        let epoch = self.epoch();
        record::record();
        let native = run(inputs);
        let calls = record::recorded();
        let native = native?;
        let moved = self.epoch() != epoch;
        let outcome = child.and_then(|mut c| {
            c.send(&wire::encode_calls(&calls));
            c.wait(self.timeout)
        });
        let outcome = outcome.and_then(|bytes| {
            wire::decode(&bytes).ok_or_else(|| "the reference result is truncated".to_string())
        });
        let why = match outcome {
            Ok(RefOutcome::Inconclusive(why)) => why,
            Ok(reference) => {
                let entry = report::Entry { li, inputs, moved };
                let compiled = compiled.borrow();
                return match report::compare(self, &compiled, &entry, &native, reference) {
                    Some(d) => Err(Failure::Diverged(Box::new(d))),
                    None => {
                        stats.borrow_mut().diff_renamed += u64::from(moved);
                        Ok(native)
                    }
                };
            }
            Err(why) => why,
        };
        self.inconclusive(stats, why);
        Ok(native)
    }
}

impl DiffState {
    /// Backend code id of shadow code `id`.
    fn backend_code(&self, id: CodeId) -> Option<CodeId> {
        self.ids.iter().find(|&(_, &s)| s == id).map(|(&b, _)| b)
    }

    /// Entries of loop `code` checked so far.
    fn checked(&self, code: CodeId) -> u32 {
        self.checked.get(&code).copied().unwrap_or(0)
    }
}
