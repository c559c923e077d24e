//! The x86_64 backend: register description, per-op emitters, calls,
//! guards and exit stubs, inline nursery allocation.
//!
//! - [`regs`]: the register file, SysV ABI and reserved registers as data.
//! - [`emit`]: the emitter type and the `Encoder` (moves, arithmetic).
//! - [`call`]: SysV calls (argument parallel move, stack arguments).
//! - [`guard`]: the `GuardEncoder` (guards, jumps, exit stubs), the entry
//!   trampoline and exit routine.
//! - [`memory`]: loads and stores.
//! - [`nursery`]: the `GcEncoder` (nursery bump, card test, slow-path
//!   pieces).
//!
//! All assembly goes through the `x64!` macro, which sets `.arch x64` and
//! names the reserved registers.

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
use majit_ir::{Op, OpCode};
use majit_metainterp::CompileError;

/// `dynasm!` for x86_64 with the reserved registers' role names:
/// `frame` (rbp, the jitframe), `tmp` (r11, scratch and cycle temporary),
/// `mtmp` (r10, move temporary).
macro_rules! x64 {
    ($ops:expr; $($t:tt)*) => {
        dynasmrt::dynasm!($ops
            ; .arch x64
            ; .alias frame, rbp
            ; .alias tmp, r11
            ; .alias mtmp, r10
            ; $($t)*
        )
    };
}
pub(crate) use x64;

/// The x86_64 architecture.
#[derive(Debug, Default)]
pub struct X86_64;

impl Arch for X86_64 {
    const NAME: &'static str = "x86_64";

    fn regs() -> &'static RegFile {
        &regs::REG_FILE
    }

    fn constraints(op: &Op) -> OpConstraints {
        use OpCode::*;
        let any = OpConstraints::default();
        let in_regs = |clobbers: &'static [u8]| OpConstraints {
            args_in_regs: true,
            clobbers,
        };
        match op.opcode {
            _ if op.opcode.carries_args() => any,
            IntFloorDiv | IntMod | UintFloorDiv | UintMod => in_regs(&[regs::RAX, regs::RDX]),
            IntLshift | IntRshift | UintRshift if !op.args[1].is_const() => in_regs(&[regs::RCX]),
            _ if op.opcode.is_call() => OpConstraints {
                args_in_regs: false,
                clobbers: &regs::CALL_CLOBBERS,
            },
            _ => in_regs(&[]),
        }
    }

    fn emitter_with(env: &EmitEnv) -> Box<dyn Emitter> {
        Box::new(emit::X64Emitter::new(env.clone()))
    }

    fn runtime() -> Result<Runtime, CompileError> {
        guard::runtime()
    }

    unsafe fn enter(entry: usize, frame: *mut u64, code: usize) -> *mut u64 {
        // SAFETY: the caller guarantees `entry` is the trampoline built by
        // `guard::runtime`, which has exactly this SysV signature.
        let f: extern "sysv64" fn(*mut u64, usize) -> *mut u64 =
            unsafe { std::mem::transmute(entry) };
        f(frame, code)
    }
}

/// The architecture type, under the name the shared test suite expects.
pub type ArchImpl = X86_64;
