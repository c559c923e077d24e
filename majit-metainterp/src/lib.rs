//! # majit-metainterp: the meta-tracing core
//!
//! - [`backend`]: the contract native backends implement.
//! - [`refexec`]: the reference executor, which interprets traces.
//! - [`opt`]: the optimizer passes.
//! - [`resume`]: per-guard resume data (virtuals, pending fields).
//!
//! Still to come: jitcode, the tracer, warm state and `JitParams`, the
//! driver API, the blackhole interpreter, bridges, stats and logs.

pub mod backend;
pub mod blackhole;
pub mod bridge;
pub mod driver;
pub mod jitcode;
pub mod opt;
pub mod params;
pub mod refexec;
pub mod resume;
pub mod stats;
pub mod tracer;
pub mod warmstate;

pub use backend::{Backend, CodeId, CompileError, DeadFrame, ExecError, ExitId};
