//! The dynamic values of `dynamic` summed plain and with the JIT (RefExec
//! and the native backend), under GC stress (every safepoint after an
//! allocation collects and moves the list and its boxes): equal results,
//! a loop compiled and entered, and for a list of `Int`s an optimized loop
//! that allocates nothing and tests only the class of the item it loads.

use dynamic::{float, int, list, run, run_driver, run_jit, SUM};
use majit::gc::testing::stress_config;
use majit::gc::{thread_heap, Gc, GcConfig};
use majit::prelude::*;

/// Installs a fresh thread heap: with `stress`, a small nursery where
/// every safepoint after an allocation collects (as `MAJIT_GC_STRESS=1`).
fn fresh_heap(stress: bool) {
    let config = if stress {
        stress_config()
    } else {
        GcConfig::default()
    };
    thread_heap::install(Gc::new(config).unwrap());
}

/// The numbers of a list: `Int(k)` for most `k`, `Float(k + 0.5)` where
/// `float_every` divides `k` (never with 0).
fn numbers(n: i64, float_every: i64) -> Vec<Obj> {
    (1..=n)
        .map(|k| {
            if float_every != 0 && k % float_every == 0 {
                float(k as f64 + 0.5)
            } else {
                int(k)
            }
        })
        .collect()
}

/// What the sum is in Rust.
fn expected(n: i64, float_every: i64) -> f64 {
    let (mut ints, mut acc, mut is_float) = (0i64, 0f64, false);
    for k in 1..=n {
        if float_every != 0 && k % float_every == 0 {
            if !is_float {
                (acc, is_float) = (ints as f64, true);
            }
            acc += k as f64 + 0.5;
        } else if is_float {
            acc += k as f64;
        } else {
            ints += k;
        }
    }
    if is_float {
        acc
    } else {
        ints as f64
    }
}

/// Plain, then with `B` on a fresh heap each: equal to Rust's sum, with a
/// loop compiled and entered; returns the driver.
fn sum_agrees<B: GcBackend>(n: i64, float_every: i64, stress: bool) -> JitDriver<B> {
    let want = expected(n, float_every);
    fresh_heap(stress);
    let plain = run(&SUM, list(&numbers(n, float_every)));
    assert_eq!(plain.to_bits(), want.to_bits(), "plain");
    fresh_heap(stress);
    let mut driver = run_driver::<B>(JitParams::default().with_threshold(3)).unwrap();
    let r = run_jit(&mut driver, &SUM, list(&numbers(n, float_every))).unwrap();
    assert_eq!(r.to_bits(), want.to_bits(), "jit: {r} vs {want}");
    let s = driver.stats();
    assert!(s.loops_compiled >= 1 && s.loop_entries >= 1, "{s}");
    if stress {
        let heap = thread_heap::shared().unwrap();
        assert!(heap.borrow().stats().minor_collections >= 1);
    }
    driver
}

/// The optimized loop of `driver`'s first loop (after its last label).
fn loop_body<B: GcBackend>(driver: &JitDriver<B>) -> String {
    let trace = majit::ir::text::print(&driver.loops()[0].trace);
    let at = trace.rfind("label(").expect("a loop has a label");
    trace[at..].to_string()
}

/// Every box `add` makes stays virtual: no allocation in the loop (nor
/// in its preamble), and the only class test is the loaded item's.
fn int_sum_allocates_nothing<B: GcBackend>(stress: bool) {
    let driver = sum_agrees::<B>(3000, 0, stress);
    let trace = majit::ir::text::print(&driver.loops()[0].trace);
    for op in ["new(", "new_with_vtable(", "new_array(", "call_"] {
        assert!(!trace.contains(op), "{op}: {trace}");
    }
    // The list's class, its items array being non-null and the sum's
    // class are known in the peeled loop (facts of its label arguments).
    let body = loop_body(&driver);
    assert_eq!(body.matches("guard_nonnull(").count(), 1, "{body}");
    assert_eq!(body.matches("guard_class(").count(), 1, "{body}");
    assert_eq!(body.matches("getarrayitem_gc_r(").count(), 1, "{body}");
    assert_eq!(driver.stats().allocations_kept, 0, "{}", driver.stats());
    assert!(
        driver.stats().allocations_removed >= 1,
        "{}",
        driver.stats()
    );
}

#[test]
fn int_sum_allocates_nothing_on_refexec() {
    int_sum_allocates_nothing::<RefExec>(false);
    int_sum_allocates_nothing::<RefExec>(true);
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn int_sum_allocates_nothing_natively() {
    int_sum_allocates_nothing::<HostBackend>(false);
    int_sum_allocates_nothing::<HostBackend>(true);
}

/// Floats among the ints: the sum turns `Float` (a guard fails, a bridge
/// follows the other class), plain and JIT agree.
fn mixed_sums_agree<B: GcBackend>() {
    for float_every in [1, 7, 500] {
        for stress in [false, true] {
            sum_agrees::<B>(3000, float_every, stress);
        }
    }
}

#[test]
fn mixed_sums_agree_on_refexec() {
    mixed_sums_agree::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn mixed_sums_agree_natively() {
    mixed_sums_agree::<HostBackend>();
}
