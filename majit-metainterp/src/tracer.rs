//! The tracer: runs jitcode on boxes and records a trace.
//!
//! A box ([`TBox`]) is a trace reference (an input, an op result or a
//! constant) plus the concrete value. Every instruction is executed for
//! real (loads, stores, allocations and calls happen) and recorded over the
//! references, so the trace is right for this execution by construction;
//! guards make it right for others. Pure ops and elidable calls whose
//! operands are all constants fold to constants and record nothing; so do
//! ops whose result the tracer already knows from earlier ops and guards
//! (`tracer/facts.rs`) or from its heap cache (`tracer/heap_cache.rs`,
//! which also records stores to fresh objects late, dropping overwritten
//! ones).
//!
//! Guards: a branch on a non-constant value records `guard_true`/
//! `guard_false` (`guard_nonnull`/`guard_isnull` for null tests), a switch
//! or promote records `guard_value` (and the promoted register becomes
//! that constant), an overflow-checked op records `guard_no_overflow` or
//! `guard_overflow`. Each guard gets a [`Snapshot`]: per frame, outermost
//! first, the jitcode, the pc of the `-live-` marker to resume at (for
//! callers: the marker after the call) and the live registers as fail-arg
//! slots or constants. The snapshot is taken *before* the guard's fact is
//! applied, so it describes the state at failure, and the blackhole
//! re-executes the branch with the real value.
//!
//! The trace ends at the outermost frame's merge point: a loop trace
//! closes with a `jump` to its own `label` when the greens equal the
//! starting ones, or jumps to another compiled loop when the greens have
//! one; other merge points are traced through. A bridge jumps to the first
//! compiled loop it meets, or ends in a `finish` that hands the state to
//! the interpreter when it meets a merge point for the second time. Greens are made constants at the merge
//! point (a `guard_value` for any that is not). A merge point of a portal
//! frame that is not the outermost is a call of the interpreted program,
//! which the tracer inlines or makes a residual call of the portal runner;
//! the outermost frame's return ends an entry trace or a bridge
//! (`tracer/portal.rs`). Tracing aborts (too long, the portal returned in
//! a loop traced from a back edge, a merge point in a callee that is no
//! portal frame) return the frames as they are, at an instruction
//! boundary, so the blackhole finishes the iteration and nothing is
//! executed twice.
//!
//! With a virtualizable frame (`vable.rs`) the loop's inputs are the reds
//! followed by the frame's virtualizable values (an entry trace takes the
//! reds alone and loads the values after its label); accesses to the
//! frame's listed fields and its array's items are box moves, every
//! snapshot lists the frame and those boxes (a box the frame holds is left
//! out), the closing `jump` or `finish` carries them (a return stores them
//! into the frame instead), and a call that may force the frame is
//! surrounded by their stores and reloads.
//!
//! A trace that outgrows `trace_limit` blames the inlined function that
//! recorded the most ops; calls of functions the driver marked
//! don't-inline are traced as residual calls (`tracer/blame.rs`).

mod blame;
mod exceptions;
mod facts;
mod fail_args;
mod heap_cache;
mod portal;
mod quasi;

pub use blame::{Blame, Inlinee};

use crate::blackhole::{array, bad_return, callee_frame, field, BhFrame, Outcome};
use crate::jitcode::eval::{self, ConcreteError};
use crate::jitcode::{bank_index, Insn, JOp, JitCode, JitCodeSet, LiveSet, Operand, RegOp};
use crate::portal::PortalCall;
use crate::runtime::Allocator;
use crate::stats::{AbortReason, Stats};
use crate::vable::VirtualizableInfo;
use crate::warmstate::GreenKey;
use facts::{Facts, Fold};
use fail_args::FailArgs;
use heap_cache::HeapCache;
use majit_ir::hash::{FastMap, FastSet};
use majit_ir::{
    ArrayDescr, CallDescr, CallEffect, Const, Descr, FailDescr, FieldDescr, Kind, Op, OpCode,
    OpRef, Trace, Value,
};
use quasi::QuasiState;
use smallvec::SmallVec;
use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::sync::Arc;

/// A traced value: its trace reference and its concrete value.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct TBox {
    pub r: OpRef,
    pub v: Value,
}

/// The constant of a concrete value.
pub fn const_of(v: Value) -> Const {
    match v {
        Value::Int(x) => Const::Int(x),
        Value::Ref(x) => Const::Ref(x),
        Value::Float(x) => Const::float(x),
    }
}

/// Where one live register's value comes from when a guard fails.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum SnapValue {
    /// Slot `i` of the guard's (original) fail args.
    Arg(u32),
    /// A constant.
    Const(Value),
}

impl SnapValue {
    /// The value, given the guard's original fail args.
    pub fn resolve(&self, fail_args: &[Value]) -> Value {
        match *self {
            SnapValue::Arg(i) => fail_args[i as usize],
            SnapValue::Const(v) => v,
        }
    }
}

/// One frame of a snapshot.
#[derive(Clone, Debug)]
pub struct SnapFrame {
    pub code: Arc<JitCode>,
    /// The `-live-` marker to resume at.
    pub pc: usize,
    /// Where this frame's result goes in its caller (inner frames).
    pub ret_dst: Option<RegOp>,
    /// The live registers' values, in the order of [`live_regs`].
    pub values: Vec<SnapValue>,
    /// A portal frame's entry greens in the trace (`TFrame::entry`): a
    /// bridge from the guard starts with them, so a call of the same
    /// function there is recursive as it was in the trace.
    pub entry: Option<GreenKey>,
}

/// The resume snapshot of one guard: frames, outermost first (shared with
/// the neighbouring guards' snapshots while a frame does not change).
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub frames: Vec<Arc<SnapFrame>>,
    /// For a `guard_value`: the fail-arg slot holding the tested value, so
    /// failures can be counted per value.
    pub tested: Option<u32>,
    /// With a virtualizable frame (`vable.rs`): the frame, then its
    /// virtualizable values, written back into it when the guard fails.
    /// `None` is a value the frame holds already (the trace loaded it, or
    /// stored it before a call, and has not replaced it since): no fail
    /// arg keeps it, nothing is written back, and a bridge loads it from
    /// the frame at its start.
    pub vable: Arc<[Option<SnapValue>]>,
    /// What a failure resumes.
    pub resume_at: ResumeAt,
}

/// What a guard's failure resumes (see [`Snapshot::resume_at`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ResumeAt {
    /// The instruction that recorded the guard (a branch, switch, promote,
    /// overflow check or class test), which runs again with the real
    /// value; a bridge knows the outcome of a boolean one.
    Insn,
    /// The `-live-` marker after a call that can raise
    /// (`guard_no_exception`, `guard_exception`), with the exception the
    /// dead frame holds, if any, delivered to the call's catch.
    AfterCall,
    /// Nothing: the `guard_exception` that starts a bridge from a
    /// `guard_no_exception` fails only when a helper panicked, which ends
    /// the run.
    Never,
}

/// The live registers of a frame resuming at `pc`, in bank order (ints,
/// refs, floats): those of the `-live-` marker there, without the register
/// a callee's result goes to (`callee_dst`), which the call writes.
pub fn live_regs(
    code: &JitCode,
    pc: usize,
    callee_dst: Option<RegOp>,
) -> impl Iterator<Item = RegOp> + '_ {
    code.live_at(pc)
        .into_iter()
        .flat_map(LiveSet::regs)
        .filter(move |&r| Some(r) != callee_dst)
}

/// A compiled loop a trace may jump to (`TraceEnv::loop_target`).
pub struct LoopTarget {
    /// Its label's descr.
    pub label: Descr,
    /// The number of values at its merge point: the reds, then the
    /// virtualizable values it was traced with (an entry trace's label
    /// takes the reds alone).
    pub values: usize,
    /// An entry trace's label (see `vable_store`).
    pub entry: bool,
}

/// The virtualizable frame's box and its virtualizable values' boxes
/// (`vable.rs`).
pub type VableBoxes = (TBox, Vec<TBox>);

/// A frame of the last snapshot, for the next guard's snapshot to share
/// while the tracer frame at its depth shows the same boxes at the same
/// place. Fail args are numbered outermost frame first, so a frame below
/// only shared frames numbers its values the same again.
struct SnapCache {
    frame: Arc<SnapFrame>,
    callee_dst: Option<RegOp>,
    boxes: Vec<OpRef>,
    /// The length of the fail args after this frame's (in `snap_args`).
    end: usize,
}

/// One tracer frame.
#[derive(Clone, Debug)]
struct TFrame {
    code: Arc<JitCode>,
    pc: usize,
    regs: [Vec<TBox>; 3],
    ret_dst: Option<RegOp>,
    /// The last `-live-` marker passed: where a guard here resumes.
    live_pc: usize,
    /// For a portal frame: the greens of the first merge point it met in
    /// this trace (for the outermost frame of a loop trace, the trace's
    /// start), which decide whether calls of the interpreted program are
    /// recursive (`tracer/portal.rs`).
    entry: Option<GreenKey>,
    /// The trace's length when `entry` was set (a too-long trace blames
    /// the biggest inlined callee, `tracer/blame.rs`).
    entered_at: usize,
    /// For a frame a bridge starts in: its `entry` in the guard's trace,
    /// which counts for recursion (`tracer/portal.rs`); the frame still
    /// decides at its first merge point in the bridge.
    traced_entry: Option<GreenKey>,
}

impl TFrame {
    /// The greens that name this portal frame's function for recursion:
    /// its entry in the guard's trace for a frame a bridge starts in, else
    /// its entry here.
    fn function(&self) -> Option<&GreenKey> {
        self.traced_entry.as_ref().or(self.entry.as_ref())
    }
}

/// The `getfield_gc_*` of a field of `kind`.
pub(crate) fn getfield_opcode(kind: Kind) -> OpCode {
    [
        OpCode::GetfieldGcI,
        OpCode::GetfieldGcR,
        OpCode::GetfieldGcF,
    ][bank_index(kind)]
}

/// The `getarrayitem_gc_*` of an array of items of `kind`.
pub(crate) fn getarrayitem_opcode(kind: Kind) -> OpCode {
    [
        OpCode::GetarrayitemGcI,
        OpCode::GetarrayitemGcR,
        OpCode::GetarrayitemGcF,
    ][bank_index(kind)]
}

/// What the trace is for.
#[derive(Clone, Debug)]
pub enum TraceKind {
    /// A loop starting at the merge point with these greens; its label
    /// gets `target`. An `entry` trace starts at a function's first merge
    /// point: it ends with a `finish` at the portal's return, or at a merge
    /// point met for the second time, as a bridge does. A loop trace's
    /// `last_attempt` (the attempts before it aborted, e.g. because the
    /// traced iterations kept being the loop's last) also ends with a
    /// `finish` at the portal's return, and goes on through other loops'
    /// back edges (which abort the earlier attempts: `AbortReason::LoopLeft`).
    Loop {
        start: GreenKey,
        target: Descr,
        entry: bool,
        last_attempt: bool,
    },
    /// A bridge from a guard.
    Bridge,
}

/// How tracing ended.
#[derive(Debug)]
pub enum TraceEnd {
    /// A complete trace; the interpreter state is now at the merge point
    /// with `greens` and `reds`.
    Done(Box<Finished>),
    /// Tracing gave up. `frames` (outermost first) continue in the
    /// blackhole; when they are empty the program ended as `ended` says
    /// (returned or raised). A too-long trace may blame an inlined
    /// function (`blamed`) or, `callee`, the outermost inlined call of the
    /// interpreted program (the greens at which it started: the driver
    /// stops inlining it).
    Aborted {
        reason: AbortReason,
        frames: Vec<BhFrame>,
        ended: Option<Outcome>,
        blamed: Option<Blame>,
        callee: Option<Box<GreenKey>>,
    },
}

/// A complete trace and where it left the interpreter.
#[derive(Clone, Debug)]
pub struct Finished {
    pub trace: Trace,
    /// The guards recorded, by fail-descr id, with their snapshots.
    pub guards: Vec<(u32, Snapshot)>,
    /// When the trace ends in `finish`: its fail-descr id.
    pub finish: Option<u32>,
    /// When that `finish` is the portal's return: the result (`greens` and
    /// `reds` are then empty).
    pub returned: Option<Option<Value>>,
    /// When the trace ends in a jump to another loop: that loop's greens.
    pub jumped_to: Option<GreenKey>,
    /// Differential mode's budget guard after the label (`diff/budget.rs`):
    /// its fail-descr id and the greens of the merge point it resumes at.
    pub budget: Option<(u32, Vec<Value>)>,
    /// When the trace ends in a `finish` to a merge point: the fail-descr
    /// id of the guard on its loop word before it (`loop_words.rs`).
    pub loop_word_guard: Option<u32>,
    /// The state at the merge point the trace ended at.
    pub greens: Vec<Value>,
    pub reds: Vec<Value>,
    /// The validity word its folded quasi-immutable reads depend on.
    pub validity: std::rc::Rc<crate::quasi::Validity>,
}

/// What the tracer needs from its driver.
pub struct TraceEnv<'a> {
    pub codes: &'a JitCodeSet,
    pub alloc: &'a mut dyn Allocator,
    pub trace_limit: usize,
    /// The next free fail-descr id (advanced by each guard and finish).
    pub next_fail_id: &'a Cell<u32>,
    /// The compiled loop at a green key, if there is one.
    pub loop_target: &'a dyn Fn(&GreenKey) -> Option<LoopTarget>,
    /// The address of the loop word of a green key (`loop_words.rs`).
    pub loop_word: &'a dyn Fn(&GreenKey) -> usize,
    /// The virtualizable frame's description, if the driver has one.
    pub vable: Option<&'a VirtualizableInfo>,
    /// The functions whose calls are traced as residual calls.
    pub dont_inline: &'a BTreeSet<Inlinee>,
    /// Differential mode: the address of the iteration budget word a loop
    /// trace counts down after its label (`diff/budget.rs`).
    pub budget_word: Option<usize>,
    /// The portal, for calls of the interpreted program (`portal.rs`).
    pub portal: PortalCall,
    /// Whether the call of the interpreted program starting at a green
    /// key is not to be inlined.
    pub dont_inline_callee: &'a dyn Fn(&GreenKey) -> bool,
    /// The token naming the call target at a green key
    /// (`call_assembler_*`, `crate::callasm`).
    pub call_target: &'a dyn Fn(&GreenKey) -> i64,
    /// Where the calls of the interpreted program met are counted.
    pub stats: &'a RefCell<Stats>,
    /// The validity word of the trace being recorded: its folded reads of
    /// quasi-immutable fields depend on it ([`crate::quasi`]).
    pub validity: &'a std::rc::Rc<crate::quasi::Validity>,
}

/// The tracer. Build with [`Tracer::for_loop`] or [`Tracer::for_bridge`],
/// then [`Tracer::run`].
pub struct Tracer<'a> {
    env: TraceEnv<'a>,
    kind: TraceKind,
    trace: Trace,
    frames: Vec<TFrame>,
    guards: Vec<(u32, Snapshot)>,
    /// The last snapshot's frames and their fail args (`snapshot`).
    snap_cache: Vec<SnapCache>,
    snap_args: Vec<OpRef>,
    /// The last snapshot's virtualizable list, and a buffer to build the
    /// next one in.
    snap_vable: (Arc<[Option<SnapValue>]>, Vec<Option<SnapValue>>),
    /// The fail args being gathered (`snapshot`).
    fail_args: FailArgs,
    started: bool,
    /// Merge points passed without closing (a bridge that meets one again
    /// ends there with a `finish`).
    passed: Vec<GreenKey>,
    heap: HeapCache,
    facts: Facts,
    /// The trace's constants seen so far (interning through this map is
    /// cheaper than through the trace's own).
    consts: FastMap<Const, OpRef>,
    /// A bridge re-executes the branch whose guard failed; its outcome is
    /// known (the bridge only runs when that guard fails), so the first
    /// instruction, if a boolean branch or overflow check, records no
    /// guard.
    known_outcome: bool,
    /// The budget guard recorded after the label, if any.
    budget: Option<(u32, Vec<Value>)>,
    /// The virtualizable frame's box and its virtualizable values' boxes.
    vable: Option<VableBoxes>,
    /// Per virtualizable value, the box its place in the frame is known
    /// to hold (loaded from it or stored to it by this trace; nothing else
    /// writes it, see `vable_store`). Empty when unknown (a bridge).
    vable_memory: Vec<Option<OpRef>>,
    /// The ops recorded per inlined function, for a too-long trace's blame.
    sizes: blame::CallSizes,
    quasi: QuasiState,
    /// A bridge from a failed `guard_no_exception`: the exception to
    /// deliver before the first instruction.
    pending: Option<TBox>,
    /// The index of the first frame a call in this trace pushed (1 for a
    /// loop; a bridge's resumed frames come before).
    first_call: usize,
}

enum Step {
    Next,
    End(TraceEnd),
}

impl<'a> Tracer<'a> {
    fn blank_frame(&mut self, code: Arc<JitCode>, pc: usize) -> TFrame {
        let mut regs: [Vec<TBox>; 3] = Default::default();
        for (kind, zero) in [
            (Kind::Int, Value::Int(0)),
            (Kind::Ref, Value::Ref(0)),
            (Kind::Float, Value::Float(0.0)),
        ] {
            let r = self.const_ref(const_of(zero));
            regs[bank_index(kind)] = vec![TBox { r, v: zero }; code.regs_of(kind)];
        }
        TFrame {
            code,
            pc,
            regs,
            ret_dst: None,
            live_pc: pc,
            entry: None,
            entered_at: 0,
            traced_entry: None,
        }
    }

    /// A tracer for a loop starting at the portal's merge point `mp_pc`
    /// with `greens` (constants) and `reds` (the trace's inputs); `entry`:
    /// an entry trace, `last_attempt`: the last attempt at the loop (see
    /// [`TraceKind::Loop`]).
    pub fn for_loop(
        env: TraceEnv<'a>,
        portal: Arc<JitCode>,
        mp_pc: usize,
        greens: &[Value],
        reds: &[Value],
        (target, entry, last_attempt): (Descr, bool, bool),
    ) -> Result<Tracer<'a>, ConcreteError> {
        let mut inputs = reds.to_vec();
        if let (Some(info), false) = (env.vable, entry) {
            let frame = reds[info.red()].as_ref().unwrap_or(0);
            inputs.extend(info.read(frame)?);
        }
        let kinds: Vec<Kind> = inputs.iter().map(|v| v.kind()).collect();
        let mut t = Tracer {
            env,
            kind: TraceKind::Loop {
                start: GreenKey::new(greens),
                target,
                entry,
                last_attempt,
            },
            trace: Trace::new(&kinds),
            frames: Vec::new(),
            guards: Vec::new(),
            snap_cache: Vec::new(),
            snap_args: Vec::new(),
            snap_vable: (Arc::from([]), Vec::new()),
            fail_args: FailArgs::default(),
            started: false,
            passed: Vec::new(),
            heap: HeapCache::default(),
            facts: Facts::default(),
            consts: FastMap::default(),
            known_outcome: false,
            budget: None,
            vable: None,
            vable_memory: Vec::new(),
            sizes: blame::CallSizes::default(),
            quasi: QuasiState::default(),
            pending: None,
            first_call: 1,
        };
        let mut frame = t.blank_frame(portal, mp_pc);
        frame.entry = Some(GreenKey::new(greens));
        let insn = frame.code.decode(mp_pc);
        for (&reg, &v) in insn.list(0).iter().zip(greens) {
            let r = t.trace.add_const(const_of(v));
            frame.regs[bank_index(reg.kind)][reg.index as usize] = TBox { r, v };
        }
        for (i, (&reg, &v)) in insn.list(1).iter().zip(reds).enumerate() {
            frame.regs[bank_index(reg.kind)][reg.index as usize] = TBox {
                r: OpRef::input(i),
                v,
            };
        }
        t.frames.push(frame);
        if let Some(info) = t.env.vable {
            let frame = TBox {
                r: OpRef::input(info.red()),
                v: reds[info.red()],
            };
            // An entry trace reads the frame itself, after its label, so a
            // call (`call_assembler`) or a jump enters it with the reds
            // alone (`merge_point`).
            let boxes = if entry {
                Vec::new()
            } else {
                (reds.len()..inputs.len())
                    .map(|i| TBox {
                        r: OpRef::input(i),
                        v: inputs[i],
                    })
                    .collect()
            };
            t.vable = Some((frame, boxes));
        }
        Ok(t)
    }

    /// A tracer for a bridge: `frames` were rebuilt from the snapshot of a
    /// guard resuming at `resume_at`, each register holding an input of
    /// the bridge, a constant, or a value the caller already recorded into
    /// `trace`; `vable` holds the frame's and its virtualizable values'
    /// boxes, and per value the box the frame holds (those the trace
    /// loaded from it). `exception`: the guard left one pending, which `trace`
    /// already took (a `guard_exception` with that fail id, then the
    /// box's `save_exception_*`); it is delivered first.
    pub fn for_bridge(
        env: TraceEnv<'a>,
        trace: Trace,
        frames: Vec<BridgeFrame>,
        vable: Option<(VableBoxes, Vec<Option<OpRef>>)>,
        resume_at: ResumeAt,
        exception: Option<(u32, TBox)>,
    ) -> Tracer<'a> {
        let codes = frames.iter().map(|f| &f.code);
        let sizes = blame::CallSizes::open_at(env.codes, codes, trace.ops.len());
        let mut t = Tracer {
            env,
            kind: TraceKind::Bridge,
            trace,
            frames: Vec::new(),
            guards: Vec::new(),
            snap_cache: Vec::new(),
            snap_args: Vec::new(),
            snap_vable: (Arc::from([]), Vec::new()),
            fail_args: FailArgs::default(),
            started: true,
            passed: Vec::new(),
            heap: HeapCache::default(),
            facts: Facts::default(),
            consts: FastMap::default(),
            known_outcome: resume_at == ResumeAt::Insn,
            budget: None,
            vable_memory: vable.as_ref().map_or(Vec::new(), |v| v.1.clone()),
            vable: vable.map(|v| v.0),
            sizes,
            quasi: QuasiState::default(),
            pending: None,
            first_call: frames.len(),
        };
        if let Some((id, e)) = exception {
            t.guards.push((id, exceptions::panic_only_snapshot()));
            t.pending = Some(e);
        }
        for bf in frames {
            let mut f = t.blank_frame(bf.code, bf.pc);
            f.ret_dst = bf.ret_dst;
            f.traced_entry = bf.entry;
            for (reg, b) in bf.regs {
                f.regs[bank_index(reg.kind)][reg.index as usize] = b;
            }
            t.frames.push(f);
        }
        t
    }

    /// Runs until the trace is complete or tracing aborts.
    pub fn run(mut self) -> Result<TraceEnd, ConcreteError> {
        if let Some(Step::End(end)) = self.raise_pending()? {
            return Ok(end);
        }
        let mut code = self
            .frames
            .last()
            .expect("the tracer has a frame")
            .code
            .clone();
        loop {
            let top = self.frames.last().expect("the tracer has a frame");
            // Another frame's code only after a call or return.
            if !Arc::ptr_eq(&code, &top.code) {
                code = top.code.clone();
            }
            let pc = top.pc;
            if let Step::End(end) = self.step(code.insn(pc))? {
                return Ok(end);
            }
            if self.trace.ops.len() > self.env.trace_limit {
                return Ok(self.too_long());
            }
        }
    }

    /// The blackhole frames equivalent to the current tracer frames.
    fn abort(&self, reason: AbortReason, ended: Option<Outcome>) -> TraceEnd {
        let frames = self
            .frames
            .iter()
            .map(|f| {
                let mut b = BhFrame::new(f.code.clone(), f.pc);
                b.ret_dst = f.ret_dst;
                for (k, kind) in [Kind::Int, Kind::Ref, Kind::Float].into_iter().enumerate() {
                    for (i, tb) in f.regs[k].iter().enumerate() {
                        b.set(
                            RegOp {
                                kind,
                                index: i as u16,
                            },
                            tb.v,
                        );
                    }
                }
                b
            })
            .collect();
        TraceEnd::Aborted {
            reason,
            frames,
            ended,
            blamed: None,
            callee: None,
        }
    }

    fn top(&mut self) -> &mut TFrame {
        self.frames.last_mut().expect("the tracer has a frame")
    }

    /// The box of operand `r` of the top frame.
    fn get(&mut self, r: RegOp) -> TBox {
        let top = self.frames.last().expect("the tracer has a frame");
        if top.code.is_const(r) {
            return self.konst(top.code.const_value(r));
        }
        top.regs[bank_index(r.kind)][r.index as usize]
    }

    /// The trace's reference to constant `c`.
    fn const_ref(&mut self, c: Const) -> OpRef {
        if let Some(&r) = self.consts.get(&c) {
            return r;
        }
        let r = self.trace.add_const(c);
        self.consts.insert(c, r);
        r
    }

    fn set(&mut self, r: RegOp, b: TBox) {
        self.top().regs[bank_index(r.kind)][r.index as usize] = b;
    }

    fn konst(&mut self, v: Value) -> TBox {
        TBox {
            r: self.const_ref(const_of(v)),
            v,
        }
    }

    fn descr(&self, insn: &Insn, i: usize) -> Descr {
        let f = self.frames.last().expect("the tracer has a frame");
        f.code.descrs[insn.descr(i)].clone()
    }

    /// The snapshot of the current frames, and the guard's fail args.
    fn snapshot(&mut self) -> (Snapshot, Vec<OpRef>) {
        let mut fail_args = std::mem::take(&mut self.fail_args);
        fail_args.begin();
        let mut frames = Vec::with_capacity(self.frames.len());
        let mut cache = std::mem::take(&mut self.snap_cache);
        let mut shared = true;
        for k in 0..self.frames.len() {
            let f = &self.frames[k];
            let pc = if k + 1 == self.frames.len() {
                f.live_pc
            } else {
                f.pc
            };
            let callee_dst = self.frames.get(k + 1).and_then(|c| c.ret_dst);
            // Sized like the frame's previous snapshot: live sets change
            // little from one guard to the next.
            let live = cache.get(k).map_or(0, |c| c.boxes.len());
            let regs = || {
                live_regs(&f.code, pc, callee_dst)
                    .map(|r| f.regs[bank_index(r.kind)][r.index as usize])
            };
            if shared {
                if let Some(c) = cache.get(k) {
                    let same = Arc::ptr_eq(&c.frame.code, &f.code)
                        && (c.frame.pc, c.frame.ret_dst, c.callee_dst)
                            == (pc, f.ret_dst, callee_dst)
                        && c.frame.entry.as_ref() == f.function()
                        && regs().map(|b| b.r).eq(c.boxes.iter().copied());
                    if same {
                        let start = if k == 0 { 0 } else { cache[k - 1].end };
                        fail_args.extend(&self.snap_args[start..c.end]);
                        frames.push(c.frame.clone());
                        continue;
                    }
                }
                shared = false;
                cache.truncate(k);
            }
            let mut boxes = Vec::with_capacity(live);
            let mut values = Vec::with_capacity(live);
            values.extend(regs().map(|b| {
                boxes.push(b.r);
                fail_args.value(b)
            }));
            let frame = Arc::new(SnapFrame {
                code: f.code.clone(),
                pc,
                ret_dst: f.ret_dst,
                values,
                entry: f.function().cloned(),
            });
            cache.push(SnapCache {
                frame: frame.clone(),
                callee_dst,
                boxes,
                end: fail_args.args().len(),
            });
            frames.push(frame);
        }
        if !shared {
            self.snap_args.clear();
            self.snap_args.extend_from_slice(fail_args.args());
        }
        self.snap_cache = cache;
        let mut vable = std::mem::take(&mut self.snap_vable.1);
        vable.clear();
        if let Some((frame, boxes)) = &self.vable {
            vable.push(Some(fail_args.value(*frame)));
            let memory = &self.vable_memory;
            // A value the frame holds is left out of the fail args, unless
            // a register holds its box too: then the bridge must rebuild
            // one box for both, or a store through the register (the
            // frame's array, loaded before a call) would not be a store
            // to the frame (and the value the bridge loads would go stale).
            vable.extend(boxes.iter().enumerate().map(|(k, b)| {
                match memory.get(k) == Some(&Some(b.r)) {
                    true => fail_args.slot_of(b.r),
                    false => Some(fail_args.value(*b)),
                }
            }));
        }
        // Consecutive guards mostly see the same frame: they share its list.
        if *self.snap_vable.0 != *vable {
            self.snap_vable.0 = Arc::from(&vable[..]);
        }
        self.snap_vable.1 = vable;
        let vable = self.snap_vable.0.clone();
        let args = fail_args.args().to_vec();
        self.fail_args = fail_args;
        (
            Snapshot {
                frames,
                tested: None,
                vable,
                resume_at: ResumeAt::Insn,
            },
            args,
        )
    }

    /// A fresh fail descr; `returns` for the `finish` of a portal return.
    fn fail_descr(&mut self, returns: bool) -> (u32, Descr) {
        let id = self.env.next_fail_id.get();
        self.env.next_fail_id.set(id + 1);
        (
            id,
            FailDescr {
                name: format!("g{id}"),
                id,
                returns,
            }
            .into(),
        )
    }

    /// Records a guard with a snapshot of the current state.
    fn guard(&mut self, opcode: OpCode, args: &[OpRef]) {
        self.flush_stores(None);
        let (mut snap, fail_args) = self.snapshot();
        if opcode == OpCode::GuardValue {
            snap.tested = fail_args
                .iter()
                .position(|&a| a == args[0])
                .map(|i| i as u32);
        }
        let (id, descr) = self.fail_descr(false);
        let mut op = Op::new(opcode, args).with_descr(descr);
        op.fail_args = Some(fail_args);
        self.trace.push(op);
        self.guards.push((id, snap));
    }

    /// Makes `b` a constant behind a `guard_value`, in every frame.
    fn promote(&mut self, b: TBox) -> TBox {
        if b.r.is_const() {
            return b;
        }
        let c = self.konst(b.v);
        self.guard(OpCode::GuardValue, &[b.r, c.r]);
        self.fix(b.r, c.r);
        c
    }

    /// Box `r` is constant `c` from here on (a guard passed): in every
    /// frame and in the facts.
    fn fix(&mut self, r: OpRef, c: OpRef) {
        let v = self
            .trace
            .get_const(c)
            .expect("a box is fixed to a constant")
            .value();
        self.facts.set_known(r, c);
        let regs = self
            .frames
            .iter_mut()
            .flat_map(|f| f.regs.iter_mut().flatten());
        let vable = self
            .vable
            .iter_mut()
            .flat_map(|(frame, boxes)| std::iter::once(frame).chain(boxes));
        for x in regs.chain(vable).filter(|x| x.r == r) {
            *x = TBox { r: c, v };
        }
        for m in self.vable_memory.iter_mut().filter(|m| **m == Some(r)) {
            *m = Some(c);
        }
    }

    /// A boolean guard on `c` passed (or its outcome is known): what
    /// follows from it.
    fn learn_truth(&mut self, c: OpRef, truth: bool) {
        for (r, k) in self.facts.learn_truth(&mut self.trace, c, truth) {
            self.fix(r, k);
        }
    }

    fn record(&mut self, op: Op, v: Value) -> TBox {
        TBox {
            r: self.trace.push(op),
            v,
        }
    }

    /// Allocates with the frames' ref registers as roots, whose concrete
    /// refs a moving collection updates (the heap cache is not a root: see
    /// [`HeapCache`]).
    fn allocate(
        &mut self,
        make: impl FnOnce(
            &mut dyn Allocator,
            &mut [usize],
        ) -> Result<usize, crate::runtime::OutOfMemory>,
    ) -> Result<usize, ConcreteError> {
        let mut roots: Vec<usize> = self
            .ref_boxes()
            .map(|b| b.v.as_ref().unwrap_or(0))
            .collect();
        let obj = make(self.env.alloc, &mut roots).map_err(|_| ConcreteError::OutOfMemory)?;
        for (b, p) in self.ref_boxes().zip(roots) {
            b.v = Value::Ref(p);
        }
        Ok(obj)
    }

    /// The boxes of kind ref the tracer holds (the heap cache is no root),
    /// in a fixed order.
    fn ref_boxes(&mut self) -> impl Iterator<Item = &mut TBox> {
        let regs = self.frames.iter_mut().flat_map(|f| f.regs[1].iter_mut());
        let vable = self
            .vable
            .iter_mut()
            .flat_map(|(frame, boxes)| std::iter::once(frame).chain(boxes));
        regs.chain(vable).filter(|b| matches!(b.v, Value::Ref(_)))
    }

    fn step(&mut self, insn: &Insn) -> Result<Step, ConcreteError> {
        let known = self.known_outcome && insn.op != JOp::Live;
        if known {
            self.known_outcome = false;
        }
        let mut next = insn.next;
        let result = match insn.op {
            JOp::Live => {
                self.top().live_pc = insn.pc;
                None
            }
            JOp::CanEnterJit => {
                if let Some(end) = self.loop_in_callee().or_else(|| self.loop_left(insn)) {
                    return Ok(Step::End(end));
                }
                None
            }
            JOp::Goto => {
                next = insn.label(0);
                None
            }
            JOp::GotoIfNot
            | JOp::GotoIfNull
            | JOp::Switch
            | JOp::PromoteI
            | JOp::PromoteR
            | JOp::PromoteF => {
                if let Some(target) = self.branch(insn, known) {
                    next = target;
                }
                None
            }
            JOp::Pure => Some(self.pure(insn)),
            JOp::Ovf => {
                let (b, overflow) = self.ovf(insn, known);
                if overflow {
                    next = insn.label(1);
                }
                Some(b)
            }
            JOp::CopyI | JOp::CopyR | JOp::CopyF => Some(self.get(insn.reg(0))),
            // What is traced runs as compiled code: jitted, a constant.
            JOp::WeAreJitted => Some(self.konst(Value::Int(1))),
            JOp::GetfieldI | JOp::GetfieldR | JOp::GetfieldF => Some(self.getfield(insn)?),
            JOp::GetarrayitemI | JOp::GetarrayitemR | JOp::GetarrayitemF => {
                Some(self.getarrayitem(insn)?)
            }
            JOp::SetfieldI | JOp::SetfieldR | JOp::SetfieldF => {
                if self.replaces_vable_array(insn) {
                    // Before the store: the blackhole makes it.
                    return Ok(Step::End(self.abort(AbortReason::ArrayReplaced, None)));
                }
                self.setfield(insn)?;
                None
            }
            JOp::SetarrayitemI | JOp::SetarrayitemR | JOp::SetarrayitemF => {
                self.setarrayitem(insn)?;
                None
            }
            JOp::Arraylen | JOp::New | JOp::NewArray => Some(self.alloc_or_len(insn)?),
            JOp::GuardClass => Some(self.guard_class(insn)?),
            JOp::CallI | JOp::CallR | JOp::CallF | JOp::CallV => return self.call(insn),
            // Reached only when nothing was raised.
            JOp::Catch | JOp::CatchI | JOp::CatchR => None,
            JOp::RaiseI | JOp::RaiseR => return self.raise(insn),
            JOp::InlineCallI | JOp::InlineCallR | JOp::InlineCallF | JOp::InlineCallV => {
                return self.enter(insn);
            }
            JOp::ReturnI | JOp::ReturnR | JOp::ReturnF | JOp::ReturnV => return self.leave(insn),
            JOp::MergePoint => return self.merge_point(insn),
        };
        if let (Some(dst), Some(b)) = (insn.dst, result) {
            self.set(dst, b);
        }
        self.top().pc = next;
        Ok(Step::Next)
    }

    /// `pure`: folded when every operand is constant or the result is
    /// known (see [`Facts::fold_pure`]), else recorded.
    fn pure(&mut self, insn: &Insn) -> TBox {
        // Pure ops take at most three operands: no heap allocation.
        let args: SmallVec<[TBox; 3]> = insn.operands[1..]
            .iter()
            .filter_map(|o| match o {
                Operand::Reg(r) => Some(*r),
                _ => None,
            })
            .map(|r| self.get(r))
            .collect();
        let vals: SmallVec<[Value; 3]> = args.iter().map(|b| b.v).collect();
        let code = insn.ir_op();
        let v = eval::pure(code, &vals);
        if args.iter().all(|b| b.r.is_const()) {
            return self.konst(v);
        }
        let refs: SmallVec<[OpRef; 3]> = args.iter().map(|b| b.r).collect();
        match self.facts.fold_pure(&self.trace, code, &refs) {
            Some(Fold::Int(k)) => {
                debug_assert_eq!(v, Value::Int(k), "trace-time fold of {code:?} is wrong");
                self.konst(v)
            }
            Some(Fold::Same(r)) => TBox { r, v },
            None => {
                let b = self.record(Op::new(code, &refs), v);
                self.facts.remember_pure(code, &refs, b.r);
                b
            }
        }
    }

    /// `ovf`: the op plus `guard_no_overflow`/`guard_overflow` (or the
    /// wrapping op when the outcome is known); also whether it overflowed.
    fn ovf(&mut self, insn: &Insn, known: bool) -> (TBox, bool) {
        let (a, b) = (self.get(insn.reg(2)), self.get(insn.reg(3)));
        let (x, y) = (a.v.as_int().unwrap_or(0), b.v.as_int().unwrap_or(0));
        let (v, overflow) = eval::ovf(insn.ir_op(), x, y);
        let cached = self.facts.fold_ovf(insn.ir_op(), a.r, b.r);
        let b = if a.r.is_const() && b.r.is_const() {
            self.konst(Value::Int(v))
        } else if let Some(r) = cached {
            debug_assert!(!overflow, "a repeated op overflowed: {:?}", insn.ir_op());
            TBox {
                r,
                v: Value::Int(v),
            }
        } else if known {
            let wrapping = match insn.ir_op() {
                OpCode::IntAddOvf => OpCode::IntAdd,
                OpCode::IntSubOvf => OpCode::IntSub,
                _ => OpCode::IntMul,
            };
            self.record(Op::new(wrapping, &[a.r, b.r]), Value::Int(v))
        } else {
            // Its guard must follow it directly.
            self.flush_stores(None);
            let r = self.trace.push(Op::new(insn.ir_op(), &[a.r, b.r]));
            if overflow {
                self.guard(OpCode::GuardOverflow, &[]);
            } else {
                self.guard(OpCode::GuardNoOverflow, &[]);
                self.facts.remember_no_overflow(insn.ir_op(), a.r, b.r, r);
            }
            TBox {
                r,
                v: Value::Int(v),
            }
        };
        (b, overflow)
    }

    /// Branches, switches and promotes: guards on non-constant values;
    /// returns the jump target when the branch is taken.
    fn branch(&mut self, insn: &Insn, known: bool) -> Option<usize> {
        let mut next = None;
        match insn.op {
            JOp::GotoIfNot => {
                let c = self.get(insn.reg(0));
                let truth = c.v.as_int().unwrap_or(0) != 0;
                if !c.r.is_const() {
                    if !known {
                        let g = if truth {
                            OpCode::GuardTrue
                        } else {
                            OpCode::GuardFalse
                        };
                        self.guard(g, &[c.r]);
                    }
                    self.learn_truth(c.r, truth);
                }
                if !truth {
                    next = Some(insn.label(1));
                }
            }
            JOp::GotoIfNull => {
                let p = self.get(insn.reg(0));
                let null = p.v.as_ref().unwrap_or(0) == 0;
                debug_assert!(
                    !(null && self.facts.is_nonnull(p.r)),
                    "a non-null box is null"
                );
                if !p.r.is_const() && !self.facts.is_nonnull(p.r) {
                    if !known {
                        let g = if null {
                            OpCode::GuardIsnull
                        } else {
                            OpCode::GuardNonnull
                        };
                        self.guard(g, &[p.r]);
                    }
                    if null {
                        let c = self.const_ref(Const::Ref(0));
                        self.fix(p.r, c);
                    } else {
                        self.facts.set_nonnull(p.r);
                    }
                }
                if null {
                    next = Some(insn.label(1));
                }
            }
            JOp::Switch => {
                let b = self.get(insn.reg(0));
                let b = self.promote(b);
                let v = b.v.as_int().unwrap_or(0);
                if let Operand::Switch(s) = insn.operands[1] {
                    let code = self.top().code.clone();
                    if let Some(&(_, l)) = code.switches[s as usize].cases.iter().find(|c| c.0 == v)
                    {
                        next = Some(l as usize);
                    }
                }
            }
            _ => {
                let b = self.get(insn.reg(0));
                self.promote(b);
            }
        }
        next
    }

    /// `getfield_gc_*`, through the heap cache.
    fn getfield(&mut self, insn: &Insn) -> Result<TBox, ConcreteError> {
        let d = self.descr(insn, 1);
        let fd = field(&d);
        let obj = self.get(insn.reg(0));
        let v = eval::getfield(obj.v.as_ref().unwrap_or(0), fd)?;
        if let Some(b) = self.vable_field(obj.r, fd).map(|k| self.vable_boxes()[k]) {
            debug_assert_eq!(b.v, v, "virtualizable box out of date for {}", fd.name);
            return Ok(b);
        }
        // A cached ref's concrete value may be stale after a moving
        // collection (the cache is not a root): only other kinds compare.
        let cached = self.heap.get(obj.r, fd).filter(|c| {
            let current = c.v == v || fd.kind == Kind::Ref;
            debug_assert!(current, "heap cache out of date for {}", fd.name);
            current
        });
        Ok(if let Some(c) = cached {
            let r = self.facts.resolve(c.r);
            TBox { r, v }
        } else if obj.r.is_const() && fd.immutable && fd.kind != Kind::Ref {
            // Not a reference: a constant ref to an object the collector
            // may move would go stale.
            self.konst(v)
        } else if obj.r.is_const() && fd.quasi_immutable {
            self.quasi_read(obj, &d, fd, v)
        } else {
            let opcode = getfield_opcode(fd.kind);
            self.flush_stores(Some(fd));
            let b = self.record(Op::new(opcode, &[obj.r]).with_descr(d.clone()), v);
            self.heap.remember(obj.r, fd, b);
            b
        })
    }

    /// Whether `insn` (a `setfield`) replaces the virtualizable frame's
    /// array: the trace's inputs are the array's items, so a trace cannot
    /// go on with another array (a VM growing its frame); it aborts.
    fn replaces_vable_array(&mut self, insn: &Insn) -> bool {
        let d = self.descr(insn, 2);
        let obj = self.get(insn.reg(0));
        let slot = self.vable_field(obj.r, field(&d));
        self.env
            .vable
            .is_some_and(|i| i.array().is_some() && slot == Some(i.array_slot()))
    }

    /// `setfield_gc`: recorded now, or later for a fresh object (see
    /// [`HeapCache`]).
    fn setfield(&mut self, insn: &Insn) -> Result<(), ConcreteError> {
        let d = self.descr(insn, 2);
        let (obj, val) = (self.get(insn.reg(0)), self.get(insn.reg(1)));
        eval::setfield(
            self.env.alloc,
            obj.v.as_ref().unwrap_or(0),
            field(&d),
            val.v,
        )?;
        if let Some(k) = self.vable_field(obj.r, field(&d)) {
            self.vable_boxes()[k] = val;
            return Ok(());
        }
        self.heap.store(obj.r, field(&d), val);
        if self.heap.is_fresh(obj.r) {
            self.heap.delay(obj.r, d, val);
        } else {
            self.flush_stores(Some(field(&d)));
            if field(&d).quasi_immutable {
                self.quasi_write(obj, field(&d));
            }
            self.trace
                .push(Op::new(OpCode::SetfieldGc, &[obj.r, val.r]).with_descr(d));
        }
        Ok(())
    }

    /// Records the pending stores of field `f` (all fields: `None`).
    fn flush_stores(&mut self, f: Option<&FieldDescr>) {
        for (obj, d, val) in self.heap.take_pending(f) {
            let val = self.facts.resolve(val.r);
            self.trace
                .push(Op::new(OpCode::SetfieldGc, &[obj, val]).with_descr(d));
        }
    }

    /// `getarrayitem_gc_*`.
    fn getarrayitem(&mut self, insn: &Insn) -> Result<TBox, ConcreteError> {
        let d = self.descr(insn, 2);
        let ad = array(&d);
        let (arr, idx) = (self.get(insn.reg(0)), self.get(insn.reg(1)));
        let v = eval::getarrayitem(arr.v.as_ref().unwrap_or(0), idx.v.as_int().unwrap_or(0), ad)?;
        if self.is_vable_array(arr.r, ad) {
            let k = self.vable_item(idx)?;
            return Ok(self.vable_boxes()[k]);
        }
        let opcode = getarrayitem_opcode(ad.kind);
        Ok(self.record(Op::new(opcode, &[arr.r, idx.r]).with_descr(d.clone()), v))
    }

    /// `setarrayitem_gc`.
    fn setarrayitem(&mut self, insn: &Insn) -> Result<(), ConcreteError> {
        let d = self.descr(insn, 3);
        let (arr, idx, val) = (
            self.get(insn.reg(0)),
            self.get(insn.reg(1)),
            self.get(insn.reg(2)),
        );
        eval::setarrayitem(
            self.env.alloc,
            arr.v.as_ref().unwrap_or(0),
            idx.v.as_int().unwrap_or(0),
            array(&d),
            val.v,
        )?;
        if self.is_vable_array(arr.r, array(&d)) {
            let k = self.vable_item(idx)?;
            self.vable_boxes()[k] = val;
            return Ok(());
        }
        self.trace
            .push(Op::new(OpCode::SetarrayitemGc, &[arr.r, idx.r, val.r]).with_descr(d));
        Ok(())
    }

    /// `arraylen_gc`, `new`, `new_array`.
    fn alloc_or_len(&mut self, insn: &Insn) -> Result<TBox, ConcreteError> {
        Ok(match insn.op {
            JOp::Arraylen => {
                let d = self.descr(insn, 1);
                let arr = self.get(insn.reg(0));
                let n = eval::arraylen(arr.v.as_ref().unwrap_or(0), array(&d))?;
                if self.is_vable_array(arr.r, array(&d)) {
                    return Ok(self.konst(Value::Int(n)));
                }
                // An array's length never changes: one load per array.
                if let Some(Fold::Same(r)) =
                    self.facts
                        .fold_pure(&self.trace, OpCode::ArraylenGc, &[arr.r])
                {
                    return Ok(TBox {
                        r,
                        v: Value::Int(n),
                    });
                }
                let b = self.record(
                    Op::new(OpCode::ArraylenGc, &[arr.r]).with_descr(d.clone()),
                    Value::Int(n),
                );
                self.facts.remember_pure(OpCode::ArraylenGc, &[arr.r], b.r);
                b
            }
            JOp::New => {
                let d = self.descr(insn, 0);
                let layout = d.as_size().expect("builder checked a size descr").clone();
                let p = self.allocate(|a, roots| a.new_object(&layout, roots))?;
                let b = self.record(Op::new(OpCode::New, &[]).with_descr(d), Value::Ref(p));
                self.fresh(b.r);
                if !layout.headerless {
                    let class = self.env.codes.class_word(layout.type_id);
                    self.facts.set_class(b.r, class);
                }
                b
            }
            _ => {
                let d = self.descr(insn, 1);
                let len = self.get(insn.reg(0));
                let ad = array(&d).clone();
                let n = len.v.as_int().unwrap_or(0).max(0) as usize;
                let p = self.allocate(|a, roots| a.new_array(&ad, n, roots))?;
                let b = self.record(
                    Op::new(OpCode::NewArray, &[len.r]).with_descr(d),
                    Value::Ref(p),
                );
                self.fresh(b.r);
                self.facts.remember_pure(OpCode::ArraylenGc, &[b.r], len.r);
                b
            }
        })
    }

    /// `guard_class`: records `guard_class(obj, class)` for a non-constant
    /// `obj` whose class no guard proved yet and continues with the class
    /// as a constant. Recorded even
    /// when resuming from a failed guard (`known_outcome`): the failure
    /// proves only that the class differs from the old one.
    fn guard_class(&mut self, insn: &Insn) -> Result<TBox, ConcreteError> {
        let obj = self.get(insn.reg(0));
        let class = eval::class_word(self.env.codes, obj.v.as_ref().unwrap_or(0))?;
        let c = self.konst(Value::Int(class));
        if !obj.r.is_const() {
            match self.facts.class_of(obj.r) {
                Some(known) => debug_assert_eq!(known, class, "an object's class changed"),
                None => {
                    self.guard(OpCode::GuardClass, &[obj.r, c.r]);
                    self.facts.set_class(obj.r, class);
                }
            }
        }
        Ok(c)
    }

    /// `obj` was just allocated: a new object, non-null.
    fn fresh(&mut self, obj: OpRef) {
        self.heap.allocated(obj);
        self.facts.set_nonnull(obj);
    }

    /// An inline call: a new frame for the callee (a residual call when
    /// the callee is marked don't-inline).
    fn enter(&mut self, insn: &Insn) -> Result<Step, ConcreteError> {
        let Operand::Callee(callee) = insn.operands[0] else {
            return Err(ConcreteError::BadJitCode(
                "inline call without callee".into(),
            ));
        };
        if self.marked(callee) {
            return self.call_residually(insn, callee);
        }
        let args: Vec<TBox> = insn.list(1).iter().map(|&r| self.get(r)).collect();
        let vals: Vec<Value> = args.iter().map(|b| b.v).collect();
        let proto = callee_frame(self.env.codes, callee, &vals)?;
        let mut f = self.blank_frame(proto.code.clone(), 0);
        for (p, b) in proto.code.params.iter().zip(&args) {
            f.regs[bank_index(p.kind)][p.index as usize] = *b;
        }
        f.ret_dst = insn.dst;
        self.top().pc = insn.next;
        self.frames.push(f);
        self.sizes.enter(callee, self.trace.ops.len());
        Ok(Step::Next)
    }

    /// The slot of field `fd` of `obj` among the virtualizable values, when
    /// `obj` is the virtualizable frame and `fd` one of its listed fields.
    fn vable_field(&self, obj: OpRef, fd: &FieldDescr) -> Option<usize> {
        let (frame, _) = self.vable.as_ref()?;
        (frame.r == obj).then_some(())?;
        self.env.vable?.field_slot(fd)
    }

    /// Whether `arr` (of layout `ad`) is the virtualizable frame's array.
    fn is_vable_array(&self, arr: OpRef, ad: &ArrayDescr) -> bool {
        match (self.env.vable.and_then(|i| i.array()), &self.vable) {
            (Some((_, a)), Some((_, boxes))) => {
                **a == *ad && boxes[self.env.vable.map_or(0, |i| i.array_slot())].r == arr
            }
            _ => false,
        }
    }

    /// The virtualizable values' boxes (there is a virtualizable frame).
    fn vable_boxes(&mut self) -> &mut Vec<TBox> {
        &mut self.vable.as_mut().expect("a virtualizable frame").1
    }

    /// The slot of the frame array's item `idx` among the virtualizable
    /// values; the index is promoted to a constant.
    fn vable_item(&mut self, idx: TBox) -> Result<usize, ConcreteError> {
        let i = self.promote(idx).v.as_int().unwrap_or(-1);
        let start = self.env.vable.map_or(0, |info| info.items_start());
        let len = self.vable_boxes().len() - start;
        usize::try_from(i)
            .ok()
            .filter(|&i| i < len)
            .map(|i| start + i)
            .ok_or_else(|| {
                ConcreteError::BadJitCode(format!(
                    "index {i} out of the virtualizable array's {len} items"
                ))
            })
    }

    /// Before a call that may look at the frame, and at the portal's
    /// return: records the stores that bring the frame and its array up to
    /// date. A value whose place already holds its box is not stored
    /// again: only the trace writes a virtualizable frame while it runs
    /// (callees force it first or promise not to, `opaque_to_callees`).
    fn vable_store(&mut self) {
        let (Some(info), Some((frame, boxes))) = (self.env.vable, self.vable.clone()) else {
            return;
        };
        let mut memory = std::mem::take(&mut self.vable_memory);
        memory.resize(boxes.len(), None);
        let boxes: Vec<OpRef> = boxes.iter().map(|b| b.r).collect();
        let held = |k: usize, b: OpRef| memory[k].replace(b) == Some(b);
        let ops = info.store_ops(frame.r, &boxes, held, |i| self.konst(Value::Int(i)).r);
        self.vable_memory = memory;
        for op in ops {
            self.trace.push(op);
        }
    }

    /// Whether `args` hold the virtualizable frame or its array (a call
    /// declared not to force, e.g. a `no_force` helper, handed the frame
    /// through an untyped handle): such a call forces the frame whatever
    /// its descr says.
    fn given_frame(&self, args: &[TBox]) -> bool {
        let (Some(info), Some((frame, boxes))) = (self.env.vable, &self.vable) else {
            return false;
        };
        let array = info.array().map(|_| boxes[info.array_slot()].v);
        args.iter().any(|a| {
            matches!(a.v, Value::Ref(p) if p != 0) && (a.v == frame.v || Some(a.v) == array)
        })
    }

    /// After a call that may have looked at the frame: records loads of
    /// every virtualizable value (the callee may have changed them).
    /// False when the callee changed the array's length or replaced it,
    /// which a trace cannot follow.
    fn vable_reload(&mut self) -> Result<bool, ConcreteError> {
        let Some((frame, old)) = self.vable.clone() else {
            return Ok(true);
        };
        let mut boxes = self.vable_load(frame)?;
        if boxes.len() != old.len() {
            return Ok(false);
        }
        if let Some(slot) = self
            .env
            .vable
            .and_then(|i| i.array().map(|_| i.array_slot()))
        {
            // The jitcode may hold the array in a register loaded before
            // the call (`frame.regs[i] = f(..)` evaluates its place
            // first): the array keeps its box, so a store through that
            // register is still a store to the frame.
            if boxes[slot].v != old[slot].v {
                return Ok(false);
            }
            boxes[slot] = old[slot];
        }
        *self.vable_boxes() = boxes;
        Ok(true)
    }

    /// After a portal call the frame is opaque to
    /// ([`VirtualizableInfo::opaque_to_callees`]): an error if the callee
    /// broke the promise, changing a virtualizable value the trace keeps
    /// in a box.
    fn check_frame_untouched(&self) -> Result<(), ConcreteError> {
        let (Some(info), Some((frame, boxes))) = (self.env.vable, &self.vable) else {
            return Ok(());
        };
        let now = info.read(frame.v.as_ref().unwrap_or(0))?;
        let changed =
            (0..boxes.len().max(now.len())).find(|&k| now.get(k) != boxes.get(k).map(|b| &b.v));
        let Some(k) = changed else {
            return Ok(());
        };
        let what = match info.fields().get(k) {
            Some(f) => format!("field {}", f.name),
            None if k == info.array_slot() => "array".to_string(),
            None => format!("array item {}", k - info.items_start()),
        };
        Err(ConcreteError::BadJitCode(format!(
            "a call of the interpreted program changed its caller's virtualizable {what}, \
             but the frame was declared opaque to callees"
        )))
    }

    /// Records loads of the virtualizable values of `frame`: its fields,
    /// then its array and the array's items.
    fn vable_load(&mut self, frame: TBox) -> Result<Vec<TBox>, ConcreteError> {
        let info = self.env.vable.expect("a virtualizable frame");
        let values = info.read(frame.v.as_ref().unwrap_or(0))?;
        let mut boxes: Vec<TBox> = Vec::with_capacity(values.len());
        for (k, &v) in values.iter().enumerate() {
            let array = boxes.get(info.array_slot()).map_or(frame.r, |a| a.r);
            let op = info.load_op(k, frame.r, array, |i| self.konst(Value::Int(i)).r);
            boxes.push(self.record(op, v));
        }
        self.vable_memory = boxes.iter().map(|b| Some(b.r)).collect();
        Ok(boxes)
    }

    /// A return: into the caller's result register, or the portal returned
    /// (`tracer/portal.rs`).
    fn leave(&mut self, insn: &Insn) -> Result<Step, ConcreteError> {
        let v = match insn.operands.first() {
            Some(Operand::Reg(r)) => Some(self.get(*r)),
            _ => None,
        };
        if self.frames.len() == 1 {
            return Ok(Step::End(self.portal_return(v)));
        }
        self.return_to_caller(v)?;
        Ok(Step::Next)
    }

    /// A residual or elidable call.
    fn call(&mut self, insn: &Insn) -> Result<Step, ConcreteError> {
        let d = self.descr(insn, 0);
        let func = self.get(insn.reg(1));
        let args: Vec<TBox> = insn.list(2).iter().map(|&r| self.get(r)).collect();
        self.call_with(d, func, args, insn.dst, insn.next)
    }

    /// Calls `func` with `args` as the call descr `d` says, records the
    /// call (a residual `call_*`, or `call_pure_*` unless folded), sets
    /// `dst` and continues at `next`. After one that can raise, the guard
    /// on what it did (see `tracer/exceptions.rs`).
    fn call_with(
        &mut self,
        d: Descr,
        func: TBox,
        args: Vec<TBox>,
        dst: Option<RegOp>,
        next: usize,
    ) -> Result<Step, ConcreteError> {
        let cd = d.as_call().expect("builder checked a call descr").clone();
        let vals: Vec<Value> = args.iter().map(|b| b.v).collect();
        let (v, raised) = eval::call(func.v.as_int().unwrap_or(0) as usize, &cd, &vals)?;
        self.heap.call(&cd.effect);
        // A raising call is residual: its result is not the function's.
        let elidable = cd.effect.effect == CallEffect::Elidable && raised.is_none();
        if elidable && func.r.is_const() && args.iter().all(|b| b.r.is_const()) {
            if let Some(dst) = dst {
                let k = self.konst(v);
                self.set(dst, k);
            }
            self.top().pc = next;
            return Ok(Step::Next);
        }
        let call = Call {
            family: match elidable {
                true => OpCode::CallPureI,
                false => OpCode::CallI,
            },
            func,
            args: &args,
            result: (v, raised),
        };
        self.record_call((d, &cd), call, dst, next)
    }

    /// Records `call` (descr `d`, call descr `cd`), whose result goes to
    /// `dst` of the top frame, which continues at `next`: with the
    /// virtualizable frame written back and reloaded around a call that
    /// may force it, and the guard on what a call that can raise did.
    fn record_call(
        &mut self,
        (d, cd): (Descr, &CallDescr),
        call: Call,
        dst: Option<RegOp>,
        next: usize,
    ) -> Result<Step, ConcreteError> {
        let pure = call.family == OpCode::CallPureI;
        let opcode = (call.family)
            .call_with_result(cd.result)
            .expect("call families cover every result kind");
        let mut refs = vec![call.func.r];
        refs.extend(call.args.iter().map(|b| b.r));
        self.flush_stores(None);
        let portal = call.family == OpCode::CallAssemblerI;
        let opaque = portal && self.env.vable.is_some_and(|i| i.is_opaque_to_callees());
        let force =
            cd.effect.may_force && self.vable.is_some() && !opaque || self.given_frame(call.args);
        if force {
            self.vable_store();
        }
        let r = self.trace.push(Op::new(opcode, &refs).with_descr(d));
        if !pure {
            self.quasi_after_call();
        }
        let (v, raised) = call.result;
        if let Some(dst) = dst {
            self.set(dst, TBox { r, v });
        }
        self.top().pc = next;
        if opaque && !force {
            self.check_frame_untouched()?;
        }
        if force && !self.vable_reload()? {
            // The callee grew or replaced the frame's array (a VM making
            // room for results): as when the interpreter does it, the
            // trace ends and the blackhole goes on after the call.
            return match raised {
                None => Ok(Step::End(self.abort(AbortReason::ArrayReplaced, None))),
                Some(_) => Err(ConcreteError::BadJitCode(
                    "a call that raised changed the virtualizable frame's array".into(),
                )),
            };
        }
        if cd.effect.can_raise {
            return self.after_call(raised);
        }
        Ok(Step::Next)
    }

    /// The merge point's greens, made constants.
    fn promoted_greens(&mut self, insn: &Insn) -> Vec<Value> {
        let mut greens = Vec::new();
        for &g in insn.list(0) {
            let b = self.get(g);
            greens.push(self.promote(b).v);
        }
        greens
    }

    /// The merge point: start, close or continue the trace.
    fn merge_point(&mut self, insn: &Insn) -> Result<Step, ConcreteError> {
        if self.frames.len() > 1 {
            let top = self.frames.last().expect("the tracer has a frame");
            if self.env.portal.is_portal(&top.code) {
                return self.callee_merge_point(insn);
            }
            return Ok(Step::End(self.abort(AbortReason::MergePointInCallee, None)));
        }
        let greens = self.promoted_greens(insn);
        let reds: Vec<TBox> = insn.list(1).iter().map(|&r| self.get(r)).collect();
        let key = GreenKey::new(&greens);
        if !self.started {
            self.started = true;
            if let TraceKind::Loop { target, entry, .. } = &self.kind {
                let (target, entry) = (target.clone(), *entry);
                let mut args: Vec<OpRef> = reds.iter().map(|b| b.r).collect();
                let frame = self.vable.as_ref().map(|v| v.0);
                if !entry {
                    args.extend(self.vable.iter().flat_map(|v| v.1.iter().map(|b| b.r)));
                }
                self.trace
                    .push(Op::new(OpCode::Label, &args).with_descr(target));
                if let (true, Some(frame)) = (entry, frame) {
                    let boxes = self.vable_load(frame)?;
                    args.extend(boxes.iter().map(|b| b.r));
                    self.vable = Some((frame, boxes));
                }
                if let Some(word) = self.env.budget_word {
                    let (id, descr) = self.fail_descr(false);
                    crate::diff::budget::record(&mut self.trace, word, descr, &args);
                    self.budget = Some((id, greens));
                }
            }
            self.top().pc = insn.next;
            return Ok(Step::Next);
        }
        let mut red_refs: Vec<OpRef> = reds.iter().map(|b| b.r).collect();
        if let (Some(info), Some((frame, boxes))) = (self.env.vable, &self.vable) {
            if reds[info.red()].r != frame.r {
                return Ok(Step::End(self.abort(AbortReason::FrameChanged, None)));
            }
            red_refs.extend(boxes.iter().map(|b| b.r));
        }
        let own = match &self.kind {
            TraceKind::Loop {
                start,
                target,
                entry,
                ..
            } if *start == key => Some((target.clone(), *entry)),
            _ => None,
        };
        // A loop traced with another virtualizable array length takes a
        // different number of inputs.
        let other = (self.env.loop_target)(&key).filter(|t| t.values == red_refs.len());
        let (mut finish, mut loop_word_guard) = (None, None);
        let mut jumped_to = None;
        let target = own.clone().or(other.map(|t| (t.label, t.entry)));
        if let Some((target, entry)) = target {
            if own.is_none() {
                jumped_to = Some(key.clone());
            }
            self.flush_stores(None);
            if entry {
                // An entry trace's label takes the reds and loads the
                // frame after it: a jump there stores what the frame does
                // not hold already (`vable_store`).
                self.vable_store();
                red_refs.truncate(reds.len());
            }
            self.trace
                .push(Op::new(OpCode::Jump, &red_refs).with_descr(target));
        } else if self.ends_at_seen_merge_points() && self.passed.contains(&key) {
            self.flush_stores(None);
            let (id, descr) = self.fail_descr(false);
            let word = (self.env.loop_word)(&key);
            crate::loop_words::record(&mut self.trace, word, descr, &red_refs);
            loop_word_guard = Some(id);
            let (id, descr) = self.fail_descr(false);
            self.trace
                .push(Op::new(OpCode::Finish, &red_refs).with_descr(descr));
            finish = Some(id);
        } else {
            // A position without compiled code, passed for the first time:
            // keep tracing (a bridge usually reaches its loop's header).
            self.passed.push(key);
            self.top().pc = insn.next;
            return Ok(Step::Next);
        }
        Ok(Step::End(TraceEnd::Done(Box::new(Finished {
            trace: std::mem::take(&mut self.trace),
            guards: std::mem::take(&mut self.guards),
            finish,
            returned: None,
            jumped_to,
            budget: self.budget.take(),
            loop_word_guard,
            greens,
            reds: reds.iter().map(|b| b.v).collect(),
            validity: self.env.validity.clone(),
        }))))
    }

    /// Whether a merge point met a second time ends the trace with a
    /// `finish` (bridges and entry traces; a loop trace goes on to its own
    /// start).
    fn ends_at_seen_merge_points(&self) -> bool {
        matches!(
            self.kind,
            TraceKind::Bridge | TraceKind::Loop { entry: true, .. }
        )
    }

    /// Whether the portal's return ends the trace with a `finish` (else
    /// it aborts: the loop was no loop).
    pub(super) fn ends_at_return(&self) -> bool {
        self.ends_at_seen_merge_points()
            || matches!(
                self.kind,
                TraceKind::Loop {
                    last_attempt: true,
                    ..
                }
            )
    }
}

/// One frame a bridge starts from: its registers already hold boxes (the
/// bridge's inputs, constants, or values re-created at the bridge start).
#[derive(Clone, Debug)]
pub struct BridgeFrame {
    pub code: Arc<JitCode>,
    pub pc: usize,
    pub ret_dst: Option<RegOp>,
    pub regs: Vec<(RegOp, TBox)>,
    /// The frame's entry greens in the guard's trace ([`SnapFrame::entry`]).
    pub entry: Option<GreenKey>,
}

/// A call the tracer ran, to record: `call_pure_*` when `pure`; its
/// result and the exception it raised.
struct Call<'a> {
    /// `CallI`, `CallPureI` or `CallAssemblerI` (any of the family).
    family: OpCode,
    func: TBox,
    args: &'a [TBox],
    result: (Value, Option<Value>),
}
