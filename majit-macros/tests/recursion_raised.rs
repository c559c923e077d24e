//! An error raised by a callee entered through `call_assembler`: a loop
//! calls a recursive function many times; its deepest call fails with
//! `Err(x)` every fifth time, which unwinds the recursive calls (`?`) made
//! from the function's compiled entry trace up to the loop's protected
//! call (`match`). Results equal the plain run's; on RefExec and natively;
//! the stats show the calls entered the entry trace directly.

use majit::prelude::*;

/// `pc` 0: `acc += f(DEPTH, i)` for `i` in `0..n`, or `+= 1000 * e` when
/// it failed with `e`; `pc` 1: `f(0, x) = x % 5 == 4 ? Err(x) : Ok(1)`,
/// `f(d, x) = f(d - 1, x)? + 1`.
#[jit_interp(greens = [pc, code], reds = [acc, i, n, x])]
fn run(code: &[i64], start: usize, n0: i64, x0: i64) -> Result<i64, i64> {
    let pc: usize = start;
    let mut acc: i64 = 0;
    let mut i: i64 = 0;
    let n: i64 = n0;
    let x: i64 = x0;
    loop {
        jit_merge_point!();
        match code[pc] {
            0 => {
                match run(code, 1, DEPTH, i) {
                    Ok(v) => acc = acc.wrapping_add(v),
                    Err(e) => acc = acc.wrapping_add(1000 * e),
                }
                i += 1;
                if i < n {
                    can_enter_jit!();
                    continue;
                }
                return Ok(acc);
            }
            1 => {
                if n == 0 {
                    if x % 5 == 4 {
                        return Err(x);
                    }
                    return Ok(1);
                }
                let r = run(code, 1, n - 1, x)?;
                return Ok(r + 1);
            }
            _ => return Err(-1),
        }
    }
}

const DEPTH: i64 = 5;
const N: i64 = 500;

fn raised_through_call_assembler<B: GcBackend>() {
    let code = [0, 1];
    let plain = run(&code, 0, N, 0);
    let fails: i64 = (0..N).filter(|i| i % 5 == 4).sum();
    let oks = N - N / 5;
    assert_eq!(plain, Ok(oks * (DEPTH + 1) + 1000 * fails));
    for threshold in [2, 5, 50] {
        let params = JitParams::default().with_threshold(threshold);
        let mut driver = run_driver::<B>(params).unwrap();
        assert_eq!(run_jit(&mut driver, &code, 0, N, 0).unwrap(), plain);
        let s = driver.stats();
        assert!(s.call_assembler > 500, "{threshold}: {s}");
        assert!(s.call_assembler_slow >= 1, "{threshold}: {s}");
    }
}

#[test]
fn an_error_raised_through_call_assembler_on_refexec() {
    raised_through_call_assembler::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn an_error_raised_through_call_assembler_natively() {
    raised_through_call_assembler::<HostBackend>();
}
