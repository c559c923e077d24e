//! Real calls to `extern "C"` functions of any supported signature.
//!
//! Every function is called through one canonical pointer type,
//! `extern "C" fn(i64 × 16, f64 × 8) -> i64` (or `-> f64`): the int and ref
//! arguments go, in order, into the sixteen int parameters and the float
//! arguments, in order, into the eight float parameters; the rest are
//! zero. This is exact on the two ABIs majit targets, because both assign
//! ints and floats to separate sequences and let the caller own the stack:
//!
//! - **SysV x86-64**: ints in rdi, rsi, rdx, rcx, r8, r9, floats in
//!   xmm0-xmm7. An argument that finds no register goes to the next 8-byte
//!   stack slot in parameter order. With at most 8 floats no float ever
//!   reaches the stack, so the stack holds exactly the ints from the 7th
//!   on, in order, whatever the callee's interleaving of ints and floats:
//!   the canonical call puts int k (k ≥ 6) in slot k − 6, which is where
//!   the callee looks for its k-th int. The caller pops the stack, so the
//!   unused trailing slots are harmless.
//! - **AAPCS64** (Linux, and Apple's variant for 8-byte arguments): ints
//!   in x0-x7, floats in v0-v7, further ints in 8-byte stack slots in
//!   order; the same argument applies with 8 register ints.
//!
//! Unused registers are caller-clobbered scratch on both ABIs, so zeros in
//! them are ignored. Windows x64 shares positions between ints and floats,
//! so calls are unsupported there (and on other targets).
//!
//! Contract for the callee (the `CallDescr` describes it): not variadic;
//! parameters are 64-bit ints or pointers (`i64`, `u64`, `usize`, `*T`) or
//! `f64`; the result is one of those or nothing. Narrower integer results
//! are not supported: their upper bits are undefined on both ABIs.

use majit_ir::{Kind, ResultKind, Value};
use std::fmt;

/// The number of int/ref arguments the canonical call passes.
pub const MAX_INT_ARGS: usize = 16;
/// The number of float arguments the canonical call passes.
pub const MAX_FLOAT_ARGS: usize = 8;

/// Whether this target supports canonical calls (see the module docs).
pub(crate) const CALLS_SUPPORTED: bool = cfg!(any(
    all(target_arch = "x86_64", not(windows)),
    target_arch = "aarch64"
));

/// The canonical pointer type, returning `R` (`i64` or `f64`).
type Canonical<R> = unsafe extern "C" fn(
    i64,
    i64,
    i64,
    i64,
    i64,
    i64,
    i64,
    i64,
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
) -> R;

/// The arguments of one call, split into the two ABI sequences.
#[derive(Clone, Debug, Default)]
pub(crate) struct CallArgs {
    pub ints: [i64; MAX_INT_ARGS],
    pub floats: [f64; MAX_FLOAT_ARGS],
}

impl CallArgs {
    /// Distributes `values` (64-bit words of the given kinds) over the two
    /// sequences. The kinds were checked against the limits at compile time.
    pub fn new(kinds: &[Kind], values: impl Iterator<Item = u64>) -> CallArgs {
        let mut args = CallArgs::default();
        let (mut ni, mut nf) = (0, 0);
        for (&kind, bits) in kinds.iter().zip(values) {
            match kind {
                Kind::Int | Kind::Ref => {
                    args.ints[ni] = bits as i64;
                    ni += 1;
                }
                Kind::Float => {
                    args.floats[nf] = f64::from_bits(bits);
                    nf += 1;
                }
            }
        }
        args
    }
}

/// Whether a signature with these argument kinds fits the canonical call.
pub(crate) fn fits(kinds: &[Kind]) -> bool {
    let floats = kinds.iter().filter(|&&k| k == Kind::Float).count();
    floats <= MAX_FLOAT_ARGS && kinds.len() - floats <= MAX_INT_ARGS
}

/// Calls `func` and returns its result as a 64-bit word: the int result
/// register when `float_result` is false, else the float one's bits.
///
/// # Safety
/// `func` is the non-null address of a non-variadic `extern "C"` function
/// whose parameters, in order, have the kinds the `CallArgs` were built
/// from (see the module docs for the allowed types), and whose result is an
/// `f64` when `float_result`, else a 64-bit int, a pointer or nothing.
pub(crate) unsafe fn call(func: usize, a: &CallArgs, float_result: bool) -> u64 {
    // SAFETY: the caller's contract, with the result type it names.
    unsafe {
        if float_result {
            canonical::<f64>(func, a).to_bits()
        } else {
            canonical::<i64>(func, a) as u64
        }
    }
}

/// Calls `func` through [`Canonical<R>`].
///
/// # Safety
/// As for [`call`], with `R` the callee's result type.
unsafe fn canonical<R>(func: usize, a: &CallArgs) -> R {
    let (i, f) = (&a.ints, &a.floats);
    // SAFETY: by the caller's contract and the module docs' ABI argument,
    // calling through the canonical type passes every int argument in the
    // register or stack slot the callee reads it from, and every float
    // argument in its float register; trailing extra arguments sit in
    // caller-owned scratch registers and stack slots the callee ignores.
    unsafe {
        let fp = std::mem::transmute::<usize, Canonical<R>>(func);
        fp(
            i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7], i[8], i[9], i[10], i[11], i[12], i[13],
            i[14], i[15], f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7],
        )
    }
}

/// Why [`call_extern`] cannot make a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallError {
    /// More than [`MAX_INT_ARGS`] int/ref or [`MAX_FLOAT_ARGS`] float
    /// arguments (a limit: nobody acts).
    TooManyArgs { ints: usize, floats: usize },
    /// This target's ABI does not allow the canonical call (see `call.rs`).
    Unsupported,
    /// The function address is 0.
    NullFunction,
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::TooManyArgs { ints, floats } => write!(
                f,
                "{ints} int/ref and {floats} float arguments; at most {MAX_INT_ARGS} and {MAX_FLOAT_ARGS}"
            ),
            CallError::Unsupported => f.write_str("calls are unsupported on this target"),
            CallError::NullFunction => f.write_str("call through a null function address"),
        }
    }
}

impl std::error::Error for CallError {}

/// Calls the `extern "C"` function at `func` with `args` and returns its
/// result as a value of kind `result` (`None` for `Void`): the call shim
/// of the reference executor, for the other executors of calls (tracer,
/// blackhole).
///
/// # Safety
/// `func` is a non-variadic `extern "C"` function whose parameters, in
/// order, have the kinds of `args` (64-bit ints or pointers for int and ref
/// values, `f64` for floats) and whose result is an `f64` for a `Float`
/// result, a 64-bit int or pointer for `Int`/`Ref`, anything for `Void`.
///
/// ```
/// use majit_ir::{ResultKind, Value};
/// use majit_metainterp::runtime::call_extern;
/// extern "C" fn scale(x: i64, f: f64) -> f64 { x as f64 * f }
/// let r = unsafe { call_extern(scale as *const () as usize, &[Value::Int(3), Value::Float(0.5)], ResultKind::Float) };
/// assert_eq!(r, Ok(Some(Value::Float(1.5))));
/// ```
pub unsafe fn call_extern(
    func: usize,
    args: &[Value],
    result: ResultKind,
) -> Result<Option<Value>, CallError> {
    let kinds: Vec<Kind> = args.iter().map(|v| v.kind()).collect();
    if !fits(&kinds) {
        let floats = kinds.iter().filter(|&&k| k == Kind::Float).count();
        return Err(CallError::TooManyArgs {
            ints: kinds.len() - floats,
            floats,
        });
    }
    if !CALLS_SUPPORTED {
        return Err(CallError::Unsupported);
    }
    if func == 0 {
        return Err(CallError::NullFunction);
    }
    let call_args = CallArgs::new(&kinds, args.iter().map(|v| v.to_bits()));
    let float_result = result == ResultKind::Float;
    // SAFETY: the caller's contract is `call`'s, and the arguments fit.
    let bits = unsafe { call(func, &call_args, float_result) };
    Ok(result.kind().map(|k| Value::from_bits(k, bits)))
}
