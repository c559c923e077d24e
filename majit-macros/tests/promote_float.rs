//! `promote(x)` of an `f64`: in a trace the float becomes a constant behind
//! a bit-exact `guard_value`, so an elidable float helper on it folds.
//! The promoted value changes between phases of the run (2.0, 0.0, -0.0 and
//! NaNs of two payloads, which a float comparison would confuse): plain and
//! JIT agree bit for bit on RefExec and on the native backend.

use majit::prelude::*;
use std::cell::Cell;

thread_local! {
    /// How often `recip` ran.
    static CALLS: Cell<u64> = const { Cell::new(0) };
}

/// `1 / x`: pure, so elidable. `1 / 0.0` and `1 / -0.0` differ (`inf`,
/// `-inf`), and a NaN's payload carries through.
fn recip(x: f64) -> f64 {
    CALLS.with(|c| c.set(c.get() + 1));
    1.0 / x
}

fn calls() -> u64 {
    CALLS.with(|c| c.replace(0))
}

const PROMOTED: i64 = 0;
const OPAQUE: i64 = 1;
const LOOP: i64 = 2;

#[jit_interp(
    greens = [pc, code, ks],
    reds = [acc, n],
    helpers = [elidable fn recip(x: f64) -> f64],
)]
fn run(code: &[i64], ks: &[f64], n0: i64) -> i64 {
    let mut pc: usize = 0;
    let mut acc: i64 = 0;
    let mut n: i64 = n0;
    loop {
        jit_merge_point!();
        match code[pc] {
            // The phase's value, promoted: `recip` folds in a trace.
            PROMOTED => {
                let k = promote(ks[((n >> 6) & 7) as usize]);
                acc = acc.wrapping_mul(31).wrapping_add(recip(k).to_bits() as i64);
            }
            // Not promoted: `recip` stays a call.
            OPAQUE => {
                let k = ks[((n >> 6) & 7) as usize];
                acc = acc.wrapping_mul(31).wrapping_add(recip(k).to_bits() as i64);
            }
            LOOP => {
                n -= 1;
                if n > 0 {
                    pc = 0;
                    can_enter_jit!();
                    continue;
                }
                return acc;
            }
            _ => return -1,
        }
        pc += 1;
    }
}

const N: i64 = 3000;

/// A NaN whose payload differs from `f64::NAN`'s.
fn other_nan() -> f64 {
    f64::from_bits(f64::NAN.to_bits() | 1)
}

/// Phases whose values a float comparison would take as equal (0.0 and
/// -0.0) or unequal to themselves (NaN), and two NaN payloads.
fn phases() -> [f64; 8] {
    [2.0, 0.0, -0.0, f64::NAN, other_nan(), -0.0, 0.0, 2.0]
}

/// The optimized loop of the driver's first loop (after its last label).
fn loop_body<B: GcBackend>(driver: &JitDriver<B>) -> String {
    assert!(!driver.loops().is_empty(), "{}", driver.report());
    let trace = majit::ir::text::print(&driver.loops()[0].trace);
    let at = trace.rfind("label(").expect("a loop has a label");
    trace[at..].to_string()
}

#[test]
fn a_promoted_float_folds_the_elidable_helper() {
    let (code, ks) = ([PROMOTED, LOOP], [3.0; 8]);
    let plain = run(&code, &ks, N);
    assert_eq!(calls(), N as u64);
    let mut driver = run_driver::<RefExec>(JitParams::default().with_threshold(3)).unwrap();
    assert_eq!(run_jit(&mut driver, &code, &ks, N).unwrap(), plain);
    let s = driver.stats();
    assert!(s.loops_compiled >= 1 && s.loop_entries >= 1, "{s}");
    let body = loop_body(&driver);
    assert!(body.contains("guard_value("), "{body}");
    assert!(body.contains("3.0"), "{body}");
    assert!(!body.contains("descr=recip)"), "{body}");
    // Only the interpreted iterations and the tracer's fold call it.
    assert!(calls() < 20, "the compiled loop calls `recip`");

    // Without the promote the call stays in the loop.
    let code = [OPAQUE, LOOP];
    let plain = run(&code, &ks, N);
    let mut driver = run_driver::<RefExec>(JitParams::default().with_threshold(3)).unwrap();
    assert_eq!(run_jit(&mut driver, &code, &ks, N).unwrap(), plain);
    let body = loop_body(&driver);
    assert!(body.contains("descr=recip)"), "{body}");
    calls();
}

/// Plain and with `B` over the changing phases: every phase change
/// fails the guard, and no phase passes a guard of another (a result
/// folded for 0.0 would be wrong for -0.0, one for a NaN wrong for the
/// other NaN).
fn phases_agree<B: GcBackend>() {
    let ks = phases();
    for code in [[PROMOTED, LOOP], [OPAQUE, LOOP]] {
        let plain = run(&code, &ks, N);
        let mut driver = run_driver::<B>(JitParams::default().with_threshold(3)).unwrap();
        assert_eq!(run_jit(&mut driver, &code, &ks, N).unwrap(), plain);
        let s = driver.stats();
        assert!(s.loops_compiled >= 1 && s.loop_entries >= 1, "{s}");
        if code[0] == PROMOTED {
            assert!(s.bridges_compiled >= 1, "{s}");
        }
    }
}

#[test]
fn promoted_phases_agree_on_refexec() {
    phases_agree::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn promoted_phases_agree_natively() {
    phases_agree::<HostBackend>();
}
