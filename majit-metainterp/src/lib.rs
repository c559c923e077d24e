//! # majit-metainterp: the meta-tracing core
//!
//! Will own: the jitcode format and its builder, the tracer, warm state and
//! `JitParams`, the driver API, the optimizer passes, resume data, the
//! blackhole interpreter, bridges, stats and logs.
//!
//! Here today: [`backend`], the contract native backends implement.

pub mod backend;

pub use backend::{Backend, CodeId, CompileError, DeadFrame, ExecError, ExitId};
