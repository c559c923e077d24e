//! The compile pipeline for one trace: check support, schedule, allocate,
//! check the allocation, and walk the result calling the [`Emitter`](crate::arch::Emitter).
//!
//! ```text
//! Trace --sched--> order --regalloc--> Allocation --checker--> ok
//!       --driver: moves + emit_* per op--> Assembled (code, pool, exits)
//! ```
//!
//! Exit numbers are assigned here, in schedule order, so a trace's exits
//! are numbered the same way on every architecture.

use crate::arch::{Arch, Assembled, EmitEnv, JumpTarget, Loc, OpCx};
use crate::guard::ExitRecord;
use crate::regalloc::{self, checker, AllocInput, AllocPolicy, Allocation};
use crate::sched::{self, SchedStrategy};
use majit_ir::{Kind, OpCode, Trace};
use majit_metainterp::CompileError;
use smallvec::SmallVec;

/// A label of an already compiled trace: its address and argument locations.
#[derive(Clone, Debug, PartialEq)]
pub struct ExternalLabel {
    pub addr: usize,
    pub locs: Vec<Loc>,
}

/// Options of one compilation.
pub struct CompileOptions<'a> {
    pub sched: &'a mut dyn SchedStrategy,
    pub policy: &'a mut dyn AllocPolicy,
    /// Run the allocation checker.
    pub check: bool,
    /// GC support is configured (allocation ops are allowed).
    pub has_gc: bool,
}

/// The result of compiling one trace.
#[derive(Debug)]
pub struct Compiled {
    pub assembled: Assembled,
    pub allocation: Allocation,
    pub order: Vec<usize>,
}

/// Compiles `trace` whose inputs start at `entry`.
pub fn compile<A: Arch>(
    trace: &Trace,
    entry: Vec<Loc>,
    external: &dyn Fn(&str) -> Option<ExternalLabel>,
    env: &EmitEnv,
    opts: CompileOptions,
) -> Result<Compiled, CompileError> {
    validate::<A>(trace, opts.has_gc)?;
    let order = sched::schedule(trace, opts.sched)?;
    let constraints = |op: &majit_ir::Op| A::constraints(op);
    let ext_locs = |name: &str| external(name).map(|l| l.locs);
    let input = AllocInput {
        trace,
        order: &order,
        regs: A::regs(),
        constraints: &constraints,
        entry,
        external_label: &ext_locs,
    };
    let allocation = regalloc::allocate(&input, opts.policy)?;
    if opts.check {
        checker::check(trace, &order, &allocation, A::regs(), &constraints)
            .map_err(|e| CompileError::Regalloc(e.to_string()))?;
    }
    let assembled = emit::<A>(trace, &allocation, external, env)?;
    Ok(Compiled {
        assembled,
        allocation,
        order,
    })
}

/// Rejects traces the backend cannot compile, with a message naming what.
fn validate<A: Arch>(trace: &Trace, has_gc: bool) -> Result<(), CompileError> {
    let Some(last) = trace.ops.last() else {
        return Err(CompileError::Invalid("empty trace".into()));
    };
    if !last.opcode.is_final() {
        return Err(CompileError::Invalid(format!(
            "trace ends with {}, not jump or finish",
            last.opcode
        )));
    }
    for (i, op) in trace.ops.iter().enumerate() {
        if !A::supports(op.opcode, has_gc) {
            return Err(CompileError::Unsupported {
                op: format!("{} at op {i}", op.opcode),
            });
        }
        if op.opcode.is_final() && i + 1 != trace.ops.len() {
            return Err(CompileError::Invalid(format!(
                "{} at op {i} is not the last op",
                op.opcode
            )));
        }
        if op.opcode.is_guard() && op.fail_args.is_none() {
            return Err(CompileError::Invalid(format!(
                "guard at op {i} has no fail args"
            )));
        }
        for &a in op.args.iter().chain(op.fail_args.iter().flatten()) {
            if trace.kind_of(a).is_none() {
                return Err(CompileError::Invalid(format!(
                    "op {i} uses {a:?}, which has no value"
                )));
            }
        }
    }
    Ok(())
}

fn kinds_of(trace: &Trace, refs: &[majit_ir::OpRef]) -> SmallVec<[Kind; 8]> {
    refs.iter()
        .map(|&r| trace.kind_of(r).unwrap_or(Kind::Int))
        .collect()
}

/// Per scheduled op: whether its result's only reader is the next op, a
/// `guard_true`/`guard_false` testing it (no fail arg, label or jump reads
/// it), so the guard can branch on the flags the op leaves.
fn flags_only_results(trace: &Trace, alloc: &Allocation) -> Vec<bool> {
    let mut reads = vec![0u32; trace.ops.len()];
    for op in &trace.ops {
        let fail_args = op.fail_args.iter().flatten();
        for r in op.args.iter().chain(fail_args) {
            if let majit_ir::RefTarget::Op(i) = r.target() {
                reads[i] += 1;
            }
        }
    }
    let next_tests = |k: usize| {
        let (a, next) = (&alloc.ops[k], alloc.ops.get(k + 1));
        next.is_some_and(|n| {
            let g = &trace.ops[n.op];
            matches!(g.opcode, OpCode::GuardTrue | OpCode::GuardFalse)
                && g.args.first() == Some(&majit_ir::OpRef::op(a.op))
        })
    };
    (0..alloc.ops.len())
        .map(|k| reads[alloc.ops[k].op] == 1 && next_tests(k))
        .collect()
}

fn emit<A: Arch>(
    trace: &Trace,
    alloc: &Allocation,
    external: &dyn Fn(&str) -> Option<ExternalLabel>,
    env: &EmitEnv,
) -> Result<Assembled, CompileError> {
    let mut e = A::emitter_with(env);
    for m in &alloc.prologue {
        e.emit_move(m.from, m.to, m.kind)?;
    }
    let mut exits = 0u32;
    let flags_only = flags_only_results(trace, alloc);
    for (k, a) in alloc.ops.iter().enumerate() {
        let op = &trace.ops[a.op];
        for m in &a.moves {
            e.emit_move(m.from, m.to, m.kind)?;
        }
        let kinds = kinds_of(trace, &op.args);
        let cx = OpCx {
            index: a.op,
            op,
            args: &a.args,
            kinds: &kinds,
            result: a.result,
            live: &a.live,
            flags_only: flags_only[k],
        };
        let exit_record = |n: &mut u32| {
            let refs = op.fail_args.as_deref().unwrap_or(&op.args);
            let values = a.fail_args.iter().copied().zip(kinds_of(trace, refs));
            *n += 1;
            ExitRecord::new(*n - 1, a.op, op.descr.clone(), values)
        };
        match op.opcode {
            OpCode::Label => e.emit_label(a.op)?,
            OpCode::Jump => {
                let name = regalloc::target_name(op)?;
                let own = alloc
                    .labels
                    .iter()
                    .rev()
                    .find(|(li, _)| regalloc::target_name(&trace.ops[*li]).ok() == Some(name));
                let target = match own {
                    Some((li, _)) => JumpTarget {
                        external: None,
                        label_op: *li,
                        locs: a.target.clone(),
                    },
                    None => {
                        let ext = external(name)
                            .ok_or_else(|| CompileError::UnknownTarget(format!("label {name}")))?;
                        JumpTarget {
                            external: Some(ext.addr),
                            label_op: 0,
                            locs: a.target.clone(),
                        }
                    }
                };
                let args: Vec<(Loc, Kind)> = a.args.iter().copied().zip(kinds).collect();
                e.emit_jump(&args, &target)?;
            }
            OpCode::Finish => e.emit_finish(exit_record(&mut exits))?,
            _ if op.opcode.is_guard() => e.emit_guard(&cx, exit_record(&mut exits))?,
            _ => e.emit_op(&cx)?,
        }
    }
    e.finish()
}
