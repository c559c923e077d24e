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

    pub fn compile(c: &mut Criterion) {
        let mut group = c.benchmark_group("compile");
        for max_ops in [40, 400] {
            let set = traces(max_ops, 32);
            let ops: usize = set.iter().map(|t| t.ops.len()).sum();
            group.throughput(Throughput::Elements(ops as u64));
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
