//! # majit: a meta-tracing JIT for interpreters written in Rust
//!
//! The one dependency of an interpreter that uses majit. Write the
//! interpreter as a plain Rust function, annotate it with
//! [`#[jit_interp]`](jit_interp), and the macro generates, next to the
//! function, `NAME_jit` (the same interpreter with the JIT),
//! `NAME_driver` (the driver that traces and compiles its hot loops) and
//! `NAME_jitcode`. The code it generates names only paths under `::majit`,
//! so the crate needs no other majit crate:
//!
//! ```toml
//! [dependencies]
//! majit = { path = "../majit" }
//! ```
//!
//! A complete interpreter: `ADD` adds `acc` to `sum`, `DEC` decrements
//! `acc`, `JNZ t` jumps back to `t` while `acc != 0`. The jump back is a
//! loop of the *user* program, so it calls `can_enter_jit!()` right before
//! it `continue`s the dispatch loop; the JIT compiles that loop to machine
//! code ([`HostBackend`]) and enters it.
//!
//! ```
//! use majit::prelude::*;
//!
//! const HALT: i64 = 0;
//! const ADD: i64 = 1;
//! const DEC: i64 = 2;
//! const JNZ: i64 = 3;
//!
//! #[jit_interp(greens = [pc, code], reds = [acc, sum])]
//! fn run(code: &[i64], n: i64) -> i64 {
//!     let mut pc: usize = 0;
//!     let mut acc: i64 = n;
//!     let mut sum: i64 = 0;
//!     loop {
//!         jit_merge_point!();
//!         match code[pc] {
//!             HALT => return sum,
//!             ADD => {
//!                 sum += acc;
//!                 pc += 1;
//!             }
//!             DEC => {
//!                 acc -= 1;
//!                 pc += 1;
//!             }
//!             JNZ => {
//!                 if acc != 0 {
//!                     pc = code[pc + 1] as usize;
//!                     can_enter_jit!();
//!                     continue;
//!                 }
//!                 pc += 2;
//!             }
//!             _ => return -1,
//!         }
//!     }
//! }
//!
//! fn main() -> Result<(), JitError> {
//!     let prog = [ADD, DEC, JNZ, 0, HALT];
//!     // The plain interpreter: no JIT code at all.
//!     assert_eq!(run(&prog, 1000), 500_500);
//!     // The same interpreter with the JIT, compiling to native code.
//!     let mut driver = run_driver::<HostBackend>(JitParams::default().with_threshold(3))?;
//!     assert_eq!(run_jit(&mut driver, &prog, 1000)?, 500_500);
//!     let stats = driver.stats();
//!     assert_eq!(stats.loops_compiled, 1);
//!     assert!(stats.loop_entries >= 1);
//!     Ok(())
//! }
//! ```
//!
//! `JitParams::from_env()` reads the `MAJIT_*` parameters instead;
//! [`RefExec`] runs compiled traces on the reference executor (no
//! machine code), for tests. The supported subset of Rust, the attribute's
//! keys (`greens`, `reds`, `helpers`, `structs` for GC structs, `enums`,
//! `traced` for functions marked [`traced`]), the [`hints`] and the rules (such as where `can_enter_jit!()` may stand) are in
//! the documentation of [`jit_interp`] and the project's `docs/macros.md`.
//!
//! The majit crates are re-exported by name: [`ir`] (traces, values,
//! descriptors), [`gc`] (the heap, [`gc::thread_heap`] where the GC structs
//! of `#[jit_interp]` live), [`metainterp`] (driver, tracer, optimizer,
//! statistics, strategies) and [`backend_dynasm`] (the native backends).
//! Features: `testing` (`metainterp::testing` and `gc::testing`, test support) and `fuzzing`
//! (`ir::fuzzing`, seeded generators).

pub use majit_backend_dynasm as backend_dynasm;
pub use majit_gc as gc;
pub use majit_ir as ir;
pub use majit_metainterp as metainterp;

pub use majit_backend_dynasm::HostBackend;
pub use majit_gc::{Array, GcRef, GcStats, Obj};
pub use majit_ir::Value;
#[doc(hidden)]
pub use majit_macros::__jit_interp_chain;
pub use majit_macros::{jit_interp, traced};
pub use majit_metainterp::driver::{JitDriver, JitError};
pub use majit_metainterp::gcheap::GcBackend;
pub use majit_metainterp::params::JitParams;
pub use majit_metainterp::refexec::RefExec;
pub use majit_metainterp::stats::Stats;
pub use majit_metainterp::Backend;

/// Hints for the JIT, as RPython offers them. In Rust (the plain
/// interpreter and `NAME_jit`) they are plain functions; in a handler or a
/// traced function of `#[jit_interp]` the macro lowers them to jitcode
/// (see `docs/macros.md`).
pub mod hints {
    /// `x` itself. In a trace, `x` becomes a constant behind a
    /// `guard_value` (its current value), so what depends on it folds: a
    /// dispatch on it, an `elidable` helper called with it. For integers,
    /// bools, `f64` (compared bit for bit) and GC handles.
    pub fn promote<T>(x: T) -> T {
        x
    }

    /// `false` here and wherever the interpreter runs (the plain
    /// function, `NAME_jit`, the blackhole); `true` in traces, so a branch
    /// on it keeps only its `true` side in compiled code.
    pub fn we_are_jitted() -> bool {
        false
    }
}

pub use hints::{promote, we_are_jitted};

/// What an interpreter built with `#[jit_interp]` names: the attribute,
/// the driver and its errors, the parameters, the backends and their
/// traits, the statistics, the GC handle types, `#[traced]` and the hints.
pub mod prelude {
    pub use crate::{
        jit_interp, promote, traced, we_are_jitted, Array, Backend, GcBackend, GcRef, GcStats,
        HostBackend, JitDriver, JitError, JitParams, Obj, RefExec, Stats, Value,
    };
}
