//! Compile time per op of the native backend: random traces (arithmetic,
//! floats, guards, calls, loops) through scheduling, allocation and
//! emission, compiled and freed repeatedly. Criterion reports time per
//! trace; the throughput line divides it by the ops, so "elements" are ops.
//! The allocation checker is off in release builds.

#[cfg(target_arch = "x86_64")]
mod bench {
    use criterion::{black_box, Criterion, Throughput};
    use majit_backend_dynasm::HostBackend;
    use majit_ir::fuzzing::{random_trace, Knobs};
    use majit_ir::Trace;
    use majit_metainterp::Backend;

    fn traces(max_ops: usize, n: u64) -> Vec<Trace> {
        (0..n)
            .map(|seed| {
                let knobs = Knobs {
                    max_ops,
                    max_inputs: 6,
                    memory: false,
                    lowered: false,
                    loops: seed % 2 == 0,
                    ..Knobs::default()
                };
                random_trace(seed, &knobs)
            })
            .collect()
    }

    /// This thread's CPU time in seconds (unaffected by other processes
    /// competing for the machine, unlike criterion's wall clock).
    fn cpu_seconds() -> f64 {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid timespec to write.
        unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
    }

    /// Prints the CPU time per op over `rounds` compilations of `set`.
    fn cpu_per_op(set: &[Trace], rounds: usize) {
        let mut backend = HostBackend::new().expect("backend");
        let ops: usize = set.iter().map(|t| t.ops.len()).sum();
        let start = cpu_seconds();
        for _ in 0..rounds {
            for t in set {
                let code = backend.compile_loop(black_box(t)).expect("compiles");
                backend.free(code);
            }
        }
        let per_op = (cpu_seconds() - start) / (ops * rounds) as f64;
        println!(
            "compile: {:.2} us/op CPU time ({ops} ops x {rounds})",
            per_op * 1e6
        );
    }

    pub fn compile(c: &mut Criterion) {
        let mut group = c.benchmark_group("compile");
        for max_ops in [40, 400] {
            let set = traces(max_ops, 32);
            let ops: usize = set.iter().map(|t| t.ops.len()).sum();
            group.throughput(Throughput::Elements(ops as u64));
            cpu_per_op(&set, 20);
            let mut backend = HostBackend::new().expect("backend");
            group.bench_function(format!("{max_ops}_ops_x32"), |b| {
                b.iter(|| {
                    for t in &set {
                        let code = backend.compile_loop(black_box(t)).expect("compiles");
                        backend.free(code);
                    }
                })
            });
        }
        group.finish();
    }
}

#[cfg(target_arch = "x86_64")]
criterion::criterion_group!(benches, bench::compile);
#[cfg(target_arch = "x86_64")]
criterion::criterion_main!(benches);

#[cfg(not(target_arch = "x86_64"))]
fn main() {}
