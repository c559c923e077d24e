//! Bridges, and compiling finished traces.
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
//! `compile` is the one path from a finished trace to the backend, for
//! loops and bridges alike: the optimizer when `enable_opts` names passes,
//! then the backend, then (only on success) the trace's exits are
//! registered and counted.

use crate::backend::{Backend, CodeId, DeadFrame, ExitId};
use crate::driver::{BridgeInfo, Exit, GuardInfo, JitDriver, JitError, Next};
use crate::opt::ledger::Ledger;
use crate::opt::OptError;
use crate::resume::{GuardResume, Layout, ResumeMap, Slot, Tagged};
use crate::stats::AbortReason;
use crate::tracer::{
    const_of, frame_live_set, BridgeFrame, Finished, SnapValue, Snapshot, TBox, TraceEnd, Tracer,
};
use majit_ir::{Const, Descr, Kind, Op, OpCode, OpRef, Trace, Value};
use std::collections::BTreeMap;
use std::time::Instant;

/// The values of a failed guard's original fail args (the ones its
/// snapshot numbers): the dead frame's values for an unoptimized trace;
/// for an optimized one, rebuilt from the optimizer's resume data
/// (virtuals allocated, pending fields stored).
pub(crate) fn original_fail_args<B: Backend>(
    jit: &mut JitDriver<B>,
    df: &DeadFrame,
    info: &GuardInfo,
) -> Result<Vec<Value>, JitError> {
    let Some(rd) = &info.resume else {
        return Ok(df.values.clone());
    };
    // SAFETY: `rd` is the optimizer's description of the guard that
    // produced `df`, so its refs are live objects of the layouts `rd`
    // stores into, and the driver's allocator returns zeroed objects.
    unsafe { crate::resume::rebuild(&df.values, rd, &mut *jit.alloc) }
        .map_err(|e| JitError::Resume(e.to_string()))
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

/// Traces and compiles a bridge from the guard that produced `df` (its
/// original fail args are `values`, already rebuilt); returns
/// where the bridge trace left the interpreter.
pub(crate) fn trace_bridge<B: Backend>(
    jit: &mut JitDriver<B>,
    df: &DeadFrame,
    info: &GuardInfo,
    values: &[Value],
) -> Result<Next, JitError> {
    let kinds: Vec<Kind> = df.values.iter().map(|v| v.kind()).collect();
    let mut trace = Trace::new(&kinds);
    let boxes = bridge_boxes(&mut trace, info.resume.as_ref(), values);
    let snap = &info.snapshot;
    let mut frames = Vec::new();
    for (k, sf) in snap.frames.iter().enumerate() {
        let callee_dst = snap.frames.get(k + 1).and_then(|c| c.ret_dst);
        let live = frame_live_set(&sf.code, sf.pc, callee_dst);
        let mut regs = Vec::new();
        for (reg, sv) in live.regs().zip(&sf.values) {
            let b = match *sv {
                SnapValue::Arg(i) => boxes[i as usize],
                SnapValue::Const(v) => TBox {
                    r: trace.add_const(const_of(v)),
                    v,
                },
            };
            regs.push((reg, b));
        }
        frames.push(BridgeFrame {
            code: sf.code.clone(),
            pc: sf.pc,
            ret_dst: sf.ret_dst,
            regs,
        });
    }
    let end = jit.run_tracer(|env| Tracer::for_bridge(env, trace, frames))?;
    match end {
        TraceEnd::Aborted {
            reason,
            frames,
            returned,
        } => jit.after_abort(reason, frames, returned),
        TraceEnd::Done(fin) => {
            let (greens, reds) = (fin.greens.clone(), fin.reds.clone());
            match compile(jit, *fin, Some(df.exit)) {
                Ok(c) => {
                    jit.stats.bridges_compiled += 1;
                    let guard = df.exit;
                    let name = format!(
                        "majit bridge {} from code {} op {}",
                        jit.bridges.len(),
                        guard.code.0,
                        guard.op_index
                    );
                    jit.announce(c.code, &name);
                    jit.bridges.push(BridgeInfo {
                        guard,
                        code: c.code,
                        trace: c.trace,
                        recorded: c.recorded,
                        ledger: c.ledger,
                    });
                }
                Err((reason, why)) => jit.stats.abort_because(reason, why),
            }
            Ok(Next::MergePoint(greens, reds))
        }
    }
}

/// A trace the backend accepted.
pub(crate) struct CompiledTrace {
    pub code: CodeId,
    /// As compiled (after the optimizer).
    pub trace: Trace,
    /// As the tracer recorded it.
    pub recorded: Trace,
    pub ledger: Ledger,
}

/// Optimizes (if enabled) and compiles a finished trace as a loop, or as
/// a bridge of `bridge_of`; registers its exits on success. On failure,
/// returns why (the reason and the message for the stats).
pub(crate) fn compile<B: Backend>(
    jit: &mut JitDriver<B>,
    fin: Finished,
    bridge_of: Option<ExitId>,
) -> Result<CompiledTrace, (AbortReason, String)> {
    let recorded = fin.trace.clone();
    let (trace, resume, ledger) = optimize(jit, fin.trace)?;
    let start = Instant::now();
    let compiled = match bridge_of {
        None => jit.backend.compile_loop(&trace),
        Some(guard) => jit.backend.compile_bridge(guard, &trace),
    };
    jit.stats.time_backend += start.elapsed();
    let code =
        compiled.map_err(|e| (AbortReason::CompileFailed, format!("compile failed: {e}")))?;
    if let Some(diff) = &mut jit.diff {
        diff.compiled(code, bridge_of, &trace);
    }
    jit.stats.ops_recorded += recorded.ops.len() as u64;
    jit.stats.ops_optimized += trace.ops.len() as u64;
    jit.stats.allocations_kept += ledger.allocations().count() as u64;
    jit.stats.allocations_removed += allocations(&recorded).saturating_sub(allocations(&trace));
    register_guards(jit, fin.guards, resume);
    if let Some(id) = fin.finish {
        jit.exits.insert(id, Exit::Finish(fin.greens.clone()));
    }
    Ok(CompiledTrace {
        code,
        trace,
        recorded,
        ledger,
    })
}

/// The allocation ops of `trace`.
fn allocations(trace: &Trace) -> u64 {
    let allocs = trace.ops.iter().filter(|op| op.opcode.is_allocation());
    allocs.count() as u64
}

/// Registers the exits of a compiled trace. Unoptimized, each recorded
/// guard is an exit; optimized, each guard in the resume map is, with the
/// snapshot of the guard it was copied from (`GuardResume::original`).
/// Later fail-descr ids stay above every id the optimizer used.
fn register_guards<B: Backend>(
    jit: &mut JitDriver<B>,
    guards: Vec<(u32, Snapshot)>,
    resume: ResumeMap,
) {
    let unoptimized = !jit.params.optimizes();
    let snapshots: BTreeMap<u32, Snapshot> = guards.into_iter().collect();
    let mut exits: Vec<(u32, Snapshot, Option<GuardResume>)> = Vec::new();
    if unoptimized {
        exits.extend(snapshots.into_iter().map(|(id, s)| (id, s, None)));
    } else {
        for (id, rd) in resume {
            if let Some(s) = snapshots.get(&rd.original) {
                exits.push((id, s.clone(), Some(rd)));
            }
        }
    }
    for (id, snapshot, resume) in exits {
        jit.next_fail_id = jit.next_fail_id.max(id + 1);
        let info = GuardInfo {
            snapshot,
            resume,
            failures: 0,
            value_failures: BTreeMap::new(),
            bridged: false,
        };
        jit.exits.insert(id, Exit::Guard(info));
    }
}

/// Runs the optimizer when built-in or user passes are enabled.
fn optimize<B: Backend>(
    jit: &mut JitDriver<B>,
    trace: Trace,
) -> Result<(Trace, ResumeMap, Ledger), (AbortReason, String)> {
    if !jit.params.optimizes() {
        return Ok((trace, ResumeMap::new(), Ledger::default()));
    }
    let start = Instant::now();
    let (opts, user) = (&jit.params.enable_opts, &jit.params.passes);
    let out = crate::opt::optimize_with(&trace, opts, user);
    jit.stats.time_optimizing += start.elapsed();
    match out {
        Ok(o) => Ok((o.trace, o.resume, o.ledger)),
        Err(e @ OptError::Invalid { .. }) => Err((AbortReason::InvalidLoop, e.to_string())),
        Err(e) => Err((AbortReason::CompileFailed, format!("optimizer failed: {e}"))),
    }
}
