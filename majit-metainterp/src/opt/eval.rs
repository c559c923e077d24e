//! Compile-time evaluation of pure ops on constant arguments, with exactly
//! the run-time semantics of [`crate::backend`] (wrapping integers, shift
//! counts modulo 64, defined division by zero, saturating float casts).
//!
//! Used by rewrite (constant folding) and pure (all-constant ops). Ops with
//! effects, loads, calls and ref-producing casts are never evaluated.

use majit_ir::{Const, OpCode};

/// The value of `code(args)` when every argument is a constant and the op
/// is safe to evaluate; `None` otherwise.
pub fn eval_pure(code: OpCode, args: &[Const]) -> Option<Const> {
    use OpCode::*;
    let int = |i: usize| match args.get(i) {
        Some(Const::Int(v)) => Some(*v),
        _ => None,
    };
    let flt = |i: usize| match args.get(i) {
        Some(Const::Float(b)) => Some(f64::from_bits(*b)),
        _ => None,
    };
    let b = |v: bool| Some(Const::Int(v as i64));
    let f = |v: f64| Some(Const::float(v));
    match code {
        IntAdd | IntSub | IntMul | IntFloorDiv | IntMod | IntAnd | IntOr | IntXor | IntLshift
        | IntRshift | UintRshift | IntLt | IntLe | IntEq | IntNe | IntGt | IntGe | UintLt
        | UintLe | UintGt | UintGe => eval_int2(code, int(0)?, int(1)?),
        IntNeg => Some(Const::Int(int(0)?.wrapping_neg())),
        IntInvert => Some(Const::Int(!int(0)?)),
        IntIsZero => b(int(0)? == 0),
        IntIsTrue => b(int(0)? != 0),
        SameAsI | SameAsR | SameAsF => args.first().copied(),
        FloatAdd => f(flt(0)? + flt(1)?),
        FloatSub => f(flt(0)? - flt(1)?),
        FloatMul => f(flt(0)? * flt(1)?),
        FloatTrueDiv => f(flt(0)? / flt(1)?),
        FloatNeg => f(-flt(0)?),
        FloatAbs => f(flt(0)?.abs()),
        FloatLt => b(flt(0)? < flt(1)?),
        FloatLe => b(flt(0)? <= flt(1)?),
        FloatEq => b(flt(0)? == flt(1)?),
        FloatNe => b(flt(0)? != flt(1)?),
        FloatGt => b(flt(0)? > flt(1)?),
        FloatGe => b(flt(0)? >= flt(1)?),
        CastFloatToInt => Some(Const::Int(flt(0)? as i64)),
        CastIntToFloat => f(int(0)? as f64),
        ConvertFloatBytesToLonglong => Some(Const::Int(flt(0)?.to_bits() as i64)),
        ConvertLonglongBytesToFloat => Some(Const::Float(int(0)? as u64)),
        PtrEq | PtrNe => match (args.first()?, args.get(1)?) {
            (Const::Ref(x), Const::Ref(y)) => b((x == y) == (code == PtrEq)),
            _ => None,
        },
        _ => None,
    }
}

/// Two-operand integer ops and comparisons.
pub fn eval_int2(code: OpCode, x: i64, y: i64) -> Option<Const> {
    use OpCode::*;
    let (ux, uy) = (x as u64, y as u64);
    let v = match code {
        IntAdd => x.wrapping_add(y),
        IntSub => x.wrapping_sub(y),
        IntMul => x.wrapping_mul(y),
        IntFloorDiv => match y {
            0 => 0,
            _ => x.wrapping_div(y),
        },
        IntMod => match y {
            0 => x,
            _ => x.wrapping_rem(y),
        },
        IntAnd => x & y,
        IntOr => x | y,
        IntXor => x ^ y,
        IntLshift => x.wrapping_shl(y as u32 & 63),
        IntRshift => x.wrapping_shr(y as u32 & 63),
        UintRshift => (ux.wrapping_shr(y as u32 & 63)) as i64,
        IntLt => (x < y) as i64,
        IntLe => (x <= y) as i64,
        IntEq => (x == y) as i64,
        IntNe => (x != y) as i64,
        IntGt => (x > y) as i64,
        IntGe => (x >= y) as i64,
        UintLt => (ux < uy) as i64,
        UintLe => (ux <= uy) as i64,
        UintGt => (ux > uy) as i64,
        UintGe => (ux >= uy) as i64,
        _ => return None,
    };
    Some(Const::Int(v))
}

/// For `int_*_ovf`: the wrapped result and whether it overflowed.
pub fn eval_ovf(code: OpCode, x: i64, y: i64) -> Option<(i64, bool)> {
    match code {
        OpCode::IntAddOvf => Some(x.overflowing_add(y)),
        OpCode::IntSubOvf => Some(x.overflowing_sub(y)),
        OpCode::IntMulOvf => Some(x.overflowing_mul(y)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_edges_follow_the_backend_contract() {
        use OpCode::*;
        assert_eq!(eval_int2(IntFloorDiv, 7, 0), Some(Const::Int(0)));
        assert_eq!(eval_int2(IntMod, 7, 0), Some(Const::Int(7)));
        assert_eq!(
            eval_int2(IntFloorDiv, i64::MIN, -1),
            Some(Const::Int(i64::MIN))
        );
        assert_eq!(eval_int2(IntMod, i64::MIN, -1), Some(Const::Int(0)));
        assert_eq!(eval_int2(IntFloorDiv, -7, 2), Some(Const::Int(-3)));
        assert_eq!(eval_int2(IntMod, -7, 2), Some(Const::Int(-1)));
        assert_eq!(eval_int2(IntLshift, 1, 65), Some(Const::Int(2)));
    }

    #[test]
    fn nothing_with_effects_is_evaluated() {
        assert_eq!(eval_pure(OpCode::New, &[]), None);
        assert_eq!(
            eval_pure(OpCode::IntAddOvf, &[Const::Int(1), Const::Int(2)]),
            None
        );
    }
}
