//! Allocation throughput of majit-gc: headered vs headerless objects.
//!
//! Each element allocates one list node with the same payload, `{value,
//! next}`: 16 bytes headerless, or 24 bytes headered (header word first),
//! writes its value word and links it into a list rooted on the shadow
//! stack, which is what an interpreter's push does. The list is cut every 1024
//! allocations, so most objects die young and minor collections stay
//! cheap, as in the Aheui workload.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use majit_gc::{Gc, GcConfig, GcRef, Layout, TypeId};
use std::hint::black_box;
use std::time::Duration;

/// CPU time consumed by the calling thread.
fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid out-pointer; the clock id is supported on
    // Linux and macOS.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Runs `f` `iters` times and returns the CPU time it took.
fn cpu_timed(iters: u64, mut f: impl FnMut()) -> Duration {
    let start = thread_cpu_time();
    for _ in 0..iters {
        f();
    }
    thread_cpu_time() - start
}

/// Allocates `n` objects of `ty`, linking each to the previous one.
fn push_many(gc: &mut Gc, ty: TypeId, value_offset: u32, next_offset: u32, n: usize) {
    let head = 0;
    for i in 0..n {
        let obj = gc.alloc(ty).unwrap();
        gc.write_word(obj, value_offset, i as u64);
        let next = if i.is_multiple_of(1024) {
            GcRef::NULL
        } else {
            gc.root(head)
        };
        gc.write_ref(obj, next_offset, next);
        gc.set_root(head, obj);
    }
}

fn bench_alloc(c: &mut Criterion) {
    const N: usize = 10_000;
    let mut group = c.benchmark_group("gc_alloc");
    group.throughput(Throughput::Elements(N as u64));
    let cases = [
        (
            "headerless_node16",
            Layout::headerless("Node", 16, &[8]),
            0,
            8,
        ),
        (
            "headered_node24",
            Layout::headered("Node", 24, &[16]),
            8,
            16,
        ),
    ];
    for (name, layout, value_offset, next_offset) in cases {
        let mut gc = Gc::new(GcConfig::default()).unwrap();
        let ty = gc.register_layout(layout).unwrap();
        gc.push_root(GcRef::NULL);
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                cpu_timed(iters, || {
                    push_many(&mut gc, ty, value_offset, next_offset, black_box(N))
                })
            })
        });
    }
    group.finish();
}

/// Allocation alone: `n` objects of `ty`, each with its value word set,
/// none kept (the nursery fills and empties at almost no cost).
fn alloc_many(gc: &mut Gc, ty: TypeId, value_offset: u32, n: usize) {
    for i in 0..n {
        let obj = gc.alloc(ty).unwrap();
        gc.write_word(obj, value_offset, i as u64);
    }
}

fn bench_alloc_only(c: &mut Criterion) {
    const N: usize = 10_000;
    let mut group = c.benchmark_group("gc_alloc_only");
    group.throughput(Throughput::Elements(N as u64));
    let cases = [
        ("headerless_node16", Layout::headerless("Node", 16, &[8]), 0),
        ("headered_node24", Layout::headered("Node", 24, &[16]), 8),
    ];
    for (name, layout, value_offset) in cases {
        let mut gc = Gc::new(GcConfig::default()).unwrap();
        let ty = gc.register_layout(layout).unwrap();
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                cpu_timed(iters, || {
                    alloc_many(&mut gc, ty, value_offset, black_box(N))
                })
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_alloc, bench_alloc_only);
criterion_main!(benches);
