//! Small floats in an `Obj` (`Obj::small_float`): a VM's doubles kept in
//! the handle, with a boxed `Big` only for those that do not fit (zeros,
//! NaN, infinities, extreme magnitudes). Plain and JIT agree under GC
//! stress (tagged words in reds, struct fields and resume data) while the
//! values cross the encodable range both ways, alternate between +0.0 and
//! -0.0 or become NaN; the loop that stays in range allocates nothing in
//! its trace; a class test of a small float is false, in both modes.

#[path = "common/heap.rs"]
mod heap;
#[path = "common/panics.rs"]
mod panics;

use heap::stress_heap;
use majit::prelude::*;
use std::hint::black_box;

/// Iterates `x = x * m + c` from 1.0, the value a small float while it
/// fits and a `Big` when it does not, as a VM's float would be. Each
/// iteration keeps the value in a `Cell`; the result is the last value's
/// bits read back through the handle, the low bit flipped when it was
/// boxed.
#[jit_interp(
    greens = [pc],
    reds = [acc, n, last, m, c],
    structs = [#[headered] Big { v: f64 }, #[headered] Cell { v: Obj }],
)]
fn affine(count: i64, m: f64, c: f64) -> i64 {
    let pc: usize = 0;
    let mut acc: Obj = Obj::small_float(1.0);
    let mut n: i64 = count;
    let mut last: Cell = Cell::new(Obj::null());
    loop {
        jit_merge_point!();
        let a: f64 = if acc.is_small_float() {
            acc.to_small_float()
        } else {
            acc.cast::<Big>().v
        };
        let r: f64 = a * m + c;
        acc = if Obj::fits_small_float(r) {
            Obj::small_float(r)
        } else {
            Obj::from(Big::new(r))
        };
        last.v = acc;
        n -= 1;
        if n == 0 {
            // A class test of a small float is false; of a `Big`, true.
            let big: i64 = if last.v.is::<Big>() { 1 } else { 0 };
            let back: f64 = if last.v.is_small_float() {
                last.v.to_small_float()
            } else {
                last.v.cast::<Big>().v
            };
            return (back.to_bits() as i64 ^ big) + pc as i64;
        }
        can_enter_jit!();
        continue;
    }
}

/// The same on Rust values.
fn expected(count: i64, m: f64, c: f64) -> i64 {
    let mut a: f64 = 1.0;
    for _ in 0..count {
        a = a * black_box(m) + black_box(c);
    }
    a.to_bits() as i64 ^ i64::from(!Obj::fits_small_float(a))
}

/// (m, c): in range (converging to 2.0); up out of range, then infinity;
/// down through the subnormals to +0.0; alternating +0.0 and -0.0; NaN.
const CASES: [(f64, f64); 5] = [
    (0.5, 1.0),
    (1e10, 0.0),
    (1e-10, 0.0),
    (-1e-10, 0.0),
    (-2.0, f64::NEG_INFINITY),
];

fn agrees<B: GcBackend>(m: f64, c: f64) {
    for count in [10, 41, 3000] {
        let want = expected(count, m, c);
        stress_heap();
        let plain = affine(black_box(count), black_box(m), black_box(c));
        assert_eq!(plain, want, "plain, {count} of x * {m} + {c}");
        stress_heap();
        let mut driver = affine_driver::<B>(JitParams::default().with_threshold(3)).unwrap();
        let got = affine_jit(&mut driver, count, m, c).unwrap();
        assert_eq!(got, want, "JIT, {count} of x * {m} + {c}");
        let stats = driver.stats();
        assert!(stats.loops_compiled >= 1, "{stats}");
        assert!(stats.loop_entries >= 1, "{stats}");
        if m == 0.5 {
            for l in driver.loops() {
                let text = majit::ir::text::print(&l.trace);
                assert!(!text.contains("new("), "a small float allocates: {text}");
                assert!(text.contains("float_tag("), "{text}");
                // The peeled loop carries the float untagged.
                let (_, peeled) = text.rsplit_once("label(").expect("a peeled loop");
                assert!(!peeled.contains("float_untag("), "{text}");
            }
        }
    }
}

#[test]
fn refexec_agrees_in_and_out_of_range() {
    for (m, c) in CASES {
        agrees::<RefExec>(m, c);
    }
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn native_agrees_in_and_out_of_range() {
    for (m, c) in CASES {
        agrees::<HostBackend>(m, c);
    }
}

/// `Obj::small_float` of a value that does not fit and `to_small_float`
/// of an object panic with the plain methods' messages, in a trace too.
#[jit_interp(greens = [pc, neg], reds = [n], structs = [#[headered] Boxed { v: f64 }])]
fn misuse(count: i64, neg: bool) -> f64 {
    let pc: usize = 0;
    let mut n: i64 = count;
    loop {
        jit_merge_point!();
        if n == 1 {
            let o: Obj = if neg {
                Obj::small_float(-(n as f64) * 0.0)
            } else {
                Obj::from(Boxed::new(n as f64))
            };
            return o.to_small_float() + pc as f64;
        }
        n -= 1;
        can_enter_jit!();
        continue;
    }
}

#[test]
fn misuse_panics_with_the_plain_message() {
    for neg in [true, false] {
        let want = if neg {
            "Obj::small_float: -0.0 does not fit in a handle"
        } else {
            "Obj::to_small_float: the handle holds no float"
        };
        let plain = panics::said(|| misuse(50, neg));
        assert!(plain.contains(want), "{plain}");
        let mut driver = misuse_driver::<RefExec>(JitParams::default().with_threshold(3)).unwrap();
        let jit = panics::said(|| misuse_jit(&mut driver, 50, neg));
        assert!(jit.contains(want), "{jit}");
    }
}
