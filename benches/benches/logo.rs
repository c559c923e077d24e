//! Criterion: logo.aheui with the JIT and with the plain interpreter
//! (`--no-jit`), side by side in one run. Logo is long (seconds per run),
//! so the group takes the minimum of ten samples.

use aheui::cli::JitConfig;
use aheui::code::CodeSpace;
use aheui::engine::{self, Engine};
use criterion::{criterion_group, criterion_main, Criterion};
use std::time::Duration;

fn logo(c: &mut Criterion) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/aheui/bench/");
    let source = std::fs::read_to_string(format!("{dir}logo.aheui")).expect("logo.aheui");
    let code = CodeSpace::build(&source).expect("logo builds");
    let params = JitConfig::default().params().expect("MAJIT_* parameters");
    let mut g = c.benchmark_group("logo");
    g.sample_size(10).measurement_time(Duration::from_secs(30));
    let run = |engine: Engine| {
        let sink = Box::new(std::io::sink());
        engine::run(&code, Box::new(&b""[..]), sink, engine).expect("logo runs")
    };
    g.bench_function("jit", |b| b.iter(|| run(Engine::Jit(params.clone()))));
    g.bench_function("no-jit", |b| b.iter(|| run(Engine::Plain)));
    g.finish();
}

criterion_group!(benches, logo);
criterion_main!(benches);
