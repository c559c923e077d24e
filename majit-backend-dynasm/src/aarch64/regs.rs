//! The aarch64 register file, AAPCS64 calling convention and reserved
//! registers, as data for the arch-neutral allocator.
//!
//! Register numbers: 0–30 are `x0`–`x30`, 31 is `sp`, 32–63 are
//! `d0`–`d31` (the low 64 bits of `v0`–`v31`). Roles:
//! - `x29`: the jitframe pointer (callee-saved, so calls keep it);
//! - `x30`: the link register, overwritten by every `bl`/`blr`;
//! - `sp`: the machine stack, 16-byte aligned inside compiled code;
//! - `x16`: move temporary and inline-sequence scratch (addresses, large
//!   immediates, exit stubs, call targets); linker veneers may clobber it
//!   across calls, which is harmless because it never holds a value
//!   across an op;
//! - `x17`: cycle temporary of parallel moves and second inline scratch;
//! - `x18`: the platform register, never touched;
//! - `d30`: move temporary (memory-to-memory moves of either bank);
//! - `d31`: cycle temporary of float parallel moves;
//! - everything else is allocatable: `x0`–`x15` and `d0`–`d7`, `d16`–`d29`
//!   are caller-saved, `x19`–`x28` and `d8`–`d15` callee-saved (AAPCS64
//!   keeps only the low halves of `v8`–`v15`, which is all a `d` value
//!   uses).

use crate::arch::{Bank, Reg, RegFile, RegInfo};

/// Move temporary and inline scratch (integer).
pub const X16: Reg = 16;
/// Cycle temporary and second inline scratch (integer).
pub const X17: Reg = 17;
/// The jitframe pointer.
pub const X29: Reg = 29;
/// The link register.
pub const X30: Reg = 30;
/// The stack pointer.
pub const SP: Reg = 31;
/// `d0`, the float argument and result register.
pub const D0: Reg = 32;
/// Move temporary (float bank; also copies integer slots).
pub const D30: Reg = 62;
/// Cycle temporary (float).
pub const D31: Reg = 63;

const fn x(name: &'static str, hw: u8) -> RegInfo {
    let reserved = matches!(hw, 16 | 17 | 18 | 29 | 30 | 31);
    RegInfo {
        name,
        bank: Bank::Int,
        hw,
        allocatable: !reserved,
        caller_saved: hw < 19 || hw == 30,
    }
}

const fn d(name: &'static str, hw: u8) -> RegInfo {
    RegInfo {
        name,
        bank: Bank::Float,
        hw,
        allocatable: hw < 30,
        caller_saved: hw < 8 || hw > 15,
    }
}

static REGS: [RegInfo; 64] = [
    x("x0", 0),
    x("x1", 1),
    x("x2", 2),
    x("x3", 3),
    x("x4", 4),
    x("x5", 5),
    x("x6", 6),
    x("x7", 7),
    x("x8", 8),
    x("x9", 9),
    x("x10", 10),
    x("x11", 11),
    x("x12", 12),
    x("x13", 13),
    x("x14", 14),
    x("x15", 15),
    x("x16", 16),
    x("x17", 17),
    x("x18", 18),
    x("x19", 19),
    x("x20", 20),
    x("x21", 21),
    x("x22", 22),
    x("x23", 23),
    x("x24", 24),
    x("x25", 25),
    x("x26", 26),
    x("x27", 27),
    x("x28", 28),
    x("x29", 29),
    x("x30", 30),
    x("sp", 31),
    d("d0", 0),
    d("d1", 1),
    d("d2", 2),
    d("d3", 3),
    d("d4", 4),
    d("d5", 5),
    d("d6", 6),
    d("d7", 7),
    d("d8", 8),
    d("d9", 9),
    d("d10", 10),
    d("d11", 11),
    d("d12", 12),
    d("d13", 13),
    d("d14", 14),
    d("d15", 15),
    d("d16", 16),
    d("d17", 17),
    d("d18", 18),
    d("d19", 19),
    d("d20", 20),
    d("d21", 21),
    d("d22", 22),
    d("d23", 23),
    d("d24", 24),
    d("d25", 25),
    d("d26", 26),
    d("d27", 27),
    d("d28", 28),
    d("d29", 29),
    d("d30", 30),
    d("d31", 31),
];

/// The registers a C call clobbers, among the allocatable ones:
/// `x0`–`x15`, `d0`–`d7`, `d16`–`d29`.
pub static CALL_CLOBBERS: [Reg; 38] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 32, 33, 34, 35, 36, 37, 38, 39, 48, 49,
    50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61,
];

/// The aarch64 register description.
pub static REG_FILE: RegFile = RegFile {
    regs: &REGS,
    alloc_order: &[
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 19, 20, 21, 22, 23, 24, 25, 26, 27,
        28, 32, 33, 34, 35, 36, 37, 38, 39, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61,
        40, 41, 42, 43, 44, 45, 46, 47,
    ],
    int_args: &[0, 1, 2, 3, 4, 5, 6, 7],
    float_args: &[32, 33, 34, 35, 36, 37, 38, 39],
    int_result: 0,
    float_result: D0,
    call_clobbers: &CALL_CLOBBERS,
};

/// The hardware number of `r`.
pub fn hw(r: Reg) -> u8 {
    REG_FILE.hw(r)
}

/// Whether `r` is a float (`d`) register.
pub fn is_float(r: Reg) -> bool {
    REG_FILE.is_float(r)
}
