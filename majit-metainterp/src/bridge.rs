//! Bridges, and the steps of compiling finished traces.
//!
//! A guard that failed more than `bridge_threshold` times gets a bridge:
//! the tracer restarts from the guard's resume state, with the dead frame's
//! values as the bridge's inputs, and traces until the next merge point
//! (a `jump` to a compiled loop, or a `finish` that hands the state to the
//! interpreter). The backend attaches it to the guard, so later failures
//! run the bridge instead of exiting. A guard gets one bridge attempt;
//! if tracing aborts or compilation fails, it keeps exiting to the
//! blackhole.
//!
//! The driver's `compile_valid` is the one path from a finished trace to
//! the backend, for loops and bridges alike: `optimize` when `enable_opts`
//! names passes, then the backend, then (only on success) the trace's
//! exits are registered in [`Compiled`](crate::compiled::Compiled) and
//! counted. This file holds the steps that need no driver: the values of
//! a failed guard (`original_fail_args`), where a bridge trace starts
//! (`bridge_start`), the optimizer step and what counting needs.

use crate::backend::CodeId;
use crate::compiled::GuardInfo;
use crate::jitcode::eval::ConcreteError;
use crate::opt::ledger::Ledger;
use crate::opt::{BridgeEnd, LoopLabel, OptError};
use crate::params::JitParams;
use crate::resume::{GuardResume, Layout, RebuildError, ResumeMap, Slot, Tagged};
use crate::runtime::Allocator;
use crate::stats::AbortReason;
use crate::tracer::{const_of, live_regs, BridgeFrame, SnapValue, Snapshot, TBox, VableBoxes};
use crate::vable::VirtualizableInfo;
use majit_ir::{Const, Descr, FailDescr, Kind, Op, OpCode, OpRef, RefTarget, Trace, Value};

/// The values of a failed guard's original fail args (the ones its
/// snapshot numbers), from the dead frame's values `frame`: those
/// themselves for an unoptimized trace (`resume` is `None`); for an
/// optimized one, rebuilt from the optimizer's resume data (virtuals
/// allocated with `alloc`, pending fields stored). `exception`, the one
/// the dead frame left pending, is a root while virtuals are allocated:
/// it comes back with the values (moved, if the allocator moved it).
pub(crate) fn original_fail_args(
    frame: &[Value],
    resume: Option<&GuardResume>,
    alloc: &mut dyn Allocator,
    exception: Option<Value>,
) -> Result<(Vec<Value>, Option<Value>), RebuildError> {
    let Some(rd) = resume else {
        return Ok((frame.to_vec(), exception));
    };
    let Some(e) = exception.filter(|_| !rd.virtuals.is_empty()) else {
        // SAFETY: `rd` is the optimizer's description of the guard that
        // produced `frame`, so its refs are live objects of the layouts
        // `rd` stores into, and the driver's allocator returns zeroed
        // objects.
        return Ok((
            unsafe { crate::resume::rebuild(frame, rd, alloc) }?,
            exception,
        ));
    };
    // The exception rides along as one more frame value, read back last.
    let mut frame = frame.to_vec();
    let mut rd = rd.clone();
    rd.values.push(Tagged::Box(frame.len() as u32));
    frame.push(e);
    // SAFETY: as above; the extra value is the dead frame's own exception.
    let mut values = unsafe { crate::resume::rebuild(&frame, &rd, alloc) }?;
    let e = values.pop();
    Ok((values, e))
}

/// The boxes of a bridge's original fail args: inputs for `Box` values,
/// constants, and for virtuals a recorded `new` plus its field stores
/// (all allocations first); pending fields become recorded stores. The
/// concrete values come from `values` (the rebuilt objects).
fn bridge_boxes(trace: &mut Trace, rd: Option<&GuardResume>, values: &[Value]) -> Vec<TBox> {
    let Some(rd) = rd else {
        return (0..values.len())
            .map(|i| TBox {
                r: OpRef::input(i),
                v: values[i],
            })
            .collect();
    };
    let mut objs = Vec::new();
    for v in &rd.virtuals {
        let op = match &v.layout {
            Layout::Struct { size, vtable } => {
                let code = if *vtable {
                    OpCode::NewWithVtable
                } else {
                    OpCode::New
                };
                Op::new(code, &[]).with_descr(Descr::Size(size.clone()))
            }
            Layout::Array { descr, len } => {
                let n = trace.add_const(Const::Int(i64::from(*len)));
                Op::new(OpCode::NewArray, &[n]).with_descr(Descr::Array(descr.clone()))
            }
        };
        objs.push(trace.push(op));
    }
    let tagged = |trace: &mut Trace, t: &Tagged| match t {
        Tagged::Box(i) => OpRef::input(*i as usize),
        Tagged::Const(c) => trace.add_const(*c),
        Tagged::Virtual(k) => objs[*k as usize],
        Tagged::Tag(i, code) => trace.push(Op::new(*code, &[OpRef::input(*i as usize)])),
    };
    let store = |trace: &mut Trace, obj: OpRef, slot: &Slot, value: OpRef| {
        let op = match slot {
            Slot::Field(f) => {
                Op::new(OpCode::SetfieldGc, &[obj, value]).with_descr(Descr::Field(f.clone()))
            }
            Slot::Item(a, i) => {
                let idx = trace.add_const(Const::Int(i64::from(*i)));
                Op::new(OpCode::SetarrayitemGc, &[obj, idx, value])
                    .with_descr(Descr::Array(a.clone()))
            }
        };
        trace.push(op);
    };
    for (k, v) in rd.virtuals.iter().enumerate() {
        for (slot, t) in &v.fields {
            let value = tagged(trace, t);
            store(trace, objs[k], slot, value);
        }
    }
    for p in &rd.pending {
        let (target, value) = (tagged(trace, &p.target), tagged(trace, &p.value));
        store(trace, target, &p.slot, value);
    }
    rd.values
        .iter()
        .zip(values)
        .map(|(t, &v)| TBox {
            r: tagged(trace, t),
            v,
        })
        .collect()
}

/// Where a bridge trace starts (see [`bridge_start`]).
pub(crate) struct BridgeStart {
    pub trace: Trace,
    pub frames: Vec<BridgeFrame>,
    /// The frame's and its virtualizable values' boxes, and per value the
    /// box the frame holds (the values loaded at the start).
    pub vable: Option<(VableBoxes, Vec<Option<OpRef>>)>,
    /// The exception the guard left pending, taken by the trace's first
    /// ops (`guard_exception` with this fail id, `save_exception_*`): its
    /// box, for the tracer to deliver.
    pub exception: Option<(u32, TBox)>,
}

/// Where the bridge from the guard `info` starts: its trace (inputs of
/// the kinds of the dead frame's values `frame`, plus the recorded
/// allocations of virtuals) and the tracer's frames, from the guard's
/// snapshot and its original fail args `values` (already rebuilt). With
/// `exception` (the guard left one pending), the trace first takes it,
/// before anything can allocate, with a `guard_exception` of fail id
/// `*next_fail_id` (which fails only on a helper's panic). The
/// virtualizable values the frame held at the guard (`vable` describes
/// it) are loaded from it after the pending stores.
pub(crate) fn bridge_start(
    frame: &[Value],
    info: &GuardInfo,
    values: &[Value],
    (exception, vable): (Option<Value>, Option<&VirtualizableInfo>),
    next_fail_id: &mut u32,
) -> Result<BridgeStart, ConcreteError> {
    let kinds: Vec<Kind> = frame.iter().map(|v| v.kind()).collect();
    let mut trace = Trace::new(&kinds);
    let exception = exception.map(|e| {
        let id = *next_fail_id;
        *next_fail_id += 1;
        let descr = FailDescr {
            name: format!("g{id}"),
            id,
            returns: false,
        };
        let guard = Op::new(OpCode::GuardException, &[])
            .with_descr(descr.into())
            .with_fail_args(&[]);
        trace.push(guard);
        let save = match e.kind() {
            Kind::Ref => OpCode::SaveExceptionR,
            _ => OpCode::SaveExceptionI,
        };
        let r = trace.push(Op::new(save, &[]));
        (id, TBox { r, v: e })
    });
    let boxes = bridge_boxes(&mut trace, info.resume.as_deref(), values);
    let mut box_of = |sv: &SnapValue| match *sv {
        SnapValue::Arg(i) => boxes[i as usize],
        SnapValue::Const(v) => TBox {
            r: trace.add_const(const_of(v)),
            v,
        },
    };
    let snap = &info.snapshot;
    let mut frames = Vec::new();
    for (k, sf) in snap.frames.iter().enumerate() {
        let callee_dst = snap.frames.get(k + 1).and_then(|c| c.ret_dst);
        let regs = live_regs(&sf.code, sf.pc, callee_dst)
            .zip(&sf.values)
            .map(|(reg, sv)| (reg, box_of(sv)))
            .collect();
        frames.push(BridgeFrame {
            code: sf.code.clone(),
            pc: sf.pc,
            ret_dst: sf.ret_dst,
            regs,
            entry: sf.entry.clone(),
        });
    }
    let vable = match (vable, snap.vable.split_first()) {
        (Some(info), Some((Some(frame), rest))) => {
            let frame = box_of(frame);
            let boxes = rest.iter().map(|sv| sv.as_ref().map(&mut box_of)).collect();
            Some(load_in_frame(&mut trace, info, frame, boxes)?)
        }
        _ => None,
    };
    Ok(BridgeStart {
        trace,
        frames,
        vable,
        exception,
    })
}

/// The bridge's virtualizable boxes: `boxes[k]`, or where that is `None`
/// (the frame held the value at the guard) a load from the frame, recorded
/// with the value the frame holds now (written back at the failure).
fn load_in_frame(
    trace: &mut Trace,
    info: &VirtualizableInfo,
    frame: TBox,
    boxes: Vec<Option<TBox>>,
) -> Result<(VableBoxes, Vec<Option<OpRef>>), ConcreteError> {
    let now = info.read(frame.v.as_ref().unwrap_or(0))?;
    let mut out: Vec<TBox> = Vec::with_capacity(boxes.len());
    let mut memory = Vec::with_capacity(boxes.len());
    for (k, b) in boxes.into_iter().enumerate() {
        let (b, held) = match b {
            Some(b) => (b, None),
            None => {
                let array = out.get(info.array_slot()).map_or(frame.r, |a| a.r);
                let index = |i| trace.add_const(Const::Int(i));
                let op = info.load_op(k, frame.r, array, index);
                let r = trace.push(op);
                (TBox { r, v: now[k] }, Some(r))
            }
        };
        out.push(b);
        memory.push(held);
    }
    Ok(((frame, out), memory))
}

/// Makes `trace`, a bridge ending in a jump to a loop's start label, jump
/// into the loop's peeled body instead: its closing jump is replaced by the
/// loop's short preamble `short` over the jump's arguments (the guards
/// re-checking what the body assumes, then the loads and pure ops whose
/// values the body's label carries) and the short preamble's own jump.
/// The entry guards get fresh fail ids from `next_fail_id` and the jump's
/// arguments as fail args, so failing one resumes at the loop's merge
/// point, which enters the loop at its start; their ids are returned.
pub(crate) fn enter_peeled(trace: &mut Trace, short: &Trace, next_fail_id: &mut u32) -> Vec<u32> {
    let jump = trace.ops.pop().expect("a bridge ends in a jump");
    debug_assert_eq!(jump.opcode, OpCode::Jump);
    let base = trace.ops.len();
    let mut guards = Vec::new();
    for op in &short.ops {
        let mut op = op.clone();
        let map = |t: &mut Trace, r: OpRef| match r.target() {
            RefTarget::Input(i) => jump.args[i],
            RefTarget::Op(j) => OpRef::op(base + j),
            RefTarget::Const(_) => t.add_const(short.get_const(r).expect("short const")),
        };
        for a in op.args.iter_mut() {
            *a = map(trace, *a);
        }
        if op.opcode.is_guard() {
            let id = *next_fail_id;
            *next_fail_id += 1;
            let name = format!("g{id}");
            op.descr = Some(
                FailDescr {
                    name,
                    id,
                    returns: false,
                }
                .into(),
            );
            op.fail_args = Some(jump.args.to_vec());
            guards.push(id);
        }
        trace.push(op);
    }
    guards
}

/// The bridge of a hot guard resuming at a merge point (a bridge's entry
/// guard, see [`enter_peeled`], or a loop-word guard) into the loop whose
/// start label is `target`: it jumps to `target` with the guard's
/// original fail args (the loop's reds and virtualizable values; `values`
/// are their values), re-allocating virtuals; the dead frame's values are
/// `frame`. Into an entry trace (`vable`: its frame's description and the
/// number of reds) it writes the virtualizable values to the frame and
/// jumps with the reds alone: that label loads the frame after it.
pub(crate) fn to_loop_start(
    frame: &[Value],
    resume: Option<&GuardResume>,
    values: &[Value],
    target: &Descr,
    vable: Option<(&VirtualizableInfo, usize)>,
) -> Trace {
    let kinds: Vec<Kind> = frame.iter().map(|v| v.kind()).collect();
    let mut trace = Trace::new(&kinds);
    let boxes = bridge_boxes(&mut trace, resume, values);
    let mut args: Vec<OpRef> = boxes.iter().map(|b| b.r).collect();
    if let Some((info, reds)) = vable {
        let index = |i| trace.add_const(Const::Int(i));
        let ops = info.store_ops(args[info.red()], &args[reds..], |_, _| false, index);
        for op in ops {
            trace.push(op);
        }
        args.truncate(reds);
    }
    trace.push(Op::new(OpCode::Jump, &args).with_descr(target.clone()));
    trace
}

/// A trace the backend accepted.
pub(crate) struct CompiledTrace {
    pub code: CodeId,
    /// As compiled (after the optimizer).
    pub trace: Trace,
    /// As the tracer recorded it.
    pub recorded: Trace,
    /// The recorded guards' snapshots (a loop keeps them for retraces;
    /// empty for a bridge).
    pub guards: Vec<(u32, Snapshot)>,
    pub ledger: Ledger,
    /// For a peeled loop: its short preamble (see [`crate::opt::Optimized`]).
    pub short_preamble: Option<Trace>,
    /// For a peeled loop or a retrace: the peeled label it defines.
    pub label: Option<LoopLabel>,
    /// Differential mode's budget guard, if the trace has one.
    pub budget: Option<u32>,
}

/// The optimizer's output for the driver: the trace to compile, the resume
/// data of its guards (`None`: unoptimized, the recorded guards are the
/// exits), the ledger and, for a peeled loop or a retrace, its short
/// preamble and label.
pub(crate) struct OptOutput {
    pub trace: Trace,
    pub resume: Option<ResumeMap>,
    pub ledger: Ledger,
    pub short_preamble: Option<Trace>,
    pub label: Option<LoopLabel>,
}

/// Why a trace was not compiled: the reason and the message for the stats.
pub(crate) type Rejected = (AbortReason, String);

/// Runs the optimizer when built-in or user passes are enabled; a bridge
/// ending at a peeled loop may ask for another `end` than its jump to the
/// loop's start (`Rejected` with [`AbortReason::NoFit`] when it does not
/// fit).
pub(crate) fn optimize(
    params: &JitParams,
    trace: Trace,
    end: Option<BridgeEnd>,
) -> Result<OptOutput, Rejected> {
    if !params.optimizes() {
        let (resume, ledger, short_preamble, label) = (None, Ledger::default(), None, None);
        return Ok(OptOutput {
            trace,
            resume,
            ledger,
            short_preamble,
            label,
        });
    }
    let (opts, passes) = (&params.enable_opts, &params.passes);
    let out = match end {
        None => crate::opt::optimize_with(&trace, opts, passes).map(Ok),
        Some(end) => crate::opt::optimize_bridge(&trace, end, opts, passes),
    };
    match out {
        Ok(Ok(o)) => Ok(OptOutput {
            trace: o.trace,
            resume: Some(o.resume),
            ledger: o.ledger,
            short_preamble: o.short_preamble,
            label: o.label,
        }),
        Ok(Err(why)) => Err((AbortReason::NoFit, why)),
        Err(e @ OptError::Invalid { .. }) => Err((AbortReason::InvalidLoop, e.to_string())),
        Err(e) => Err((AbortReason::CompileFailed, format!("optimizer failed: {e}"))),
    }
}

/// The allocation ops of `trace`.
pub(crate) fn allocations(trace: &Trace) -> u64 {
    let allocs = trace.ops.iter().filter(|op| op.opcode.is_allocation());
    allocs.count() as u64
}
