//! The aarch64 backend (AAPCS64): register description, per-op emitters,
//! calls, guards and exit stubs.
//!
//! - [`regs`]: the register file, AAPCS64 and reserved registers as data.
//! - [`emit`]: the emitter type and the `Encoder` (immediates, moves,
//!   arithmetic).
//! - [`call`]: AAPCS64 calls (argument parallel move, stack arguments).
//! - [`guard`]: the `GuardEncoder` (guards, jumps, exit stubs), the entry
//!   trampoline and exit routine.
//! - [`memory`]: loads and stores, with out-of-range offsets computed in
//!   a scratch register.
//! - [`nursery`]: the `GcEncoder` (nursery bump, card test, slow-path
//!   pieces).
//!
//! All assembly goes through the `a64!` macro, which sets
//! `.arch aarch64` and names the reserved registers. Every op's arguments
//! arrive in registers or as constants (the allocator loads the rest);
//! inline sequences use only `x16`, `x17`, `d30` and `d31`, which the
//! allocator never hands out, so no op needs a clobber set: division is
//! `sdiv`/`msub` (whose results for a zero divisor and `MIN / -1` are the
//! defined ones) and variable shifts take any count register. The GC
//! slow paths (`nursery.rs`) save and reload the live registers they
//! could clobber themselves.
//!
//! Branch ranges: `b.cond`, `cbz`, `adr` and literal loads reach ±1 MB, so
//! guard stubs and the pool sit at the end of their own trace; a trace
//! whose code exceeds that is rejected with `CompileError::ImplLimit`
//! when the assembler cannot resolve a label. Everything outside the trace
//! (the exit routine, other traces' labels, bridges) is reached through a
//! pool word and `br`, so no branch ever needs to span two mappings.

// `dynasm!` converts dynamic register numbers with `.into()`, which clippy
// flags when they already are `u8`.
#![allow(clippy::useless_conversion)]

pub mod call;
pub mod direct;
pub mod emit;
#[cfg(test)]
mod emit_tests;
pub mod guard;
pub mod memory;
pub mod nursery;
pub mod regs;

use crate::arch::{Arch, EmitEnv, Emitter, OpConstraints, RegFile, Runtime};
use majit_ir::Op;
use majit_metainterp::CompileError;

/// `dynasm!` for aarch64 with the reserved registers' role names:
/// `frame` (x29, the jitframe), `tmp` (x16, move temporary and scratch),
/// `tmp2` (x17, cycle temporary and second scratch).
macro_rules! a64 {
    ($ops:expr; $($t:tt)*) => {
        dynasmrt::dynasm!($ops
            ; .arch aarch64
            ; .alias frame, x29
            ; .alias tmp, x16
            ; .alias tmp2, x17
            ; $($t)*
        )
    };
}
pub(crate) use a64;

/// The aarch64 architecture.
#[derive(Debug, Default)]
pub struct Aarch64;

impl Arch for Aarch64 {
    const NAME: &'static str = "aarch64";

    fn regs() -> &'static RegFile {
        &regs::REG_FILE
    }

    fn constraints(op: &Op) -> OpConstraints {
        match op.opcode {
            _ if op.opcode.carries_args() => OpConstraints::default(),
            _ if op.opcode.is_call() => OpConstraints {
                args_in_regs: false,
                clobbers: &regs::CALL_CLOBBERS,
            },
            _ => OpConstraints {
                args_in_regs: true,
                clobbers: &[],
            },
        }
    }

    fn emitter_with(env: &EmitEnv) -> Box<dyn Emitter> {
        Box::new(emit::A64Emitter::new(env.clone()))
    }

    fn runtime() -> Result<Runtime, CompileError> {
        guard::runtime()
    }

    unsafe fn enter(entry: usize, frame: *mut u64, code: usize) -> *mut u64 {
        // SAFETY: the caller guarantees `entry` is the trampoline built by
        // `guard::runtime`, which has exactly this AAPCS64 signature.
        let f: extern "C" fn(*mut u64, usize) -> *mut u64 = unsafe { std::mem::transmute(entry) };
        f(frame, code)
    }
}

/// The architecture type, under the name the shared test suite expects.
pub type ArchImpl = Aarch64;
