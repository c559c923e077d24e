//! Integer `/` and `%` at run time: the jitcode means what the Rust means
//! for every integer type, from random states including zero and -1
//! divisors, `MIN` and negative operands. Where the plain run panics
//! ("attempt to divide by zero", "... with overflow"), the jitcode's run
//! fails with `ConcreteError::Panic` carrying the same message and the
//! source location the plain panic reports; with the driver (RefExec and
//! native), a division by zero inside a compiled loop ends the run with
//! `JitError::Panic`, and the driver works afterwards.

// `a %= -1` is on purpose: `i64::MIN % -1` is one of the panics tested.
#![allow(clippy::modulo_one)]

use majit::ir::Value;
use majit::jit_interp;
use majit::metainterp::blackhole::{BhFrame, Blackhole, Outcome};
use majit::metainterp::jitcode::eval::ConcreteError;
use majit::metainterp::jitcode::{FuncId, JitCodeSet};
use majit::metainterp::runtime::MallocAllocator;
use majit::{Backend, GcBackend, JitDriver, JitError, JitParams, RefExec};

#[path = "common/panics.rs"]
mod panics;

/// The handlers of one state step; 26 is the back edge.
const OPS: i64 = 26;
const LOOP: i64 = 26;
const MIX: i64 = 27;

#[jit_interp(greens = [pc, code], reds = [a, b, fuel])]
fn div(code: &[i64], start: usize, a0: i64, b0: i64, fuel0: i64) -> i64 {
    let mut pc: usize = start;
    let mut a: i64 = a0;
    let mut b: i64 = b0;
    let mut fuel: i64 = fuel0;
    loop {
        jit_merge_point!();
        if fuel == 0 {
            return a;
        }
        fuel -= 1;
        let op = code[pc];
        pc += 1;
        match op {
            0 => return a,
            1 => a = ((a as i8) / (b as i8)) as i64,
            2 => a = ((a as i8) % (b as i8)) as i64,
            3 => a = ((a as i16) / (b as i16)) as i64,
            4 => a = ((a as i16) % (b as i16)) as i64,
            5 => a = ((a as i32) / (b as i32)) as i64,
            6 => a = ((a as i32) % (b as i32)) as i64,
            7 => a /= b,
            8 => a %= b,
            9 => a = ((a as isize) / (b as isize)) as i64,
            10 => a = ((a as isize) % (b as isize)) as i64,
            11 => a = ((a as u8) / (b as u8)) as i64,
            12 => a = ((a as u8) % (b as u8)) as i64,
            13 => a = ((a as u16) / (b as u16)) as i64,
            14 => a = ((a as u16) % (b as u16)) as i64,
            15 => a = ((a as u32) / (b as u32)) as i64,
            16 => a = ((a as u32) % (b as u32)) as i64,
            17 => a = ((a as u64) / (b as u64)) as i64,
            18 => a = ((a as u64) % (b as u64)) as i64,
            19 => a = ((a as usize) / (b as usize)) as i64,
            20 => a = ((a as usize) % (b as usize)) as i64,
            21 => {
                let mut x: u8 = a as u8;
                x %= b as u8;
                a = x as i64;
            }
            22 => a = a / 7 + a % -3,
            23 => a /= -1,
            24 => a %= -1,
            25 => a = ((a as u64) / 10) as i64 + ((a as u64) % 10) as i64,
            LOOP => {
                pc = 0;
                can_enter_jit!();
                continue;
            }
            MIX => {
                a = a.wrapping_mul(31).wrapping_add(b);
                b -= 1;
            }
            _ => return -1,
        }
    }
}

/// splitmix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Edge values (zero, -1, each type's `MIN`), small and any values.
    fn value(&mut self) -> i64 {
        const EDGES: [i64; 10] = [
            0,
            1,
            -1,
            -128,
            -32768,
            i32::MIN as i64,
            255,
            7,
            -7,
            i64::MIN,
        ];
        match self.next() % 3 {
            0 => EDGES[(self.next() % 10) as usize],
            1 => (self.next() % 64) as i64 - 32,
            _ => self.next() as i64,
        }
    }
}

/// One handler in the blackhole, from the merge point with this state.
fn blackhole_step(
    (codes, portal): &(JitCodeSet, FuncId),
    code: &[i64],
    (a, b): (i64, i64),
) -> Result<Outcome, ConcreteError> {
    let jc = codes.get(*portal).unwrap().clone();
    let insn = jc.decode(jc.merge_point_pc().unwrap());
    let mut frame = BhFrame::new(jc.clone(), insn.next);
    let greens = [
        Value::Int(0),
        Value::Ref(code.as_ptr() as usize),
        Value::Int(code.len() as i64),
    ];
    let reds = [Value::Int(a), Value::Int(b), Value::Int(1)];
    for (r, v) in insn.list(0).iter().zip(greens) {
        frame.set(*r, v);
    }
    for (r, v) in insn.list(1).iter().zip(reds) {
        frame.set(*r, v);
    }
    let mut alloc = MallocAllocator::default();
    Blackhole::new(codes, &mut alloc, vec![frame]).run()
}

#[test]
fn division_in_jitcode_matches_rust_for_every_int_type() {
    let mut rng = Rng(0xd1d);
    let jitcode = div_jitcode().unwrap();
    let mut panicked = 0;
    for round in 0..6000 {
        let op = 1 + round as i64 % (OPS - 1);
        let code = [op, 0];
        let (a, b) = (rng.value(), rng.value());
        let what = format!("op {op} a {a} b {b}");
        let plain = panics::catch(|| div(&code, 0, a, b, 1));
        let jit = blackhole_step(&jitcode, &code, (a, b));
        match (plain, jit) {
            (Ok(v), Ok(Outcome::Returned(r))) => assert_eq!(r, Some(Value::Int(v)), "{what}"),
            (Ok(v), Ok(Outcome::MergePoint { reds, .. })) => {
                assert_eq!(reds[0], Value::Int(v), "{what}")
            }
            (Err(p), Err(ConcreteError::Panic(j))) => {
                panicked += 1;
                assert_eq!(j.message, p.message, "{what}");
                assert!(
                    j.place.ends_with(&p.location),
                    "{what}: {} vs {}",
                    j.place,
                    p.location
                );
            }
            (p, j) => panic!("{what}: plain {p:?}, jitcode {j:?}"),
        }
    }
    assert!(panicked > 100, "the edge cases were reached: {panicked}");
}

/// Twice `a = a * 31 + b; b -= 1`, then `a /= b` and `a %= b`: with an
/// even `b` counting down, `a %= b` divides by zero.
const PROGRAM: [i64; 6] = [MIX, 7, MIX, 8, 25, LOOP];

fn jit_run<B: Backend>(driver: &mut JitDriver<B>, b: i64, fuel: i64) -> Result<i64, JitError> {
    panics::quietly(|| div_jit(driver, &PROGRAM, 0, 12345, b, fuel))
}

fn loop_divides_by_zero_in_compiled_code<B: GcBackend>() {
    let mut driver = div_driver::<B>(JitParams::default().with_threshold(3)).unwrap();
    // b runs from 2000 down to 0 (two decrements per iteration).
    let plain = panics::catch(|| div(&PROGRAM, 0, 12345, 2000, 1 << 40)).unwrap_err();
    assert_eq!(
        plain.message,
        "attempt to calculate the remainder with a divisor of zero"
    );
    let err = jit_run(&mut driver, 2000, 1 << 40).unwrap_err();
    let JitError::Panic { place, message } = &err else {
        panic!("{err}");
    };
    assert_eq!(message, &plain.message);
    assert!(
        place.starts_with("`a %= b` at ") && place.ends_with(&plain.location),
        "{place}"
    );
    let s = driver.stats();
    assert!(
        s.loops_compiled >= 1 && s.loop_entries >= 1 && s.guard_failures >= 1,
        "{s}"
    );
    // The driver works afterwards: a run that stops before b reaches 0.
    let want = div(&PROGRAM, 0, 12345, 5001, 6 * 2000);
    assert_eq!(jit_run(&mut driver, 5001, 6 * 2000).unwrap(), want);
}

#[test]
fn refexec_loop_divides_by_zero() {
    loop_divides_by_zero_in_compiled_code::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn native_loop_divides_by_zero() {
    loop_divides_by_zero_in_compiled_code::<majit::HostBackend>();
}

#[test]
fn divisor_checks_are_guards_and_constant_divisors_need_none() {
    let mut driver = div_driver::<RefExec>(JitParams::default().with_threshold(3)).unwrap();
    assert_eq!(
        jit_run(&mut driver, 5001, 1200).unwrap(),
        div(&PROGRAM, 0, 12345, 5001, 1200)
    );
    assert_eq!(driver.loops().len(), 1, "{}", driver.stats());
    let trace = majit::ir::text::print(&driver.loops()[0].trace);
    let has = |s: &str| trace.lines().any(|l| l.contains(s));
    // `a /= b`, `a %= b`: a zero check and a `MIN / -1` check each.
    assert!(
        has("int_floordiv(") && has("int_mod(") && has("guard_true("),
        "{trace}"
    );
    assert!(has("int_ne(") && has("-9223372036854775808)"), "{trace}");
    // `(a as u64) / 10`, `% 10`: unsigned, no check, and nothing is a call.
    assert!(has("uint_floordiv(") && has("uint_mod("), "{trace}");
    assert!(!has("call"), "{trace}");
}
