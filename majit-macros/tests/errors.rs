//! Panics in JIT mode end the run with `JitError::Panic`, never abort the
//! process: a helper that panics while the JIT interprets, traces, runs
//! the blackhole, a compiled loop or a bridge, and an index out of
//! bounds, each give the plain run's panic message (index and length
//! included) and name the helper or the expression and its location. On
//! RefExec and native code, under GC stress (the loop allocates); the
//! driver and the heap work afterwards. The stats show where the JIT was
//! when it happened.

use majit::gc::{thread_heap, Gc, GcConfig};
use majit::{jit_interp, GcBackend, JitDriver, JitError, JitParams, RefExec};

#[path = "common/panics.rs"]
mod panics;

const CHECK: i64 = 0;
const HALF: i64 = 1;
const RARE: i64 = 2;
const EVEN: i64 = 3;
const INDEX: i64 = 4;
const PUSH: i64 = 5;
const LOOP: i64 = 6;
const ITEM: i64 = 7;

fn check(n: i64, trip: i64) -> i64 {
    if n == trip {
        panic!("check failed at {n}");
    }
    n & 7
}

fn half(n: i64, trip: i64) -> i64 {
    if n == trip {
        panic!("half failed at {n}");
    }
    n / 2
}

fn rare(n: i64, trip: i64) -> i64 {
    if n == trip {
        panic!("rare failed at {n}");
    }
    n * 3
}

#[jit_interp(
    greens = [pc, code],
    reds = [n, acc, trip, head, stack, pair],
    helpers = [
        residual fn check(n: i64, trip: i64) -> i64,
        elidable fn half(n: i64, trip: i64) -> i64,
        residual fn rare(n: i64, trip: i64) -> i64,
    ],
    structs = [Cell { value: i64, next: Cell }]
)]
fn run(code: &[i64], stack: &mut [i64], n0: i64, trip: i64) -> i64 {
    let mut pc: usize = 0;
    let mut n: i64 = n0;
    let mut acc: i64 = 0;
    let mut head: Cell = Cell::null();
    let mut pair: [i64; 2] = [0, 0];
    loop {
        jit_merge_point!();
        let op = code[pc];
        pc += 1;
        match op {
            CHECK => acc = acc.wrapping_add(check(n, trip)),
            HALF => acc = acc.wrapping_add(half(n, trip)),
            RARE => {
                if n % 64 == 5 {
                    acc ^= rare(n, trip);
                }
            }
            EVEN => {
                if n % 2 == 0 {
                    acc ^= rare(n, trip);
                }
            }
            INDEX => {
                let i = ((n & 3) + (n == trip) as i64 * 8) as usize;
                acc = acc.wrapping_add(stack[i]);
                stack[i] += 1;
            }
            ITEM => {
                let i = ((n & 1) + (n == trip) as i64 * 2) as usize;
                pair[i] += n;
                acc ^= pair[i];
            }
            PUSH => head = Cell::new(acc, head),
            LOOP => {
                n -= 1;
                if n != 0 {
                    pc = 0;
                    can_enter_jit!();
                    continue;
                }
                let mut k: Cell = head;
                while !k.is_null() {
                    acc = acc.wrapping_mul(31).wrapping_add(k.value());
                    k = k.next();
                }
                return acc;
            }
            _ => return -1,
        }
    }
}

const N: i64 = 300;

fn stress_heap() {
    let config = GcConfig {
        nursery_size: 1024,
        stress_every: Some(1),
        max_heap: 64 << 20,
        ..GcConfig::default()
    };
    thread_heap::install(Gc::new(config).unwrap());
}

/// Threshold 3, bridges after 5 failures; `diff`: entries checked against
/// the reference executor (differential mode, native only).
fn driver<B: GcBackend>(diff: u32) -> JitDriver<B> {
    let params = JitParams::default()
        .with_threshold(3)
        .with_bridge_threshold(5);
    run_driver::<B>(params.with_diff(diff)).unwrap()
}

/// The plain run of `op` (then `PUSH`, `LOOP`) panicking at `trip`.
fn plain_panic(op: i64, trip: i64) -> panics::Caught {
    let mut stack = [1i64, 2, 3, 4];
    panics::catch(move || run(&[op, PUSH, LOOP], &mut stack, N, trip)).unwrap_err()
}

/// The JIT run of the same: its `JitError::Panic` (place, message).
fn jit_panic<B: GcBackend>(driver: &mut JitDriver<B>, op: i64, trip: i64) -> (String, String) {
    let mut stack = [1i64, 2, 3, 4];
    let r = panics::quietly(|| run_jit(driver, &[op, PUSH, LOOP], &mut stack, N, trip));
    match r {
        Err(JitError::Panic { place, message }) => (place, message),
        other => panic!("op {op} trip {trip}: {other:?}"),
    }
}

/// After an error the driver and heap still work: a run without a trip
/// gives the plain result.
fn still_works<B: GcBackend>(driver: &mut JitDriver<B>, op: i64) {
    let code = [op, PUSH, LOOP];
    let (mut s1, mut s2) = ([1i64, 2, 3, 4], [1i64, 2, 3, 4]);
    let want = run(&code, &mut s1, N, -1);
    assert_eq!(run_jit(driver, &code, &mut s2, N, -1).unwrap(), want);
    assert_eq!(s1, s2);
}

/// `op` panics at `trip` on `B`: the error is the plain panic's message
/// at `place`; returns the driver for the caller's stats checks.
fn panics_like_plain<B: GcBackend>(diff: u32, op: i64, trip: i64, place: &str) -> JitDriver<B> {
    stress_heap();
    let plain = plain_panic(op, trip);
    let mut d = driver::<B>(diff);
    let (p, message) = jit_panic(&mut d, op, trip);
    assert_eq!(message, plain.message, "op {op} trip {trip}");
    assert!(p.starts_with(place), "op {op} trip {trip}: {p}");
    d
}

fn every_place<B: GcBackend>(diff: u32) {
    // Before the loop is hot: `run_jit` itself is interpreting.
    let mut d = panics_like_plain::<B>(diff, CHECK, N, "`run_jit` while interpreting");
    assert_eq!(d.stats().traces_started, 0, "{}", d.stats());
    still_works(&mut d, CHECK);

    // In the tracer: the iteration being traced calls `check`.
    let mut d = panics_like_plain::<B>(diff, CHECK, N - 3, "helper `check`");
    let s = d.stats();
    assert!(s.traces_started == 1 && s.loops_compiled == 0, "{s}");
    still_works(&mut d, CHECK);
    assert!(d.stats().loop_entries >= 1, "{}", d.stats());

    // In the compiled loop, residual and elidable (a `call_pure`).
    for op in [CHECK, HALF] {
        let mut d = panics_like_plain::<B>(diff, op, 100, "helper `");
        let s = d.stats();
        assert!(s.loop_entries >= 1 && s.blackhole_runs == 0, "{s}");
        assert!(diff == 0 || s.diff_checks >= 1, "{s}");
        still_works(&mut d, op);
    }

    // In the blackhole: a guard of the loop fails once, at the trip.
    let mut d = panics_like_plain::<B>(diff, RARE, 133, "helper `rare`");
    let s = d.stats();
    assert!(
        s.loop_entries >= 1 && s.blackhole_runs >= 1 && s.bridges_compiled == 0,
        "{s}"
    );
    still_works(&mut d, RARE);

    // In a bridge: the guard of `n % 2 == 0` fails every other iteration.
    let mut d = panics_like_plain::<B>(diff, EVEN, 60, "helper `rare`");
    let s = d.stats();
    assert!(s.bridges_compiled >= 1, "{s}");
    still_works(&mut d, EVEN);

    // An index out of bounds in the loop (the bounds check's guard fails).
    let plain = plain_panic(INDEX, 150);
    assert_eq!(
        plain.message,
        "index out of bounds: the len is 4 but the index is 10"
    );
    let mut d = panics_like_plain::<B>(diff, INDEX, 150, "`stack[i]` at ");
    let (place, _) = jit_panic(&mut d, INDEX, 150);
    assert!(
        place.ends_with(&plain.location),
        "{place} vs {}",
        plain.location
    );
    assert!(d.stats().loop_entries >= 1, "{}", d.stats());
    still_works(&mut d, INDEX);

    // The same for an array red (whose items are registers).
    let plain = plain_panic(ITEM, 151);
    assert_eq!(
        plain.message,
        "index out of bounds: the len is 2 but the index is 3"
    );
    let mut d = panics_like_plain::<B>(diff, ITEM, 151, "`pair[i]` at ");
    assert!(d.stats().loop_entries >= 1, "{}", d.stats());
    still_works(&mut d, ITEM);
}

#[test]
fn refexec_reports_every_panic() {
    every_place::<RefExec>(0);
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn native_reports_every_panic() {
    every_place::<majit::HostBackend>(0);
}

/// Differential mode records the native run's helper calls (and their
/// signals) and replays them to the reference executor: both leave
/// through the same `guard_no_exception`.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn native_reports_every_panic_in_diff_mode() {
    every_place::<majit::HostBackend>(1000);
}
