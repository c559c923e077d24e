//! Rewriting a trace so that its residual calls with effects go through
//! the recording shim (`runtime/record.rs`): `call(f, a, b)` with a descr
//! that is not elidable becomes `call(shim, site, f, a, b)`, where `site`
//! describes the original signature (calls of `quasi::written_shim` stay:
//! both sides run them). Both the backend and the shadow
//! compile the rewritten trace; op indexes do not change, so exits,
//! resume data and bridges still refer to the same ops.

use crate::runtime::call;
use crate::runtime::record::{self, Site, SHIM_ARGS};
use majit_ir::{CallDescr, CallEffect, Const, Descr, Kind, OpCode, Trace};
use std::rc::Rc;
use std::sync::Arc;

/// Rewrites the calls of `trace` that have effects; the sites it made
/// (their addresses are in the trace: keep them alive as long as code
/// compiled from it). `Err` names a call that cannot go through the shim.
pub(super) fn instrument(trace: &Trace) -> Result<(Trace, Vec<Rc<Site>>), String> {
    let mut out = trace.clone();
    let mut sites = Vec::new();
    for i in 0..out.ops.len() {
        let op = &out.ops[i];
        let Some(d) = op.descr.as_ref().and_then(Descr::as_call) else {
            continue;
        };
        // Invalidation (`quasi.rs`) runs on both sides: each side's
        // validity words are its own, and its guards must see its writes.
        let invalidates = d.name == crate::quasi::WRITTEN_DESCR;
        if !is_call(op.opcode) || d.effect.effect == CallEffect::Elidable || invalidates {
            continue;
        }
        if d.name == crate::portal::RUNNER {
            // Its effect is a nested run of the interpreter, which writes
            // the heap the trace reads back: not replayable.
            return Err(format!(
                "op {i}: a call of the interpreted program (a nested run of the interpreter) \
                 cannot be replayed"
            ));
        }
        let mut kinds = vec![Kind::Int; SHIM_ARGS];
        kinds.extend_from_slice(&d.args);
        if !call::fits(&kinds) {
            return Err(format!(
                "op {i} ({}): too many arguments to record the call",
                d.name
            ));
        }
        let site = Rc::new(Site {
            name: d.name.clone(),
            kinds: d.args.clone().into_boxed_slice(),
            float_result: d.result.kind() == Some(Kind::Float),
            ref_result: d.result.kind() == Some(Kind::Ref),
        });
        let shim = if site.float_result {
            record::shim_float as *const () as usize
        } else {
            record::shim_int as *const () as usize
        };
        let descr = CallDescr {
            name: format!("{}_recorded", d.name),
            args: kinds,
            ..CallDescr::clone(d)
        };
        let shim = out.add_const(Const::Int(shim as i64));
        let site_ref = out.add_const(Const::Int(Rc::as_ptr(&site) as i64));
        let op = &mut out.ops[i];
        op.args.insert(0, site_ref);
        op.args.insert(0, shim);
        op.descr = Some(Descr::Call(Arc::new(descr)));
        sites.push(site);
    }
    Ok((out, sites))
}

/// The call opcodes the reference executor runs as real calls.
fn is_call(opcode: OpCode) -> bool {
    use OpCode::*;
    matches!(
        opcode,
        CallI
            | CallR
            | CallF
            | CallN
            | CallPureI
            | CallPureR
            | CallPureF
            | CallPureN
            | CallMayForceI
            | CallMayForceR
            | CallMayForceF
            | CallMayForceN
            | CallAssemblerI
            | CallAssemblerR
            | CallAssemblerF
            | CallAssemblerN
    )
}
