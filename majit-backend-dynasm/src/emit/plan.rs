//! The arch-neutral decisions behind the emitted code: which ops a
//! backend supports, which nursery region and slow path an allocation
//! uses, which type ids `guard_class` accepts, and which registers a GC
//! slow path must save.

use crate::arch::{EmitEnv, Loc, OpCx, Reg, RegFile};
use majit_gc::JitGcInfo;
use majit_ir::{Const, Kind, Op, OpCode};
use majit_metainterp::CompileError;

/// The error for `op`, which cannot be compiled because of `why`.
pub fn unsupported(op: &Op, why: &str) -> CompileError {
    CompileError::Unsupported {
        op: format!("{} ({why})", op.opcode),
    }
}

/// Whether the emitters handle `opcode` (see [`super::dispatch::family`]):
/// the high-level allocations never (the GC rewrite lowers them), the GC
/// ops only with a GC.
pub fn supports(opcode: OpCode, has_gc: bool) -> bool {
    use super::dispatch::Family;
    match super::dispatch::family(opcode) {
        Family::Unsupported(_) => false,
        Family::MallocNursery | Family::MallocVarsize | Family::WriteBarrier => has_gc,
        _ => true,
    }
}

/// The GC contract, or the error for `cx`'s op on a backend without one.
pub fn gc(env: &EmitEnv, cx: &OpCx) -> Result<JitGcInfo, CompileError> {
    env.gc
        .clone()
        .ok_or_else(|| unsupported(cx.op, "the backend has no GC"))
}

/// How one `call_malloc_nursery*` allocates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NurseryPlan {
    /// Addresses of the region's free and top words.
    pub free: usize,
    pub top: usize,
    /// The GC entry point of the slow path, and its second argument after
    /// the heap: the type id (headerless), or the size itself (`None`).
    pub slow_fn: usize,
    pub slow_arg: Option<i64>,
    /// A constant size above the nursery's limit: only the slow path.
    pub always_slow: bool,
}

/// The region and slow path of `call_malloc_nursery(size)` (the nursery)
/// or `call_malloc_nursery_headerless(size)` (the region of the layout
/// named by the size descr).
pub fn nursery(cx: &OpCx, gc: &JitGcInfo) -> Result<NurseryPlan, CompileError> {
    let (free, top, slow_fn, slow_arg) = if cx.op.opcode == OpCode::CallMallocNursery {
        (
            gc.nursery_free_addr,
            gc.nursery_top_addr,
            gc.malloc_nursery_fn,
            None,
        )
    } else {
        let layout = cx
            .op
            .descr
            .as_ref()
            .and_then(|d| d.as_size())
            .ok_or_else(|| unsupported(cx.op, "needs a size descr"))?;
        let region = gc
            .headerless
            .iter()
            .find(|r| r.type_id == layout.type_id)
            .ok_or_else(|| {
                unsupported(cx.op, &format!("no GC region for layout {}", layout.name))
            })?;
        (
            region.free_addr,
            region.top_addr,
            gc.malloc_nursery_headerless_fn,
            Some(layout.type_id as i64),
        )
    };
    let too_big = matches!(cx.args[0], Loc::Const(c)
        if const_bits(c) as u64 > gc.max_nursery_object as u64);
    Ok(NurseryPlan {
        free,
        top,
        slow_fn,
        slow_arg,
        always_slow: too_big && slow_arg.is_none(),
    })
}

/// The type ids `guard_class(p, cls)` accepts in `p`'s header: those whose
/// class word is `cls` (see `EmitEnv::classes`), or `cls` itself when no
/// layout has it.
pub fn class_ids(env: &EmitEnv, cx: &OpCx) -> Result<Vec<u32>, CompileError> {
    let Loc::Const(c) = cx.args[1] else {
        return Err(unsupported(cx.op, "class operand is not a constant"));
    };
    let class = const_bits(c) as u64;
    let mut ids: Vec<u32> = env
        .classes
        .iter()
        .filter(|e| e.0 == class)
        .map(|e| e.1)
        .collect();
    if ids.is_empty() {
        ids.push(class as u32);
    }
    Ok(ids)
}

/// The live registers a GC slow path saves around its call (in `live`
/// order): those the call may clobber and those holding refs (which a
/// collection may move), except `dst`, which the call defines.
pub fn slow_path_saves(regs: &RegFile, live: &[(Loc, Kind)], dst: Option<Reg>) -> Vec<Reg> {
    let mut saved: Vec<Reg> = Vec::new();
    for &(loc, kind) in live {
        if let Loc::Reg(r) = loc {
            let keep = regs.info(r).caller_saved || kind == Kind::Ref;
            if keep && !saved.contains(&r) && Some(r) != dst {
                saved.push(r);
            }
        }
    }
    saved
}

/// The 64 bits a constant stands for.
pub fn const_bits(c: Const) -> i64 {
    match c {
        Const::Int(v) => v,
        Const::Ref(v) => v as i64,
        Const::Float(b) => b as i64,
    }
}
