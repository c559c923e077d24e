//! The one error enum of majit-gc.
//!
//! Every variant says what went wrong and names the thing involved, so a
//! message printed to a user points at the layout, type id, size or
//! environment variable at fault.

use std::fmt;

/// Errors of the heap. The "who acts" note says who should fix it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GcError {
    /// A type id that was never returned by `register_*`. Who acts: the
    /// interpreter author (a stale or made-up id).
    UnknownType { type_id: u32 },
    /// A layout rejected at registration. Who acts: the interpreter author.
    BadLayout { name: String, reason: String },
    /// `alloc` on an array type or `alloc_array` on a fixed-size type.
    WrongTypeKind {
        type_id: u32,
        name: String,
        expected: &'static str,
    },
    /// The object size overflows or exceeds what the heap can ever hold.
    TooLarge { name: String, bytes: u128 },
    /// The heap limit (`GcConfig::max_heap`) is reached even after a full
    /// collection. Who acts: the user (raise the limit) or nobody (a limit).
    OutOfMemory { requested: usize, max_heap: usize },
    /// An environment variable holds a value majit-gc cannot use.
    BadEnv {
        var: &'static str,
        value: String,
        reason: String,
    },
    /// A configuration value set in code is out of range.
    BadConfig { field: &'static str, reason: String },
    /// The operating system refused to reserve address space.
    Os { what: &'static str, errno: i32 },
}

/// `Result` with [`GcError`].
pub type Result<T> = std::result::Result<T, GcError>;

impl fmt::Display for GcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GcError::UnknownType { type_id } => {
                write!(f, "unknown GC type id {type_id}: it was never registered")
            }
            GcError::BadLayout { name, reason } => write!(f, "bad layout `{name}`: {reason}"),
            GcError::WrongTypeKind {
                type_id,
                name,
                expected,
            } => write!(f, "type id {type_id} (`{name}`) is not {expected} type"),
            GcError::TooLarge { name, bytes } => {
                write!(f, "object of `{name}` is too large ({bytes} bytes)")
            }
            GcError::OutOfMemory {
                requested,
                max_heap,
            } => write!(
                f,
                "out of memory: {requested} bytes requested, heap limit of {max_heap} bytes \
                 reached after a full collection (raise GcConfig::max_heap / MAJIT_MAX_HEAP)"
            ),
            GcError::BadEnv { var, value, reason } => {
                write!(f, "environment variable {var}={value:?}: {reason}")
            }
            GcError::BadConfig { field, reason } => write!(f, "GcConfig::{field}: {reason}"),
            GcError::Os { what, errno } => write!(f, "{what} failed (errno {errno})"),
        }
    }
}

impl std::error::Error for GcError {}
