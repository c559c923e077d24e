//! The checks of GC objects in JIT mode end the run with `JitError::Panic`
//! carrying the plain panic's message: an index out of bounds of a GC
//! array, a null GC array, and an `Obj::cast` to the wrong class, each
//! inside a compiled loop (RefExec and native, under GC stress).

use majit::gc::{thread_heap, Gc, GcConfig};
use majit::prelude::*;

#[path = "common/panics.rs"]
mod panics;

const INDEX: i64 = 0;
const NULL: i64 = 1;
const CAST: i64 = 2;

#[jit_interp(
    greens = [pc, code],
    reds = [items, shape, n, acc, trip],
    structs = [#[headered] Circle { r: i64 }, #[headered] Rect { w: i64 }]
)]
fn run(code: &[i64], count: i64, trip: i64) -> i64 {
    let pc: usize = 0;
    let mut items: Array<i64> = Array::<i64>::new(4);
    let mut shape: Obj = Obj::from(Circle::new(2));
    let mut n: i64 = count;
    let mut acc: i64 = 0;
    loop {
        jit_merge_point!();
        let op = code[pc];
        match op {
            INDEX => {
                let i = ((n & 3) + (n == trip) as i64 * 4) as usize;
                items[i] += n;
                acc += items[i];
            }
            NULL => {
                if n == trip {
                    items = Array::<i64>::null();
                }
                acc += items.len() as i64;
            }
            CAST => {
                if n == trip {
                    shape = Obj::from(Rect::new(3));
                }
                let c = shape.cast::<Circle>();
                acc += c.r;
            }
            _ => return -1,
        }
        n -= 1;
        if n == 0 {
            return acc;
        }
        can_enter_jit!();
        continue;
    }
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

fn every_check<B: GcBackend>() {
    let cases = [
        (
            INDEX,
            "index out of bounds: the len is 4 but the index is 5",
        ),
        (NULL, "null Array_i64 dereferenced"),
        (CAST, "Obj::cast: the object is not a `Circle`"),
    ];
    for (op, want) in cases {
        stress_heap();
        let plain = panics::catch(|| run(&[op], 300, 101)).unwrap_err();
        assert_eq!(plain.message, want);
        let mut driver = run_driver::<B>(JitParams::default().with_threshold(3)).unwrap();
        let r = panics::quietly(|| run_jit(&mut driver, &[op], 300, 101));
        let Err(JitError::Panic { place, message }) = r else {
            panic!("op {op}: {r:?}");
        };
        assert_eq!(message, want, "op {op} at {place}");
        let s = driver.stats();
        assert!(s.loop_entries >= 1 && s.guard_failures >= 1, "{s}");
        assert_eq!(
            run_jit(&mut driver, &[op], 300, -1).unwrap(),
            run(&[op], 300, -1)
        );
    }
}

#[test]
fn refexec_reports_object_check_failures() {
    every_check::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn native_reports_object_check_failures() {
    every_check::<HostBackend>();
}
