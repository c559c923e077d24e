//! The shared test namespace: the layouts, arrays, raw records, call
//! signatures, targets and fail descrs every crate's tests name in trace
//! text. The table in [`test_namespace`]'s docs is the reference; the
//! `namespace` integration test checks the layouts are consistent.

use crate::descr::{
    ArrayDescr, CallDescr, CallEffect, Descr, EffectInfo, FailDescr, FieldDescr, SizeDescr,
    TargetDescr,
};
use crate::opcode::{Kind, ResultKind};
use crate::text::Namespace;

/// The class word of `Stack` objects (`new_with_vtable(descr=Stack)`), what
/// `guard_class` compares against.
pub const STACK_VTABLE: u64 = 0x5700;

/// The fake function address random traces pass as a call's first
/// argument: `CALL_TARGET_BASE + 16 * n` for the `n`-th call descr of
/// [`CALL_DESCRS`]. Nothing lives there; executors that run random traces
/// with calls must map these addresses to functions of their own.
pub const CALL_TARGET_BASE: i64 = 0x10_0000;

/// The call descriptors of [`test_namespace`], in the order that numbers
/// their fake addresses (see [`CALL_TARGET_BASE`]).
pub const CALL_DESCRS: [&str; 7] = [
    "Call.ii_i",
    "Call.i_v",
    "Call.ff_f",
    "Call.ff_v",
    "Call.many",
    "Call.r_r",
    "Call.force_i",
];

/// The namespace of descriptors every crate's tests share.
///
/// Layouts (offsets in bytes; headered objects start with the 8-byte GC
/// header word):
///
/// | descr | sort | layout |
/// |---|---|---|
/// | `Node` | size 16, type_id 1, headerless | `Node.value` int @0, `Node.next` ref @8 |
/// | `Triple` | size 24, type_id 2, headerless | `Triple.a` int @0, `Triple.b` float @8, `Triple.c` ref @16 |
/// | `Stack` | size 24, type_id 3, headered, vtable [`STACK_VTABLE`] | header @0, `Stack.head` ref @8, `Stack.len` int @16 |
/// | `IntArray` | array, type_id 4 | header @0, length @8, int items (8 bytes, signed) @16 |
/// | `RefArray` | array, type_id 5 | header @0, length @8, ref items @16 |
/// | `FloatArray` | array, type_id 6 | header @0, length @8, float items @16 |
/// | `RawI8` `RawU8` `RawI16` `RawU16` `RawI32` `RawU32` `RawI64` | raw array | int items of 1/2/4/8 bytes, signed (`I`) or not (`U`), base 0 |
/// | `RawF64` | raw array | float items, base 0 |
/// | `Box` | size 16, type_id 9, headered, no vtable | header @0, `Box.value` int @8 |
/// | `ByteArray` | array, type_id 7 | header @0, length @8, unsigned 1-byte int items @16 |
/// | `RawCell.int`, `RawCell.float` | raw fields | int @0, float @8 (the shape of a `Triple`'s first two fields) |
/// | `Raw.i8` `Raw.u8` | raw fields | 1-byte int @1, signed / unsigned |
/// | `Raw.i16` `Raw.u16` | raw fields | 2-byte int @2, signed / unsigned |
/// | `Raw.i32` `Raw.u32` | raw fields | 4-byte int @4, signed / unsigned |
/// | `Raw.i64`, `Raw.f64`, `Raw.ref` | raw fields | int @8, float @16, ref @24 |
///
/// Calls (all `call` descrs; first arg of the op is the function address):
///
/// | descr | args → result | effects |
/// |---|---|---|
/// | `Call.ii_i` | int, int → int | elidable |
/// | `Call.i_v` | int → void | random, can_raise (an int exception), can_collect |
/// | `Call.ff_f` | float, float → float | elidable |
/// | `Call.ff_v` | float, float → void | random |
/// | `Call.many` | int, ref, float, int, ref, float, int, int, float → int | random, can_raise, can_collect |
/// | `Call.r_r` | ref → ref | random, can_collect |
/// | `Call.force_i` | int → int | random, can_raise, can_collect, may_force |
///
/// Targets `Loop` and `Loop2`; fail descrs `g0` … `g15` with `id` equal to
/// the number.
pub fn test_namespace() -> Namespace {
    let mut ns = Namespace::new();
    ns.add_descr(size(
        "Node",
        16,
        1,
        true,
        None,
        &["Node.value", "Node.next"],
    ));
    ns.add_descr(field("Node.value", "Node", 0, 8, Kind::Int, true));
    ns.add_descr(field("Node.next", "Node", 8, 8, Kind::Ref, false));
    let triple = ["Triple.a", "Triple.b", "Triple.c"];
    ns.add_descr(size("Triple", 24, 2, true, None, &triple));
    ns.add_descr(field("Triple.a", "Triple", 0, 8, Kind::Int, true));
    ns.add_descr(field("Triple.b", "Triple", 8, 8, Kind::Float, false));
    ns.add_descr(field("Triple.c", "Triple", 16, 8, Kind::Ref, false));
    let stack = ["Stack.head", "Stack.len"];
    ns.add_descr(size("Stack", 24, 3, false, Some(STACK_VTABLE), &stack));
    ns.add_descr(field("Stack.head", "Stack", 8, 8, Kind::Ref, false));
    ns.add_descr(field("Stack.len", "Stack", 16, 8, Kind::Int, true));
    ns.add_descr(size("Box", 16, 9, false, None, &["Box.value"]));
    ns.add_descr(field("Box.value", "Box", 8, 8, Kind::Int, true));
    for (name, offset, size, kind, signed) in RAW_FIELDS {
        ns.add_descr(field(name, "Raw", offset, size, kind, signed));
    }
    ns.add_descr(field("RawCell.int", "RawCell", 0, 8, Kind::Int, true));
    ns.add_descr(field("RawCell.float", "RawCell", 8, 8, Kind::Float, false));
    ns.add_descr(array("IntArray", 16, 8, Kind::Int, true, 4));
    ns.add_descr(array("RefArray", 16, 8, Kind::Ref, false, 5));
    ns.add_descr(array("FloatArray", 16, 8, Kind::Float, false, 6));
    ns.add_descr(array("ByteArray", 16, 1, Kind::Int, false, 7));
    for (name, item, signed) in RAW_INT_ARRAYS {
        ns.add_descr(array(name, 0, item, Kind::Int, signed, 0));
    }
    ns.add_descr(array("RawF64", 0, 8, Kind::Float, false, 0));
    use Kind::{Float as F, Int as I, Ref as R};
    let random = |raise, collect| (CallEffect::Random, raise, collect, false);
    let pure = (CallEffect::Elidable, false, false, false);
    ns.add_descr(call("Call.ii_i", &[I, I], ResultKind::Int, pure));
    ns.add_descr(call("Call.i_v", &[I], ResultKind::Void, random(true, true)));
    ns.add_descr(call("Call.ff_f", &[F, F], ResultKind::Float, pure));
    ns.add_descr(call(
        "Call.ff_v",
        &[F, F],
        ResultKind::Void,
        random(false, false),
    ));
    let many = [I, R, F, I, R, F, I, I, F];
    ns.add_descr(call(
        "Call.many",
        &many,
        ResultKind::Int,
        random(true, true),
    ));
    ns.add_descr(call("Call.r_r", &[R], ResultKind::Ref, random(false, true)));
    let force = (CallEffect::Random, true, true, true);
    ns.add_descr(call("Call.force_i", &[I], ResultKind::Int, force));
    // For the other call_assembler_* families (token first); not generated.
    ns.add_descr(call("Call.i_r", &[I], ResultKind::Ref, force));
    ns.add_descr(call("Call.i_force_v", &[I], ResultKind::Void, force));
    ns.add_descr(call("Call.if_f", &[I, F], ResultKind::Float, force));
    for name in ["Loop", "Loop2"] {
        ns.add_descr(TargetDescr { name: name.into() }.into());
    }
    for id in 0..16 {
        ns.add_descr(fail_descr(id));
    }
    ns
}

/// The raw fields of the `Raw` record: name, offset, size, kind, signed.
const RAW_FIELDS: [(&str, u32, u8, Kind, bool); 9] = [
    ("Raw.i8", 1, 1, Kind::Int, true),
    ("Raw.u8", 1, 1, Kind::Int, false),
    ("Raw.i16", 2, 2, Kind::Int, true),
    ("Raw.u16", 2, 2, Kind::Int, false),
    ("Raw.i32", 4, 4, Kind::Int, true),
    ("Raw.u32", 4, 4, Kind::Int, false),
    ("Raw.i64", 8, 8, Kind::Int, true),
    ("Raw.f64", 16, 8, Kind::Float, false),
    ("Raw.ref", 24, 8, Kind::Ref, false),
];

/// The raw int arrays: name, item size, signed.
pub(super) const RAW_INT_ARRAYS: [(&str, u8, bool); 7] = [
    ("RawI8", 1, true),
    ("RawU8", 1, false),
    ("RawI16", 2, true),
    ("RawU16", 2, false),
    ("RawI32", 4, true),
    ("RawU32", 4, false),
    ("RawI64", 8, true),
];

fn size(
    name: &str,
    size: u32,
    type_id: u32,
    headerless: bool,
    vtable: Option<u64>,
    fields: &[&str],
) -> Descr {
    let fields = fields.iter().map(|f| f.to_string()).collect();
    let name = name.into();
    SizeDescr {
        name,
        size,
        type_id,
        headerless,
        vtable,
        fields,
    }
    .into()
}

fn field(name: &str, owner: &str, offset: u32, size: u8, kind: Kind, signed: bool) -> Descr {
    let (name, owner) = (name.into(), owner.into());
    FieldDescr {
        name,
        owner,
        offset,
        size,
        signed,
        kind,
        immutable: false,
        quasi_immutable: false,
    }
    .into()
}

fn array(name: &str, base: u32, item_size: u8, kind: Kind, signed: bool, type_id: u32) -> Descr {
    let len_offset = if base == 0 { 0 } else { 8 };
    let name = name.into();
    ArrayDescr {
        name,
        base_offset: base,
        len_offset,
        item_size,
        signed,
        kind,
        type_id,
    }
    .into()
}

fn call(name: &str, args: &[Kind], result: ResultKind, e: (CallEffect, bool, bool, bool)) -> Descr {
    let (effect, can_raise, can_collect, may_force) = e;
    let effect = EffectInfo {
        effect,
        can_raise,
        can_collect,
        may_force,
        reads: vec![],
        writes: vec![],
    };
    CallDescr {
        name: name.into(),
        args: args.to_vec(),
        result,
        effect,
    }
    .into()
}

pub(super) fn fail_descr(id: u32) -> Descr {
    FailDescr {
        name: format!("g{id}"),
        id,
        returns: false,
    }
    .into()
}
