//! What a driver compiled: its loops and bridges, and what each exit of
//! their code means. The driver owns one [`Compiled`] and fills it
//! (`bridge.rs` registers the exits of each trace the backend accepted);
//! the `MAJIT_LOG` report ([`crate::log`]), the `MAJIT_STATS` summary
//! ([`crate::summary`]) and differential mode ([`crate::diff`]) read it.

use crate::backend::{CodeId, ExitId};
use crate::opt::ledger::Ledger;
use crate::opt::LoopLabel;
use crate::resume::{GuardResume, ResumeMap};
use crate::tracer::Snapshot;
use crate::warmstate::GreenKey;
use majit_ir::{Descr, Trace, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// One compiled loop (or loop entry that jumps into another loop).
#[derive(Clone, Debug)]
pub struct LoopInfo {
    pub key: GreenKey,
    pub code: CodeId,
    /// The label `jump`s to this loop name.
    pub target: Descr,
    /// The trace as compiled (after the optimizer), for logs and tests.
    pub trace: Trace,
    /// The trace as the tracer recorded it (before the optimizer).
    pub recorded: Trace,
    /// What the optimizer could not do (e.g. allocations it kept).
    pub ledger: Ledger,
    /// When the optimizer peeled the loop: its short preamble, which a
    /// bridge ending at this loop inlines to jump into the peeled body.
    pub short_preamble: Option<Trace>,
    /// The peeled labels a bridge ending at this loop may enter: the
    /// loop's own (when peeled), then those of its retraces.
    pub labels: Vec<LoopLabel>,
    /// The recorded guards' snapshots: a retrace copies the recorded body,
    /// and its guard copies resume as these do.
    pub guards: Vec<(u32, Snapshot)>,
    /// Differential mode's budget guard in the recorded trace, if any.
    pub budget: Option<u32>,
    /// Traced from a function's first merge point (an entry trace, which
    /// may end at the portal's return), not from a back edge. With a
    /// virtualizable frame an entry trace's inputs and label take the reds
    /// alone: it reads the frame's values itself, after its label.
    pub entry: bool,
    /// The number of values of the state it was traced from: the reds,
    /// then the virtualizable frame's values (a loop's label takes them
    /// all).
    pub values: usize,
    /// Retraces of this loop that did not compile (see
    /// `RETRACE_FAILURES` in the driver).
    pub retrace_failures: u32,
}

/// One compiled bridge.
#[derive(Clone, Debug)]
pub struct BridgeInfo {
    /// The guard it is attached to.
    pub guard: ExitId,
    pub code: CodeId,
    /// The trace as compiled (after the optimizer).
    pub trace: Trace,
    /// The trace as the tracer recorded it (before the optimizer).
    pub recorded: Trace,
    /// What the optimizer could not do (e.g. allocations it kept).
    pub ledger: Ledger,
}

/// What a guard of compiled code needs when it fails.
#[derive(Clone, Debug)]
pub struct GuardInfo {
    /// Shared with the guard's copies (unroll's) and with each failure in
    /// flight, which clones the exit.
    pub snapshot: Arc<Snapshot>,
    /// The optimizer's resume description (`None`: unoptimized trace, the
    /// dead frame holds the original fail args).
    pub resume: Option<Arc<GuardResume>>,
    /// Failures so far.
    pub failures: u32,
    /// For a `guard_value`: failures per failing value (bit pattern); a
    /// bridge is traced for a value that is hot by itself.
    pub value_failures: BTreeMap<u64, u32>,
    /// A bridge was traced from this guard (successfully or not).
    pub bridged: bool,
    /// Bridge traces from this guard that aborted; after one, the guard
    /// counts `threshold` more failures (of the hot value) before the
    /// next attempt, from `retry_at` on (see `JitDriver::rearm_guard`).
    pub aborted: u32,
    pub retry_at: u32,
}

impl GuardInfo {
    /// The value a `guard_value` tested when it failed with `values`.
    pub(crate) fn tested_value(&self, values: &[Value]) -> Option<Value> {
        self.snapshot
            .tested
            .and_then(|i| values.get(i as usize).copied())
    }

    /// The failures that decide when a bridge is traced: those of the
    /// failing value `tested` for a `guard_value`, else all of them.
    pub(crate) fn failures_of(&self, tested: Option<Value>) -> u32 {
        match tested {
            Some(v) => self.value_failures.get(&v.to_bits()).copied().unwrap_or(0),
            None => self.failures,
        }
    }
}

/// The failures of a guard that gets a bridge to a loop's start once hot
/// (see [`Exit::MergePoint`]).
#[derive(Clone, Debug)]
pub(crate) struct EntryFailures {
    /// The start label of the loop the bridge enters; `None`: the loop
    /// compiled at the guard's merge point by then (a loop-word guard).
    pub target: Option<Descr>,
    pub failures: u32,
    /// A bridge was compiled from this guard (or attempted).
    pub bridged: bool,
}

impl EntryFailures {
    /// No failures yet.
    pub(crate) fn new(target: Option<Descr>) -> EntryFailures {
        EntryFailures {
            target,
            failures: 0,
            bridged: false,
        }
    }
}

/// A guard of a trace that resumes at the merge point with `greens`, as
/// the trace registers it (see [`Exit::MergePoint`]).
#[derive(Clone, Debug)]
pub(crate) struct AtMerge {
    pub id: u32,
    pub greens: Vec<Value>,
    pub counted: Option<EntryFailures>,
}

/// What an exit of compiled code means.
#[derive(Clone, Debug)]
pub(crate) enum Exit {
    Guard(GuardInfo),
    /// A `finish` at a merge point with these greens; its values are reds.
    Finish(Vec<Value>),
    /// A `finish` at the portal's return (an entry trace or a bridge ended
    /// there): its values are the result (when `true`: the portal returns
    /// one), then the virtualizable frame and its values.
    Return(bool),
    /// A guard that resumes at the merge point with these greens: its
    /// original fail args are the reds (rebuilt through `resume` when
    /// optimized). Differential mode's budget guard (`diff/budget.rs`), a
    /// bridge's entry guards before it jumps into a peeled loop
    /// (`bridge.rs`) and the loop-word guard before a `finish` to a merge
    /// point (`loop_words.rs`) are such guards; the latter two count their
    /// failures (`Some`), to get a bridge to the loop's start once hot.
    MergePoint(Vec<Value>, Option<Arc<GuardResume>>, Option<EntryFailures>),
}

/// Everything a driver compiled, and its exits by fail-descr id.
#[derive(Debug, Default)]
pub struct Compiled {
    pub(crate) loops: Vec<LoopInfo>,
    pub(crate) bridges: Vec<BridgeInfo>,
    pub(crate) exits: BTreeMap<u32, Exit>,
}

impl Compiled {
    /// The compiled loops, in compilation order.
    pub fn loops(&self) -> &[LoopInfo] {
        &self.loops
    }

    /// The compiled bridges, in compilation order.
    pub fn bridges(&self) -> &[BridgeInfo] {
        &self.bridges
    }

    /// The guard whose fail descr has id `id`.
    pub fn guard(&self, id: u32) -> Option<&GuardInfo> {
        match self.exits.get(&id)? {
            Exit::Guard(g) => Some(g),
            Exit::Finish(_) | Exit::Return(_) | Exit::MergePoint(..) => None,
        }
    }

    /// Every guard with its fail-descr id, in id order.
    pub fn guards(&self) -> impl Iterator<Item = (u32, &GuardInfo)> {
        self.exits.iter().filter_map(|(&id, e)| match e {
            Exit::Guard(g) => Some((id, g)),
            Exit::Finish(_) | Exit::Return(_) | Exit::MergePoint(..) => None,
        })
    }

    /// Every compiled trace as compiled, loops first: its name (`loop N`,
    /// `bridge N`, indexes of [`Compiled::loops`] and [`Compiled::bridges`]),
    /// its code and its trace.
    pub fn traces(&self) -> impl Iterator<Item = (String, CodeId, &Trace)> {
        let loops = self.loops.iter().enumerate();
        let loops = loops.map(|(i, l)| (format!("loop {i}"), l.code, &l.trace));
        let bridges = self.bridges.iter().enumerate();
        loops.chain(bridges.map(|(i, b)| (format!("bridge {i}"), b.code, &b.trace)))
    }

    /// The name and trace of backend code `code`, if it is compiled here.
    pub fn trace_of(&self, code: CodeId) -> Option<(String, &Trace)> {
        self.traces()
            .find(|&(_, c, _)| c == code)
            .map(|(name, _, t)| (name, t))
    }

    /// Registers the exits of a compiled trace: its guards (`guards`, the
    /// recorded ones with their snapshots; with `resume` from the
    /// optimizer, each guard in it, with the snapshot of the guard it was
    /// copied from, `GuardResume::original`), its `finish`, if any, with
    /// its meaning (`Exit::Finish` or `Exit::Return`), and the guards
    /// resuming at a merge point (`at_merge`: a budget guard, a bridge's
    /// entry guards, a loop-word guard) and copies of them. `next_fail_id`
    /// stays above every id used.
    pub(crate) fn register_exits(
        &mut self,
        guards: Vec<(u32, Snapshot)>,
        resume: Option<ResumeMap>,
        finish: Option<(u32, Exit)>,
        at_merge: Vec<AtMerge>,
        next_fail_id: &std::cell::Cell<u32>,
    ) {
        let snapshots: BTreeMap<u32, Arc<Snapshot>> = guards
            .into_iter()
            .map(|(id, s)| (id, Arc::new(s)))
            .collect();
        let guard = |snapshot: Arc<Snapshot>, resume| {
            Exit::Guard(GuardInfo {
                snapshot,
                resume,
                failures: 0,
                value_failures: BTreeMap::new(),
                bridged: false,
                aborted: 0,
                retry_at: 0,
            })
        };
        let mut exits: Vec<(u32, Exit)> = Vec::new();
        match resume {
            None => {
                exits.extend(snapshots.into_iter().map(|(id, s)| (id, guard(s, None))));
                let merge = at_merge
                    .into_iter()
                    .map(|m| (m.id, Exit::MergePoint(m.greens, None, m.counted)));
                exits.extend(merge);
            }
            Some(resume) => {
                for (id, rd) in resume {
                    let rd = Arc::new(rd);
                    if let Some(m) = at_merge.iter().find(|m| m.id == rd.original) {
                        let (greens, counted) = (m.greens.clone(), m.counted.clone());
                        exits.push((id, Exit::MergePoint(greens, Some(rd), counted)));
                    } else if let Some(s) = snapshots.get(&rd.original) {
                        exits.push((id, guard(s.clone(), Some(rd))));
                    }
                }
            }
        }
        for (id, exit) in exits {
            next_fail_id.set(next_fail_id.get().max(id + 1));
            self.exits.insert(id, exit);
        }
        if let Some((id, exit)) = finish {
            self.exits.insert(id, exit);
        }
    }

    /// Counts a failure of the counted merge-point guard `id`; when it is
    /// hot and `may_compile`, marks it bridged and returns the start label
    /// of the loop its bridge goes to (`Some(None)`: the loop compiled at
    /// its merge point).
    pub(crate) fn count_entry_failure(
        &mut self,
        id: u32,
        threshold: u32,
        may_compile: bool,
    ) -> Option<Option<Descr>> {
        let Some(Exit::MergePoint(_, _, Some(e))) = self.exits.get_mut(&id) else {
            return None;
        };
        e.failures += 1;
        let hot = e.failures > threshold && !e.bridged && may_compile;
        e.bridged |= hot;
        hot.then(|| e.target.clone())
    }

    /// Guards with ids from `first` on (a retrace's copies of a loop's
    /// guards) whose original guard already has a bridge in some copy get
    /// theirs at their next failure: the path is known to be hot, the
    /// copy need not fail `threshold` more times in the blackhole first.
    pub(crate) fn inherit_hotness(&mut self, first: u32, threshold: u32) {
        let original = |g: &GuardInfo, id: u32| g.resume.as_ref().map_or(id, |r| r.original);
        let hot: std::collections::BTreeSet<u32> = self
            .guards()
            .filter(|(id, g)| *id < first && g.bridged)
            .map(|(id, g)| original(g, id))
            .collect();
        for (&id, exit) in self.exits.range_mut(first..) {
            if let Exit::Guard(g) = exit {
                if hot.contains(&original(g, id)) {
                    g.failures = g.failures.max(threshold);
                }
            }
        }
    }

    /// Forgets the exits of compiled trace `code` (its code was freed).
    pub(crate) fn forget_exits(&mut self, code: CodeId) {
        let Some((_, trace)) = self.trace_of(code) else {
            return;
        };
        let ids: Vec<u32> = trace
            .ops
            .iter()
            .filter_map(|op| Some(op.descr.as_ref()?.as_fail()?.id))
            .collect();
        for id in ids {
            self.exits.remove(&id);
        }
    }
}
