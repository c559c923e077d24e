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
//! [`compile`] is the one path from a finished trace to the backend, for
//! loops and bridges alike: the optimizer when `enable_opts` names passes,
//! then the backend, then (only on success) the trace's exits are
//! registered and counted.

use crate::backend::{Backend, CodeId, DeadFrame, ExitId};
use crate::driver::{Exit, GuardInfo, JitDriver, JitError, Next};
use crate::stats::AbortReason;
use crate::tracer::{
    const_of, frame_live_set, BridgeFrame, Finished, SnapValue, TBox, TraceEnd, Tracer,
};
use majit_ir::{Kind, OpRef, Trace, Value};
use std::time::Instant;

/// The values of a failed guard's original fail args (the ones its
/// snapshot numbers), read from the dead frame.
pub(crate) fn original_fail_args<B: Backend>(
    _jit: &mut JitDriver<B>,
    df: &DeadFrame,
    info: &GuardInfo,
) -> Result<Vec<Value>, JitError> {
    let _ = info;
    Ok(df.values.clone())
}

/// Traces and compiles a bridge from the guard that produced `df`, then
/// continues from where the bridge trace left the interpreter.
pub(crate) fn trace_bridge<B: Backend>(
    jit: &mut JitDriver<B>,
    df: &DeadFrame,
    info: &GuardInfo,
) -> Result<Next, JitError> {
    let values = original_fail_args(jit, df, info)?;
    let kinds: Vec<Kind> = values.iter().map(|v| v.kind()).collect();
    let mut trace = Trace::new(&kinds);
    let snap = &info.snapshot;
    let mut frames = Vec::new();
    for (k, sf) in snap.frames.iter().enumerate() {
        let callee_dst = snap.frames.get(k + 1).and_then(|c| c.ret_dst);
        let live = frame_live_set(&sf.code, sf.pc, callee_dst);
        let mut regs = Vec::new();
        for (reg, sv) in live.regs().zip(&sf.values) {
            let b = match *sv {
                SnapValue::Arg(i) => TBox {
                    r: OpRef::input(i as usize),
                    v: values[i as usize],
                },
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
                Ok(_) => jit.stats.bridges_compiled += 1,
                Err(reason) => jit.stats.abort(reason),
            }
            jit.continue_at(greens, reds)
        }
    }
}

/// Optimizes (if enabled) and compiles a finished trace as a loop, or as
/// a bridge of `bridge_of`; registers its exits on success.
pub(crate) fn compile<B: Backend>(
    jit: &mut JitDriver<B>,
    fin: Finished,
    bridge_of: Option<ExitId>,
) -> Result<(CodeId, Trace), AbortReason> {
    jit.stats.ops_recorded += fin.trace.ops.len() as u64;
    let trace = fin.trace;
    let start = Instant::now();
    let compiled = match bridge_of {
        None => jit.backend.compile_loop(&trace),
        Some(guard) => jit.backend.compile_bridge(guard, &trace),
    };
    jit.stats.time_backend += start.elapsed();
    let code = compiled.map_err(|_| AbortReason::CompileFailed)?;
    jit.stats.ops_optimized += trace.ops.len() as u64;
    for (id, snapshot) in fin.guards {
        let info = GuardInfo {
            snapshot,
            failures: 0,
            bridged: false,
        };
        jit.exits.insert(id, Exit::Guard(info));
    }
    if let Some(id) = fin.finish {
        jit.exits.insert(id, Exit::Finish(fin.greens.clone()));
    }
    Ok((code, trace))
}
