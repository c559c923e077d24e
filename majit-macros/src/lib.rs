//! # majit-macros: the front door
//!
//! Will own `#[jit_interp]`, `jit_merge_point!` and `can_enter_jit!`: the
//! annotated dispatch function is emitted unchanged as the plain
//! interpreter, and each handler is lowered to jitcode at compile time.
