//! `f64` in `#[jit_interp]`: every float construct's jitcode means what
//! the Rust means. Each handler runs once natively (the plain function
//! with one unit of fuel) and once in the blackhole (from the merge point,
//! over the generated jitcode), from equal seeded random states heavy in
//! NaN, ±inf, ±0.0 and the bounds of the integer casts. Results, final
//! state (bit for bit, any NaN equal to any NaN), slice and array contents
//! and the log of helper calls must agree. The handlers cover float greens
//! and reds, literals, `+ - * / %`, unary `-`, the six comparisons, `as`
//! casts both ways for every integer type, `abs`/`sqrt` and the other
//! lowered methods, `to_bits`/`from_bits`, compound assignment, float
//! slices (a frozen green one and a `&mut` red), a `[f64; 4]` red, float
//! consts (`HALF`, `f64::EPSILON`, `std::f64::consts::PI`), `if`
//! values, and residual, elidable and inline helpers taking and returning
//! `f64`.

// The handlers spell `x = x op y` out to test the operators; compound
// assignment has its own handler.
#![allow(clippy::assign_op_pattern)]

#[path = "common/step.rs"]
mod step;

use majit::ir::Value;
use majit::jit_interp;
use majit::metainterp::blackhole::Outcome;
use majit::metainterp::gcheap::GcBackend;
use majit::metainterp::jitcode::{FuncId, JitCodeSet};
use majit::{JitParams, RefExec};
use std::cell::RefCell;
use step::{blackhole_step, Rng};

thread_local! {
    static LOG: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

fn log(x: u64) {
    LOG.with(|l| l.borrow_mut().push(x));
}

/// Residual: logs its arguments, returns a float of both.
fn observe(x: f64, n: i64) -> f64 {
    log(x.to_bits());
    log(n as u64);
    x * 0.5 + n as f64
}

/// The state at the next merge point (the array red item by item).
#[allow(clippy::too_many_arguments)]
fn report(pc: usize, x: f64, y: f64, n: i64, r0: f64, r1: f64, r2: f64, r3: f64) {
    for v in [pc as u64, x.to_bits(), y.to_bits(), n as u64] {
        log(v);
    }
    for r in [r0, r1, r2, r3] {
        log(r.to_bits());
    }
}

fn hypot(x: f64, y: f64) -> f64 {
    (x * x + y * y).sqrt()
}

fn take_log() -> Vec<u64> {
    LOG.with(|l| std::mem::take(&mut *l.borrow_mut()))
}

const OPS: i64 = 23;
const HALF: f64 = 0.5;
const SEVEN: i64 = 7;

#[jit_interp(
    greens = [pc, code, scale, consts],
    reds = [x, y, n, fuel, fs, regs],
    helpers = [
        residual fn observe(x: f64, n: i64) -> f64,
        residual fn report(
            pc: usize, x: f64, y: f64, n: i64, r0: f64, r1: f64, r2: f64, r3: f64
        ),
        elidable fn hypot(x: f64, y: f64) -> f64,
        inline fn lerp(a: f64, b: f64, t: f64) -> f64,
    ]
)]
#[allow(clippy::too_many_arguments)]
fn step(
    code: &[i64],
    consts: &[f64],
    fs: &mut [f64],
    scale0: f64,
    state: (f64, f64, i64),
    regs0: [f64; 4],
    fuel0: i64,
) -> f64 {
    let mut pc: usize = 0;
    let scale: f64 = scale0;
    let mut x: f64 = state.0;
    let mut y: f64 = state.1;
    let mut n: i64 = state.2;
    let mut regs: [f64; 4] = regs0;
    let mut fuel: i64 = fuel0;
    fn lerp(a: f64, b: f64, t: f64) -> f64 {
        if t < 0.0 {
            return a;
        }
        a + (b - a) * t
    }
    loop {
        jit_merge_point!();
        if fuel == 0 {
            report(pc, x, y, n, regs[0], regs[1], regs[2], regs[3]);
            return 0.0;
        }
        fuel -= 1;
        let op = code[pc];
        pc += 2;
        match op {
            0 => return x + y,
            1 => x = x - y * scale,
            2 => x = x / y,
            3 => {
                x = -x;
                y = y * 2.0;
            }
            4 => n = x as i64,
            5 => n = ((x as i32) as i64 + (y as u8) as i64 * 3).wrapping_add((x as u64) as i64),
            6 => {
                x = n as f64;
                y = (n as u64) as f64 + (n as u16) as f64 + (n as i8) as f64;
            }
            7 => {
                n = (x < y) as i64
                    + (x <= y) as i64 * 2
                    + (x == y) as i64 * 4
                    + (x != y) as i64 * 8
                    + (x > y) as i64 * 16
                    + (x >= y) as i64 * 32;
            }
            8 => {
                x = x.abs();
                y = y.sqrt();
            }
            9 => x = x % y,
            10 => {
                n = x.to_bits() as i64;
                y = f64::from_bits((n as u64) ^ 1);
            }
            11 => {
                let i = (n & 7) as usize;
                if i < fs.len() {
                    fs[i] = fs[i] + x;
                    x = fs[i];
                }
            }
            12 => {
                let i = (n & 3) as usize;
                regs[i] = regs[i] * y + 1.5;
                y = regs[i];
            }
            13 => {
                x = observe(x, n);
                y = hypot(x, y);
            }
            14 => {
                x = consts[(n & 3) as usize] + 1e3;
                y = 2.0f64 * y - 1.25e-3 + HALF * f64::EPSILON;
            }
            15 => {
                let m: f64 = if x > y { x } else { y };
                x = m;
                y = if m.is_nan() { 0.0 } else { m - 1.0 };
            }
            16 => {
                x = lerp(x, y, scale);
                y = lerp(y, x, -1.0);
            }
            17 => {
                x = x.min(y).floor().max(f64::MIN) + std::f64::consts::PI;
                y = y.powf(2.0).max(x).trunc();
            }
            18 => {
                x += y;
                y -= 0.5;
                x *= scale;
                y /= 3.0;
                x %= 7.5;
            }
            19 => {
                x = -(x.round() + y.ceil());
                n = (x as i16) as i64 + (y as u32) as i64 + (y as u16) as i64 + (y as i8) as i64;
            }
            20 => {
                let f: f64 = (n as i32) as f64 + (n as u32) as f64 + (n as u8) as f64;
                x = f + (n as i16) as f64 - 0.0 + (HALF as u8) as f64 + SEVEN as f64;
                y = -0.0;
            }
            21 => {
                if x.is_nan() || y > x {
                    n = n.wrapping_add(1);
                }
                x = x.exp() + y.ln() + x.sin() * y.cos();
            }
            22 => {
                pc = code[pc - 1] as usize;
                can_enter_jit!();
                continue;
            }
            _ => return -1.0,
        }
    }
}

/// Equal as values of a Rust run: bit for bit, except that NaNs are equal
/// to each other (Rust makes no promise about the payload of a NaN an
/// operation produces).
fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

/// Turns a log of float bits into a comparable one (NaNs canonical).
fn canon(log: Vec<u64>) -> Vec<u64> {
    log.into_iter()
        .map(|b| {
            if f64::from_bits(b).is_nan() {
                f64::NAN.to_bits()
            } else {
                b
            }
        })
        .collect()
}

struct State {
    x: f64,
    y: f64,
    n: i64,
    fs: Vec<f64>,
    regs: [f64; 4],
}

fn step_in_blackhole(
    jitcode: &(JitCodeSet, FuncId),
    code: &[i64],
    consts: &[f64],
    scale: f64,
    s: &mut State,
) -> Outcome {
    let greens = [
        Value::Int(0),
        Value::Ref(code.as_ptr() as usize),
        Value::Int(code.len() as i64),
        Value::Float(scale),
        Value::Ref(consts.as_ptr() as usize),
        Value::Int(consts.len() as i64),
    ];
    let mut reds = vec![
        Value::Float(s.x),
        Value::Float(s.y),
        Value::Int(s.n),
        Value::Int(1),
        Value::Ref(s.fs.as_mut_ptr() as usize),
        Value::Int(s.fs.len() as i64),
    ];
    reds.extend(s.regs.map(Value::Float));
    blackhole_step(jitcode, &greens, &reds)
}

#[test]
fn every_float_handler_matches_rust_from_random_states() {
    let mut rng = Rng::new(0xf10a7);
    let jitcode = step_jitcode().unwrap();
    for round in 0..6000 {
        let op = round as i64 % OPS;
        let code = [op, 0];
        let consts: Vec<f64> = (0..4).map(|_| rng.float()).collect();
        let scale = rng.float();
        let mut s = State {
            x: rng.float(),
            y: rng.float(),
            n: rng.int(),
            fs: (0..6).map(|_| rng.float()).collect(),
            regs: [rng.float(), rng.float(), rng.float(), rng.float()],
        };
        let what = format!(
            "op {op} x {:?} y {:?} n {} scale {scale:?} consts {consts:?} fs {:?} regs {:?}",
            s.x, s.y, s.n, s.fs, s.regs
        );

        let mut native_fs = s.fs.clone();
        let native = step(
            &code,
            &consts,
            &mut native_fs,
            scale,
            (s.x, s.y, s.n),
            s.regs,
            1,
        );
        let native_log = canon(take_log());

        let out = step_in_blackhole(&jitcode, &code, &consts, scale, &mut s);
        let mut bh_log = take_log();
        match out {
            Outcome::Returned(Some(Value::Float(v))) => {
                assert!(same(v, native), "{what}: returned {v:?}, Rust {native:?}")
            }
            Outcome::MergePoint { greens, reds } => {
                // The native run reported its state at the next merge point.
                bh_log.push(greens[0].as_int().unwrap() as u64);
                bh_log.extend([reds[0], reds[1]].map(|v| v.as_float().unwrap().to_bits()));
                bh_log.push(reds[2].as_int().unwrap() as u64);
                bh_log.extend(reds[6..].iter().map(|v| v.as_float().unwrap().to_bits()));
                assert_eq!(native, 0.0, "{what}");
            }
            other => panic!("{what}: {other:?}"),
        }
        assert_eq!(canon(bh_log), native_log, "{what}");
        for (k, (a, b)) in s.fs.iter().zip(&native_fs).enumerate() {
            assert!(same(*a, *b), "{what}: fs[{k}] {a:?}, Rust {b:?}");
        }
    }
}

const PROGRAM_STATE: (f64, f64, i64) = (3.5, -1.25, 77);
const PROGRAM_FUEL: i64 = 20_000;

/// A program of every handler but `return` in a loop, run plain or with
/// the JIT on backend `B`: its result, helper log and float slice (bits,
/// NaNs canonical).
fn looping_program<B: GcBackend>(jit: bool) -> (u64, Vec<u64>, Vec<u64>) {
    let mut code: Vec<i64> = (1..OPS - 1).flat_map(|op| [op, 0]).collect();
    code.extend([OPS - 1, 0]);
    let consts = [0.25, -3.5, f64::NAN, 1e300];
    let mut fs = vec![1.0, -0.0, 2.5, f64::INFINITY, -7.25, 3.0];
    let (st, regs, fuel) = (PROGRAM_STATE, [0.5; 4], PROGRAM_FUEL);
    let r = if jit {
        let mut driver = step_driver::<B>(JitParams::default().with_threshold(3)).unwrap();
        let r = step_jit(&mut driver, &code, &consts, &mut fs, 0.75, st, regs, fuel).unwrap();
        let stats = driver.stats();
        assert!(stats.loops_compiled >= 1, "{stats}");
        assert!(stats.loop_entries >= 1, "{stats}");
        r
    } else {
        step(&code, &consts, &mut fs, 0.75, st, regs, fuel)
    };
    let fs = fs.iter().map(|f| f.to_bits()).collect();
    (r.to_bits(), canon(take_log()), canon(fs))
}

#[test]
fn a_looping_float_program_gives_the_same_output_plain_and_jit() {
    let want = looping_program::<RefExec>(false);
    assert_eq!(looping_program::<RefExec>(true), want);
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    assert_eq!(looping_program::<majit::HostBackend>(true), want);
}

/// Outputs per input of `edges`.
const COLS: usize = 16;

/// Every cast, comparison and operator on each pair of edge values, with
/// the loop compiled after a few inputs: the executors' float semantics
/// (the native backend's `cast_float_to_int` on NaN and out-of-range
/// values, its NaN comparisons, its float calls) against Rust's.
#[jit_interp(greens = [], reds = [i, xs, out])]
fn edges(xs: &[f64], out: &mut [i64]) -> i64 {
    let mut i: usize = 0;
    loop {
        jit_merge_point!();
        if i == xs.len() {
            return 0;
        }
        let x = xs[i];
        let y = xs[xs.len() - 1 - i];
        let at = i * COLS;
        out[at] = x as i64;
        out[at + 1] = (x as i32) as i64;
        out[at + 2] = (x as u64) as i64;
        out[at + 3] = (x as u8) as i64 + (x as i8) as i64 * 1000;
        out[at + 4] = (x < y) as i64 + (x <= y) as i64 * 2 + (x > y) as i64 * 4;
        out[at + 5] = (x == y) as i64 + (x != y) as i64 * 2 + (x >= y) as i64 * 4;
        out[at + 6] = (x % y).to_bits() as i64;
        out[at + 7] = (x / y).to_bits() as i64;
        out[at + 8] = (-x * y).to_bits() as i64;
        out[at + 9] = (x.abs() - y).to_bits() as i64;
        out[at + 10] = x.sqrt().to_bits() as i64;
        out[at + 11] = ((i as i64 - 5) as f64 * 0.5).to_bits() as i64;
        out[at + 12] = (x.to_bits() as f64 + (i as u64) as f64).to_bits() as i64;
        out[at + 13] = (x as u16) as i64 + ((x as u32) as i64) * 3;
        out[at + 14] = f64::from_bits(x.to_bits() ^ (1 << 63)).to_bits() as i64;
        out[at + 15] = x.min(y).max(f64::MIN).floor().to_bits() as i64;
        i += 1;
        can_enter_jit!();
        continue;
    }
}

/// The edge values, several times over (the loop gets hot on the first).
fn edge_inputs() -> Vec<f64> {
    let mut rng = Rng::new(0xed9e);
    let mut xs: Vec<f64> = (0..40).map(|_| rng.float()).collect();
    xs.extend([
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -0.0,
        0.0,
    ]);
    xs.extend([
        9.3e18,
        -9.3e18,
        1.9e19,
        2_147_483_647.9,
        -2_147_483_648.9,
        65_535.5,
    ]);
    xs.repeat(3)
}

fn edge_outputs<B: GcBackend>(jit: bool) -> Vec<u64> {
    let xs = edge_inputs();
    let mut out = vec![0i64; xs.len() * COLS];
    if jit {
        let mut driver = edges_driver::<B>(JitParams::default().with_threshold(3)).unwrap();
        edges_jit(&mut driver, &xs, &mut out).unwrap();
        let stats = driver.stats();
        assert!(stats.loops_compiled >= 1, "{stats}");
        assert!(stats.loop_entries >= 1, "{stats}");
    } else {
        edges(&xs, &mut out);
    }
    canon(out.iter().map(|&v| v as u64).collect())
}

#[test]
fn float_edges_agree_plain_and_jit() {
    let want = edge_outputs::<RefExec>(false);
    assert_eq!(edge_outputs::<RefExec>(true), want);
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    assert_eq!(edge_outputs::<majit::HostBackend>(true), want);
}
