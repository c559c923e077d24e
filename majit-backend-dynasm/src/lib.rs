//! # majit-backend-dynasm: native code for x86_64 and aarch64
//!
//! Pipeline for one trace (`driver.rs`):
//!
//! ```text
//! Trace --sched/--> order --regalloc/--> Allocation --regalloc/checker.rs--> ok
//!       --driver.rs + emit/ + <arch>/ encoders--> Assembled --codemem.rs--> running code
//! ```
//!
//! Read first: [`arch`] (what an architecture provides: a register file
//! as data, per-op constraints, an [`arch::Emitter`]), then [`driver`] and
//! [`native`] (the `Backend` implementation).
//!
//! Arch-neutral (this directory): [`codemem`] (W^X code blocks), [`frame`]
//! (jitframe layout), [`framepool`] (the free list of jitframes), [`gclower`] (the GC rewrite before compiling), [`gcmap`] (reference maps), [`guard`] (exit records and the exit protocol),
//! [`bridge`] (attaching and freeing), [`sched`] (list scheduling with a
//! strategy), [`regalloc`] (linear scan, policy, parallel moves, checker),
//! [`emit`] (the emission core: emitter state, arch-neutral decisions, the
//! one per-op dispatch and the `Encoder` traits).
//! Per architecture: `x86_64/` and `aarch64/` (`regs`, `emit`, `memory`,
//! `call`, `guard`, `nursery`, `emit_tests`): the register file and the
//! encoders, each implementing [`arch::Arch`] and [`emit::Encoder`];
//! [`HostBackend`] is the one for the machine this runs on.

#[cfg(target_arch = "aarch64")]
pub mod aarch64;
pub mod arch;
pub mod bridge;
pub mod callconv;
pub mod codemem;
pub mod disasm;
pub mod driver;
pub mod emit;
pub mod frame;
pub mod framepool;
pub mod gclower;
pub mod gcmap;
pub mod guard;
pub mod listing;
pub mod memaccess;
pub mod native;
pub mod regalloc;
pub mod sched;
#[cfg(target_arch = "x86_64")]
pub mod x86_64;

pub use native::NativeBackend;

/// The backend for the machine this runs on.
#[cfg(target_arch = "x86_64")]
pub type HostBackend = NativeBackend<x86_64::X86_64>;
/// The backend for the machine this runs on.
#[cfg(target_arch = "aarch64")]
pub type HostBackend = NativeBackend<aarch64::Aarch64>;
