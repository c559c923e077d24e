//! The x86_64 register file, SysV calling convention and reserved
//! registers, as data for the arch-neutral allocator.
//!
//! Register numbers: 0–15 are the integer registers in hardware order
//! (`rax`=0 … `r15`=15), 16–31 are `xmm0`–`xmm15`. Roles:
//! - `rbp`: the jitframe pointer (callee-saved, so calls keep it);
//! - `rsp`: the machine stack, 16-byte aligned inside compiled code;
//! - `r10`, `xmm14`: move temporaries (memory-to-memory moves, constants);
//! - `r11`, `xmm15`: cycle temporaries of parallel moves, and general
//!   scratch of inline sequences (exit stubs, division, shifts, calls);
//! - everything else is allocatable; `rax`/`rdx` are clobbered by
//!   division, `rcx` by shifts with a variable count.

use crate::arch::{Bank, Reg, RegFile, RegInfo};

pub const RAX: Reg = 0;
pub const RCX: Reg = 1;
pub const RDX: Reg = 2;
pub const RBX: Reg = 3;
pub const RSP: Reg = 4;
pub const RBP: Reg = 5;
pub const RSI: Reg = 6;
pub const RDI: Reg = 7;
pub const R8: Reg = 8;
pub const R9: Reg = 9;
/// Move temporary (integer).
pub const R10: Reg = 10;
/// Cycle temporary and inline-sequence scratch (integer).
pub const R11: Reg = 11;
pub const R12: Reg = 12;
pub const R15: Reg = 15;
/// `xmm0`.
pub const XMM0: Reg = 16;
/// Move temporary (float).
pub const XMM14: Reg = 30;
/// Cycle temporary and inline-sequence scratch (float).
pub const XMM15: Reg = 31;

const fn int(name: &'static str, hw: u8, allocatable: bool, caller_saved: bool) -> RegInfo {
    RegInfo {
        name,
        bank: Bank::Int,
        hw,
        allocatable,
        caller_saved,
    }
}

const fn xmm(name: &'static str, hw: u8) -> RegInfo {
    RegInfo {
        name,
        bank: Bank::Float,
        hw,
        allocatable: hw < 14,
        caller_saved: true,
    }
}

static REGS: [RegInfo; 32] = [
    int("rax", 0, true, true),
    int("rcx", 1, true, true),
    int("rdx", 2, true, true),
    int("rbx", 3, true, false),
    int("rsp", 4, false, false),
    int("rbp", 5, false, false),
    int("rsi", 6, true, true),
    int("rdi", 7, true, true),
    int("r8", 8, true, true),
    int("r9", 9, true, true),
    int("r10", 10, false, true),
    int("r11", 11, false, true),
    int("r12", 12, true, false),
    int("r13", 13, true, false),
    int("r14", 14, true, false),
    int("r15", 15, true, false),
    xmm("xmm0", 0),
    xmm("xmm1", 1),
    xmm("xmm2", 2),
    xmm("xmm3", 3),
    xmm("xmm4", 4),
    xmm("xmm5", 5),
    xmm("xmm6", 6),
    xmm("xmm7", 7),
    xmm("xmm8", 8),
    xmm("xmm9", 9),
    xmm("xmm10", 10),
    xmm("xmm11", 11),
    xmm("xmm12", 12),
    xmm("xmm13", 13),
    xmm("xmm14", 14),
    xmm("xmm15", 15),
];

/// The registers a C call clobbers, among the allocatable ones.
pub static CALL_CLOBBERS: [Reg; 21] = [
    RAX, RCX, RDX, RSI, RDI, R8, R9, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
];

/// The x86_64 register description.
pub static REG_FILE: RegFile = RegFile {
    regs: &REGS,
    alloc_order: &[
        RAX, RCX, RDX, RSI, RDI, R8, R9, RBX, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
        25, 26, 27, 28, 29,
    ],
    int_args: &[RDI, RSI, RDX, RCX, R8, R9],
    float_args: &[16, 17, 18, 19, 20, 21, 22, 23],
    int_result: RAX,
    float_result: XMM0,
    call_clobbers: &CALL_CLOBBERS,
};

/// The hardware number of `r`.
pub fn hw(r: Reg) -> u8 {
    REG_FILE.hw(r)
}

/// Whether `r` is an xmm register.
pub fn is_xmm(r: Reg) -> bool {
    REG_FILE.is_float(r)
}
