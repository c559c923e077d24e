//! Helpers that can fail (`-> Result<T, E>`) and traced functions using
//! `?`: an interpreter whose helpers parse digits, divide and range-check
//! (failing with an int, a zero `u8` and a GC struct) on some inputs
//! only, matched with `match` and `if let`, propagated with `?` through a
//! traced function and out of the interpreter, which returns
//! `Result<i64, i64>`. Plain and JIT (RefExec and the native backend,
//! with and without bridges, and under GC stress) give the same result
//! and output; the stats show the loop compiled and entered and the
//! guards after the failing calls failing (and bridged).

mod common;
#[path = "common/heap.rs"]
mod heap;

use common::{emit, take_output};
use heap::stress_heap;
use majit::prelude::*;

/// The digit `c` stands for, or `1000 + c` when it is none.
fn parse_digit(c: u8) -> Result<i64, i64> {
    if c.is_ascii_digit() {
        Ok(i64::from(c - b'0'))
    } else {
        Err(1000 + i64::from(c))
    }
}

/// `a / b`; fails with 0 for a zero divisor (a zero error value), 1 for
/// an overflow.
fn divide(a: i64, b: i64) -> Result<i64, u8> {
    match b {
        0 => Err(0),
        _ => a.checked_div(b).ok_or(1),
    }
}

/// `x` reduced, or a `Fault` (a GC struct, allocated here) when `x % 13
/// == 5`.
fn check_range(x: i64) -> Result<i64, Fault> {
    if x.rem_euclid(13) == 5 {
        Err(Fault::new(x.rem_euclid(97)))
    } else {
        Ok(x.rem_euclid(1_000_003))
    }
}

mod vm {
    use super::parse_digit;

    /// The two digits `a b` as a number; fails where `parse_digit` does.
    #[majit::traced]
    pub(crate) fn pair(a: u8, b: u8) -> Result<i64, i64> {
        let x = parse_digit(a)?;
        let y = parse_digit(b)?;
        Ok(x * 10 + y)
    }

    /// Nothing, or the error `x` when it is negative (`Result<(), E>`).
    #[majit::traced]
    pub(crate) fn non_negative(x: i64) -> Result<(), i64> {
        if x < 0 {
            return Err(x);
        }
        Ok(())
    }

    /// `pair`, refusing 99 itself (`return Err`).
    #[majit::traced]
    pub(crate) fn small_pair(a: u8, b: u8) -> Result<i64, i64> {
        let p = pair(a, b)?;
        if p == 99 {
            return Err(-99);
        }
        Ok(p)
    }
}

const PAIR: i64 = 0;
const DIV: i64 = 1;
const RANGE: i64 = 2;
const STRICT: i64 = 3;
const SIGN: i64 = 4;
const LOOP: i64 = 5;
const HALT: i64 = 6;

const PROG: [i64; 7] = [PAIR, DIV, RANGE, STRICT, SIGN, LOOP, HALT];
/// Pairs `12`, `a4`, `5b`, `99`, `70`: the second and third fail to
/// parse, the fourth is refused by `small_pair`.
const DATA: &[u8] = b"12a45b9970";

#[jit_interp(
    greens = [pc, code, data, fail_at],
    reds = [acc, i, n],
    helpers = [
        residual fn emit(x: i64),
        residual fn parse_digit(c: u8) -> Result<i64, i64>,
        residual fn divide(a: i64, b: i64) -> Result<i64, u8>,
        residual fn check_range(x: i64) -> Result<i64, Fault>,
    ],
    structs = [Fault { code: i64 }],
    traced = [vm::small_pair, vm::pair, vm::non_negative],
)]
fn run(code: &[i64], data: &[u8], fail_at: i64, n0: i64) -> Result<i64, i64> {
    let mut pc: usize = 0;
    let mut acc: i64 = 1;
    let mut i: i64 = 0;
    let n: i64 = n0;
    loop {
        jit_merge_point!();
        match code[pc] {
            PAIR => {
                let k = (i % 5) as usize * 2;
                match vm::small_pair(data[k], data[k + 1]) {
                    Ok(p) => acc = acc.wrapping_mul(3).wrapping_add(p),
                    Err(e) => {
                        emit(e);
                        acc -= 1;
                    }
                }
            }
            DIV => {
                if let Ok(q) = divide(acc, i % 7 - 3) {
                    acc = acc.wrapping_add(q);
                } else {
                    emit(-7);
                }
                if let Err(e) = divide(i64::MIN, i % 11 - 10) {
                    acc += e as i64 + 5;
                }
            }
            RANGE => match check_range(acc) {
                Ok(v) => acc = v,
                Err(f) => {
                    acc = acc / 2 + f.code;
                    emit(f.code);
                }
            },
            // Fails only at `i == fail_at`: out of the portal with `?`.
            STRICT => {
                let k: usize = if i == fail_at { 2 } else { 0 };
                acc += vm::pair(data[k], data[k + 1])?;
            }
            SIGN => match vm::non_negative(acc % 100 - 7) {
                Ok(()) => acc += 1,
                Err(e) => acc -= e,
            },
            LOOP => {
                if i < n {
                    i += 1;
                    pc = 0;
                    can_enter_jit!();
                    continue;
                }
            }
            HALT => return Ok(acc),
            _ => return Err(-1),
        }
        pc += 1;
    }
}

fn params(bridges: bool) -> JitParams {
    let p = JitParams::default().with_threshold(3);
    if bridges {
        p.with_bridge_threshold(5)
    } else {
        p.with_bridge_threshold(u32::MAX)
    }
}

/// Plain, then with `B`: equal result and output; the loop compiled and
/// entered, the guards after the failing calls failed (and got bridges).
fn jit_equals_plain<B: GcBackend>() {
    // Failing at 2: in `run_jit`'s own Rust code, before the loop is hot.
    for (n, fail_at) in [(10, -1), (600, -1), (600, 400), (600, 2)] {
        let plain = run(&PROG, DATA, fail_at, n);
        let plain_out = take_output();
        assert_eq!(plain.is_err(), fail_at >= 0, "{plain:?}");
        for bridges in [false, true] {
            let mut driver = run_driver::<B>(params(bridges)).unwrap();
            let r = run_jit(&mut driver, &PROG, DATA, fail_at, n).unwrap();
            let what = format!("n {n} fail_at {fail_at} bridges {bridges}");
            assert_eq!((r, take_output()), (plain, plain_out.clone()), "{what}");
            let s = driver.stats();
            if n >= 600 && fail_at != 2 {
                assert!(s.loops_compiled >= 1 && s.loop_entries >= 1, "{what}\n{s}");
                assert!(s.guard_failures >= 100, "{what}\n{s}");
                assert_eq!(s.bridges_compiled > 0, bridges, "{what}\n{s}");
            }
        }
    }
}

#[test]
fn fallible_helpers_jit_equals_plain_on_refexec() {
    jit_equals_plain::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn fallible_helpers_jit_equals_plain_natively() {
    jit_equals_plain::<HostBackend>();
}

#[test]
fn fallible_helpers_under_gc_stress() {
    let plain = run(&PROG, DATA, 500, 600);
    let plain_out = take_output();
    stress_heap();
    let mut driver = run_driver::<RefExec>(params(true)).unwrap();
    let r = run_jit(&mut driver, &PROG, DATA, 500, 600).unwrap();
    assert_eq!((r, take_output()), (plain, plain_out.clone()));
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        stress_heap();
        let mut driver = run_driver::<HostBackend>(params(true)).unwrap();
        let r = run_jit(&mut driver, &PROG, DATA, 500, 600).unwrap();
        assert_eq!((r, take_output()), (plain, plain_out));
        assert!(driver.stats().loop_entries >= 1, "{}", driver.stats());
    }
}

/// The trace of the loop checks the calls that may fail: a
/// `guard_no_exception` or a `guard_exception` with `save_exception_*`
/// after each.
#[test]
fn the_loop_checks_the_failing_calls() {
    let mut driver = run_driver::<RefExec>(params(false)).unwrap();
    assert!(run_jit(&mut driver, &PROG, DATA, -1, 600).unwrap().is_ok());
    take_output();
    let text = majit::ir::text::print(&driver.loops()[0].recorded);
    for helper in ["parse_digit", "divide", "check_range"] {
        assert!(
            text.contains(&format!("descr={helper})")),
            "{helper}: {text}"
        );
    }
    let checks =
        text.matches("guard_no_exception").count() + text.matches("guard_exception").count();
    assert!(checks >= 6, "{text}");
}
