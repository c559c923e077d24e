//! # majit-backend-dynasm: native code for x86_64 and aarch64
//!
//! Will own: W^X code memory, the jitframe layout and gcmaps, a list
//! scheduler and a linear-scan register allocator shared by both
//! architectures, per-architecture emitters written with `dynasm!`, guard
//! exits, bridge patching and inline nursery allocation.
