//! `checked_*`, `overflowing_*` and `wrapping_*` as values: their jitcode
//! means what the Rust means. Each handler runs once natively (one unit of
//! fuel) and once in the blackhole from the merge point, from equal
//! seeded random states heavy in overflow edges; results, final state and
//! the log of helper calls must agree. A loop of them also runs plain, on
//! RefExec and natively with equal results.

#[path = "common/step.rs"]
mod step;

use majit::ir::Value;
use majit::jit_interp;
use majit::metainterp::blackhole::Outcome;
use std::cell::RefCell;
use step::{blackhole_step, Rng};

thread_local! {
    static LOG: RefCell<Vec<i64>> = const { RefCell::new(Vec::new()) };
}

fn report(a: i64, b: i64) {
    LOG.with(|l| l.borrow_mut().extend([a, b]));
}

fn take_log() -> Vec<i64> {
    LOG.with(|l| std::mem::take(&mut *l.borrow_mut()))
}

const OPS: i64 = 10;

#[jit_interp(
    greens = [op],
    reds = [a, b, fuel],
    helpers = [residual fn report(a: i64, b: i64)]
)]
fn step(op0: i64, a0: i64, b0: i64) -> i64 {
    let op: i64 = op0;
    let mut a: i64 = a0;
    let mut b: i64 = b0;
    let mut fuel: i64 = 1;
    loop {
        jit_merge_point!();
        if fuel == 0 {
            report(a, b);
            return 0;
        }
        fuel -= 1;
        match op {
            0 => {
                let r = a.checked_add(b);
                match r {
                    Some(v) => a = v,
                    None => b = -1,
                }
            }
            1 => {
                let r = a.checked_mul(b);
                if let Some(v) = r {
                    a = v;
                } else {
                    a = 7;
                }
                b = r.is_none() as i64 + r.is_some() as i64 * 2;
            }
            2 => {
                let r = a.checked_sub(b);
                let s = b.checked_add(1);
                if r.is_none() {
                    return -5;
                }
                a = match s {
                    Some(v) => v,
                    None => {
                        b = 1;
                        9
                    }
                };
            }
            3 => {
                let (v, o) = a.overflowing_add(b);
                a = v;
                b = o as i64;
            }
            4 => {
                let (v, o) = a.overflowing_mul(b);
                if o {
                    return v;
                }
                a = v;
            }
            5 => {
                let (v, o) = a.overflowing_sub(b);
                let w = a.wrapping_add(b);
                a = v ^ w;
                b = if o { 1 } else { 2 };
            }
            6 => {
                let r = a.checked_add(b);
                let r2 = b.checked_mul(3);
                if let Some(x) = r {
                    if let Some(y) = r2 {
                        return x ^ y;
                    }
                }
                a = r.is_some() as i64;
                b = r2.unwrap_or(-3) ^ r.unwrap_or(5);
            }
            7 => {
                let x = a as i32;
                let y = b as i32;
                match x.checked_mul(y) {
                    Some(v) => a = v as i64,
                    None => b = -2,
                }
                let (v, o) = (x as u8).overflowing_sub(y as u8);
                a = a.wrapping_add(v as i64) ^ o as i64;
            }
            8 => {
                let x = a as u64;
                let y = b as u64;
                let r = x.checked_add(y);
                if let Some(v) = r {
                    a = v as i64;
                }
                let (v, o) = x.overflowing_sub(y);
                b = (v >> 3) as i64 + o as i64;
                a ^= (x.checked_sub(y).is_some() as i64) << 1 | (r.is_none() as i64) << 2;
            }
            9 => {
                let x = a as i16;
                let r = x.checked_add(b as i16);
                a = r.unwrap_or(-7) as i64;
                let (v, o) = (b as u32).overflowing_mul(a as u32);
                b = v as i64 + o as i64 * 5;
            }
            _ => return -1,
        }
    }
}

#[test]
fn checked_and_overflowing_values_match_rust_from_random_states() {
    let mut rng = Rng::new(0xc4ec);
    let jitcode = step_jitcode().unwrap();
    for round in 0..3000 {
        let op = round as i64 % OPS;
        let (a, b) = (rng.int(), rng.int());
        let what = format!("op {op} a {a} b {b}");
        let native = step(op, a, b);
        let native_log = take_log();
        let greens = [Value::Int(op)];
        let reds = [Value::Int(a), Value::Int(b), Value::Int(1)];
        let mut bh_log = Vec::new();
        match blackhole_step(&jitcode, &greens, &reds) {
            Outcome::Returned(v) => assert_eq!(v, Some(Value::Int(native)), "{what}"),
            Outcome::Raised(e) => panic!("{what}: raised {e:?}"),
            Outcome::MergePoint { reds, .. } => {
                bh_log.extend([reds[0], reds[1]].map(|v| v.as_int().unwrap()));
                assert_eq!(native, 0, "{what}");
            }
        }
        assert_eq!(bh_log, native_log, "{what}");
    }
}

/// A loop of `checked_*`/`overflowing_*` values whose branches go both
/// ways as `acc` grows: saturating when the sum would overflow, counting
/// the overflows of a multiplication.
#[jit_interp(greens = [], reds = [acc, k, overflows, n])]
fn saturating_sums(step: i64, count: i64) -> i64 {
    let mut acc: i64 = 1;
    let mut k: i64 = step;
    let mut overflows: i64 = 0;
    let mut n: i64 = count;
    loop {
        jit_merge_point!();
        let r = acc.checked_mul(k);
        let (w, o) = k.overflowing_mul(acc);
        if o {
            overflows += 1;
        }
        acc = match r {
            Some(v) => v ^ (w & 1),
            None => acc / 3 + 1,
        };
        if r.is_none() {
            k = k.wrapping_add(1);
        }
        n -= 1;
        if n != 0 {
            can_enter_jit!();
            continue;
        }
        return acc ^ k ^ (overflows << 20);
    }
}

#[test]
fn checked_values_in_a_loop_agree_plain_and_jit() {
    use majit::metainterp::gcheap::GcBackend;
    use majit::{JitParams, RefExec};
    fn jit<B: GcBackend>() -> i64 {
        let params = JitParams::default().with_threshold(3);
        let mut driver = saturating_sums_driver::<B>(params).unwrap();
        let r = saturating_sums_jit(&mut driver, 7, 20_000).unwrap();
        let stats = driver.stats();
        assert!(stats.loops_compiled >= 1, "{stats}");
        assert!(stats.loop_entries >= 1, "{stats}");
        r
    }
    let want = saturating_sums(7, 20_000);
    assert_eq!(jit::<RefExec>(), want);
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    assert_eq!(jit::<majit::HostBackend>(), want);
}
