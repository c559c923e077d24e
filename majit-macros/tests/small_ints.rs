//! Small integers in an `Obj` (`Obj::small_int`): a VM's integers kept in
//! the handle, with a boxed `Big` only for values outside 63 bits. Plain
//! and JIT agree under GC stress (tagged words in reds, struct fields and
//! resume data), the loop that stays small allocates nothing in its trace,
//! and a class test of a small integer is false, in both modes.

#[path = "common/heap.rs"]
mod heap;
#[path = "common/panics.rs"]
mod panics;

use heap::stress_heap;
use majit::prelude::*;

/// Sums `k * step` for k = 0, 1, ..: the accumulator is a small int while
/// it fits and a `Big` once it does not (large steps), as a VM's wrapping
/// integer would be. Each iteration keeps the last value in a `Cell`.
#[jit_interp(
    greens = [pc, step],
    reds = [acc, k, n, last],
    structs = [#[headered] Big { v: i64 }, #[headered] Cell { v: Obj }],
)]
fn sum(count: i64, step: i64) -> i64 {
    let pc: usize = 0;
    let mut acc: Obj = Obj::small_int(0);
    let mut k: Obj = Obj::small_int(0);
    let mut n: i64 = count;
    let mut last: Cell = Cell::new(Obj::null());
    loop {
        jit_merge_point!();
        let a: i64 = if acc.is_small_int() {
            acc.to_small_int()
        } else {
            acc.cast::<Big>().v
        };
        let x: i64 = k.to_small_int();
        let r: i64 = a.wrapping_add(x.wrapping_mul(step));
        acc = if Obj::fits_small_int(r) {
            Obj::small_int(r)
        } else {
            Obj::from(Big::new(r))
        };
        k = Obj::small_int(x + 1);
        last.v = acc;
        n -= 1;
        if n == 0 {
            // A class test of a small int is false; of a `Big`, true.
            let big: i64 = if last.v.is::<Big>() { 1 } else { 0 };
            return r.wrapping_mul(2) + big + pc as i64;
        }
        can_enter_jit!();
        continue;
    }
}

/// The same on Rust values.
fn expected(count: i64, step: i64) -> i64 {
    let mut a: i64 = 0;
    for x in 0..count {
        a = a.wrapping_add(x.wrapping_mul(step));
    }
    a.wrapping_mul(2) + i64::from(!Obj::fits_small_int(a))
}

fn agrees<B: GcBackend>(step: i64) -> Stats {
    let count = 3000;
    stress_heap();
    assert_eq!(
        sum(count, step),
        expected(count, step),
        "plain, step {step}"
    );
    stress_heap();
    let mut driver = sum_driver::<B>(JitParams::default().with_threshold(3)).unwrap();
    let got = sum_jit(&mut driver, count, step).unwrap();
    assert_eq!(got, expected(count, step), "JIT, step {step}");
    let stats = driver.stats();
    assert!(stats.loops_compiled >= 1, "{stats}");
    assert!(stats.loop_entries >= 1, "{stats}");
    if step == 1 {
        for l in driver.loops() {
            let text = majit::ir::text::print(&l.trace);
            assert!(!text.contains("new("), "a small int allocates: {text}");
            assert!(text.contains("int_tag("), "{text}");
        }
    }
    stats
}

#[test]
fn refexec_agrees_small_and_big() {
    agrees::<RefExec>(1);
    agrees::<RefExec>(1 << 58);
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn native_agrees_small_and_big() {
    agrees::<HostBackend>(1);
    agrees::<HostBackend>(1 << 58);
}

/// `Obj::small_int` of a value outside 63 bits and `to_small_int` of an
/// object panic with the plain methods' messages, in a trace too.
#[jit_interp(greens = [pc, wide], reds = [n], structs = [#[headered] Boxed { v: i64 }])]
fn misuse(count: i64, wide: bool) -> i64 {
    let pc: usize = 0;
    let mut n: i64 = count;
    loop {
        jit_merge_point!();
        if n == 1 {
            let o: Obj = if wide {
                Obj::small_int(i64::MAX)
            } else {
                Obj::from(Boxed::new(n))
            };
            return o.to_small_int() + pc as i64;
        }
        n -= 1;
        can_enter_jit!();
        continue;
    }
}

#[test]
fn misuse_panics_with_the_plain_message() {
    for wide in [true, false] {
        let want = if wide {
            "does not fit in 63 bits"
        } else {
            "holds an object, not an integer"
        };
        let plain = panics::said(|| misuse(50, wide));
        assert!(plain.contains(want), "{plain}");
        let mut driver = misuse_driver::<RefExec>(JitParams::default().with_threshold(3)).unwrap();
        let jit = panics::said(|| misuse_jit(&mut driver, 50, wide));
        assert!(jit.contains(want), "{jit}");
    }
}
