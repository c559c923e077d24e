//! Slices in helper and traced-function signatures: traced functions, an
//! inline helper and residual helpers take `&[T]` and `&mut [T]` of
//! integers, `bool` and `f64` (a red `&mut [T]` passed as `&[T]` too),
//! read, write and pass them on. Run plain and with the JIT (RefExec and
//! the native backend): equal results and slice contents, a loop compiled
//! and entered, and an index out of bounds inside a traced function is
//! the plain run's panic, message and place.

#[path = "common/panics.rs"]
mod panics;

use majit::prelude::*;

/// The VM's operations on its register file.
mod vm {
    /// The sum of `xs[from..]` (traced: reads a `&[i64]`).
    #[majit::traced]
    pub(crate) fn sum_from(xs: &[i64], from: usize) -> i64 {
        let mut s: i64 = 0;
        let mut i: usize = from;
        while i < xs.len() {
            s = s.wrapping_add(xs[i]);
            i += 1;
        }
        s
    }

    /// Adds `d` to `xs[i]` (traced: writes a `&mut [i64]`, passes it on
    /// as `&[i64]` to a traced function and a dont-look-inside one). Out
    /// of bounds, Rust panics at the right side's `xs[i]` (evaluated
    /// before the place), and so must the JIT.
    #[majit::traced]
    pub(crate) fn bump(xs: &mut [i64], i: usize, d: i64) -> i64 {
        xs[i] = xs[i].wrapping_add(d);
        let v = xs[i];
        v ^ sum_from(xs, 2) ^ peek(xs, 0)
    }

    /// The sum of a `&[f64]` (traced).
    #[majit::traced]
    pub(crate) fn fsum(ws: &[f64]) -> f64 {
        let mut s: f64 = 0.0;
        let mut i: usize = 0;
        while i < ws.len() {
            s += ws[i];
            i += 1;
        }
        s
    }

    /// `xs[i]` (traced, but declared `dont_look_inside`: a residual call
    /// through its shim).
    #[majit::traced]
    pub(crate) fn peek(xs: &[i64], i: usize) -> i64 {
        xs[i]
    }

    /// Scales every weight (residual: writes a `&mut [f64]`).
    pub fn scale(ws: &mut [f64], k: f64) {
        for w in ws.iter_mut() {
            *w = *w * k + 1.0;
        }
    }

    /// The set flags times the code's length (residual: two slices).
    pub fn count(flags: &[bool], code: &[i64]) -> i64 {
        flags.iter().filter(|&&f| f).count() as i64 * code.len() as i64
    }
}

const SUM: i64 = 0;
const BUMP: i64 = 1;
const SCALE: i64 = 2;
const COUNT: i64 = 3;
const FSUM: i64 = 4;
const PEEK: i64 = 5;
const FIRST: i64 = 6;
const LOOP: i64 = 7;

#[jit_interp(
    greens = [pc, code],
    reds = [regs, ws, flags, n, acc, trip],
    helpers = [
        residual fn vm::scale(ws: &mut [f64], k: f64),
        residual fn vm::count(flags: &[bool], code: &[i64]) -> i64,
        dont_look_inside fn vm::peek(xs: &[i64], i: usize) -> i64,
        inline fn first(xs: &[i64]) -> i64,
    ],
    traced = [vm::sum_from, vm::bump, vm::fsum],
)]
fn run(code: &[i64], regs: &mut [i64], ws: &mut [f64], flags: &[bool], n0: i64, trip: i64) -> i64 {
    fn first(xs: &[i64]) -> i64 {
        xs[0]
    }
    let mut pc: usize = 0;
    let mut n: i64 = n0;
    let mut acc: i64 = 0;
    loop {
        jit_merge_point!();
        let op = code[pc];
        pc += 1;
        match op {
            SUM => acc = acc.wrapping_add(vm::sum_from(regs, 1)),
            BUMP => {
                let i = ((n & 3) + (n == trip) as i64 * 8) as usize;
                acc ^= vm::bump(regs, i, n);
            }
            SCALE => vm::scale(ws, 0.5 + (n & 1) as f64),
            COUNT => acc = acc.wrapping_add(vm::count(flags, code)),
            FSUM => acc = acc.wrapping_add((vm::fsum(ws) * 16.0) as i64),
            PEEK => {
                acc = acc
                    .wrapping_mul(3)
                    .wrapping_add(vm::peek(regs, (n & 1) as usize))
            }
            FIRST => acc = acc.wrapping_add(first(regs)),
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
    }
}

const PROG: [i64; 8] = [SUM, BUMP, SCALE, COUNT, FSUM, PEEK, FIRST, LOOP];
const N: i64 = 300;
const FLAGS: [bool; 5] = [true, false, true, true, false];

/// What a run gives: its result and the slices it changed (the weights
/// as bits).
type Outcome = (i64, [i64; 4], Vec<u64>);

fn plain(trip: i64) -> Outcome {
    let (mut regs, mut ws) = ([1i64, 2, 3, 4], [0.25f64, -1.5, 3.0]);
    let r = run(&PROG, &mut regs, &mut ws, &FLAGS, N, trip);
    (r, regs, ws.iter().map(|w| w.to_bits()).collect())
}

fn jit<B: GcBackend>(driver: &mut JitDriver<B>, trip: i64) -> Result<Outcome, JitError> {
    let (mut regs, mut ws) = ([1i64, 2, 3, 4], [0.25f64, -1.5, 3.0]);
    let r = run_jit(driver, &PROG, &mut regs, &mut ws, &FLAGS, N, trip)?;
    Ok((r, regs, ws.iter().map(|w| w.to_bits()).collect()))
}

fn driver<B: GcBackend>() -> JitDriver<B> {
    run_driver::<B>(JitParams::default().with_threshold(3)).unwrap()
}

/// Plain, then with `B`: equal results and slices, a loop compiled and
/// entered.
fn jit_equals_plain<B: GcBackend>() {
    let want = plain(-1);
    let mut d = driver::<B>();
    assert_eq!(jit(&mut d, -1).unwrap(), want);
    let s = d.stats();
    assert!(s.loops_compiled >= 1 && s.loop_entries >= 1, "{s}");
}

/// An index out of bounds in the traced `bump`, in the compiled loop: the
/// plain run's message, at the expression and place of the plain panic.
fn bounds_in_traced_like_plain<B: GcBackend>() {
    let trip = 100;
    let plain = panics::catch(|| plain(trip)).unwrap_err();
    assert_eq!(
        plain.message,
        "index out of bounds: the len is 4 but the index is 8"
    );
    let mut d = driver::<B>();
    match panics::quietly(|| jit(&mut d, trip)) {
        Err(JitError::Panic { place, message }) => {
            assert_eq!(message, plain.message);
            assert!(place.starts_with("`xs[i]` at "), "{place}");
            assert!(place.ends_with(&plain.location), "{place} vs {plain:?}");
        }
        other => panic!("{other:?}"),
    }
    assert!(d.stats().loop_entries >= 1, "{}", d.stats());
    // The driver still works.
    assert_eq!(jit(&mut d, -1).unwrap(), self::plain(-1));
}

#[test]
fn slice_signatures_jit_equals_plain_on_refexec() {
    jit_equals_plain::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn slice_signatures_jit_equals_plain_natively() {
    jit_equals_plain::<HostBackend>();
}

#[test]
fn bounds_in_a_traced_function_on_refexec() {
    bounds_in_traced_like_plain::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn bounds_in_a_traced_function_natively() {
    bounds_in_traced_like_plain::<HostBackend>();
}

/// The policies show in the optimized loop: residual and dont-look-inside
/// helpers with slice arguments stay calls, traced functions and the
/// inline helper leave none.
#[test]
fn slice_helpers_keep_their_policies() {
    let mut d = driver::<RefExec>();
    jit(&mut d, -1).unwrap();
    let trace = majit::ir::text::print(&d.loops()[0].trace);
    let body = &trace[trace.rfind("label(").expect("a loop has a label")..];
    for f in ["scale", "count"] {
        assert_eq!(
            body.matches(&format!("descr={f})")).count(),
            1,
            "{f}: {body}"
        );
    }
    // `peek` from the handler and from `bump`.
    assert_eq!(body.matches("descr=peek)").count(), 2, "{body}");
    for f in ["sum_from", "bump", "fsum", "first"] {
        assert!(!body.contains(&format!("descr={f})")), "{f}: {body}");
    }
}

/// A loop summing a long slice through the traced `sum_from` and bumping
/// one item with `bump`: too long to trace with `trace_limit` 100.
#[jit_interp(
    greens = [],
    reds = [xs, n, acc],
    helpers = [dont_look_inside fn vm::peek(xs: &[i64], i: usize) -> i64],
    traced = [vm::sum_from, vm::bump],
)]
fn run_long(xs: &mut [i64], n0: i64) -> i64 {
    let mut n: i64 = n0;
    let mut acc: i64 = 0;
    loop {
        jit_merge_point!();
        acc = acc.wrapping_add(vm::sum_from(xs, 1));
        let i = (n as usize) % xs.len();
        acc ^= vm::bump(xs, i, n);
        n -= 1;
        if n == 0 {
            return acc;
        }
        can_enter_jit!();
        continue;
    }
}

/// Too long to trace, `sum_from` is marked don't-inline and called
/// through its residual form, whose shim rebuilds the slices: results and
/// slices equal the plain run's, the loop calls it.
fn long_slice_becomes_a_call<B: GcBackend>() {
    let (mut a, mut b) = ([0i64; 64], [0i64; 64]);
    for (k, (x, y)) in a.iter_mut().zip(b.iter_mut()).enumerate() {
        (*x, *y) = (k as i64, k as i64);
    }
    let plain = run_long(&mut a, 500);
    let params = JitParams::default().with_threshold(3).with_trace_limit(100);
    let mut d = run_long_driver::<B>(params).unwrap();
    assert_eq!(run_long_jit(&mut d, &mut b, 500).unwrap(), plain);
    assert_eq!(a, b);
    let s = d.stats();
    let names: Vec<&str> = s.dont_inline.iter().map(|m| m.name.as_str()).collect();
    assert!(names.contains(&"sum_from"), "{s}");
    assert!(s.loops_compiled >= 1 && s.loop_entries >= 1, "{s}");
    let trace = majit::ir::text::print(&d.loops()[0].trace);
    assert!(trace.contains("descr=sum_from)"), "{trace}");
}

#[test]
fn a_too_long_slice_function_becomes_a_call_on_refexec() {
    long_slice_becomes_a_call::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn a_too_long_slice_function_becomes_a_call_natively() {
    long_slice_becomes_a_call::<HostBackend>();
}
