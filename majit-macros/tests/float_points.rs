//! A float VM end to end: points with `f64` fields moving in a loop, a
//! float accumulator and printed floats give the same output plain and
//! with the JIT (RefExec and the native backend) under GC stress, the loop
//! is compiled and entered, and its optimized trace allocates nothing
//! (the points never escape: every `Point::new` is removed).

mod common;
#[path = "common/heap.rs"]
mod heap;

use common::{emit, take_output};
use heap::stress_heap;
use majit::jit_interp;
use majit::metainterp::gcheap::GcBackend;
use majit::JitParams;
use majit::RefExec;

/// Prints a float (its bits, through the tests' output channel).
fn print(x: f64) {
    emit(x.to_bits() as i64);
}

const MOVE: i64 = 0;
const MEASURE: i64 = 1;
const WRAP: i64 = 2;
const LOOP: i64 = 3;

#[jit_interp(
    greens = [pc, code],
    reds = [p, v, acc, n],
    helpers = [residual fn print(x: f64)],
    structs = [Point { x: f64, y: f64 }]
)]
fn run(code: &[i64], count: i64) -> f64 {
    let mut pc: usize = 0;
    let mut p: Point = Point::new(0.0, 0.0);
    let mut v: Point = Point::new(0.75, -0.5);
    let mut acc: f64 = 0.0;
    let mut n: i64 = count;
    loop {
        jit_merge_point!();
        let op = code[pc];
        pc += 1;
        match op {
            // p += v (a temporary point), v rotated a little.
            MOVE => {
                let d = Point::new(v.x() * 1.5, v.y());
                p = Point::new(p.x() + d.x(), p.y() + d.y());
                v = Point::new(v.x() * 0.999 - v.y() * 0.01, v.y() * 0.999 + v.x() * 0.01);
            }
            MEASURE => acc += (p.x() * p.x() + p.y() * p.y()).sqrt() / 16.0,
            WRAP => {
                if p.x() > 50.0 || p.x() < -50.0 {
                    p = Point::new(-p.x() * 0.5, p.y());
                }
                if n % 1000 == 0 {
                    print(acc);
                }
            }
            LOOP => {
                n -= 1;
                if n != 0 {
                    pc = 0;
                    can_enter_jit!();
                    continue;
                }
                return acc + p.x() as i64 as f64 + p.y();
            }
            _ => return -1.0,
        }
    }
}

const CODE: [i64; 4] = [MOVE, MEASURE, WRAP, LOOP];
const COUNT: i64 = 5000;

/// The plain interpreter's result and output.
fn plain() -> (f64, Vec<i64>) {
    stress_heap();
    let r = run(&CODE, COUNT);
    (r, take_output())
}

/// The JIT on backend `B` under GC stress: the same result and output as
/// the plain interpreter, a loop compiled and entered, and no allocation
/// left in it (every `Point::new` of the trace removed).
fn jit_agrees<B: GcBackend>() {
    let (want, out) = plain();
    assert_eq!(out.len(), 5);
    stress_heap();
    let mut driver = run_driver::<B>(JitParams::default().with_threshold(3)).unwrap();
    let got = run_jit(&mut driver, &CODE, COUNT).unwrap();
    assert_eq!(got.to_bits(), want.to_bits(), "{got} {want}");
    assert_eq!(take_output(), out);
    let stats = driver.stats();
    assert!(stats.loops_compiled >= 1, "{stats}");
    assert!(stats.loop_entries >= 1, "{stats}");
    assert_eq!(stats.allocations_kept, 0, "{stats}");
    assert!(stats.allocations_removed >= 3, "{stats}");
}

#[test]
fn refexec_agrees_and_the_loop_allocates_nothing() {
    jit_agrees::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn native_jit_agrees_and_the_loop_allocates_nothing() {
    jit_agrees::<majit::HostBackend>();
}
