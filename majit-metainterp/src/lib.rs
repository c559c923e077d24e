//! # majit-metainterp: the meta-tracing core
//!
//! - [`backend`]: the contract native backends implement.
//! - [`refexec`]: the reference executor, which interprets traces.
//! - [`runtime`]: allocation, memory access, the call shim and helper
//!   signals, shared by the executor, the tracer, the blackhole, resume
//!   and native code.
//! - [`opt`]: the optimizer passes.
//! - [`resume`]: per-guard resume data (virtuals, pending fields).
//!
//! The meta-tracing core (read [`driver`] first, then [`tracer`]):
//! - [`jitcode`]: the register bytecode of the interpreter's handlers, its
//!   builder, liveness pass and disassembler.
//! - [`driver`]: the API an interpreter calls (`can_enter_jit`), running
//!   compiled loops and handling their exits.
//! - [`tracer`]: runs jitcode on boxes and records traces with resume
//!   snapshots.
//! - [`blackhole`]: runs jitcode on plain values after a guard failure or
//!   an abort, up to the next merge point.
//! - [`portal`]: calls of the interpreted program (the interpreter calling
//!   itself): the portal runner, entry traces, the re-entrant driver.
//! - [`bridge`]: bridges from hot guards, and the steps of the one
//!   compile path (optimizer, backend, exit registration).
//! - [`compiled`]: what a driver compiled (loops, bridges, guards), which
//!   the log, the summary and differential mode read.
//! - [`lifetime`]: when the code of invalidated loops is freed, and how
//!   much code is in use (`MAJIT_MAX_CODE`).
//! - [`quasi`]: quasi-immutable fields: dependencies of compiled traces
//!   and their invalidation when such a field is written.
//! - [`warmstate`], [`params`], [`stats`]: hotness counters, `JitParams`,
//!   counters and abort reasons.
//! - [`diff`]: differential mode, checking the backend against the
//!   reference executor on the first entries of every loop.
//! - Observability: [`log`] (the `MAJIT_LOG` report), [`summary`] (the
//!   `MAJIT_STATS` summary), [`perfmap`] (`MAJIT_PERF_MAP`).
//! - [`gcheap`]: the JIT on a majit-gc heap (`GcBackend`,
//!   `JitDriver::new_gc`, safepoints); `majit_gc` is re-exported for the
//!   code `#[jit_interp]` generates.
//! - `testing` (feature `testing`): test support, the helpers of the
//!   test namespace's calls, random cases, the binary-under-test command.
//! - [`strategy`]: the interface of user scheduling and allocation
//!   strategies a native backend runs (set per driver in `JitParams`).
//!
//! ## Threads
//!
//! A [`driver::JitDriver`] is neither `Send` nor `Sync`, whatever its
//! backend: its heap, its allocator and its compiled code belong to the
//! thread that built it, and compiled code runs and is patched on that
//! thread only. Any number of drivers may run at once, on one thread or
//! many; they share nothing (each thread has its own heap), so they need
//! no locks. Moving a driver to another thread does not compile:
//!
//! ```compile_fail,E0277
//! use majit_metainterp::{driver::JitDriver, Backend};
//! fn move_to_thread<B: Backend + Send + 'static>(driver: JitDriver<B>) {
//!     std::thread::spawn(move || drop(driver));
//! }
//! ```

pub mod backend;
pub mod blackhole;
pub mod bridge;
pub mod callasm;
pub mod compiled;
pub mod diff;
pub mod driver;
pub mod gcheap;
pub mod jitcode;
pub mod lifetime;
pub mod log;
pub(crate) mod loop_words;
pub mod opt;
pub mod params;
pub mod perfmap;
pub mod portal;
pub mod quasi;
pub mod refexec;
pub mod resume;
pub mod runtime;
pub mod stats;
pub mod strategy;
pub mod summary;
#[cfg(feature = "testing")]
pub mod testing;
pub mod tracer;
pub mod vable;
pub mod warmstate;

pub use majit_gc;

pub use backend::{
    Backend, CodeId, CompileError, DeadFrame, ExecError, ExitId, Exited, Insn, MachineCode,
    PoolEntry,
};
