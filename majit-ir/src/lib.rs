//! # majit-ir: the trace IR
//!
//! Everything that flows between majit's tracer, optimizer, GC rewrite and
//! backends is a [`Trace`]: input kinds, a linear list of [`Op`]s, and an
//! interned constant pool.
//!
//! Read first:
//! - [`opcode`]: the one op table (`OpCode`, its arity, result kind and
//!   flags such as pure, guard, side effect, can raise, can malloc).
//! - [`op`]: [`OpRef`] (an input, an op result or a constant), [`Const`],
//!   run-time [`Value`]s and [`Op`] itself.
//! - [`descr`]: layouts, fields, arrays, call signatures with effect info,
//!   guard and loop identities.
//! - [`trace`]: the [`Trace`] container.
//! - [`text`]: the trace text format ([`print()`], [`parse`], [`parse_with`],
//!   [`Namespace`]); every test writes traces this way.
//! - [`verify`](mod@verify): the rules every trace obeys, checked after each pass.
//! - [`eval`]: the executable semantics of value ops (division by zero,
//!   shifts, casts), shared by every evaluator.
//! - [`flonum`]: the encoding of small floats in a reference word.
//! - `fuzzing` (feature `fuzzing`): the shared test namespace, a generator
//!   of valid random traces, a text mutator and round-trip checks.
//! - `testing` (feature `testing`): `expect!`, blessable expected text for
//!   text-in/text-out tests (`MAJIT_BLESS=1` rewrites it in place).
//!
//! This crate knows nothing of tracing, GC or machine code.

pub mod descr;
pub mod error;
pub mod eval;
pub mod flonum;
#[cfg(any(test, feature = "fuzzing"))]
pub mod fuzzing;
pub mod hash;
pub mod op;
pub mod opcode;
pub mod refmap;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod text;
pub mod trace;
pub mod verify;

pub use descr::{
    ArrayDescr, CallDescr, CallEffect, Descr, EffectInfo, FailDescr, FieldDescr, SizeDescr,
    TargetDescr,
};
pub use error::{ParseError, VerifyError, VerifyErrorKind, VerifyErrors};
pub use op::{Args, Const, Op, OpRef, RefTarget, Value};
pub use opcode::{DescrUse, GcRole, Kind, OpCode, OpInfo, ResultKind};
pub use refmap::RefMap;
pub use text::{parse, parse_with, print, print_with, Namespace};
pub use trace::Trace;
pub use verify::verify;
