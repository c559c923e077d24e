//! `call_assembler` into invalidated code: a recursive function whose
//! entry trace folds a quasi-immutable field is entered directly by
//! compiled code (`call_assembler_i` with its token) until the program
//! writes the field; the write invalidates the entry trace, its token's
//! loop is no longer live, the calls fall back to the portal runner, the
//! function is traced again and the token learns the new loop. Results
//! equal the plain run's; on RefExec and natively.

use majit::prelude::*;

/// `pc` 0: a loop of `n` iterations, each adding `sum(DEPTH)` to `acc`
/// and, at iteration `n / 2`, adding 1 to `shape.k`; `pc` 1:
/// `sum(d) = d == 0 ? 0 : k + sum(d - 1)` with `k` read through the
/// promoted shape (folded in traces).
#[jit_interp(
    greens = [pc, code],
    reds = [shape, acc, i, n],
    structs = [Shape { #[quasi_immutable] k: i64 }],
)]
fn run(code: &[i64], start: usize, mut shape: Shape, n0: i64) -> i64 {
    let pc: usize = start;
    let mut acc: i64 = 0;
    let mut i: i64 = 0;
    let n: i64 = n0;
    loop {
        jit_merge_point!();
        match code[pc] {
            0 => {
                if i == n / 2 {
                    shape.k += 1;
                }
                let r = run(code, 1, shape, DEPTH);
                acc = acc.wrapping_add(r);
                i += 1;
                if i < n {
                    can_enter_jit!();
                    continue;
                }
                return acc;
            }
            1 => {
                if n == 0 {
                    return 0;
                }
                let s = promote(shape);
                let k = s.k;
                let r = run(code, 1, shape, n - 1);
                return r.wrapping_add(k);
            }
            _ => return -1,
        }
    }
}

const DEPTH: i64 = 6;
const N: i64 = 400;

fn falls_back_and_retraces<B: GcBackend>() {
    let code = [0, 1];
    let plain = run(&code, 0, Shape::new(5), N);
    assert_eq!(plain, (N / 2) * DEPTH * 5 + (N - N / 2) * DEPTH * 6);
    let params = JitParams::default().with_threshold(3);
    let mut driver = run_driver::<B>(params).unwrap();
    let shape = Shape::new(5);
    assert_eq!(run_jit(&mut driver, &code, 0, shape, N).unwrap(), plain);
    let s = driver.stats();
    // Compiled code entered the function's entry trace directly, before
    // and after the write.
    assert!(s.call_assembler > 100, "{s}");
    assert!(s.invalidations >= 1, "{s}");
    // The entry trace is compiled again after the invalidation, and the
    // calls after that enter the new one (most calls run after the write).
    assert!(s.entry_traces_compiled >= 2, "{s}");
    assert!(s.call_assembler > (N / 2 * DEPTH) as u64 / 2, "{s}");
}

#[test]
fn call_assembler_into_invalidated_code_falls_back_on_refexec() {
    falls_back_and_retraces::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn call_assembler_into_invalidated_code_falls_back_natively() {
    falls_back_and_retraces::<HostBackend>();
}
