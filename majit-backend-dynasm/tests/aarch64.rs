//! The shared backend suite and differential fuzzer on aarch64 (under
//! qemu-user on x86_64 hosts: `scripts/test-aarch64.sh`), plus the
//! aarch64-specific cases: every allocatable register live across a call
//! that scribbles over every caller-saved register (`support::scribble`)
//! and across an allocation slow path, immediates and memory offsets
//! beyond the instruction encodings, frame slots beyond the scaled 12-bit
//! offset range, float arguments passed on the stack, and a guard patched
//! after it already exited. Every case runs on
//! refexec too, which is the oracle.
#![cfg(target_arch = "aarch64")]

mod support;

backend_suite!(aarch64);

use majit_backend_dynasm::aarch64::Aarch64;
use majit_backend_dynasm::NativeBackend;
use majit_ir::{parse_with, Const, Trace, Value};
use majit_metainterp::refexec::RefExec;
use majit_metainterp::{Backend, CodeId, DeadFrame, ExitId};
use std::fmt::Write;
use support::{differential, namespace, Buffer};

/// Runs `text` with each input vector on refexec and natively.
fn agree(text: &str, runs: &[Vec<Value>]) {
    let mut buf = Buffer::new();
    let trace = support::parse_text(text, &buf);
    for inputs in runs {
        match differential::<Aarch64>(&trace, inputs, &mut buf, None) {
            Ok(true) => {}
            Ok(false) => panic!("refexec hit its step limit on {inputs:?}"),
            Err(e) => panic!("{e}"),
        }
    }
}

/// `n` ints and `m` floats derived from `i0`/`f0`, all used again after
/// `mid` (trace text run between the definitions and the uses).
fn pressure_text(header: &str, inputs: &str, n: usize, m: usize, mid: &str) -> String {
    let mut t = format!("{header}[{inputs}]\n");
    for k in 1..=n {
        writeln!(t, "i{k} = int_add(i0, {})", k * 7919).unwrap();
    }
    for k in 1..=m {
        writeln!(t, "f{k} = float_add(f0, {k}.5)").unwrap();
    }
    t.push_str(mid);
    let mut sum = String::from("i0");
    for k in 1..=n {
        writeln!(t, "i_s{k} = int_xor({sum}, i{k})").unwrap();
        sum = format!("i_s{k}");
    }
    let mut fsum = String::from("f0");
    for k in 1..=m {
        writeln!(t, "f_g{k} = float_add({fsum}, f{k})").unwrap();
        fsum = format!("f_g{k}");
    }
    let all: Vec<String> = (1..=n)
        .map(|k| format!("i{k}"))
        .chain((1..=m).map(|k| format!("f{k}")))
        .collect();
    writeln!(t, "finish({sum}, {fsum}, {})", all.join(", ")).unwrap();
    t
}

#[test]
fn every_register_live_across_a_scribbling_call() {
    // 26 allocatable ints and 30 floats: more than the callee-saved
    // registers, so values also move to slots; the callee destroys every
    // caller-saved register.
    let mid = "i_r1 = call_i(@scribble, i3, descr=Call.scr)\n\
               i_s0 = int_add(i_r1, i1)\n";
    let text = pressure_text(
        "descr Call.scr = call(args=[int], result=int, effect=random)\n",
        "i0, f0",
        26,
        30,
        mid,
    );
    let text = text.replace("finish(", "finish(i_s0, ");
    agree(
        &text,
        &[
            vec![Value::Int(5), Value::Float(0.25)],
            vec![Value::Int(-1 << 40), Value::Float(-3.5e9)],
        ],
    );
}

#[test]
fn every_register_live_across_an_allocation_slow_path() {
    // Under a stress heap every allocation takes the slow path and
    // collects, moving the nodes that registers and slots point to.
    let mid = "p1 = new(descr=Node)\n\
               setfield_gc(p1, i1, descr=Node.value)\n\
               setfield_gc(p1, p0, descr=Node.next)\n\
               p2 = new(descr=Node)\n\
               setfield_gc(p2, i2, descr=Node.value)\n\
               setfield_gc(p2, p1, descr=Node.next)\n\
               p3 = new(descr=Node)\n\
               setfield_gc(p3, i3, descr=Node.value)\n\
               setfield_gc(p3, p2, descr=Node.next)\n\
               i_v1 = getfield_gc_i(p1, descr=Node.value)\n\
               p_q2 = getfield_gc_r(p3, descr=Node.next)\n\
               i_v2 = getfield_gc_i(p_q2, descr=Node.value)\n\
               p_q1 = getfield_gc_r(p_q2, descr=Node.next)\n\
               i_v3 = getfield_gc_i(p_q1, descr=Node.value)\n";
    let text = pressure_text("", "i0, f0, p0", 26, 30, mid);
    let text = text.replace("finish(", "finish(i_v1, i_v2, i_v3, p3, ");
    let trace = support::parse_text(&text, &Buffer::new());
    for (i, f, native_rewrites) in [(3i64, 0.5f64, false), (-77, 1e10, true)] {
        let inputs = [Value::Int(i), Value::Float(f), Value::Ref(0)];
        let r = support::gc_differential::<Aarch64>(&trace, &inputs, native_rewrites);
        assert!(matches!(r, Ok(Some(_))), "{r:?}");
    }
}

#[test]
fn immediates_beyond_every_encoding() {
    let text = "[i0, f0]
i1 = int_add(i0, 81985529216486895)
i2 = int_xor(i1, -81985529216486896)
i3 = int_mul(i2, -4097)
i4 = int_sub(i3, 4096)
i5 = int_add(i4, -4095)
i6 = int_and(i5, 281470681808895)
i7 = int_or(i6, -9223372036854775808)
i8 = uint_rshift(i7, 65)
i9 = int_eq(i8, 4294967296)
i10 = int_lt(i7, -4097)
i11 = int_ge(i7, 4095)
i12 = int_floordiv(i7, -1)
i13 = int_mod(i7, 0)
i14 = int_floordiv(-9223372036854775808, -1)
i15 = int_mod(-9223372036854775808, -1)
i16 = int_sub(i0, -9223372036854775808)
i17 = int_le(i0, -9223372036854775808)
i18 = uint_gt(i0, -2)
f1 = float_mul(f0, 123456.789)
f2 = float_add(f1, -0.0)
i19 = cast_float_to_int(f2)
f3 = float_mul(f0, 1e300)
i20 = cast_float_to_int(f3)
i21 = int_add_ovf(i0, 9223372036854775807)
guard_no_overflow() [i0, i21]
i22 = int_mul_ovf(i0, 4294967296)
guard_no_overflow() [i0, i22]
finish(i1, i2, i3, i4, i5, i6, i7, i8, i9, i10, i11, i12, i13, i14, i15, i16, i17, i18, i19, i20, i21, i22, f2)
";
    let runs: Vec<Vec<Value>> = [
        (0, 1.0),
        (-5, -2.5),
        (1, f64::NAN),
        (-3, 7e-300),
        (1 << 33, 1e9),
    ]
    .iter()
    .map(|&(i, f)| vec![Value::Int(i), Value::Float(f)])
    .collect();
    agree(text, &runs);
}

#[test]
fn memory_offsets_beyond_every_encoding() {
    // Constant indices and bases far from the buffer fold into
    // displacements no load or store can encode; unaligned ones miss the
    // scaled forms.
    let text = "[i0, f0]
i1 = int_sub(@buf, 1000000)
setarrayitem_raw(i1, 125001, i0, descr=RawI64)
setarrayitem_raw(i1, 500007, i0, descr=RawI16)
setarrayitem_raw(i1, 1000041, i0, descr=RawI8)
setarrayitem_raw(i1, 125006, f0, descr=RawF64)
setarrayitem_raw(i1, 125007, -81985529216486896, descr=RawI64)
setarrayitem_raw(i1, 125008, 2.5, descr=RawF64)
i2 = getarrayitem_raw_i(i1, 125001, descr=RawI64)
i3 = getarrayitem_raw_i(i1, 500007, descr=RawI16)
i4 = getarrayitem_raw_i(i1, 1000041, descr=RawU8)
f1 = getarrayitem_raw_f(i1, 125006, descr=RawF64)
i5 = int_add(i0, 1000021)
i6 = getarrayitem_raw_i(i1, i5, descr=RawI8)
i7 = int_add(@buf, 40)
i8 = raw_load_i(i7, 24, descr=RawI64)
i9 = int_sub(i7, 1000000)
raw_store(i9, 1000104, i0, descr=RawI32)
i10 = raw_load_i(i9, 1000104, descr=RawU32)
i11 = int_add(i0, 1000104)
f2 = raw_load_f(i9, i11, descr=RawF64)
finish(i2, i3, i4, i6, i8, i10, f1, f2)
";
    agree(
        text,
        &[
            vec![Value::Int(0), Value::Float(1.5)],
            vec![Value::Int(-8), Value::Float(-0.0)],
        ],
    );
}

#[test]
fn frame_slots_beyond_the_scaled_offset_range() {
    // Inputs arrive in slots 0..n: the used ones sit more than 32760 bytes
    // from x29, so their loads take the register-offset forms, and the
    // unused ones' slots are reused first by spills, so the stores do too.
    let pad = 4096;
    let names: Vec<String> = (0..pad).map(|k| format!("i_in{k}")).collect();
    let inputs = format!("{}, i0, f_in0, f0", names.join(", "));
    let text = pressure_text("", &inputs, 40, 40, "");
    let mut buf = Buffer::new();
    let trace = support::parse_text(&text, &buf);
    let mut values: Vec<Value> = (0..pad).map(|k| Value::Int(3 * k as i64)).collect();
    values.extend([Value::Int(11), Value::Float(2.0), Value::Float(0.75)]);
    assert_eq!(
        differential::<Aarch64>(&trace, &values, &mut buf, None),
        Ok(true)
    );
}

const LOOP: &str = "[i0, i1]
label(i0, i1, descr=Loop)
i2 = int_add(i0, 1)
i3 = int_lt(i2, i1)
guard_true(i3) [i2, i1]
jump(i2, i1, descr=Loop)
";

const BRIDGE: &str = "[i0, i1]
i2 = int_mul(i0, 1000)
i3 = int_add(i2, i1)
finish(i3, i1)
";

/// What one step of the patching scenario observed: the exit op, whether
/// it was in the bridge, and the values.
type Seen = (u32, bool, Vec<Value>);

/// Runs the loop until its guard fails, attaches a bridge to that guard,
/// runs again (through the patched stub), frees the bridge and runs once
/// more (the stub's patch word restored).
fn patch_after_exit(b: &mut dyn Backend, loop_t: &Trace, bridge_t: &Trace) -> Vec<Seen> {
    let mut seen = Vec::new();
    let code = b.compile_loop(loop_t).expect("loop compiles");
    let inputs = [Value::Int(0), Value::Int(25)];
    let observe = |d: DeadFrame, bridge: Option<CodeId>| -> Seen {
        (d.exit.op_index, Some(d.exit.code) == bridge, d.values)
    };
    let first = b.execute(code, &inputs).expect("runs");
    let guard: ExitId = first.exit;
    seen.push(observe(first, None));
    let bridge = b.compile_bridge(guard, bridge_t).expect("bridge compiles");
    for _ in 0..3 {
        seen.push(observe(
            b.execute(code, &inputs).expect("runs"),
            Some(bridge),
        ));
    }
    b.free(bridge);
    seen.push(observe(
        b.execute(code, &inputs).expect("runs"),
        Some(bridge),
    ));
    seen
}

#[test]
fn a_guard_patched_after_it_exited() {
    let buf = Buffer::new();
    let (loop_t, bridge_t) = (
        support::parse_text(LOOP, &buf),
        support::parse_text(BRIDGE, &buf),
    );
    let expected = patch_after_exit(&mut RefExec::new(), &loop_t, &bridge_t);
    let mut native = NativeBackend::<Aarch64>::new().expect("backend");
    let found = patch_after_exit(&mut native, &loop_t, &bridge_t);
    assert_eq!(found, expected);
    assert!(found[1].1 && !found[4].1, "the bridge ran, then no longer");
}

/// Ten floats and an int: under AAPCS64 the ninth and tenth floats go on
/// the stack while the int still takes `x0`.
#[allow(clippy::too_many_arguments)]
extern "C" fn ten_floats(
    a: f64,
    b: f64,
    c: f64,
    d: f64,
    e: f64,
    f: f64,
    g: f64,
    h: f64,
    i: f64,
    j: f64,
    k: i64,
) -> f64 {
    let weighted: f64 = [a, b, c, d, e, f, g, h, i, j]
        .iter()
        .enumerate()
        .map(|(n, x)| x * (n as f64 + 1.0))
        .sum();
    weighted + k as f64
}

#[test]
fn float_arguments_on_the_stack() {
    // refexec takes at most 8 float arguments, so the oracle here is the
    // helper called directly from Rust with the same arguments.
    let buf = Buffer::new();
    let mut ns = namespace(&buf);
    ns.add_symbol("ten_floats", Const::Int(ten_floats as *const () as i64));
    let mut text = String::from(
        "descr Call.f10 = call(args=[float, float, float, float, float, float, float, \
         float, float, float, int], result=float, effect=random)\n[f0, i0]\n",
    );
    for k in 1..=10 {
        writeln!(text, "f{k} = float_add(f0, {k}.25)").unwrap();
    }
    let args: Vec<String> = (1..=10).map(|k| format!("f{k}")).collect();
    writeln!(
        text,
        "f11 = call_f(@ten_floats, {}, i0, descr=Call.f10)\nfinish(f11, i0)",
        args.join(", ")
    )
    .unwrap();
    let trace = parse_with(&text, &ns).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut native = NativeBackend::<Aarch64>::new().expect("backend");
    let code = native.compile_loop(&trace).expect("compiles");
    for (x, k) in [(0.5, 3), (-1e6, -9)] {
        let f = |n: f64| x + (n + 0.25);
        let expected = ten_floats(
            f(1.0),
            f(2.0),
            f(3.0),
            f(4.0),
            f(5.0),
            f(6.0),
            f(7.0),
            f(8.0),
            f(9.0),
            f(10.0),
            k,
        );
        let d = native
            .execute(code, &[Value::Float(x), Value::Int(k)])
            .expect("runs");
        assert_eq!(d.values, vec![Value::Float(expected), Value::Int(k)]);
    }
}
