//! Where the C calling convention puts a call's arguments: the
//! arch-neutral half of every `call_*` emitter.
//!
//! Integer/ref and float arguments fill their own register sequences of
//! the [`RegFile`] in order; what does not fit goes to the stack in
//! argument order. This holds for SysV x86-64 and AAPCS64 alike, so each
//! architecture only encodes the moves and stores this module plans.

use crate::arch::{Bank, Loc, OpCx, RegFile};
use crate::regalloc::moves::Move;
use majit_metainterp::CompileError;

/// The plan for one call's arguments.
#[derive(Debug, Default)]
pub struct ArgPlan {
    /// Moves into argument registers (to be done as one parallel move).
    pub reg_moves: Vec<Move>,
    /// Locations of the stack arguments, first stack slot first.
    pub stack: Vec<Loc>,
}

/// Plans the arguments of the call `cx` (arg 0 is the function address)
/// for the convention `regs` describes, after checking them against the
/// op's `CallDescr`.
pub fn plan_call_args(cx: &OpCx, regs: &RegFile) -> Result<ArgPlan, CompileError> {
    let descr = cx
        .op
        .descr
        .as_ref()
        .and_then(|d| d.as_call())
        .ok_or_else(|| {
            CompileError::Invalid(format!(
                "{} at op {} needs a call descr",
                cx.op.opcode, cx.index
            ))
        })?;
    if descr.args.len() + 1 != cx.args.len() {
        return Err(CompileError::Invalid(format!(
            "call at op {} passes {} arguments, {} declares {}",
            cx.index,
            cx.args.len() - 1,
            descr.name,
            descr.args.len()
        )));
    }
    let (mut ints, mut floats) = (regs.int_args.iter(), regs.float_args.iter());
    let mut plan = ArgPlan::default();
    for (&loc, &kind) in cx.args[1..].iter().zip(&descr.args) {
        let dest = match Bank::of(kind) {
            Bank::Int => ints.next(),
            Bank::Float => floats.next(),
        };
        match dest {
            Some(&r) => plan.reg_moves.push(Move {
                from: loc,
                to: Loc::Reg(r),
                kind,
            }),
            None => plan.stack.push(loc),
        }
    }
    Ok(plan)
}
