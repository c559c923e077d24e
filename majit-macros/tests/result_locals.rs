//! A `Result` kept in a local: `let r = f(..);` of helpers and traced
//! functions that can fail (with an int, a `u8`, a GC struct; an `f64`
//! and a `()` value), read later by `match`, `if let Ok`/`Err`,
//! `is_ok`/`is_err` (the same local several times), `r?` (in a traced
//! function and out of the interpreter) and returned (`return r`, a tail
//! `r`). Plain and JIT (RefExec and the native backend, with and without
//! bridges, under GC stress) give the same result and output; the loop is
//! compiled and entered and the guards after the failing calls fail.

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

/// `a / b`; fails with 0 for a zero divisor, 1 for an overflow.
fn divide(a: i64, b: i64) -> Result<i64, u8> {
    match b {
        0 => Err(0),
        _ => a.checked_div(b).ok_or(1),
    }
}

/// `x` reduced, or a `Fault` (a GC struct) when `x % 13 == 5`.
fn check_range(x: i64) -> Result<i64, Fault> {
    if x.rem_euclid(13) == 5 {
        Err(Fault::new(x.rem_euclid(97)))
    } else {
        Ok(x.rem_euclid(1_000_003))
    }
}

/// The square root of `x`, failing with `x` when it is negative (an
/// `f64` value).
fn root(x: i64) -> Result<f64, i64> {
    if x < 0 {
        Err(x)
    } else {
        Ok((x as f64).sqrt())
    }
}

mod vm {
    use super::parse_digit;

    /// The two digits `a b` as a number: both parsed first, kept in
    /// locals, then checked (`return x`, `?` on locals).
    #[majit::traced]
    pub(crate) fn pair(a: u8, b: u8) -> Result<i64, i64> {
        let x = parse_digit(a);
        let y = parse_digit(b);
        if y.is_ok() && x.is_err() {
            return x;
        }
        let v = y?;
        Ok(x? * 10 + v)
    }

    /// Nothing, or the error `x` when it is negative (a `Result<(), E>`
    /// local returned as the tail).
    #[majit::traced]
    pub(crate) fn non_negative(x: i64) -> Result<(), i64> {
        let r = sign(x);
        if x > 90 {
            return Ok(());
        }
        r
    }

    /// What `non_negative` returns, as a traced function's `Err`.
    #[majit::traced]
    pub(crate) fn sign(x: i64) -> Result<(), i64> {
        if x < 0 {
            return Err(x);
        }
        Ok(())
    }
}

const PAIR: i64 = 0;
const DIV: i64 = 1;
const RANGE: i64 = 2;
const ROOT: i64 = 3;
const SIGN: i64 = 4;
const STRICT: i64 = 5;
const LOOP: i64 = 6;
const HALT: i64 = 7;

const PROG: [i64; 8] = [PAIR, DIV, RANGE, ROOT, SIGN, STRICT, LOOP, HALT];
/// Pairs `12`, `a4`, `5b`, `99`, `70`: the second and third fail.
const DATA: &[u8] = b"12a45b9970";

#[jit_interp(
    greens = [pc, code, data, fail_at],
    reds = [acc, i, n],
    helpers = [
        residual fn emit(x: i64),
        residual fn parse_digit(c: u8) -> Result<i64, i64>,
        residual fn divide(a: i64, b: i64) -> Result<i64, u8>,
        residual fn check_range(x: i64) -> Result<i64, Fault>,
        residual fn root(x: i64) -> Result<f64, i64>,
    ],
    structs = [Fault { code: i64 }],
    traced = [vm::pair, vm::non_negative, vm::sign],
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
                let r = vm::pair(data[k], data[k + 1]);
                let ok = r.is_ok();
                match r {
                    Ok(p) => acc = acc.wrapping_mul(3).wrapping_add(p),
                    Err(e) => {
                        emit(e);
                        acc -= 1;
                    }
                }
                if let Err(mut e) = r {
                    e += 1;
                    acc ^= e;
                }
                if ok && r.is_ok() {
                    acc += 1;
                }
            }
            DIV => {
                let q = divide(acc, i % 7 - 3);
                let z = divide(i64::MIN, i % 11 - 10);
                if let Ok(v) = q {
                    acc = acc.wrapping_add(v);
                } else {
                    emit(-7);
                }
                match z {
                    Ok(_) => {}
                    Err(e) => acc += e as i64 + 5,
                }
            }
            RANGE => {
                let f = check_range(acc);
                // An allocation while the `Result` holds a GC error.
                let extra = Fault::new(i & 3);
                match f {
                    Ok(v) => acc = v + extra.code,
                    Err(fault) => {
                        acc = acc / 2 + fault.code;
                        emit(fault.code);
                    }
                }
            }
            ROOT => {
                let r = root(acc % 100 - 20);
                match r {
                    Ok(f) => acc += (f * 4.0) as i64,
                    Err(e) => acc -= e,
                }
            }
            SIGN => {
                let r = vm::non_negative(acc % 100 - 7);
                if r.is_err() {
                    acc += 2;
                }
                match r {
                    Ok(()) => acc += 1,
                    Err(e) => acc -= e,
                }
            }
            // Fails only at `i == fail_at`: out of the portal with `r?`.
            STRICT => {
                let k: usize = if i == fail_at { 2 } else { 0 };
                let r = vm::pair(data[k], data[k + 1]);
                acc += r?;
            }
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

/// Plain, then with `B` under GC stress: equal result and output; the
/// loop compiled and entered, the guards after the failing calls failed.
fn jit_equals_plain<B: GcBackend>() {
    for (n, fail_at) in [(600, -1), (600, 400), (600, 2)] {
        stress_heap();
        let plain = run(&PROG, DATA, fail_at, n);
        let plain_out = take_output();
        assert_eq!(plain.is_err(), fail_at >= 0, "{plain:?}");
        // The failing helpers failed: parse errors, zero divisors.
        for e in [1097, -7, 1098] {
            assert!(plain_out.contains(&e) || fail_at == 2, "{e}: {plain_out:?}");
        }
        for bridges in [false, true] {
            stress_heap();
            let mut driver = run_driver::<B>(params(bridges)).unwrap();
            let r = run_jit(&mut driver, &PROG, DATA, fail_at, n).unwrap();
            let what = format!("fail_at {fail_at} bridges {bridges}");
            assert_eq!((r, take_output()), (plain, plain_out.clone()), "{what}");
            let s = driver.stats();
            if fail_at != 2 {
                assert!(s.loops_compiled >= 1 && s.loop_entries >= 1, "{what}\n{s}");
                assert!(s.guard_failures >= 100, "{what}\n{s}");
            }
        }
    }
}

#[test]
fn result_locals_jit_equals_plain_on_refexec() {
    jit_equals_plain::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn result_locals_jit_equals_plain_natively() {
    jit_equals_plain::<HostBackend>();
}
