//! # majit-gc: the heap of majit-based interpreters
//!
//! A generational, partly copying collector built for JIT code:
//! - [`layout`]: the object model. Headered objects start with a header
//!   word (type id + flags); **headerless** layouts have none and each
//!   allocates from its own region.
//! - [`space`]: one reserved address range cut into chunks; the chunk
//!   table tells the collector what any address is, the card table serves
//!   the barrier of headerless objects.
//! - [`nursery`]: bump regions with `free`/`top` words at fixed addresses.
//! - [`oldspace`]: non-moving size-class chunks with side mark bitmaps.
//! - [`collect`]: Cheney-style minor collection, mark-sweep major.
//! - [`barrier`]: the write barrier (header flag or card byte).
//! - [`roots`]: shadow stack, root scopes, JIT frames with gcmaps.
//! - [`jit`]: [`JitGcInfo`] and the `extern "C"` slow paths.
//! - [`gc`]: the public [`Gc`] handle; start reading here.
//! - [`rewrite`]: the GC rewrite pass over traces (allocation lowering,
//!   write barriers), run after the optimizer.
//! - [`thread_heap`]: the heap of the current thread, for GC objects
//!   handled as plain Rust values (`#[jit_interp]` structs), with
//!   allocation that never collects and explicit safepoints.
//! - `testing` (feature `testing`): test heaps with the layouts of
//!   majit-ir's test namespace.
//!
//! `docs/gc.md` in the repository describes the protocol for backends.

pub mod array;
pub mod barrier;
pub mod collect;
pub mod config;
pub mod error;
pub mod gc;
pub mod heap;
pub mod jit;
pub mod layout;
pub mod nursery;
pub mod obj;
pub mod oldspace;
pub mod rewrite;
pub mod roots;
pub mod space;
pub mod stats;
#[cfg(feature = "testing")]
pub mod testing;
pub mod thread_heap;

pub use array::{Array, CachedArray, Elem};
pub use config::{GcConfig, MIN_NURSERY_SIZE, STRESS_NURSERY_SIZE};
pub use error::{GcError, Result};
pub use gc::Gc;
pub use heap::GcHeap;
pub use jit::{
    majit_gc_collect, majit_gc_malloc_nursery, majit_gc_malloc_nursery_headerless,
    majit_gc_malloc_varsize, majit_gc_pop_frame, majit_gc_push_frame, majit_gc_write_barrier,
    HeaderlessRegionInfo, JitGcInfo,
};
pub use layout::{
    ArrayLayout, Layout, TypeId, ARRAY_ITEMS_OFFSET, ARRAY_LENGTH_OFFSET, FLAG_TRACK_YOUNG_PTRS,
    HEADER_SIZE,
};
pub use obj::{Headered, Obj};
pub use roots::{GcRef, JitFrameRoots, RootScope};
pub use stats::GcStats;
