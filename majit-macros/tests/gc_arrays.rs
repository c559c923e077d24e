//! GC arrays (`Array<T>`): of `Obj` in a struct field, of `i32` and `f64` beside it,
//! of `i64` as a red and as a local, run plain and with the JIT (RefExec
//! and the native backend) under GC stress, where every safepoint after an
//! allocation collects and moves the arrays and the shapes they hold.
//! Out-of-bounds indices fail plain and JIT alike.

mod common;

use common::{emit, take_output};
use majit::gc::{thread_heap, Gc, GcConfig};
use majit::prelude::*;

const FILL: i64 = 0;
const RESET: i64 = 1;
const SUM: i64 = 2;
const ROUND: i64 = 3;

#[jit_interp(
    greens = [pc, code],
    reds = [scene, acc, i, n, total],
    helpers = [residual fn emit(x: i64)],
    structs = [
        #[headered] Circle { r: i64 },
        #[headered] Rect { w: i64, h: i64 },
        Scene { shapes: Array<Obj>, hits: Array<i32>, weights: Array<f64> },
    ]
)]
fn run(code: &[i64], size: usize, rounds: i64) -> i64 {
    let mut pc: usize = 0;
    let mut scene: Scene = Scene::new(Array::new(size), Array::new(2), Array::new(2));
    // Field syntax in setup code, and in a macro's arguments.
    assert_eq!(scene.hits.len(), 2, "{}", scene.shapes.len());
    let mut acc: Array<i64> = Array::new(3);
    let mut i: usize = 0;
    let mut n: i64 = rounds;
    let mut total: i64 = 0;
    loop {
        jit_merge_point!();
        let op = code[pc];
        match op {
            FILL => {
                let k = i as i64;
                scene.shapes[i] = if k % 3 == 0 {
                    Obj::from(Circle::new(k % 10))
                } else {
                    Obj::from(Rect::new(k % 4, 2))
                };
                i += 1;
                if i < scene.shapes.len() {
                    can_enter_jit!();
                    continue;
                }
                pc += 1;
            }
            RESET => {
                i = 0;
                pc += 1;
            }
            SUM => {
                let s: Obj = scene.shapes[i];
                // A scratch array that does not escape.
                let mut t: Array<i64> = Array::<i64>::new(2);
                if s.is::<Circle>() {
                    let c = s.cast::<Circle>();
                    t[0] = 3 * c.r * c.r;
                    scene.hits[0] += 1;
                    scene.weights[0] += 1.5;
                    c.r += 1;
                } else {
                    let r = s.cast::<Rect>();
                    t[0] = r.w * r.h;
                    t[1] = 1;
                    scene.hits[1] += 2;
                    scene.weights[1] -= 0.25;
                }
                total += t[0] + t[1];
                acc[(i as i64 % 3) as usize] += t[0];
                i += 1;
                if i < scene.shapes.len() {
                    can_enter_jit!();
                    continue;
                }
                pc += 1;
            }
            ROUND => {
                n -= 1;
                if n != 0 {
                    pc = 1;
                    can_enter_jit!();
                    continue;
                }
                emit(acc[0]);
                emit(acc[1]);
                emit(acc[2]);
                emit(scene.hits[0] as i64);
                emit(scene.hits[1] as i64);
                emit((scene.weights[0] * 4.0) as i64);
                emit((scene.weights[1] * 4.0) as i64);
                return total;
            }
            _ => return -1,
        }
    }
}

const CODE: [i64; 4] = [FILL, RESET, SUM, ROUND];

/// The same computation on Rust values: (result, output).
fn expected(size: usize, rounds: i64) -> (i64, Vec<i64>) {
    let mut circles: Vec<Option<i64>> = (0..size)
        .map(|i| (i % 3 == 0).then_some(i as i64 % 10))
        .collect();
    let (mut acc, mut hits, mut total) = ([0i64; 3], [0i64; 2], 0i64);
    for _ in 0..rounds {
        for (i, c) in circles.iter_mut().enumerate() {
            let (area, extra) = match c {
                Some(r) => {
                    let a = 3 * *r * *r;
                    hits[0] += 1;
                    *r += 1;
                    (a, 0)
                }
                None => {
                    hits[1] += 2;
                    ((i as i64 % 4) * 2, 1)
                }
            };
            total += area + extra;
            acc[i % 3] += area;
        }
    }
    // weights: 1.5 per circle, -0.25 per rectangle (exact in binary), times 4.
    let weights = [6 * hits[0], -hits[1] / 2];
    let out = vec![
        acc[0], acc[1], acc[2], hits[0], hits[1], weights[0], weights[1],
    ];
    (total, out)
}

fn stress_heap() {
    let config = GcConfig {
        nursery_size: 1024,
        stress_every: Some(1),
        max_heap: 64 << 20,
        ..GcConfig::default()
    };
    thread_heap::install(Gc::new(config).unwrap());
}

fn minor_collections() -> u64 {
    thread_heap::shared()
        .unwrap()
        .borrow()
        .stats()
        .minor_collections
}

const SIZE: usize = 50;
const ROUNDS: i64 = 40;

#[test]
fn plain_and_jit_agree_under_gc_stress() {
    let (want, out) = expected(SIZE, ROUNDS);
    stress_heap();
    assert_eq!(run(&CODE, SIZE, ROUNDS), want);
    assert_eq!(take_output(), out);
    assert!(minor_collections() >= (SIZE as u64) * ROUNDS as u64);

    stress_heap();
    let mut driver = run_driver::<RefExec>(JitParams::default().with_threshold(3)).unwrap();
    assert_eq!(run_jit(&mut driver, &CODE, SIZE, ROUNDS).unwrap(), want);
    assert_eq!(take_output(), out);
    let stats = driver.stats();
    assert!(
        stats.loops_compiled >= 1 && stats.loop_entries >= 1,
        "{stats}"
    );
    // The shapes moved at least once each (the scratch arrays are removed).
    assert!(minor_collections() >= SIZE as u64);
    // The scratch array of SUM is never allocated in a compiled loop.
    for l in driver.loops() {
        let text = majit::ir::text::print(&l.trace);
        assert!(!text.contains("new_array("), "{text}");
    }
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn native_jit_agrees_under_gc_stress() {
    let (want, out) = expected(SIZE, ROUNDS);
    stress_heap();
    let mut driver = run_driver::<HostBackend>(JitParams::default().with_threshold(3)).unwrap();
    assert_eq!(run_jit(&mut driver, &CODE, SIZE, ROUNDS).unwrap(), want);
    assert_eq!(take_output(), out);
    let stats = driver.stats();
    assert!(
        stats.loops_compiled >= 1 && stats.loop_entries >= 1,
        "{stats}"
    );
    // The shapes moved at least once each (the scratch arrays are removed).
    assert!(minor_collections() >= SIZE as u64);
}
