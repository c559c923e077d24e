//! Objects: field syntax on GC handles, `#[headered]` structs of two
//! classes held as `Obj` and class-tested, run plain and with the JIT
//! (RefExec and the native backend) under GC stress; the optimizer removes
//! the allocation and class test of shapes that do not escape, and keeps one
//! class guard for an object tested again and again.

mod common;

use common::{emit, take_output};
use majit::gc::{thread_heap, Gc, GcConfig};
use majit::prelude::*;

const PUSH: i64 = 0;
const TEMP: i64 = 1;
const GROW: i64 = 2;
const NEXT: i64 = 3;

#[jit_interp(
    greens = [pc, code],
    reds = [shapes, n, total],
    helpers = [residual fn emit(x: i64)],
    structs = [
        #[headered] Circle { r: i64 },
        #[headered] Rect { w: i64, h: i64 },
        Cell { shape: Obj, next: Cell },
    ]
)]
fn run(code: &[i64], count: i64) -> i64 {
    let mut pc: usize = 0;
    let mut shapes: Cell = Cell::null();
    let mut n: i64 = count;
    let mut total: i64 = 0;
    loop {
        jit_merge_point!();
        let op = code[pc];
        pc += 1;
        match op {
            // A shape of either class on a list (it escapes).
            PUSH => {
                let s: Obj = if n % 2 == 0 {
                    Obj::from(Circle::new(n % 7))
                } else {
                    Obj::from(Rect::new(n % 5, 3))
                };
                shapes = Cell::new(s, shapes);
            }
            // A shape that does not escape: its area.
            TEMP => {
                let t: Obj = if n % 3 == 0 {
                    Obj::from(Circle::new(n % 11))
                } else {
                    Obj::from(Rect::new(n % 13, 2))
                };
                if t.is::<Circle>() {
                    let c = t.cast::<Circle>();
                    total += 3 * c.r * c.r;
                } else if t.is::<Rect>() {
                    let r = t.cast::<Rect>();
                    total += r.w * r.h;
                }
            }
            // Grow the head shape in place (field syntax on a heap object).
            GROW => {
                let s: Obj = shapes.shape;
                if s.is::<Rect>() {
                    let r = s.cast::<Rect>();
                    r.w += 1;
                    total += r.w * r.h;
                } else {
                    let c = s.cast::<Circle>();
                    c.r = c.r + 1;
                    total -= c.r;
                }
            }
            NEXT => {
                n -= 1;
                if n != 0 {
                    pc = 0;
                    can_enter_jit!();
                    continue;
                }
                let mut c: Cell = shapes;
                while !c.is_null() {
                    let s: Obj = c.shape;
                    if s.is::<Circle>() {
                        total += s.cast::<Circle>().r;
                    }
                    if s.is::<Rect>() {
                        let r = s.cast::<Rect>();
                        total += r.w * 100 + r.h;
                    }
                    c = c.next;
                }
                emit(total);
                return total;
            }
            _ => return -1,
        }
    }
}

const CODE: [i64; 4] = [PUSH, TEMP, GROW, NEXT];

/// The same computation on Rust values.
fn expected(count: i64) -> i64 {
    enum S {
        C(i64),
        R(i64, i64),
    }
    let (mut list, mut total) = (Vec::new(), 0i64);
    for n in (1..=count).rev() {
        list.push(if n % 2 == 0 {
            S::C(n % 7)
        } else {
            S::R(n % 5, 3)
        });
        total += if n % 3 == 0 {
            3 * (n % 11) * (n % 11)
        } else {
            (n % 13) * 2
        };
        match list.last_mut().unwrap() {
            S::R(w, h) => {
                *w += 1;
                total += *w * *h;
            }
            S::C(r) => {
                *r += 1;
                total -= *r;
            }
        }
    }
    for s in list.iter().rev() {
        total += match s {
            S::C(r) => *r,
            S::R(w, h) => w * 100 + h,
        };
    }
    total
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

#[test]
fn plain_and_jit_agree_under_gc_stress() {
    let count = 2000;
    let want = expected(count);
    stress_heap();
    assert_eq!(run(&CODE, count), want);
    assert_eq!(take_output(), vec![want]);
    assert!(minor_collections() >= count as u64);

    stress_heap();
    let mut driver = run_driver::<RefExec>(JitParams::default().with_threshold(3)).unwrap();
    assert_eq!(run_jit(&mut driver, &CODE, count).unwrap(), want);
    assert_eq!(take_output(), vec![want]);
    let stats = driver.stats();
    assert!(stats.loops_compiled >= 1, "{stats}");
    assert!(stats.loop_entries >= 1, "{stats}");
    assert!(minor_collections() >= count as u64);
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn native_jit_agrees_under_gc_stress() {
    let count = 2000;
    stress_heap();
    let mut driver = run_driver::<HostBackend>(JitParams::default().with_threshold(3)).unwrap();
    assert_eq!(run_jit(&mut driver, &CODE, count).unwrap(), expected(count));
    assert_eq!(take_output(), vec![expected(count)]);
    let stats = driver.stats();
    assert!(stats.loops_compiled >= 1, "{stats}");
    assert!(stats.loop_entries >= 1, "{stats}");
    assert!(minor_collections() >= count as u64);
}

/// Shapes that never escape, built and tested every iteration.
#[jit_interp(
    greens = [pc],
    reds = [n, total],
    structs = [#[headered] Square { side: i64 }, #[headered] Tri { base: i64, h: i64 }]
)]
fn temporaries(count: i64) -> i64 {
    let pc: usize = 0;
    let mut n: i64 = count;
    let mut total: i64 = 0;
    loop {
        jit_merge_point!();
        let s: Obj = if n % 4 == 0 {
            Obj::from(Tri::new(n, 4))
        } else {
            Obj::from(Square::new(n))
        };
        if s.is::<Square>() {
            let q = s.cast::<Square>();
            q.side += 1;
            total += q.side * q.side;
        } else {
            let t = s.cast::<Tri>();
            total += t.base * t.h / 2;
        }
        n -= 1;
        if n == 0 {
            return total + pc as i64;
        }
        can_enter_jit!();
        continue;
    }
}

fn count(text: &str, op: &str) -> usize {
    text.matches(op).count()
}

#[test]
fn objects_that_do_not_escape_are_not_allocated_nor_class_tested() {
    stress_heap();
    let want = temporaries(5000);
    stress_heap();
    let mut driver = temporaries_driver::<RefExec>(JitParams::default().with_threshold(3)).unwrap();
    assert_eq!(temporaries_jit(&mut driver, 5000).unwrap(), want);
    let stats = driver.stats();
    assert!(
        stats.loops_compiled >= 1 && stats.loop_entries >= 1,
        "{stats}"
    );
    for l in driver.loops() {
        let text = majit::ir::text::print(&l.trace);
        assert_eq!(count(&text, "new("), 0, "{text}");
        assert_eq!(count(&text, "new_with_vtable("), 0, "{text}");
        assert_eq!(count(&text, "guard_class("), 0, "{text}");
        assert_eq!(count(&text, "guard_nonnull_class("), 0, "{text}");
    }
}

/// One object tested twice per iteration, never moved: one class guard.
#[jit_interp(
    greens = [pc],
    reds = [o, n, total],
    structs = [#[headered] Big { v: i64 }, #[headered] Small { v: i64 }]
)]
fn retest(big: bool, count: i64) -> i64 {
    let pc: usize = 0;
    let mut o: Obj = if big {
        Obj::from(Big::new(10))
    } else {
        Obj::from(Small::new(1))
    };
    let mut n: i64 = count;
    let mut total: i64 = 0;
    loop {
        jit_merge_point!();
        if o.is::<Big>() {
            total += o.cast::<Big>().v;
        }
        if o.is::<Small>() {
            total -= o.cast::<Small>().v;
        }
        n -= 1;
        if n == 0 {
            return total + pc as i64;
        }
        can_enter_jit!();
        continue;
    }
}

#[test]
fn a_class_is_guarded_once_per_object() {
    for big in [true, false] {
        stress_heap();
        let want = retest(big, 1000);
        let mut driver = retest_driver::<RefExec>(JitParams::default().with_threshold(3)).unwrap();
        assert_eq!(retest_jit(&mut driver, big, 1000).unwrap(), want);
        let stats = driver.stats();
        assert!(
            stats.loops_compiled >= 1 && stats.loop_entries >= 1,
            "{stats}"
        );
        for l in driver.loops() {
            let text = majit::ir::text::print(&l.trace);
            let guards = count(&text, "guard_class(") + count(&text, "guard_nonnull_class(");
            // In the preamble; the peeled loop knows the class.
            assert_eq!(guards, 1, "{text}");
        }
    }
}

/// A driver made before `thread_heap::install` replaced the heap (here on
/// a thread without a heap yet: making the driver creates one) holds the
/// old heap's type ids, which the new heap's objects do not carry: running
/// it is a clear error (it once failed an `Obj::cast` of an object of the
/// right class), and the driver made again works.
#[test]
fn a_driver_of_a_replaced_heap_is_a_clear_error() {
    std::thread::spawn(|| {
        let mut stale = run_driver::<RefExec>(JitParams::default()).unwrap();
        stress_heap();
        let e = run_jit(&mut stale, &CODE, 100).unwrap_err();
        assert!(
            matches!(&e, JitError::BadState(m) if m.contains("thread heap was replaced")),
            "{e}"
        );
        let mut driver = run_driver::<RefExec>(JitParams::default().with_threshold(3)).unwrap();
        assert_eq!(run_jit(&mut driver, &CODE, 100).unwrap(), expected(100));
        assert_eq!(take_output(), vec![expected(100)]);
    })
    .join()
    .unwrap();
}
