//! # majit-gc: the heap of majit-based interpreters
//!
//! Will own: the object model (a header word for normal objects, headerless
//! layouts that each allocate from their own bump region), the nursery with
//! inline-bumpable `free`/`top` words at stable addresses for JIT code,
//! Cheney-style minor collection, a non-moving old space with major
//! collections, roots (shadow stack, JIT frame gcmaps, resume scopes), the
//! write barrier (header flag or card/side table), and the GC rewrite pass
//! that lowers `new*` to `call_malloc_nursery*` and inserts
//! `cond_call_gc_wb` before ref stores.
