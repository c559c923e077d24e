//! The executable semantics of the IR's value operations.
//!
//! One definition of what `int_floordiv`, `uint_rshift`, `float_lt` or
//! `cast_float_to_int` compute, shared by everything that evaluates ops
//! without emitting machine code: the reference executor, the tracer and
//! blackhole (jitcode), and the optimizer's constant folding. Native
//! backends implement the same semantics in machine code and are tested
//! against the reference executor, hence against this file.
//!
//! The rules (also stated in `majit_metainterp::backend`):
//! - integers wrap (two's complement, 64 bits); shift counts are taken
//!   modulo 64;
//! - `int_floordiv(x, 0) == 0`, `int_mod(x, 0) == x`,
//!   `int_floordiv(i64::MIN, -1) == i64::MIN`, `int_mod(i64::MIN, -1) == 0`;
//!   otherwise division truncates toward zero and the remainder has the sign
//!   of the dividend;
//! - comparisons produce 0 or 1; float comparisons with a NaN are false
//!   except `float_ne`;
//! - `cast_float_to_int` truncates toward zero and saturates, NaN gives 0.

use crate::flonum;
use crate::op::Value;
use crate::opcode::OpCode;

/// `op(args)` for a value operation: integer, float and pointer arithmetic,
/// comparisons, casts and `same_as_*`. `None` when `op` is not such an
/// operation (memory, calls, guards, allocation, overflow-checked ops — see
/// [`eval_ovf`]) or when an argument has the wrong kind or is missing.
///
/// ```
/// use majit_ir::{eval::eval_pure, OpCode, Value};
/// assert_eq!(eval_pure(OpCode::IntFloorDiv, &[Value::Int(7), Value::Int(0)]), Some(Value::Int(0)));
/// assert_eq!(eval_pure(OpCode::FloatLt, &[Value::Float(f64::NAN), Value::Float(1.0)]), Some(Value::Int(0)));
/// assert_eq!(eval_pure(OpCode::SetfieldGc, &[]), None);
/// ```
pub fn eval_pure(op: OpCode, args: &[Value]) -> Option<Value> {
    use OpCode::*;
    let int = |i: usize| args.get(i).and_then(|v| v.as_int());
    let flt = |i: usize| args.get(i).and_then(|v| v.as_float());
    let ptr = |i: usize| args.get(i).and_then(|v| v.as_ref());
    let bool_ = |b: bool| Value::Int(b as i64);
    Some(match op {
        IntNeg => Value::Int(int(0)?.wrapping_neg()),
        IntInvert => Value::Int(!int(0)?),
        IntIsZero => bool_(int(0)? == 0),
        IntIsTrue => bool_(int(0)? != 0),
        FloatAdd => Value::Float(flt(0)? + flt(1)?),
        FloatSub => Value::Float(flt(0)? - flt(1)?),
        FloatMul => Value::Float(flt(0)? * flt(1)?),
        FloatTrueDiv => Value::Float(flt(0)? / flt(1)?),
        FloatNeg => Value::Float(-flt(0)?),
        FloatAbs => Value::Float(flt(0)?.abs()),
        FloatSqrt => Value::Float(flt(0)?.sqrt()),
        FloatLt => bool_(flt(0)? < flt(1)?),
        FloatLe => bool_(flt(0)? <= flt(1)?),
        FloatEq => bool_(flt(0)? == flt(1)?),
        FloatNe => bool_(flt(0)? != flt(1)?),
        FloatGt => bool_(flt(0)? > flt(1)?),
        FloatGe => bool_(flt(0)? >= flt(1)?),
        CastFloatToInt => Value::Int(flt(0)? as i64),
        CastIntToFloat => Value::Float(int(0)? as f64),
        ConvertFloatBytesToLonglong => Value::Int(flt(0)?.to_bits() as i64),
        ConvertLonglongBytesToFloat => Value::Float(f64::from_bits(int(0)? as u64)),
        PtrEq => bool_(ptr(0)? == ptr(1)?),
        PtrNe => bool_(ptr(0)? != ptr(1)?),
        CastPtrToInt => Value::Int(ptr(0)? as i64),
        CastIntToPtr => Value::Ref(int(0)? as usize),
        IntTag => Value::Ref((int(0)?.wrapping_shl(1) | 1) as usize),
        IntUntag => Value::Int(ptr(0)? as i64 >> 1),
        PtrIsTagged => bool_(ptr(0)? & 1 != 0),
        IntFitsTag => bool_(int(0)?.checked_add(int(0)?).is_some()),
        FloatTag => Value::Ref(flonum::encode(flt(0)?) as usize),
        FloatUntag => Value::Float(flonum::decode(ptr(0)? as u64)),
        PtrIsFloatTagged => bool_(flonum::is_tagged(ptr(0)? as u64)),
        FloatFitsTag => bool_(flonum::fits(flt(0)?)),
        SameAsI => Value::Int(int(0)?),
        SameAsR => Value::Ref(ptr(0)?),
        SameAsF => Value::Float(flt(0)?),
        _ => Value::Int(eval_int_binary(op, int(0)?, int(1)?)?),
    })
}

/// Two-operand integer arithmetic and comparisons; `None` for other ops.
pub fn eval_int_binary(op: OpCode, x: i64, y: i64) -> Option<i64> {
    use OpCode::*;
    let (ux, uy) = (x as u64, y as u64);
    let shift = y as u32 & 63;
    Some(match op {
        IntAdd => x.wrapping_add(y),
        IntSub => x.wrapping_sub(y),
        IntMul => x.wrapping_mul(y),
        IntFloorDiv if y == 0 => 0,
        IntFloorDiv => x.wrapping_div(y),
        IntMod if y == 0 => x,
        IntMod => x.wrapping_rem(y),
        UintFloorDiv => ux.checked_div(uy).unwrap_or(0) as i64,
        UintMod => ux.checked_rem(uy).unwrap_or(ux) as i64,
        IntAnd => x & y,
        IntOr => x | y,
        IntXor => x ^ y,
        IntLshift => x.wrapping_shl(shift),
        IntRshift => x.wrapping_shr(shift),
        UintRshift => ux.wrapping_shr(shift) as i64,
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
    })
}

/// `int_*_ovf(x, y)`: the wrapped result and whether it overflowed; `None`
/// for other ops.
pub fn eval_ovf(op: OpCode, x: i64, y: i64) -> Option<(i64, bool)> {
    match op {
        OpCode::IntAddOvf => Some(x.overflowing_add(y)),
        OpCode::IntSubOvf => Some(x.overflowing_sub(y)),
        OpCode::IntMulOvf => Some(x.overflowing_mul(y)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use OpCode::*;

    fn int2(op: OpCode, x: i64, y: i64) -> i64 {
        eval_int_binary(op, x, y).unwrap()
    }

    #[test]
    fn division_edges_are_defined() {
        assert_eq!(int2(IntFloorDiv, 7, 0), 0);
        assert_eq!(int2(IntMod, 7, 0), 7);
        assert_eq!(int2(IntFloorDiv, i64::MIN, -1), i64::MIN);
        assert_eq!(int2(IntMod, i64::MIN, -1), 0);
        assert_eq!(int2(IntFloorDiv, -7, 2), -3);
        assert_eq!(int2(IntMod, -7, 2), -1);
        assert_eq!(int2(UintFloorDiv, -1, 2), i64::MAX);
        assert_eq!(int2(UintMod, -1, 10), 5);
        assert_eq!(int2(UintFloorDiv, 7, 0), 0);
        assert_eq!(int2(UintMod, 7, 0), 7);
        assert_eq!(int2(UintFloorDiv, 7, -1), 0);
    }

    #[test]
    fn shifts_take_the_count_modulo_64() {
        assert_eq!(int2(IntLshift, 1, 65), 2);
        assert_eq!(int2(IntRshift, -8, 66), -2);
        assert_eq!(int2(UintRshift, -1, 63), 1);
    }

    #[test]
    fn casts_saturate_and_nan_is_zero() {
        let cast = |f: f64| eval_pure(CastFloatToInt, &[Value::Float(f)]);
        assert_eq!(cast(f64::NAN), Some(Value::Int(0)));
        assert_eq!(cast(1e300), Some(Value::Int(i64::MAX)));
        assert_eq!(cast(-2.9), Some(Value::Int(-2)));
    }

    #[test]
    fn every_value_op_is_evaluated_and_nothing_else() {
        for &op in OpCode::ALL {
            let args: Vec<Value> = op
                .info()
                .args
                .chars()
                .filter_map(|c| match c {
                    'i' => Some(Value::Int(3)),
                    'f' => Some(Value::Float(3.0)),
                    'r' => Some(Value::Ref(0x30)),
                    _ => None,
                })
                .collect();
            let evaluable = op.is_always_pure()
                && !op.is_call()
                && !op.needs_descr()
                && op != NurseryPtrIncrement;
            assert_eq!(eval_pure(op, &args).is_some(), evaluable, "{op}");
        }
    }

    #[test]
    fn wrong_kinds_give_none() {
        assert_eq!(eval_pure(IntAdd, &[Value::Float(1.0), Value::Int(1)]), None);
        assert_eq!(eval_pure(IntAdd, &[Value::Int(1)]), None);
    }
}
