//! The runtime that traces, the blackhole, resume, the reference
//! executor and native code share: how objects are allocated, how memory
//! is read and written, how `extern "C"` helpers are called and how they
//! signal back. Everything that runs a trace or jitcode on real memory
//! goes through here, so all of them behave exactly the same.
//!
//! Files:
//! - `alloc.rs`: the [`Allocator`] hook and [`MallocAllocator`] (zeroed,
//!   never-moving blocks; optionally recording what it returned).
//! - `gc.rs`: [`GcAllocator`], allocation on a majit-gc heap.
//! - `memory.rs`: [`Access`], 1/2/4/8-byte loads and stores with sign
//!   extension.
//! - `call.rs`: [`call_extern`], calls to `extern "C"` functions through
//!   one canonical pointer type (and why that is exact on SysV x86-64 and
//!   AAPCS64).
//! - `record.rs`: the shim through which differential mode records a
//!   checked entry's residual calls natively and replays them to the
//!   reference execution.
//! - `signal.rs`: how helpers [`raise`] exceptions ([`Raised`]) and [`force_frame`],
//!   how native code reads that back ([`take_signals`]), and how a
//!   helper's panic becomes an error ([`catch_panic`]).

mod alloc;
pub(crate) mod call;
mod gc;
pub(crate) mod memory;
pub(crate) mod record;
pub(crate) mod signal;

pub(crate) use alloc::Shared;
pub use alloc::{Allocated, Allocator, MallocAllocator, OutOfMemory};
pub use call::{call_extern, CallError, MAX_FLOAT_ARGS, MAX_INT_ARGS};
pub use gc::GcAllocator;
pub use memory::Access;
pub use signal::{
    catch_panic, force_frame, panic_message, raise, raise_int, report_panic, signal_flag_addr,
    take_panic, take_signals, HelperPanic, Raised, SignalWords,
};
