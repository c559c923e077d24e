//! Field, array and raw memory ops on real memory: every width and
//! signedness, floats and refs, memory checked after execution.

use crate::{addr_of, float, int, reference, run, try_run};
use majit_metainterp::ExecError;

/// A 32-byte raw buffer laid out as the `Raw.*` fields: bytes 0..8 for the
/// narrow fields, i64 at 8, f64 at 16, ref at 24.
#[repr(C, align(16))]
#[derive(Default)]
struct RawBuf([u8; 32]);

#[test]
fn narrow_field_loads_sign_or_zero_extend() {
    let mut buf = RawBuf::default();
    buf.0[..8].copy_from_slice(&[0x00, 0xf0, 0xfe, 0xff, 0x00, 0x00, 0x00, 0x80]);
    let frame = run(
        "[i0]
         ia = getfield_raw_i(i0, descr=Raw.i8)
         ib = getfield_raw_i(i0, descr=Raw.u8)
         ic = getfield_raw_i(i0, descr=Raw.i16)
         id = getfield_raw_i(i0, descr=Raw.u16)
         ie = getfield_raw_i(i0, descr=Raw.i32)
         ig = getfield_raw_i(i0, descr=Raw.u32)
         finish(ia, ib, ic, id, ie, ig)",
        &[int(addr_of(&mut buf) as i64)],
    );
    let got: Vec<i64> = (0..6).map(|k| frame.int(k)).collect();
    assert_eq!(got, [-16, 0xf0, -2, 0xfffe, i32::MIN as i64, 0x8000_0000]);
}

#[test]
fn narrow_field_stores_truncate_and_keep_neighbours() {
    let mut buf = RawBuf([0xaa; 32]);
    run(
        "[i0]
         setfield_raw(i0, 0x1234, descr=Raw.u8)
         setfield_raw(i0, -2, descr=Raw.i16)
         setfield_raw(i0, 0x123456789, descr=Raw.u32)
         setfield_raw(i0, -3, descr=Raw.i64)
         setfield_raw(i0, 2.5, descr=Raw.f64)
         finish()",
        &[int(addr_of(&mut buf) as i64)],
    );
    assert_eq!(buf.0[0], 0xaa, "byte 0 untouched");
    assert_eq!(buf.0[1], 0x34);
    assert_eq!(&buf.0[2..4], &[0xfe, 0xff]);
    assert_eq!(&buf.0[4..8], &0x2345_6789u32.to_le_bytes());
    assert_eq!(&buf.0[8..16], &(-3i64).to_le_bytes());
    assert_eq!(&buf.0[16..24], &2.5f64.to_le_bytes());
    assert_eq!(&buf.0[24..32], &[0xaa; 8], "ref field untouched");
}

#[test]
fn gc_fields_of_every_kind_round_trip() {
    let mut triple = [0u64; 3];
    let p = addr_of(&mut triple);
    let frame = run(
        "[p0, i1, f2, p3]
         setfield_gc(p0, i1, descr=Triple.a)
         setfield_gc(p0, f2, descr=Triple.b)
         setfield_gc(p0, p3, descr=Triple.c)
         i4 = getfield_gc_i(p0, descr=Triple.a)
         f5 = getfield_gc_f(p0, descr=Triple.b)
         p6 = getfield_gc_r(p0, descr=Triple.c)
         finish(i4, f5, p6)",
        &[reference(p), int(-9), float(-0.0), reference(0x5550)],
    );
    assert_eq!(frame.int(0), -9);
    assert_eq!(frame.float(1).to_bits(), (-0.0f64).to_bits());
    assert_eq!(frame.reference(2), 0x5550);
    assert_eq!(triple, [-9i64 as u64, (-0.0f64).to_bits(), 0x5550]);
}

#[test]
fn gc_array_items_and_length() {
    // A headered IntArray of 3 items: header, length 3, items.
    let mut array: [i64; 5] = [4, 3, 10, 20, 30];
    let frame = run(
        "[p0, i1]
         i2 = arraylen_gc(p0, descr=IntArray)
         i3 = getarrayitem_gc_i(p0, i1, descr=IntArray)
         setarrayitem_gc(p0, 0, i2, descr=IntArray)
         i4 = int_sub(i2, 1)
         setarrayitem_gc(p0, i4, -1, descr=IntArray)
         finish(i2, i3)",
        &[reference(addr_of(&mut array)), int(1)],
    );
    assert_eq!((frame.int(0), frame.int(1)), (3, 20));
    assert_eq!(array, [4, 3, 3, 20, -1]);
}

#[test]
fn narrow_gc_array_items_zero_extend() {
    let mut array: [u8; 24] = [0; 24];
    array[8] = 4;
    array[16..20].copy_from_slice(&[0xff, 0x80, 0x01, 0x00]);
    let frame = run(
        "[p0]
         i1 = getarrayitem_gc_i(p0, 0, descr=ByteArray)
         i2 = getarrayitem_gc_i(p0, 1, descr=ByteArray)
         setarrayitem_gc(p0, 3, 0x1ff, descr=ByteArray)
         finish(i1, i2)",
        &[reference(addr_of(&mut array))],
    );
    assert_eq!((frame.int(0), frame.int(1)), (0xff, 0x80));
    assert_eq!(&array[16..20], &[0xff, 0x80, 0x01, 0xff]);
}

#[test]
fn float_and_ref_arrays() {
    let mut floats: [u64; 4] = [6, 2, 1.5f64.to_bits(), 0];
    let mut refs: [u64; 4] = [5, 2, 0x100, 0];
    let frame = run(
        "[p0, p1]
         f2 = getarrayitem_gc_f(p0, 0, descr=FloatArray)
         f3 = float_mul(f2, 3.0)
         setarrayitem_gc(p0, 1, f3, descr=FloatArray)
         p4 = getarrayitem_gc_r(p1, 0, descr=RefArray)
         setarrayitem_gc(p1, 1, p0, descr=RefArray)
         finish(f3, p4)",
        &[
            reference(addr_of(&mut floats)),
            reference(addr_of(&mut refs)),
        ],
    );
    assert_eq!((frame.float(0), frame.reference(1)), (4.5, 0x100));
    assert_eq!(floats[3], 4.5f64.to_bits());
    assert_eq!(refs[3], addr_of(&mut floats) as u64);
}

#[test]
fn raw_arrays_of_every_width_and_signedness() {
    let mut bytes: [u8; 16] = [
        0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0, 0, 0, 0, 0, 0, 0, 0,
    ];
    let frame = run(
        "[i0]
         ia = getarrayitem_raw_i(i0, 1, descr=RawI8)
         ib = getarrayitem_raw_i(i0, 1, descr=RawU8)
         ic = getarrayitem_raw_i(i0, 1, descr=RawI16)
         id = getarrayitem_raw_i(i0, 1, descr=RawU16)
         ie = getarrayitem_raw_i(i0, 1, descr=RawI32)
         ig = getarrayitem_raw_i(i0, 1, descr=RawU32)
         ih = getarrayitem_raw_i(i0, 0, descr=RawI64)
         setarrayitem_raw(i0, 8, -1, descr=RawI8)
         setarrayitem_raw(i0, 5, 0x10002, descr=RawU16)
         setarrayitem_raw(i0, 3, 0x7fffffff, descr=RawI32)
         finish(ia, ib, ic, id, ie, ig, ih)",
        &[int(addr_of(&mut bytes) as i64)],
    );
    let got: Vec<i64> = (0..7).map(|k| frame.int(k)).collect();
    let want = [
        0x82u8 as i8 as i64,
        0x82,
        0x8483u16 as i16 as i64,
        0x8483,
        0x8887_8685u32 as i32 as i64,
        0x8887_8685,
        i64::from_le_bytes([0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88]),
    ];
    assert_eq!(got, want);
    assert_eq!(bytes[8], 0xff);
    assert_eq!(&bytes[10..12], &[0x02, 0x00]);
    assert_eq!(&bytes[12..16], &0x7fff_ffffu32.to_le_bytes());
}

#[test]
fn raw_load_and_store_take_byte_offsets() {
    let mut words: [u64; 3] = [0, 0, 0];
    let frame = run(
        "[i0]
         raw_store(i0, 3, 0x1122, descr=RawU16)
         raw_store(i0, 8, 0.5, descr=RawF64)
         i1 = raw_load_i(i0, 3, descr=RawU16)
         i2 = raw_load_i(i0, 4, descr=RawI8)
         f3 = raw_load_f(i0, 8, descr=RawF64)
         raw_store(i0, 16, -5, descr=RawI64)
         finish(i1, i2, f3)",
        &[int(addr_of(&mut words) as i64)],
    );
    assert_eq!(
        (frame.int(0), frame.int(1), frame.float(2)),
        (0x1122, 0x11, 0.5)
    );
    assert_eq!(words, [0x1122 << 24, 0.5f64.to_bits(), -5i64 as u64]);
}

#[test]
fn raw_float_fields_and_arrays() {
    let mut floats: [f64; 4] = [1.0, 2.0, 3.0, 4.0];
    let frame = run(
        "[i0]
         f1 = getarrayitem_raw_f(i0, 2, descr=RawF64)
         f2 = getfield_raw_f(i0, descr=Raw.f64)
         setarrayitem_raw(i0, 3, f1, descr=RawF64)
         finish(f1, f2)",
        &[int(addr_of(&mut floats) as i64)],
    );
    assert_eq!((frame.float(0), frame.float(1)), (3.0, 3.0));
    assert_eq!(floats, [1.0, 2.0, 3.0, 3.0]);
}

#[test]
fn null_accesses_are_errors_not_crashes() {
    let cases = [
        (
            "[p0]\ni1 = getfield_gc_i(p0, descr=Node.value)\nfinish(i1)",
            0,
        ),
        (
            "[p0]\ni1 = int_add(1, 2)\nsetfield_gc(p0, i1, descr=Node.value)\nfinish()",
            1,
        ),
        (
            "[p0]\ni1 = getarrayitem_gc_i(p0, 0, descr=IntArray)\nfinish(i1)",
            0,
        ),
        (
            "[p0]\nsetarrayitem_gc(p0, 0, 1, descr=IntArray)\nfinish()",
            0,
        ),
        ("[p0]\ni1 = arraylen_gc(p0, descr=IntArray)\nfinish(i1)", 0),
        (
            "[p0]\ni1 = cast_ptr_to_int(p0)\ni2 = raw_load_i(i1, 8, descr=RawI64)\nfinish(i2)",
            1,
        ),
        ("[p0]\nguard_class(p0, 3, descr=g0) []\nfinish()", 0),
    ];
    for (text, op_index) in cases {
        let result = try_run(text, &[reference(0)]);
        assert_eq!(result, Err(ExecError::NullPointer { op_index }), "{text}");
    }
}
