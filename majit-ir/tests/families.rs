//! One hand-written trace per opcode family, in the printer's canonical
//! form: each must verify, print back to exactly the same ops (after the
//! descriptor declarations `print` adds) and round-trip. Together they use
//! every opcode.

use majit_ir::fuzzing::{check_roundtrip, test_namespace};
use majit_ir::{parse_with, print, print_with, verify, OpCode};
use std::collections::BTreeSet;

const FAMILIES: [(&str, &str); 12] = [
    (
        "integer arithmetic",
        "
[i0, i1]
i2 = int_add(i0, i1)
i3 = int_sub(i2, -7)
i4 = int_mul(i3, 16)
i5 = int_floordiv(i4, i1)
i6 = int_mod(i5, 3)
i7 = int_and(i6, 255)
i8 = int_or(i7, i0)
i9 = int_xor(i8, -1)
i10 = int_lshift(i9, 3)
i11 = int_rshift(i10, 1)
i12 = uint_rshift(i11, 63)
i13 = int_neg(i12)
i14 = int_invert(i13)
i15 = int_is_zero(i14)
i16 = int_is_true(i15)
i17 = same_as_i(i16)
i18 = uint_floordiv(i17, i1)
i19 = uint_mod(i18, 10)
finish(i19, -9223372036854775808, 9223372036854775807)
",
    ),
    (
        "overflow",
        "
[i0, i1]
i2 = int_add_ovf(i0, i1)
guard_no_overflow() [i0, i1]
i4 = int_sub_ovf(i2, 1)
guard_overflow(descr=g3) [i2]
i6 = int_mul_ovf(i4, i4)
guard_no_overflow() []
finish(i6)
",
    ),
    (
        "comparisons",
        "
[i0, i1]
i2 = int_lt(i0, i1)
i3 = int_le(i0, i1)
i4 = int_eq(i0, i1)
i5 = int_ne(i0, i1)
i6 = int_gt(i0, i1)
i7 = int_ge(i0, i1)
i8 = uint_lt(i0, i1)
i9 = uint_le(i0, i1)
i10 = uint_gt(i0, i1)
i11 = uint_ge(i0, i1)
finish(i2, i3, i4, i5, i6, i7, i8, i9, i10, i11)
",
    ),
    (
        "floats",
        "
[f0, f1]
f2 = float_add(f0, f1)
f3 = float_sub(f2, 1.5)
f4 = float_mul(f3, -0.0)
f5 = float_truediv(f4, 1e300)
f6 = float_neg(f5)
f7 = float_abs(f6)
f8 = float_sqrt(f7)
i9 = float_lt(f7, nan)
i10 = float_le(f7, inf)
i11 = float_eq(f7, -inf)
i12 = float_ne(f7, float_bits(0x7ff8000000000001))
i13 = float_gt(f7, 5e-324)
i14 = float_ge(f7, 0.1)
i15 = cast_float_to_int(f7)
f16 = cast_int_to_float(i15)
i17 = convert_float_bytes_to_longlong(f16)
f18 = convert_longlong_bytes_to_float(i17)
f19 = same_as_f(f18)
finish(f19, i9, i10, i11, i12, i13, i14)
",
    ),
    (
        "pointers",
        "
[p0, p1]
i2 = ptr_eq(p0, p1)
i3 = ptr_ne(p0, null)
i4 = cast_ptr_to_int(p0)
p5 = cast_int_to_ptr(i4)
p6 = same_as_r(p5)
p7 = int_tag(i4)
i8 = int_untag(p7)
i9 = ptr_is_tagged(p7)
f10 = cast_int_to_float(i4)
i11 = float_fits_tag(f10)
p12 = float_tag(f10)
f13 = float_untag(p12)
i14 = ptr_is_float_tagged(p12)
i15 = int_fits_tag(i8)
finish(p6, i2, i3, ptr(0x1000), i8, i9, i11, f13, i14, i15)
",
    ),
    (
        "guards",
        "
[i0, p1, f2]
p3 = new_with_vtable(descr=Stack)
setfield_gc(p3, p1, descr=Stack.head)
setfield_gc(p3, i0, descr=Stack.len)
guard_true(i0, descr=g0) [i0, p1, f2]
guard_false(i0) []
guard_value(i0, 5) [i0]
guard_value(f2, 2.5) [f2]
guard_class(p3, 22272) [p3]
guard_nonnull(p1) [p1]
guard_isnull(p1) [42, null, 1.0]
guard_nonnull_class(p3, 22272, descr=g1) [p3]
guard_not_invalidated(p1) []
finish(i0, descr=g2)
",
    ),
    (
        "GC fields and arrays",
        "
[p0, i1]
p2 = new(descr=Node)
setfield_gc(p2, i1, descr=Node.value)
setfield_gc(p2, p0, descr=Node.next)
quasiimmut_field(p2, descr=Node.value)
i6 = getfield_gc_i(p2, descr=Node.value)
p7 = getfield_gc_r(p2, descr=Node.next)
p8 = new(descr=Triple)
setfield_gc(p8, 2.5, descr=Triple.b)
f10 = getfield_gc_f(p8, descr=Triple.b)
p11 = new_array(2, descr=IntArray)
setarrayitem_gc(p11, 0, i6, descr=IntArray)
setarrayitem_gc(p11, 1, i1, descr=IntArray)
i14 = getarrayitem_gc_i(p11, 1, descr=IntArray)
p15 = new_array_clear(1, descr=RefArray)
p16 = getarrayitem_gc_r(p15, 0, descr=RefArray)
p17 = new_array_clear(3, descr=FloatArray)
f18 = getarrayitem_gc_f(p17, 2, descr=FloatArray)
i19 = arraylen_gc(p17, descr=FloatArray)
finish(i14, p7, f10, p16, f18, i19)
",
    ),
    (
        "raw memory",
        "
[p0, f1]
i2 = cast_ptr_to_int(p0)
i3 = getfield_raw_i(i2, descr=RawCell.int)
f4 = getfield_raw_f(i2, descr=RawCell.float)
setfield_raw(i2, f1, descr=RawCell.float)
i6 = getarrayitem_raw_i(i2, 3, descr=RawU8)
f7 = getarrayitem_raw_f(i2, 1, descr=RawF64)
setarrayitem_raw(i2, 2, -1, descr=RawI16)
i9 = raw_load_i(i2, 4, descr=RawI32)
f10 = raw_load_f(i2, 8, descr=RawF64)
raw_store(i2, 0, 255, descr=RawU32)
finish(i3, f4, i6, f7, i9, f10)
",
    ),
    (
        "allocation",
        "
[]
p0 = new(descr=Node)
p1 = new_with_vtable(descr=Stack)
p2 = new_array(4, descr=RefArray)
p3 = new_array_clear(4, descr=IntArray)
finish(p0, p1, p2, p3)
",
    ),
    (
        "lowered allocation",
        "
[p0]
p1 = call_malloc_nursery(40)
p2 = nursery_ptr_increment(p1, 16)
p3 = call_malloc_nursery_headerless(16, descr=Node)
p4 = call_malloc_nursery_varsize(3, descr=IntArray)
cond_call_gc_wb(p0)
cond_call_gc_wb_array(p0, 2)
cond_call_gc_collect()
finish(p2, p3, p4)
",
    ),
    (
        "calls",
        "
[i0, p1, f2]
i3 = call_i(4096, i0, 1, descr=Call.ii_i)
p4 = call_r(4096, p1, descr=Call.r_r)
f5 = call_f(4096, f2, f2, descr=Call.ff_f)
call_n(4096, i0, descr=Call.i_v)
guard_no_exception() [i0]
i8 = call_pure_i(4096, i3, i3, descr=Call.ii_i)
p9 = call_pure_r(4096, p4, descr=Call.r_r)
f10 = call_pure_f(4096, f5, f5, descr=Call.ff_f)
call_pure_n(4096, f5, f5, descr=Call.ff_v)
i12 = call_may_force_i(4096, i8, descr=Call.force_i)
guard_not_forced() []
p14 = call_may_force_r(4096, p9, descr=Call.r_r)
f15 = call_may_force_f(4096, f10, 0.5, descr=Call.ff_f)
call_may_force_n(4096, 1, descr=Call.i_v)
guard_exception() [i0]
i18 = save_exception_i()
call_n(4096, i18, descr=Call.i_v)
guard_exception() [i0]
p21 = save_exception_r()
i22 = call_i(4096, i0, p1, f2, i0, null, 1.0, 2, 3, f2, descr=Call.many)
i23 = call_assembler_i(4096, 7, descr=Call.force_i)
call_assembler_n(4096, 7, descr=Call.i_force_v)
p25 = call_assembler_r(4096, 7, descr=Call.i_r)
f26 = call_assembler_f(4096, 7, f15, descr=Call.if_f)
finish(i12, p14, f15, i22, i18, p21, i23, p25, f26)
",
    ),
    (
        "control",
        "
[i0, p1]
debug_merge_point()
label(i0, p1, descr=Loop)
debug_merge_point(i0, 7)
i5 = int_add(i0, 1)
jump(i5, p1, descr=Loop)
",
    ),
];

/// The trace text without the `descr` declarations `print` adds.
fn ops_only(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with("descr "))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn each_family_verifies_prints_canonically_and_round_trips() {
    let ns = test_namespace();
    for (family, text) in FAMILIES {
        let t = parse_with(text, &ns).unwrap_or_else(|e| panic!("{family}: {e}"));
        if let Err(e) = verify(&t) {
            panic!("{family}: does not verify:\n{e}");
        }
        assert_eq!(ops_only(&print(&t)), text.trim_start(), "{family}");
        assert_eq!(
            print_with(&t, &ns),
            text.trim_start(),
            "{family}: all descrs are the namespace's"
        );
        check_roundtrip(&t);
        assert_eq!(
            parse_with(&print(&t), &ns).unwrap(),
            t,
            "{family}: under the namespace"
        );
    }
}

#[test]
fn the_families_use_every_opcode() {
    let ns = test_namespace();
    let mut seen = BTreeSet::new();
    for (_, text) in FAMILIES {
        seen.extend(
            parse_with(text, &ns)
                .unwrap()
                .ops
                .iter()
                .map(|op| op.opcode),
        );
    }
    let missing: Vec<&str> = OpCode::ALL
        .iter()
        .filter(|op| !seen.contains(op))
        .map(|op| op.name())
        .collect();
    assert!(missing.is_empty(), "no family uses {missing:?}");
}
