//! Longevity of every value over the scheduled trace.
//!
//! Positions are 1-based indices into the schedule; inputs are defined at
//! position 0. For each value this computes its *real uses* (positions
//! where an op reads it as an operand: these make a register worthwhile),
//! its *last use* (counting fail args, `jump` and `finish` arguments, which
//! may read any location), whether a call lies strictly inside its life
//! (then a callee-saved register or a slot is the right home), and a
//! register hint: the ABI register of a call argument it feeds, or the
//! result register of the call that defines it. Hints from `jump` targets
//! are added by the allocator once the label's locations are known.

use crate::arch::{Bank, Reg, RegFile};
use majit_ir::{Kind, OpCode, OpRef, RefTarget, Trace};

/// A dense value number: inputs first, then op results by op index.
pub type ValueId = usize;

/// Longevity facts for one scheduled trace.
#[derive(Debug)]
pub struct Liveness {
    /// Schedule position (1-based) of each op index.
    pub pos_of: Vec<u32>,
    /// Definition position of each value.
    pub def: Vec<u32>,
    /// Positions of real uses, ascending, per value.
    pub uses: Vec<Vec<u32>>,
    /// Last position that needs the value (its definition when unused).
    pub last_use: Vec<u32>,
    /// Whether a call lies strictly between definition and last use.
    pub crosses_call: Vec<bool>,
    /// A register the value would like (call argument or call result).
    pub hint: Vec<Option<Reg>>,
    /// For values passed to the trace's final `jump`: their argument index.
    pub jump_index: Vec<Option<usize>>,
}

/// The value number of `r` in `trace`, or `None` for constants.
pub fn value_id(trace: &Trace, r: OpRef) -> Option<ValueId> {
    match r.target() {
        RefTarget::Input(i) => Some(i),
        RefTarget::Op(i) => Some(trace.inputs.len() + i),
        RefTarget::Const(_) => None,
    }
}

/// The `OpRef` of value number `v`.
pub fn value_ref(trace: &Trace, v: ValueId) -> OpRef {
    if v < trace.inputs.len() {
        OpRef::input(v)
    } else {
        OpRef::op(v - trace.inputs.len())
    }
}

impl Liveness {
    /// Computes longevity for `trace` scheduled as `order`. `is_call` says
    /// which ops clobber the caller-saved registers.
    pub fn compute(
        trace: &Trace,
        order: &[usize],
        regs: &RegFile,
        is_call: impl Fn(usize) -> bool,
    ) -> Liveness {
        let nv = trace.inputs.len() + trace.ops.len();
        let mut pos_of = vec![0u32; trace.ops.len()];
        for (k, &i) in order.iter().enumerate() {
            pos_of[i] = k as u32 + 1;
        }
        let mut def = vec![0u32; nv];
        for (i, &p) in pos_of.iter().enumerate() {
            def[trace.inputs.len() + i] = p;
        }
        let mut uses = vec![Vec::new(); nv];
        let mut last_use = def.clone();
        let mut hint = vec![None; nv];
        let mut jump_index = vec![None; nv];
        let mut calls = Vec::new();
        for (k, &i) in order.iter().enumerate() {
            let p = k as u32 + 1;
            let op = &trace.ops[i];
            let any_loc = op.opcode.carries_args();
            for (j, &a) in op.args.iter().enumerate() {
                let Some(v) = value_id(trace, a) else {
                    continue;
                };
                if !any_loc {
                    uses[v].push(p);
                }
                last_use[v] = last_use[v].max(p);
                if op.opcode == OpCode::Jump && jump_index[v].is_none() {
                    jump_index[v] = Some(j);
                }
            }
            for &a in op.fail_args.iter().flatten() {
                if let Some(v) = value_id(trace, a) {
                    last_use[v] = last_use[v].max(p);
                }
            }
            if is_call(i) {
                calls.push(p);
                call_hints(trace, i, regs, &mut hint);
            }
        }
        let crosses_call = (0..nv)
            .map(|v| {
                let at = calls.partition_point(|&c| c <= def[v]);
                calls.get(at).is_some_and(|&c| c < last_use[v])
            })
            .collect();
        Liveness {
            pos_of,
            def,
            uses,
            last_use,
            crosses_call,
            hint,
            jump_index,
        }
    }

    /// The first real use of `v` strictly after position `p`.
    pub fn next_use(&self, v: ValueId, p: u32) -> Option<u32> {
        let u = &self.uses[v];
        u.get(u.partition_point(|&x| x <= p)).copied()
    }
}

/// Hints call arguments toward their ABI registers and the result toward
/// the return register (first call wins).
fn call_hints(trace: &Trace, i: usize, regs: &RegFile, hint: &mut [Option<Reg>]) {
    let op = &trace.ops[i];
    if !op.opcode.is_call() {
        return;
    }
    let (mut ni, mut nf) = (0, 0);
    for &a in op.args.iter().skip(1) {
        let kind = trace.kind_of(a).unwrap_or(Kind::Int);
        let reg = match Bank::of(kind) {
            Bank::Int => {
                ni += 1;
                regs.int_args.get(ni - 1)
            }
            Bank::Float => {
                nf += 1;
                regs.float_args.get(nf - 1)
            }
        };
        if let (Some(v), Some(&r)) = (value_id(trace, a), reg) {
            hint[v].get_or_insert(r);
        }
    }
    if let Some(kind) = op.opcode.result().kind() {
        let r = match Bank::of(kind) {
            Bank::Int => regs.int_result,
            Bank::Float => regs.float_result,
        };
        hint[trace.inputs.len() + i].get_or_insert(r);
    }
}
