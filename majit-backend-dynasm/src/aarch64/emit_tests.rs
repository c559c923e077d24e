//! aarch64 encoder rows: (what, encoder calls, bytes, disassembly), checked
//! by `emit::rows::check` (see there). The disassembly is `yaxpeax-arm`'s
//! (the in-tree disassembler); the rows were checked against
//! `aarch64-linux-gnu-objdump` when written. Bytes are in memory order
//! (each instruction word little-endian).

use super::emit::{A64Emitter, Cond};
use super::regs::{D0, D30, D31, REG_FILE, SP, X16, X17, X29, X30};
use crate::arch::Loc;
use crate::emit::rows::{check, Row};
use crate::emit::{CmpOp, Encoder, FloatOp, GcEncoder, GuardEncoder, IntOp, ShiftOp, UnaryOp};
use dynasmrt::DynasmLabelApi;
use majit_ir::{Const, Kind};

/// `d1`.
const D1: u8 = D0 + 1;

fn int(v: i64) -> Loc {
    Loc::Const(Const::Int(v))
}

#[rustfmt::skip]
const ROWS: &[Row<A64Emitter>] = &[
    ("mov_imm small", |e| e.mov_imm(0, 5), "a0 00 80 d2", "mov x0, #0x5"),
    ("mov_imm -1", |e| e.mov_imm(1, -1), "01 00 80 92", "mov x1, #0xffffffffffffffff"),
    ("mov_imm two halves", |e| e.mov_imm(2, 0x1234_0000_5678), "02 cf 8a d2 82 46 c2 f2", "mov x2, #0x5678; movk x2, #0x1234, lsl #32"),
    ("mov_imm MIN", |e| e.mov_imm(3, i64::MIN), "03 00 f0 d2", "mov x3, #0x8000000000000000"),
    ("mov_imm mostly ones", |e| e.mov_imm(4, 0xffff_ffff_0000_ffff_u64 as i64), "e4 ff bf 92", "mov x4, #0xffffffff0000ffff"),
    ("near frame word", |e| e.frame_ldr(5, 544), "a5 13 41 f9", "ldr x5, [x29, #0x220]"),
    ("far frame word", |e| e.frame_ldr(6, 40544), "06 cc 93 d2 a6 6b 66 f8", "mov x6, #0x9e60; ldr x6, [x29, x6]"),
    ("far float store", |e| e.frame_str(D1, 40544), "10 cc 93 d2 a1 6b 30 fc", "mov x16, #0x9e60; str d1, [x29, x16]"),
    ("spill zero", |e| e.store_slot(0, int(0), Kind::Int), "bf 2b 01 f9", "str xzr, [x29, #0x250]"),
    ("compare with an immediate", |e| e.int_cmp(Loc::Reg(0), int(7)), "1f 1c 00 f1", "cmp x0, #0x7"),
    ("compare with a negative immediate", |e| e.int_cmp(Loc::Reg(0), int(-7)), "1f 1c 00 b1", "cmn x0, #0x7"),
    ("cset", |e| e.cset(Cond::Lt, 1), "e1 a7 9f 9a", "cset x1, lt"),
    ("add an immediate", |e| e.int_op(IntOp::Add, 2, Loc::Reg(3), int(12)), "62 30 00 91", "add x2, x3, #0xc"),
    ("sub a negative immediate", |e| e.int_op(IntOp::Sub, 2, Loc::Reg(3), int(-12)), "62 30 00 91", "add x2, x3, #0xc"),
    ("multiply", |e| e.int_op(IntOp::Mul, 4, Loc::Reg(5), Loc::Reg(6)), "a4 7c 06 9b", "mul x4, x5, x6"),
    ("and", |e| e.int_op(IntOp::And, 4, Loc::Reg(5), Loc::Reg(6)), "a4 00 06 8a", "and x4, x5, x6"),
    ("shift by a register", |e| e.shift(ShiftOp::Right, 7, Loc::Reg(8), Loc::Reg(9)), "07 29 c9 9a", "asr x7, x8, x9"),
    ("modulo", |e| e.div_mod(true, true, 1, Loc::Reg(2), Loc::Reg(3)), "50 0c c3 9a 01 8a 03 9b", "sdiv x16, x2, x3; msub x1, x16, x3, x2"),
    ("unsigned divide", |e| e.div_mod(false, false, 1, Loc::Reg(2), Loc::Reg(3)), "41 08 c3 9a", "udiv x1, x2, x3"),
    ("unsigned modulo", |e| e.div_mod(true, false, 1, Loc::Reg(2), Loc::Reg(3)), "50 08 c3 9a 01 8a 03 9b", "udiv x16, x2, x3; msub x1, x16, x3, x2"),
    ("float to int", |e| e.unary(UnaryOp::FloatToInt, 0, Loc::Reg(D1)), "20 00 78 9e", "fcvtzs x0, d1"),
    ("tag a small int", |e| e.unary(UnaryOp::IntTag, 1, Loc::Reg(2)), "41 f8 7f d3 21 00 40 b2", "lsl x1, x2, #0x1; orr x1, x1, #0x1"),
    ("untag a small int", |e| e.unary(UnaryOp::IntUntag, 1, Loc::Reg(1)), "21 fc 41 93", "asr x1, x1, #0x1"),
    ("the tag bit", |e| { e.compare(CmpOp::Tagged, 0, Loc::Reg(3), Loc::Reg(3)); }, "7f 00 40 f2 e0 07 9f 9a", "tst x3, #0x1; cset x0, ne"),
    ("the tag bit only its guard reads", |e| { e.flags_only = true; e.compare(CmpOp::Tagged, 0, Loc::Reg(3), Loc::Reg(3)); }, "7f 00 40 f2", "tst x3, #0x1"),
    ("tag a small float", |e| e.unary(UnaryOp::FloatTag, 1, Loc::Reg(D1)), "21 00 66 9e 21 f4 c1 93 21 f4 7e 92 21 00 7f b2", "fmov x1, d1; ror x1, x1, #0x3d; and x1, x1, #0xfffffffffffffffc; orr x1, x1, #0x2"),
    ("untag a small float", |e| e.unary(UnaryOp::FloatUntag, D0, Loc::Reg(2)), "50 fc 42 93 10 06 d0 93 10 02 42 d2 00 02 67 9e", "asr x16, x2, #0x2; ror x16, x16, #0x1; eor x16, x16, #0x4000000000000000; fmov d0, x16"),
    ("the float tag bits", |e| { e.compare(CmpOp::FloatTagged, 0, Loc::Reg(3), Loc::Reg(3)); }, "70 04 40 92 1f 0a 00 f1 e0 17 9f 9a", "and x16, x3, #0x3; cmp x16, #0x2; cset x0, eq"),
    ("float sqrt", |e| e.unary(UnaryOp::FloatSqrt, D1 + 1, Loc::Reg(D1)), "22 c0 61 1e", "fsqrt d2, d1"),
    ("a float that fits a tag", |e| { e.compare(CmpOp::FloatFitsTag, 2, Loc::Reg(D1), Loc::Reg(D1)); }, "30 00 66 9e 11 00 e6 d2 11 02 11 cb 31 fe d1 93 3f 06 42 f2 e2 17 9f 9a", "fmov x16, d1; mov x17, #0x3000000000000000; sub x17, x16, x17; ror x17, x17, #0x3f; tst x17, #0xc000000000000000; cset x2, eq"),
    ("a float that fits a tag, only its guard reading it", |e| { e.flags_only = true; e.compare(CmpOp::FloatFitsTag, 2, Loc::Reg(D1), Loc::Reg(D1)); }, "30 00 66 9e 11 00 e6 d2 11 02 11 cb 31 fe d1 93 3f 06 42 f2", "fmov x16, d1; mov x17, #0x3000000000000000; sub x17, x16, x17; ror x17, x17, #0x3f; tst x17, #0xc000000000000000"),
    ("float negate", |e| e.unary(UnaryOp::FloatNeg, D0, Loc::Reg(D1)), "20 40 61 1e", "fneg d0, d1"),
    ("float multiply", |e| e.float_op(FloatOp::Mul, D0, Loc::Reg(D0), Loc::Reg(D1)), "00 08 61 1e", "fmul d0, d0, d1"),
    ("a comparison only its guard reads", |e| { e.flags_only = true; e.compare(CmpOp::Lt, 1, Loc::Reg(2), Loc::Reg(3)); }, "5f 00 03 eb", "cmp x2, x3"),
    ("signed modulo by a constant", |e| e.div_mod(true, true, 1, Loc::Reg(2), int(7)), "b0 24 89 d2 50 92 a4 f2 30 49 d2 f2 90 24 e9 f2 50 7c 50 9b 10 fe 41 93 10 fe 50 8b f1 00 80 d2 01 8a 11 9b", "mov x16, #0x4925; movk x16, #0x2492, lsl #16; movk x16, #0x9249, lsl #32; movk x16, #0x4924, lsl #48; smulh x16, x2, x16; asr x16, x16, #0x1; add x16, x16, x16, lsr #63; mov x17, #0x7; msub x1, x16, x17, x2"),
    ("fits a tag", |e| { e.compare(CmpOp::FitsTag, 1, Loc::Reg(2), Loc::Reg(2)); }, "5f 00 02 ab e1 67 9f 9a", "cmn x2, x2; cset x1, vc"),
    ("float less than", |e| { e.compare(CmpOp::FLt, 1, Loc::Reg(D0), Loc::Reg(D1)); }, "00 20 61 1e e1 57 9f 9a", "fcmp d0, d1; cset x1, mi"),
    ("save a register", |e| e.save_reg(X16 - 1), "af 67 00 f9", "str x15, [x29, #0xc8]"),
    ("take the exception", |e| e.take_exception(3), "a3 1b 40 f9 bf 17 00 f9", "ldr x3, [x29, #0x30]; str xzr, [x29, #0x28]"),
    ("guard on a validity word", |e| { let l = e.ops.new_dynamic_label(); e.guard_word_at(X17, l); e.ops.dynamic_label(l); }, "30 02 40 f9 30 00 00 b5", "ldr x16, [x17]; cbnz x16, $+0x4  ; pool[0]"),
];

#[test]
fn register_file() {
    REG_FILE.assert_consistent(32, &[X16, X17, 18, X29, X30, SP, D30, D31]);
}

#[test]
fn encodings() {
    check("aarch64", ROWS);
}
