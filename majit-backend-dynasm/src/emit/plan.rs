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
        Family::MallocNursery
        | Family::MallocVarsize
        | Family::WriteBarrier
        | Family::CollectPoll => has_gc,
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

/// Signed division by the constant `d` as a multiplication (Hacker's
/// Delight, 10-1): `(m, s)` such that for every `n`, with `q` the high
/// word of `n * m`, plus `n` when `d > 0 > m`, minus `n` when `d < 0 < m`,
/// shifted right arithmetically by `s`, plus its sign bit, `q == n / d`
/// (truncating). `None` for `d` in `-1..=1` and `i64::MIN`, which the
/// emitters handle otherwise.
pub fn signed_magic(d: i64) -> Option<(i64, u32)> {
    if (-1..=1).contains(&d) || d == i64::MIN {
        return None;
    }
    const TWO63: u64 = 1 << 63;
    let ad = d.unsigned_abs();
    let t = TWO63 + ((d as u64) >> 63);
    let anc = t - 1 - t % ad;
    let (mut q1, mut r1) = (TWO63 / anc, TWO63 % anc);
    let (mut q2, mut r2) = (TWO63 / ad, TWO63 % ad);
    let mut p = 63u32;
    loop {
        p += 1;
        (q1, r1) = (q1.wrapping_mul(2), r1.wrapping_mul(2));
        if r1 >= anc {
            (q1, r1) = (q1.wrapping_add(1), r1 - anc);
        }
        (q2, r2) = (q2.wrapping_mul(2), r2.wrapping_mul(2));
        if r2 >= ad {
            (q2, r2) = (q2.wrapping_add(1), r2 - ad);
        }
        let delta = ad - r2;
        if !(q1 < delta || (q1 == delta && r1 == 0)) {
            break;
        }
    }
    let m = q2.wrapping_add(1) as i64;
    Some((if d < 0 { m.wrapping_neg() } else { m }, p - 64))
}

#[cfg(test)]
mod tests {
    use super::signed_magic;

    /// The quotient the emitted sequence computes.
    fn by_magic(n: i64, d: i64) -> i64 {
        let (m, s) = signed_magic(d).expect("a divisor with a magic number");
        let mut q = ((i128::from(n) * i128::from(m)) >> 64) as i64;
        if d > 0 && m < 0 {
            q = q.wrapping_add(n);
        }
        if d < 0 && m > 0 {
            q = q.wrapping_sub(n);
        }
        q >>= s;
        q.wrapping_add((q as u64 >> 63) as i64)
    }

    #[test]
    fn magic_numbers_divide_like_idiv() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut ns = vec![
            0,
            1,
            -1,
            2,
            -2,
            7,
            -7,
            i64::MAX,
            i64::MIN,
            i64::MIN + 1,
            1000,
            -999,
        ];
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ns.push(x as i64);
            ns.push((x as i64) >> (x % 60));
        }
        let mut ds: Vec<i64> = (2..300).chain(-300..-1).collect();
        ds.extend([
            1000,
            1 << 20,
            641,
            1_000_000_007,
            i64::MAX,
            i64::MIN + 1,
            -(1 << 40) - 3,
        ]);
        for &d in &ds {
            for &n in &ns {
                assert_eq!(by_magic(n, d), n.wrapping_div(d), "{n} / {d}");
            }
        }
        assert_eq!(signed_magic(1), None);
        assert_eq!(signed_magic(i64::MIN), None);
    }
}
