//! Traced functions and inline helpers too long to trace: with a small
//! `trace_limit` the first trace through one aborts, the function is
//! marked don't-inline, and the loop compiles with a call of its residual
//! form (the `extern "C"` shim `#[jit_interp]` registers for every traced
//! function and inline helper). Results equal the plain run's, on RefExec
//! and natively; a panic inside the called function is the plain panic's
//! `JitError::Panic`.

#[path = "common/panics.rs"]
mod panics;

use majit::metainterp::stats::AbortReason;
use majit::prelude::*;

mod vm {
    /// Forty rounds of mixing (four recorded ops each), then a division
    /// that panics when `k` is a multiple of 1000.
    #[majit::traced]
    pub(crate) fn churn(mut x: i64, k: i64) -> i64 {
        let mut i: i64 = 0;
        while i < 40 {
            x = x.wrapping_mul(3).wrapping_add(k);
            x ^= x >> 7;
            i += 1;
        }
        x / (k % 1000)
    }
}

const CHURN: i64 = 0;
const MIX: i64 = 1;
const LOOP: i64 = 2;
const HALT: i64 = 3;

#[jit_interp(
    greens = [pc, code],
    reds = [acc, n],
    helpers = [inline fn mix(a: i64, b: i64) -> i64],
    traced = [vm::churn],
)]
fn run(code: &[i64], n0: i64) -> i64 {
    fn mix(mut a: i64, b: i64) -> i64 {
        let mut i: i64 = 0;
        while i < 40 {
            a = a.wrapping_mul(5) ^ b;
            a = a.wrapping_add(a >> 3);
            i += 1;
        }
        a
    }
    let mut pc: usize = 0;
    let mut acc: i64 = 1;
    let mut n: i64 = n0;
    loop {
        jit_merge_point!();
        match code[pc] {
            CHURN => acc = vm::churn(acc, n),
            MIX => acc = mix(acc, n),
            LOOP => {
                n -= 1;
                if n > 0 {
                    pc = 0;
                    can_enter_jit!();
                    continue;
                }
            }
            HALT => return acc,
            _ => return -1,
        }
        pc += 1;
    }
}

/// Threshold 3, trace limit 100 (a round of `churn` or `mix` is four ops).
fn driver<B: GcBackend>() -> JitDriver<B> {
    let params = JitParams::default().with_threshold(3).with_trace_limit(100);
    run_driver::<B>(params).unwrap()
}

/// The optimized loop body (after the last `label`).
fn loop_body<B: GcBackend>(driver: &JitDriver<B>) -> String {
    assert_eq!(driver.loops().len(), 1, "{}", driver.report());
    let trace = majit::ir::text::print(&driver.loops()[0].trace);
    trace[trace.rfind("label(").expect("a loop has a label")..].to_string()
}

/// `code` plain and with the JIT on `B`: equal results, the functions
/// `marked` don't-inline in that order, then one loop compiled and
/// entered that calls each of them once per iteration.
fn marks_and_calls<B: GcBackend>(code: &[i64], marked: &[&str]) {
    let n = 999;
    let mut driver = driver::<B>();
    assert_eq!(run_jit(&mut driver, code, n).unwrap(), run(code, n));
    let s = driver.stats();
    let names: Vec<&str> = s.dont_inline.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, marked, "{s}");
    assert_eq!(
        s.aborts_for(AbortReason::TraceTooLong),
        marked.len() as u64,
        "{s}"
    );
    assert!(s.loops_compiled == 1 && s.loop_entries >= 1, "{s}");
    let body = loop_body(&driver);
    for f in marked {
        let call = format!("descr={f})");
        assert_eq!(body.matches(&call).count(), 1, "{f}: {body}");
        assert!(body.contains("call_i("), "{body}");
    }
    assert!(!body.contains("int_rshift("), "{body}");
}

#[test]
fn a_too_long_traced_function_becomes_a_call() {
    marks_and_calls::<RefExec>(&[CHURN, LOOP, HALT], &["churn"]);
}

#[test]
fn a_too_long_inline_helper_becomes_a_call() {
    marks_and_calls::<RefExec>(&[MIX, LOOP, HALT], &["mix"]);
}

#[test]
fn two_too_long_functions_are_marked_one_after_the_other() {
    marks_and_calls::<RefExec>(&[CHURN, MIX, LOOP, HALT], &["churn", "mix"]);
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn too_long_functions_become_native_calls() {
    marks_and_calls::<HostBackend>(&[CHURN, MIX, LOOP, HALT], &["churn", "mix"]);
}

/// A panic in the called form is the plain run's panic as a
/// `JitError::Panic` naming the function.
fn panics_like_plain<B: GcBackend>() {
    let code = [CHURN, LOOP, HALT];
    // `churn(acc, 1000)` divides by zero, long after the loop compiled.
    let n = 1500;
    let plain = panics::catch(move || run(&code, n)).unwrap_err();
    let mut driver = driver::<B>();
    match panics::quietly(|| run_jit(&mut driver, &code, n)) {
        Err(JitError::Panic { place, message }) => {
            assert_eq!(message, plain.message);
            assert!(place.contains("`churn` (called, not inlined"), "{place}");
        }
        other => panic!("{other:?}"),
    }
    let s = driver.stats();
    assert!(s.loops_compiled == 1 && s.loop_entries >= 1, "{s}");
    assert_eq!(s.dont_inline.len(), 1, "{s}");
}

#[test]
fn a_panic_in_the_call_is_the_plain_panic_on_refexec() {
    panics_like_plain::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn a_panic_in_the_call_is_the_plain_panic_natively() {
    panics_like_plain::<HostBackend>();
}
