//! Concrete semantics of jitcode instructions, shared by the tracer (which
//! executes every instruction for real while recording it) and the
//! blackhole interpreter, so both mean exactly the same thing.
//!
//! Nothing here defines semantics of its own: value ops evaluate through
//! `majit_ir::eval` (the one definition every evaluator uses), memory goes
//! through refexec's [`Access`] and calls through refexec's canonical call
//! shim [`call_extern`], so jitcode, traces on the reference executor and
//! native code all agree by construction.
//!
//! Invariants: callers only pass addresses that are valid for the access
//! (the interpreter's own objects); null is checked here and reported as a
//! [`ConcreteError`], never dereferenced.

use super::JitCodeSet;
use crate::runtime::{call_extern, signal, Access, Allocator, HelperPanic, Raised};
use majit_ir::{eval, ArrayDescr, CallDescr, FieldDescr, Kind, OpCode, Value};
use std::fmt;

/// A concrete operation that cannot be performed: the interpreter's
/// jitcode did something invalid (its author acts), a helper panicked, or
/// a call of the interpreted program failed.
#[derive(Clone, Debug, PartialEq)]
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
    /// A called helper panicked (see [`crate::runtime::catch_panic`]).
    Panic(HelperPanic),
    /// A call of the interpreted program (the portal runner, see
    /// [`crate::portal`]) failed with this error.
    Nested(Box<crate::driver::JitError>),
}

impl fmt::Display for ConcreteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConcreteError::NullPointer(what) => write!(f, "null pointer in {what}"),
            ConcreteError::BadCall(what) => write!(f, "unsupported call: {what}"),
            ConcreteError::OutOfMemory => write!(f, "out of memory"),
            ConcreteError::BadJitCode(what) => write!(f, "bad jitcode: {what}"),
            ConcreteError::Panic(p) => write!(f, "{p}"),
            ConcreteError::Nested(e) => write!(f, "{e}"),
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
    eval::eval_pure(op, args).unwrap_or_else(|| panic!("{op} is not a pure jitcode op"))
}

/// `int_*_ovf(x, y)`: the wrapped result and whether it overflowed.
///
/// # Panics
/// If `op` is not an overflow-checked op (the builder only emits those).
pub fn ovf(op: OpCode, x: i64, y: i64) -> (i64, bool) {
    eval::eval_ovf(op, x, y).unwrap_or_else(|| panic!("{op} is not an ovf op"))
}

fn non_null(obj: usize, what: &str) -> Result<usize, ConcreteError> {
    if obj == 0 {
        Err(ConcreteError::NullPointer(what.to_string()))
    } else {
        Ok(obj)
    }
}

fn access(size: u8, signed: bool) -> Access {
    Access { size, signed }
}

/// `obj.field`.
pub fn getfield(obj: usize, d: &FieldDescr) -> Result<Value, ConcreteError> {
    let obj = non_null(obj, &d.name)?;
    // SAFETY: `obj` is a live object of the descr's owner layout (the
    // jitcode's contract), so the field's bytes are readable.
    let bits = unsafe { access(d.size, d.signed).load(obj + d.offset as usize) };
    Ok(Value::from_bits(d.kind, bits))
}

/// `obj.field = v`; a quasi-immutable field's dependents are invalidated
/// ([`crate::quasi::written`]).
/// A ref stored into a GC object also runs `alloc`'s write barrier, as
/// compiled code's `cond_call_gc_wb` would.
pub fn setfield(
    alloc: &mut dyn Allocator,
    obj: usize,
    d: &FieldDescr,
    v: Value,
) -> Result<(), ConcreteError> {
    let obj = non_null(obj, &d.name)?;
    if d.quasi_immutable {
        crate::quasi::written(obj, d.offset);
    }
    // SAFETY: as in `getfield`, the field's bytes are writable.
    unsafe { access(d.size, d.signed).store(obj + d.offset as usize, v.to_bits()) };
    if d.kind == Kind::Ref {
        alloc.write_barrier(obj);
    }
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
    let bits = unsafe { access(d.item_size, d.signed).load(item_addr(arr, d, index)) };
    Ok(Value::from_bits(d.kind, bits))
}

/// `array[index] = v`.
/// Refs run `alloc`'s array write barrier, as in [`setfield`].
pub fn setarrayitem(
    alloc: &mut dyn Allocator,
    arr: usize,
    index: i64,
    d: &ArrayDescr,
    v: Value,
) -> Result<(), ConcreteError> {
    let arr = non_null(arr, &d.name)?;
    // SAFETY: as in `getarrayitem`.
    unsafe { access(d.item_size, d.signed).store(item_addr(arr, d, index), v.to_bits()) };
    if d.kind == Kind::Ref {
        alloc.write_barrier_array(arr, index);
    }
    Ok(())
}

/// `len(array)`: the 8-byte length word at `len_offset`.
pub fn arraylen(arr: usize, d: &ArrayDescr) -> Result<i64, ConcreteError> {
    let arr = non_null(arr, &d.name)?;
    // SAFETY: a live GC array keeps its length word at `len_offset`.
    Ok(unsafe { access(8, true).load(arr + d.len_offset as usize) } as i64)
}

/// A catch of kind `want` (`None`: any) got the exception `e`.
pub fn check_exception_kind(want: Option<Kind>, e: Value) -> Result<(), ConcreteError> {
    match want {
        Some(k) if k != e.kind() => Err(ConcreteError::BadJitCode(format!(
            "a catch of {} exceptions got the {} exception {e:?}",
            k.name(),
            e.kind().name()
        ))),
        _ => Ok(()),
    }
}

/// The class word of `obj`, a headered object (the `guard_class`
/// instruction): its header's type id, mapped through `codes`' vtables.
pub fn class_word(codes: &JitCodeSet, obj: usize) -> Result<i64, ConcreteError> {
    let obj = non_null(obj, "guard_class")?;
    // SAFETY: `obj` is a live headered object (the jitcode's contract), so
    // its first 8 bytes are the header; the type id is its low half.
    let header = unsafe { access(8, false).load(obj) };
    Ok(codes.class_word((header & 0xffff_ffff) as u32))
}

/// Calls the `extern "C"` function at `func` with `args` as `descr`
/// describes it (the limits are refexec's: `MAX_INT_ARGS` int/ref and
/// `MAX_FLOAT_ARGS` float arguments). Returns the result (0 for void)
/// and the exception the helper raised (`runtime::raise`), if any. A
/// helper's panic is [`ConcreteError::Panic`]; an exception raised by a
/// helper whose descr does not say `can_raise` (no trace checks for it)
/// is [`ConcreteError::BadCall`]; forcing is dropped.
pub fn call(
    func: usize,
    descr: &CallDescr,
    args: &[Value],
) -> Result<(Value, Option<Value>), ConcreteError> {
    signal::take(); // drop stale signals raised outside any call
                    // SAFETY: `func` is a non-variadic `extern "C"` function whose
                    // parameters and result have the kinds the call descr declares (the
                    // jitcode author's contract), which is `call_extern`'s contract.
    let result = unsafe { call_extern(func, args, descr.result) };
    let signals = signal::take();
    if let Some(p) = signal::take_panic() {
        return Err(ConcreteError::Panic(p));
    }
    if let Some(e) = crate::portal::take_nested() {
        return Err(ConcreteError::Nested(Box::new(e)));
    }
    let raised = signals.exception.and_then(Raised::value);
    if raised.is_some() && !descr.effect.can_raise {
        return Err(ConcreteError::BadCall(format!(
            "{} raised an exception (`runtime::raise`) but its descr does not say can_raise",
            descr.name
        )));
    }
    match result {
        Ok(v) => Ok((v.unwrap_or(Value::Int(0)), raised)),
        Err(e) => Err(ConcreteError::BadCall(format!("{}: {e}", descr.name))),
    }
}
