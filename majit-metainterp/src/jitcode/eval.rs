//! Concrete semantics of jitcode instructions, shared by the tracer (which
//! executes every instruction for real while recording it) and the
//! blackhole interpreter, so both mean exactly the same thing.
//!
//! Pure ops follow the backend contract of [`crate::backend`] (wrapping
//! integers, shift counts modulo 64, defined division by zero, saturating
//! float-to-int casts). Memory access follows the descr layout conventions
//! of `majit_ir::descr` (byte offsets, 1/2/4/8-byte widths, sign
//! extension), with GC arrays keeping an 8-byte length word at
//! `len_offset`. Calls go through the canonical-pointer technique that
//! refexec documents in its `call.rs` (ints and floats in separate ABI
//! sequences; exact on SysV x86-64 and AAPCS64); refexec keeps that helper
//! private, so this module carries its own copy of the call shim.
//!
//! Invariants: callers only pass addresses that are valid for the access
//! (the interpreter's own objects); null is checked here and reported as a
//! [`ConcreteError`], never dereferenced.

use majit_ir::{ArrayDescr, CallDescr, FieldDescr, OpCode, ResultKind, Value};
use std::fmt;

/// A concrete operation that cannot be performed: the interpreter's
/// jitcode did something invalid (its author acts).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConcreteError {
    /// A load or store through null.
    NullPointer(String),
    /// A call signature the call shim cannot pass (too many arguments).
    BadCall(String),
    /// An allocation failed.
    OutOfMemory,
    /// The jitcode is inconsistent (an inline call to a missing function,
    /// arguments that do not fit the callee's parameters).
    BadJitCode(String),
}

impl fmt::Display for ConcreteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConcreteError::NullPointer(what) => write!(f, "null pointer in {what}"),
            ConcreteError::BadCall(what) => write!(f, "unsupported call: {what}"),
            ConcreteError::OutOfMemory => write!(f, "out of memory"),
            ConcreteError::BadJitCode(what) => write!(f, "bad jitcode: {what}"),
        }
    }
}

impl std::error::Error for ConcreteError {}

/// `op(args)` for an op accepted by [`super::is_pure_jitcode_op`].
///
/// # Panics
/// If `args` do not have the kinds of the op's signature (jitcode from the
/// builder always does).
pub fn pure(op: OpCode, args: &[Value]) -> Value {
    use OpCode::*;
    let int = |i: usize| args[i].as_int().expect("int operand");
    let flt = |i: usize| args[i].as_float().expect("float operand");
    let rf = |i: usize| args[i].as_ref().expect("ref operand");
    let b = |v: bool| Value::Int(v as i64);
    match op {
        IntNeg => Value::Int(int(0).wrapping_neg()),
        IntInvert => Value::Int(!int(0)),
        IntIsZero => b(int(0) == 0),
        IntIsTrue => b(int(0) != 0),
        FloatAdd => Value::Float(flt(0) + flt(1)),
        FloatSub => Value::Float(flt(0) - flt(1)),
        FloatMul => Value::Float(flt(0) * flt(1)),
        FloatTrueDiv => Value::Float(flt(0) / flt(1)),
        FloatNeg => Value::Float(-flt(0)),
        FloatAbs => Value::Float(flt(0).abs()),
        FloatLt => b(flt(0) < flt(1)),
        FloatLe => b(flt(0) <= flt(1)),
        FloatEq => b(flt(0) == flt(1)),
        FloatNe => b(flt(0) != flt(1)),
        FloatGt => b(flt(0) > flt(1)),
        FloatGe => b(flt(0) >= flt(1)),
        CastFloatToInt => Value::Int(flt(0) as i64),
        CastIntToFloat => Value::Float(int(0) as f64),
        ConvertFloatBytesToLonglong => Value::Int(flt(0).to_bits() as i64),
        ConvertLonglongBytesToFloat => Value::Float(f64::from_bits(int(0) as u64)),
        PtrEq => b(rf(0) == rf(1)),
        PtrNe => b(rf(0) != rf(1)),
        CastPtrToInt => Value::Int(rf(0) as i64),
        CastIntToPtr => Value::Ref(int(0) as usize),
        _ => Value::Int(int2(op, int(0), int(1))),
    }
}

/// Two-operand integer ops and comparisons.
fn int2(op: OpCode, x: i64, y: i64) -> i64 {
    use OpCode::*;
    let (ux, uy) = (x as u64, y as u64);
    match op {
        IntAdd => x.wrapping_add(y),
        IntSub => x.wrapping_sub(y),
        IntMul => x.wrapping_mul(y),
        IntFloorDiv if y == 0 => 0,
        IntFloorDiv => x.wrapping_div(y),
        IntMod if y == 0 => x,
        IntMod => x.wrapping_rem(y),
        IntAnd => x & y,
        IntOr => x | y,
        IntXor => x ^ y,
        IntLshift => x.wrapping_shl(y as u32 & 63),
        IntRshift => x.wrapping_shr(y as u32 & 63),
        UintRshift => ux.wrapping_shr(y as u32 & 63) as i64,
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
        other => panic!("{other} is not a pure jitcode op"),
    }
}

/// `int_*_ovf(x, y)`: the wrapped result and whether it overflowed.
pub fn ovf(op: OpCode, x: i64, y: i64) -> (i64, bool) {
    match op {
        OpCode::IntAddOvf => x.overflowing_add(y),
        OpCode::IntSubOvf => x.overflowing_sub(y),
        _ => x.overflowing_mul(y),
    }
}

unsafe fn load(addr: usize, size: u8, signed: bool) -> u64 {
    let p = addr as *const u8;
    // SAFETY: the caller guarantees `size` readable bytes at `addr`.
    unsafe {
        match (size, signed) {
            (1, false) => u64::from(p.read()),
            (1, true) => p.cast::<i8>().read() as i64 as u64,
            (2, false) => u64::from(p.cast::<u16>().read_unaligned()),
            (2, true) => p.cast::<i16>().read_unaligned() as i64 as u64,
            (4, false) => u64::from(p.cast::<u32>().read_unaligned()),
            (4, true) => p.cast::<i32>().read_unaligned() as i64 as u64,
            _ => p.cast::<u64>().read_unaligned(),
        }
    }
}

unsafe fn store(addr: usize, size: u8, bits: u64) {
    let p = addr as *mut u8;
    // SAFETY: the caller guarantees `size` writable bytes at `addr`.
    unsafe {
        match size {
            1 => p.write(bits as u8),
            2 => p.cast::<u16>().write_unaligned(bits as u16),
            4 => p.cast::<u32>().write_unaligned(bits as u32),
            _ => p.cast::<u64>().write_unaligned(bits),
        }
    }
}

fn non_null(obj: usize, what: &str) -> Result<usize, ConcreteError> {
    if obj == 0 {
        Err(ConcreteError::NullPointer(what.to_string()))
    } else {
        Ok(obj)
    }
}

/// `obj.field`.
pub fn getfield(obj: usize, d: &FieldDescr) -> Result<Value, ConcreteError> {
    let obj = non_null(obj, &d.name)?;
    // SAFETY: `obj` is a live object of the descr's owner layout (the
    // jitcode's contract), so the field's bytes are readable.
    let bits = unsafe { load(obj + d.offset as usize, d.size, d.signed) };
    Ok(Value::from_bits(d.kind, bits))
}

/// `obj.field = v`.
pub fn setfield(obj: usize, d: &FieldDescr, v: Value) -> Result<(), ConcreteError> {
    let obj = non_null(obj, &d.name)?;
    // SAFETY: as in `getfield`, the field's bytes are writable.
    unsafe { store(obj + d.offset as usize, d.size, v.to_bits()) };
    Ok(())
}

fn item_addr(arr: usize, d: &ArrayDescr, index: i64) -> usize {
    arr + d.base_offset as usize + (index as usize).wrapping_mul(d.item_size as usize)
}

/// `array[index]`.
pub fn getarrayitem(arr: usize, index: i64, d: &ArrayDescr) -> Result<Value, ConcreteError> {
    let arr = non_null(arr, &d.name)?;
    // SAFETY: `index` is in bounds of a live array of this layout (the
    // jitcode's contract: it checks bounds itself where needed).
    let bits = unsafe { load(item_addr(arr, d, index), d.item_size, d.signed) };
    Ok(Value::from_bits(d.kind, bits))
}

/// `array[index] = v`.
pub fn setarrayitem(arr: usize, index: i64, d: &ArrayDescr, v: Value) -> Result<(), ConcreteError> {
    let arr = non_null(arr, &d.name)?;
    // SAFETY: as in `getarrayitem`.
    unsafe { store(item_addr(arr, d, index), d.item_size, v.to_bits()) };
    Ok(())
}

/// `len(array)`: the 8-byte length word at `len_offset`.
pub fn arraylen(arr: usize, d: &ArrayDescr) -> Result<i64, ConcreteError> {
    let arr = non_null(arr, &d.name)?;
    // SAFETY: a live GC array keeps its length word at `len_offset`.
    Ok(unsafe { load(arr + d.len_offset as usize, 8, true) } as i64)
}

type IntFn = unsafe extern "C" fn(
    i64,
    i64,
    i64,
    i64,
    i64,
    i64,
    i64,
    i64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
) -> i64;
type FloatFn = unsafe extern "C" fn(
    i64,
    i64,
    i64,
    i64,
    i64,
    i64,
    i64,
    i64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
) -> f64;

/// Calls the `extern "C"` function at `func` with `args` as `descr`
/// describes it: at most 8 int/ref and 8 float arguments.
pub fn call(func: usize, descr: &CallDescr, args: &[Value]) -> Result<Value, ConcreteError> {
    let supported = cfg!(any(
        all(target_arch = "x86_64", not(windows)),
        target_arch = "aarch64"
    ));
    let (mut ints, mut floats) = ([0i64; 8], [0f64; 8]);
    let (mut ni, mut nf) = (0, 0);
    for v in args {
        match v {
            Value::Float(x) if nf < 8 => {
                floats[nf] = *x;
                nf += 1;
            }
            Value::Int(_) | Value::Ref(_) if ni < 8 => {
                ints[ni] = v.to_bits() as i64;
                ni += 1;
            }
            _ => {
                return Err(ConcreteError::BadCall(format!(
                    "{}: too many arguments",
                    descr.name
                )))
            }
        }
    }
    if !supported || func == 0 {
        return Err(ConcreteError::BadCall(format!(
            "{}: no callable target",
            descr.name
        )));
    }
    let (i, f) = (ints, floats);
    // SAFETY: `func` is the address of a non-variadic `extern "C"` function
    // whose parameters are 64-bit ints/pointers and f64s in the order and
    // kinds the call descr declares (the jitcode author's contract). On
    // SysV x86-64 and AAPCS64 ints and floats fill separate sequences
    // (registers, then 8-byte stack slots in order, and with at most 8
    // floats no float reaches the stack), so the canonical call puts every
    // argument where the callee reads it; the unused trailing ones sit in
    // caller-owned registers and stack slots the callee ignores.
    let bits = unsafe {
        if descr.result == ResultKind::Float {
            let fp = std::mem::transmute::<usize, FloatFn>(func);
            fp(
                i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7], f[0], f[1], f[2], f[3], f[4], f[5],
                f[6], f[7],
            )
            .to_bits()
        } else {
            let fp = std::mem::transmute::<usize, IntFn>(func);
            fp(
                i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7], f[0], f[1], f[2], f[3], f[4], f[5],
                f[6], f[7],
            ) as u64
        }
    };
    Ok(match descr.result.kind() {
        Some(k) => Value::from_bits(k, bits),
        None => Value::Int(0),
    })
}
