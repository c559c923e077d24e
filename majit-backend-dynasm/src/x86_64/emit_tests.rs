//! x86_64 encoder rows: (what, encoder calls, bytes, disassembly), checked
//! by `emit::rows::check` (see there). The disassembly is `iced-x86`'s
//! (the in-tree disassembler); the rows were checked against objdump when
//! written.

use super::emit::{Cond, X64Emitter};
use super::regs::{R10, R11, R8, RAX, RBP, RBX, RCX, RDX, REG_FILE, RSI, RSP, XMM0, XMM14, XMM15};
use crate::arch::Loc;
use crate::emit::rows::{check, Row};
use crate::emit::{CmpOp, Encoder, FloatOp, GcEncoder, GuardEncoder, IntOp, ShiftOp, UnaryOp};
use dynasmrt::DynasmLabelApi;
use majit_ir::{Const, Kind};

/// `xmm1`.
const XMM1: u8 = XMM0 + 1;

fn int(v: i64) -> Loc {
    Loc::Const(Const::Int(v))
}

#[rustfmt::skip]
const ROWS: &[Row<X64Emitter>] = &[
    ("mov_imm small", |e| e.mov_imm(RAX, 5), "48 c7 c0 05 00 00 00", "mov rax, 5"),
    ("mov_imm u32", |e| e.mov_imm(R8, 0xffff_ffff), "41 b8 ff ff ff ff", "mov r8d, 0xffffffff"),
    ("mov_imm i64", |e| e.mov_imm(RCX, i64::MIN), "48 b9 00 00 00 00 00 00 00 80", "mov rcx, 0x8000000000000000"),
    ("reload a slot", |e| e.load_int(RSI, Loc::Slot(0)), "48 8b b5 50 01 00 00", "mov rsi, [rbp+0x150]"),
    ("float move", |e| e.load_float(XMM0, Loc::Reg(XMM1)), "40 0f 28 c1", "movaps xmm0, xmm1"),
    ("spill a float", |e| e.store_slot(1, Loc::Reg(XMM1), Kind::Float), "f2 40 0f 11 8d 58 01 00 00", "movsd [rbp+0x158], xmm1"),
    ("spill a constant", |e| e.store_slot(2, int(-3), Kind::Int), "48 c7 85 60 01 00 00 fd ff ff ff", "mov qword ptr [rbp+0x160], 0xfffffffffffffffd"),
    ("setcc on sil", |e| e.setcc(Cond::L, RSI), "40 0f 9c c6", "setl sil"),
    ("compare with an immediate", |e| e.int_cmp(Loc::Reg(RAX), int(7)), "48 81 f8 07 00 00 00", "cmp rax, 7"),
    ("add", |e| e.int_op(IntOp::Add, RAX, Loc::Reg(RAX), Loc::Reg(RCX)), "48 01 c8", "add rax, rcx"),
    ("sub an immediate", |e| e.int_op(IntOp::Sub, RDX, Loc::Reg(RDX), int(9)), "48 81 ea 09 00 00 00", "sub rdx, 9"),
    ("sub an immediate into another register", |e| e.int_op(IntOp::Sub, RDX, Loc::Reg(R8), int(9)), "49 8d 94 20 f7 ff ff ff", "lea rdx, [r8-9]"),
    ("add into another register", |e| e.int_op(IntOp::Add, RDX, Loc::Reg(RCX), Loc::Reg(RBX)), "48 8d 54 19 00", "lea rdx, [rcx+rbx]"),
    ("multiply by an immediate", |e| e.int_op(IntOp::Mul, RBX, Loc::Reg(RBX), int(3)), "48 69 db 03 00 00 00", "imul rbx, 3"),
    ("xor", |e| e.int_op(IntOp::Xor, RSI, Loc::Reg(RSI), Loc::Reg(R8)), "4c 31 c6", "xor rsi, r8"),
    ("shift by a constant", |e| e.shift(ShiftOp::UintRight, RAX, Loc::Reg(RAX), int(3)), "48 c1 e8 03", "shr rax, 3"),
    ("negate", |e| e.unary(UnaryOp::IntNeg, RCX, Loc::Reg(RCX)), "48 f7 d9", "neg rcx"),
    ("tag a small int", |e| e.unary(UnaryOp::IntTag, RCX, Loc::Reg(RDX)), "48 8d 4c 12 01", "lea rcx, [rdx+rdx+1]"),
    ("untag a small int", |e| e.unary(UnaryOp::IntUntag, RCX, Loc::Reg(RCX)), "48 c1 f9 01", "sar rcx, 1"),
    ("the tag bit", |e| { e.compare(CmpOp::Tagged, RAX, Loc::Reg(RSI), Loc::Reg(RSI)); }, "40 f6 c6 01 40 0f 95 c0 40 0f b6 c0", "test sil, 1; setne al; movzx eax, al"),
    ("the tag bit only its guard reads", |e| { e.flags_only = true; e.compare(CmpOp::Tagged, RAX, Loc::Reg(RSI), Loc::Reg(RSI)); }, "40 f6 c6 01", "test sil, 1"),
    ("tag a small float", |e| e.unary(UnaryOp::FloatTag, RCX, Loc::Reg(XMM1)), "66 48 0f 7e c9 48 c1 c1 03 48 83 e1 fc 48 83 c9 02", "movq rcx, xmm1; rol rcx, 3; and rcx, 0xfffffffffffffffc; or rcx, 2"),
    ("untag a small float", |e| e.unary(UnaryOp::FloatUntag, XMM0, Loc::Reg(RDX)), "49 89 d3 49 c1 fb 02 49 c1 cb 01 49 0f ba fb 3e 66 49 0f 6e c3", "mov r11, rdx; sar r11, 2; ror r11, 1; btc r11, 0x3e; movq xmm0, r11"),
    ("the float tag bits", |e| { e.compare(CmpOp::FloatTagged, RAX, Loc::Reg(RSI), Loc::Reg(RSI)); }, "49 89 f3 49 83 e3 03 49 81 fb 02 00 00 00 40 0f 94 c0 40 0f b6 c0", "mov r11, rsi; and r11, 3; cmp r11, 2; sete al; movzx eax, al"),
    ("a float that fits a tag", |e| { e.compare(CmpOp::FloatFitsTag, RDX, Loc::Reg(XMM1), Loc::Reg(XMM1)); }, "66 49 0f 7e cb 49 ba 00 00 00 00 00 00 00 d0 4d 01 da 49 c1 c2 01 49 c1 ea 3e 40 0f 94 c2 40 0f b6 d2", "movq r11, xmm1; mov r10, 0xd000000000000000; add r10, r11; rol r10, 1; shr r10, 0x3e; sete dl; movzx edx, dl"),
    ("a float that fits a tag, only its guard reading it", |e| { e.flags_only = true; e.compare(CmpOp::FloatFitsTag, RDX, Loc::Reg(XMM1), Loc::Reg(XMM1)); }, "66 49 0f 7e cb 49 ba 00 00 00 00 00 00 00 d0 4d 01 da 49 c1 c2 01 49 c1 ea 3e", "movq r11, xmm1; mov r10, 0xd000000000000000; add r10, r11; rol r10, 1; shr r10, 0x3e"),
    ("int to float", |e| e.unary(UnaryOp::IntToFloat, XMM0, Loc::Reg(RAX)), "f2 48 0f 2a c0", "cvtsi2sd xmm0, rax"),
    ("float sqrt", |e| e.unary(UnaryOp::FloatSqrt, XMM0, Loc::Reg(XMM1)), "f2 40 0f 51 c1", "sqrtsd xmm0, xmm1"),
    ("float add", |e| e.float_op(FloatOp::Add, XMM0, Loc::Reg(XMM0), Loc::Reg(XMM1)), "f2 40 0f 58 c1", "addsd xmm0, xmm1"),
    ("fits a tag", |e| { e.compare(CmpOp::FitsTag, RDX, Loc::Reg(RSI), Loc::Reg(RSI)); }, "49 89 f3 4d 01 db 40 0f 91 c2 40 0f b6 d2", "mov r11, rsi; add r11, r11; setno dl; movzx edx, dl"),
    ("a comparison only its guard reads", |e| { e.flags_only = true; e.compare(CmpOp::Lt, RDX, Loc::Reg(RSI), Loc::Reg(RCX)); }, "48 3b f1", "cmp rsi, rcx"),
    ("is_true", |e| { e.compare(CmpOp::IsTrue, RDX, Loc::Reg(RSI), Loc::Reg(RSI)); }, "48 85 f6 40 0f 95 c2 40 0f b6 d2", "test rsi, rsi; setne dl; movzx edx, dl"),
    ("pointer plus offset", |e| e.ptr_add(RAX, Loc::Reg(RBX), int(16)), "48 8d 84 23 10 00 00 00", "lea rax, [rbx+0x10]"),
    ("signed modulo by a constant", |e| e.div_mod(true, true, RCX, Loc::Reg(RSI), int(7)), "49 89 f3 48 b8 25 49 92 24 49 92 24 49 49 f7 eb 48 c1 fa 01 48 89 d0 48 c1 e8 3f 48 01 c2 48 69 d2 07 00 00 00 4c 89 d8 48 29 d0 48 89 c1", "mov r11, rsi; mov rax, 0x4924924924924925; imul r11; sar rdx, 1; mov rax, rdx; shr rax, 0x3f; add rdx, rax; imul rdx, 7; mov rax, r11; sub rax, rdx; mov rcx, rax"),
    ("divide by zero", |e| e.div_mod(false, true, R10, Loc::Reg(RAX), int(0)), "49 c7 c2 00 00 00 00", "mov r10, 0"),
    ("unsigned divide by a constant", |e| e.div_mod(false, false, R10, Loc::Reg(RAX), int(10)), "49 c7 c3 0a 00 00 00 31 d2 49 f7 f3 49 89 c2", "mov r11, 0xa; xor edx, edx; div r11; mov r10, rax"),
    ("unsigned modulo by -1", |e| e.div_mod(true, false, RBX, Loc::Reg(RAX), int(-1)), "49 c7 c3 ff ff ff ff 31 d2 49 f7 f3 48 89 d0 48 89 c3", "mov r11, 0xffffffffffffffff; xor edx, edx; div r11; mov rax, rdx; mov rbx, rax"),
    ("save a register", |e| e.save_reg(RBX), "48 89 9d 68 00 00 00", "mov [rbp+0x68], rbx"),
    ("take the exception", |e| e.take_exception(RCX), "48 8b 8d 30 00 00 00 48 c7 85 28 00 00 00 00 00 00 00", "mov rcx, [rbp+0x30]; mov qword ptr [rbp+0x28], 0"),
    ("guard on a validity word", |e| { let l = e.ops.new_dynamic_label(); e.guard_word_at(R11, l); e.ops.dynamic_label(l); }, "49 81 7c 23 00 00 00 00 00 0f 85 00 00 00 00", "cmp qword ptr [r11], 0; jne 0xf"),
];

#[test]
fn register_file() {
    REG_FILE.assert_consistent(16, &[RSP, RBP, R10, R11, XMM14, XMM15]);
}

#[test]
fn encodings() {
    check("x86_64", ROWS);
}
