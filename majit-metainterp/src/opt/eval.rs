//! Compile-time evaluation of pure ops on constant arguments.
//!
//! The semantics are `majit_ir::eval`'s, the one definition every
//! evaluator shares, so a folded constant is exactly what the backend would
//! have computed. Used by rewrite (constant folding) and pure (all-constant
//! ops). Ops with effects, loads, calls and the pointer/int casts are never
//! evaluated: a constant ref must name a prebuilt object, never an address
//! invented or observed at compile time.

use majit_ir::{eval, Const, OpCode, Value};

pub use majit_ir::eval::eval_ovf;

/// The value of `code(args)` when every argument is a constant and the op
/// is safe to evaluate; `None` otherwise.
pub fn eval_pure(code: OpCode, args: &[Const]) -> Option<Const> {
    if matches!(code, OpCode::CastIntToPtr | OpCode::CastPtrToInt) {
        return None;
    }
    let values: Vec<Value> = args.iter().map(|c| c.value()).collect();
    eval::eval_pure(code, &values).map(Const::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_follows_the_shared_semantics() {
        use OpCode::*;
        let fold = |op, x, y| eval_pure(op, &[Const::Int(x), Const::Int(y)]);
        assert_eq!(fold(IntFloorDiv, 7, 0), Some(Const::Int(0)));
        assert_eq!(fold(IntMod, i64::MIN, -1), Some(Const::Int(0)));
        assert_eq!(fold(IntLshift, 1, 65), Some(Const::Int(2)));
    }

    #[test]
    fn nothing_with_effects_and_no_address_is_evaluated() {
        assert_eq!(eval_pure(OpCode::New, &[]), None);
        assert_eq!(
            eval_pure(OpCode::IntAddOvf, &[Const::Int(1), Const::Int(2)]),
            None
        );
        assert_eq!(eval_pure(OpCode::CastIntToPtr, &[Const::Int(64)]), None);
        assert_eq!(eval_pure(OpCode::CastPtrToInt, &[Const::Ref(64)]), None);
    }
}
