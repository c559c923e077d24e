//! The jitcode means what the Rust means: every handler of a test
//! interpreter runs once natively (the plain function with one unit of
//! fuel) and once in the blackhole (from the merge point, over the
//! generated jitcode), from equal seeded random states. Results, final
//! state, array contents and the log of helper calls must agree. The
//! handlers cover wrapping/checked/narrow arithmetic, division by
//! constants, shifts, comparisons, bool logic, `if`/`match` values, inner
//! `while`/`loop` with `break`/`continue`, arrays,
//! residual, elidable and inline helpers, traced functions of another module calling each other, a
//! `loop_invariant` and a `dont_look_inside` helper, the hints `promote` and `we_are_jitted` (false in
//! the blackhole), and a `&&`/`||` whose right side must not run (an out-of-bounds load, a logged
//! helper call).

#[path = "common/step.rs"]
mod step;

use majit::ir::Value;
use majit::metainterp::blackhole::Outcome;
use majit::metainterp::jitcode::{FuncId, JitCodeSet};
use majit::{jit_interp, promote, we_are_jitted};
use std::cell::RefCell;
use step::{blackhole_step, Rng};

thread_local! {
    static LOG: RefCell<Vec<i64>> = const { RefCell::new(Vec::new()) };
}

fn probe(x: i64) -> bool {
    LOG.with(|l| l.borrow_mut().push(x));
    x % 3 == 0
}

fn report(pc: usize, a: i64, b: i64) {
    LOG.with(|l| l.borrow_mut().extend([pc as i64, a, b]));
}

fn sq(x: i64) -> i64 {
    x * x
}

fn take_log() -> Vec<i64> {
    LOG.with(|l| std::mem::take(&mut *l.borrow_mut()))
}

/// Traced functions: `outer` calls `inner` (both traced) and the
/// residual `probe`; `opaque` is traced but called `dont_look_inside`.
mod tops {
    #[majit::traced]
    pub(crate) fn inner(x: i64, k: i64) -> i64 {
        if x & 1 == 0 {
            x.wrapping_mul(k)
        } else {
            x ^ k
        }
    }

    #[majit::traced]
    pub(crate) fn outer(a: i64, b: i64) -> i64 {
        let t = inner(a, 3).wrapping_add(inner(b, 5));
        if super::probe(t) {
            return t;
        }
        t.wrapping_sub(1)
    }

    #[majit::traced]
    pub(crate) fn opaque(x: i64) -> i64 {
        super::LOG.with(|l| l.borrow_mut().push(x));
        x.wrapping_add(11)
    }

    /// Loop-invariant by declaration: logs each call.
    pub(crate) fn epoch() -> i64 {
        super::LOG.with(|l| l.borrow_mut().push(-77));
        42
    }
}

const OPS: i64 = 29;

#[jit_interp(
    greens = [pc, code],
    reds = [a, b, fuel, arr],
    helpers = [
        residual fn probe(x: i64) -> bool,
        residual fn report(pc: usize, a: i64, b: i64),
        elidable fn sq(x: i64) -> i64,
        inline fn mix(x: i64, y: i64) -> i64,
        inline fn bump(x: i64) -> i64,
        loop_invariant fn tops::epoch() -> i64,
        dont_look_inside fn tops::opaque(x: i64) -> i64,
    ],
    traced = [tops::outer, tops::inner],
)]
fn step(code: &[i64], arr: &mut [i64], start: usize, a0: i64, b0: i64, fuel0: i64) -> i64 {
    let mut pc: usize = start;
    let mut a: i64 = a0;
    let mut b: i64 = b0;
    let mut fuel: i64 = fuel0;
    fn mix(x: i64, y: i64) -> i64 {
        if x > y {
            x.wrapping_sub(y)
        } else {
            y.wrapping_mul(2).wrapping_add(x)
        }
    }
    fn bump(x: i64) -> i64 {
        if x > 0 && probe(x) {
            return x.wrapping_add(mix(x, 3));
        }
        x ^ 5
    }
    loop {
        jit_merge_point!();
        if fuel == 0 {
            report(pc, a, b);
            return 0;
        }
        fuel -= 1;
        let op = code[pc];
        let arg = code[pc + 1];
        pc += 2;
        match op {
            0 => return a,
            1 => a = a.wrapping_add(b),
            2 => a = a.wrapping_sub(b).wrapping_mul(arg),
            3 => match a.checked_add(b) {
                Some(v) => a = v,
                None => b = -1,
            },
            4 => {
                if let Some(v) = a.checked_mul(b) {
                    a = v;
                } else {
                    a = 0;
                }
            }
            5 => {
                a /= 7;
                b %= 7;
            }
            6 => {
                a = (a << 3) ^ (b >> 2);
                b = b.wrapping_shl(a as u32);
            }
            7 => a = (a < b) as i64 + ((a as u64) < (b as u64)) as i64 * 2,
            8 => {
                let x: u8 = (a as u8).wrapping_add(b as u8);
                let y: i16 = (a as i16).wrapping_mul(b as i16);
                let z = (a as u32) >> 5;
                a = x as i64 + y as i64;
                b = z as i64;
            }
            9 => {
                let i = (a & 15) as usize;
                if i < arr.len() && arr[i] == b {
                    a = 1;
                } else {
                    a = 2;
                }
            }
            10 => {
                if a < 0 || probe(a) {
                    b = b.wrapping_add(1);
                }
                if b > 0 && probe(b) {
                    a ^= 1;
                }
            }
            11 => {
                let i = (b & 7) as usize;
                arr[i] = arr[i].wrapping_add(a);
                arr[i] ^= 1;
            }
            12 => {
                pc = arg as usize;
                can_enter_jit!();
                continue;
            }
            13 => {
                a = if a > b {
                    a.wrapping_sub(b)
                } else if a == b {
                    0
                } else {
                    let t = b.wrapping_sub(a);
                    t.wrapping_mul(2)
                }
            }
            14 => {
                b = match a & 3 {
                    0 => 10,
                    1 | 2 => 20,
                    x => x + 100,
                }
            }
            15 => {
                a = !a;
                b = b.wrapping_neg();
            }
            16 => {
                let p = a > 0;
                let q = b > 0;
                a = (p ^ q) as i64 + (p & !q) as i64 * 2 + (p == q) as i64 * 4;
            }
            17 => a = sq(a & 0xffff),
            18 => {
                if a == 0 {
                    return b;
                }
                b = -(b.wrapping_add(arg) & 0xff);
            }
            19 => {
                let k = (arg & 63) as u32;
                a = a.wrapping_shr(k);
                b = (b as u64).wrapping_shr(k) as i64;
            }
            20 => a = mix(a, b),
            21 => b = bump(a.wrapping_add(arg)),
            22 => {
                let mut n = arg & 7;
                while n > 0 {
                    a = a.wrapping_mul(3).wrapping_add(n);
                    n -= 1;
                    if a & 15 == 7 {
                        break;
                    }
                }
            }
            23 => {
                let mut k: i64 = 0;
                'count: loop {
                    k += 1;
                    if k > (b & 3) {
                        break 'count;
                    }
                    if k == 2 {
                        continue;
                    }
                    a ^= k;
                }
            }
            24 => a = tops::outer(a, b),
            25 => b = tops::epoch().wrapping_add(tops::epoch()),
            26 => a = tops::opaque(a),
            27 => {
                let p = promote(a);
                a = p.wrapping_add(1);
            }
            28 => b = we_are_jitted() as i64 + b.wrapping_mul(2),
            _ => return -1,
        }
    }
}

/// One handler in the blackhole, from the merge point with this state.
fn step_in_blackhole(
    jitcode: &(JitCodeSet, FuncId),
    code: &[i64],
    arr: &mut [i64],
    (pc, a, b): (usize, i64, i64),
) -> Outcome {
    let greens = [
        Value::Int(pc as i64),
        Value::Ref(code.as_ptr() as usize),
        Value::Int(code.len() as i64),
    ];
    let reds = [
        Value::Int(a),
        Value::Int(b),
        Value::Int(1),
        Value::Ref(arr.as_mut_ptr() as usize),
        Value::Int(arr.len() as i64),
    ];
    blackhole_step(jitcode, &greens, &reds)
}

#[test]
fn every_handler_matches_rust_from_random_states() {
    let mut rng = Rng::new(0x5eed);
    let jitcode = step_jitcode().unwrap();
    for round in 0..4000 {
        let op = round as i64 % OPS;
        let arg = match op {
            12 => 0,
            _ => rng.int(),
        };
        let code = [op, arg, 0, 0];
        let (a, b) = (rng.int(), rng.int());
        let init: Vec<i64> = (0..8).map(|_| (rng.next() % 5) as i64).collect();
        let what = format!("op {op} arg {arg} a {a} b {b} arr {init:?}");

        let mut native_arr = init.clone();
        let native = step(&code, &mut native_arr, 0, a, b, 1);
        let native_log = take_log();

        let mut bh_arr = init.clone();
        let out = step_in_blackhole(&jitcode, &code, &mut bh_arr, (0, a, b));
        let mut bh_log = take_log();
        match out {
            Outcome::Returned(v) => assert_eq!(v, Some(Value::Int(native)), "{what}"),
            Outcome::Raised(e) => panic!("{what}: raised {e:?}"),
            Outcome::MergePoint { greens, reds } => {
                // The native run reported its state at the next merge point.
                bh_log.extend([greens[0], reds[0], reds[1]].map(|v| v.as_int().unwrap()));
                assert_eq!(native, 0, "{what}");
            }
        }
        assert_eq!(bh_log, native_log, "{what}");
        assert_eq!(bh_arr, native_arr, "{what}");
    }
}
