//! Shared backend test support: the trace-text suite runner, the
//! differential fuzzer (refexec against a native backend) and the call
//! helpers both use. An architecture runs all of it with one line:
//! `backend_suite!(x86_64);` (see `tests/x86_64.rs`).
//!
//! Suite files (`tests/suite/*.trace`) are trace text in the shared test
//! namespace, preceded by `; run: v0, v1, ...` lines. Each run line gives
//! the inputs; the trace runs on refexec and natively and everything must
//! agree: the exit, its descr, every dead-frame value and the contents of
//! the scratch buffer `@buf` (512 zeroed bytes before each run). Value
//! syntax by input kind: ints and floats as Rust literals (`nan`, `inf`),
//! refs as `null` or a number; `buf` is the buffer's address (int or ref).
//! Helpers are named by symbols: `@ii_i`, `@i_v`, `@ff_f`, `@ff_v`,
//! `@many`, `@r_r`, `@force_i`, `@scribble`, `@c11`.

#![allow(dead_code)]

use majit_backend_dynasm::arch::Arch;
use majit_backend_dynasm::regalloc::RandomPolicy;
use majit_backend_dynasm::sched::RandomSched;
use majit_backend_dynasm::NativeBackend;
use majit_ir::fuzzing::{
    random_trace, test_namespace, Knobs, SplitMix64, CALL_DESCRS, CALL_TARGET_BASE,
};
use majit_ir::{parse_with, print, Const, Kind, Namespace, Trace, Value};
use majit_metainterp::refexec::RefExec;
use majit_metainterp::{Backend, DeadFrame, ExecError};
use std::path::Path;

pub extern "C" fn ii_i(a: i64, b: i64) -> i64 {
    a.wrapping_mul(31) ^ b
}
pub extern "C" fn i_v(_a: i64) {}
pub extern "C" fn ff_f(a: f64, b: f64) -> f64 {
    a * b + 1.0
}
pub extern "C" fn ff_v(_a: f64, _b: f64) {}
#[allow(clippy::too_many_arguments)]
pub extern "C" fn many(
    a: i64,
    p: usize,
    x: f64,
    b: i64,
    q: usize,
    y: f64,
    c: i64,
    d: i64,
    z: f64,
) -> i64 {
    let ints = a ^ b.wrapping_mul(3) ^ c.wrapping_mul(5) ^ d.wrapping_mul(7);
    let refs = (p ^ q) as i64;
    let floats = (x + 2.0 * y + 3.0 * z) as i64;
    ints.wrapping_add(refs).wrapping_add(floats)
}
pub extern "C" fn r_r(p: usize) -> usize {
    p
}
pub extern "C" fn force_i(a: i64) -> i64 {
    a.wrapping_add(1)
}

/// A helper that overwrites every caller-saved register (int and xmm)
/// before returning `a + 1`; values the caller keeps there must survive.
#[cfg(target_arch = "x86_64")]
pub extern "C" fn scribble(a: i64) -> i64 {
    // SAFETY: only caller-saved registers are written, and all of them
    // are declared clobbered.
    unsafe {
        std::arch::asm!(
            "mov rax, -1", "mov rcx, -1", "mov rdx, -1", "mov rsi, -1", "mov rdi, -1",
            "mov r8, -1", "mov r9, -1", "mov r10, -1", "mov r11, -1",
            "pcmpeqd xmm0, xmm0", "pcmpeqd xmm1, xmm1", "pcmpeqd xmm2, xmm2", "pcmpeqd xmm3, xmm3",
            "pcmpeqd xmm4, xmm4", "pcmpeqd xmm5, xmm5", "pcmpeqd xmm6, xmm6", "pcmpeqd xmm7, xmm7",
            "pcmpeqd xmm8, xmm8", "pcmpeqd xmm9, xmm9", "pcmpeqd xmm10, xmm10", "pcmpeqd xmm11, xmm11",
            "pcmpeqd xmm12, xmm12", "pcmpeqd xmm13, xmm13", "pcmpeqd xmm14, xmm14", "pcmpeqd xmm15, xmm15",
            out("rax") _, out("rcx") _, out("rdx") _, out("rsi") _, out("rdi") _, out("r8") _,
            out("r9") _, out("r10") _, out("r11") _, out("xmm0") _, out("xmm1") _, out("xmm2") _,
            out("xmm3") _, out("xmm4") _, out("xmm5") _, out("xmm6") _, out("xmm7") _,
            out("xmm8") _, out("xmm9") _, out("xmm10") _, out("xmm11") _, out("xmm12") _,
            out("xmm13") _, out("xmm14") _, out("xmm15") _,
        );
    }
    a.wrapping_add(1)
}
#[cfg(not(target_arch = "x86_64"))]
pub extern "C" fn scribble(a: i64) -> i64 {
    a.wrapping_add(1)
}

/// Eleven arguments: nine ints (three go on the stack) and two floats.
#[allow(clippy::too_many_arguments)]
pub extern "C" fn c11(
    a: i64,
    b: i64,
    c: i64,
    d: i64,
    e: i64,
    f: i64,
    g: i64,
    h: i64,
    i: i64,
    x: f64,
    y: f64,
) -> i64 {
    let ints = [a, b, c, d, e, f, g, h, i];
    let mut acc = 0i64;
    for (k, v) in ints.iter().enumerate() {
        acc = acc
            .wrapping_mul(31)
            .wrapping_add(v.wrapping_mul(k as i64 + 1));
    }
    acc ^ (x * 4.0) as i64 ^ ((y * 8.0) as i64).wrapping_shl(3)
}

/// The helper for each `CALL_DESCRS` entry.
pub fn helper(name: &str) -> usize {
    match name {
        "Call.ii_i" => ii_i as *const () as usize,
        "Call.i_v" => i_v as *const () as usize,
        "Call.ff_f" => ff_f as *const () as usize,
        "Call.ff_v" => ff_v as *const () as usize,
        "Call.many" => many as *const () as usize,
        "Call.r_r" => r_r as *const () as usize,
        "Call.force_i" => force_i as *const () as usize,
        other => panic!("no helper for {other}"),
    }
}

/// The scratch buffer traces reach through `@buf`.
pub struct Buffer(Box<[u64; 64]>);

impl Buffer {
    pub fn new() -> Buffer {
        Buffer(Box::new([0; 64]))
    }
    pub fn addr(&self) -> usize {
        self.0.as_ptr() as usize
    }
    pub fn reset(&mut self) {
        self.0.fill(0);
    }
    pub fn snapshot(&self) -> Vec<u64> {
        self.0.to_vec()
    }
}

/// The shared test namespace plus helper and buffer symbols.
pub fn namespace(buf: &Buffer) -> Namespace {
    let mut ns = test_namespace();
    for (sym, f) in [
        ("ii_i", ii_i as *const () as usize),
        ("i_v", i_v as *const () as usize),
        ("ff_f", ff_f as *const () as usize),
        ("ff_v", ff_v as *const () as usize),
        ("many", many as *const () as usize),
        ("r_r", r_r as *const () as usize),
        ("force_i", force_i as *const () as usize),
        ("scribble", scribble as *const () as usize),
        ("c11", c11 as *const () as usize),
    ] {
        ns.add_symbol(sym, Const::Int(f as i64));
    }
    ns.add_symbol("buf", Const::Int(buf.addr() as i64));
    ns
}

/// Replaces the generator's fake call addresses by real helpers.
pub fn bind_calls(trace: &mut Trace) {
    for i in 0..trace.ops.len() {
        if !trace.ops[i].opcode.is_call() {
            continue;
        }
        let Some(Const::Int(fake)) = trace.get_const(trace.ops[i].args[0]) else {
            continue;
        };
        let n = ((fake - CALL_TARGET_BASE) / 16) as usize;
        let real = trace.add_const(Const::Int(helper(CALL_DESCRS[n]) as i64));
        trace.ops[i].args[0] = real;
    }
}

/// Parses one `; run:` value for an input of `kind`.
pub fn parse_value(tok: &str, kind: Kind, buf: &Buffer) -> Value {
    let tok = tok.trim();
    match (kind, tok) {
        (Kind::Int, "buf") => Value::Int(buf.addr() as i64),
        (Kind::Ref, "buf") => Value::Ref(buf.addr()),
        (Kind::Ref, "null") => Value::Ref(0),
        (Kind::Int, t) => Value::Int(t.parse().unwrap_or_else(|_| panic!("bad int {t:?}"))),
        (Kind::Ref, t) => Value::Ref(t.parse().unwrap_or_else(|_| panic!("bad ref {t:?}"))),
        (Kind::Float, t) => Value::Float(t.parse().unwrap_or_else(|_| panic!("bad float {t:?}"))),
    }
}

/// One executor's outcome: the dead frame and the buffer afterwards.
pub type Outcome = (Result<DeadFrame, ExecError>, Vec<u64>);

fn run_on(
    b: &mut dyn Backend,
    trace: &Trace,
    inputs: &[Value],
    buf: &mut Buffer,
) -> Result<Outcome, String> {
    buf.reset();
    let code = b
        .compile_loop(trace)
        .map_err(|e| format!("{} does not compile it: {e}", b.name()))?;
    let r = b.execute(code, inputs);
    Ok((r, buf.snapshot()))
}

/// Runs `trace` on refexec, then (unless refexec hit its step limit) on
/// the native backend, and compares. `Ok(false)`: skipped (step limit).
/// With `strategies = Some(seed)` the native side schedules and allocates
/// with seeded random strategies (and the checker runs).
pub fn differential<A: Arch>(
    trace: &Trace,
    inputs: &[Value],
    buf: &mut Buffer,
    strategies: Option<u64>,
) -> Result<bool, String> {
    let mut reference = RefExec::new();
    reference.set_step_limit(50_000);
    let expected = run_on(&mut reference, trace, inputs, buf)?;
    if matches!(expected.0, Err(ExecError::StepLimit)) {
        return Ok(false);
    }
    let mut native = NativeBackend::<A>::new().map_err(|e| e.to_string())?;
    if let Some(seed) = strategies {
        native.set_strategies(
            Box::new(RandomSched::new(seed)),
            Box::new(RandomPolicy::new(seed)),
        );
    }
    let found = run_on(&mut native, trace, inputs, buf)?;
    let strip = |o: &Outcome| {
        let f = o.0.as_ref().map_err(|e| e.to_string())?;
        Ok::<_, String>((
            f.exit.op_index,
            f.descr.clone(),
            f.values.clone(),
            o.1.clone(),
        ))
    };
    let (e, f) = (strip(&expected)?, strip(&found)?);
    if e != f {
        return Err(format!("inputs {inputs:?}\nrefexec: {e:?}\nnative:  {f:?}"));
    }
    Ok(true)
}

/// Runs every `*.trace` file in `dir`; returns the number of runs.
pub fn run_suite<A: Arch>(dir: &Path) -> usize {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("suite directory")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "trace"))
        .collect();
    files.sort();
    let mut buf = Buffer::new();
    let ns = namespace(&buf);
    let mut runs = 0;
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("read suite file");
        let body: String = text
            .lines()
            .map(|l| {
                if l.trim_start().starts_with(';') {
                    ""
                } else {
                    l
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        let trace = parse_with(&body, &ns).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let run_lines = text.lines().filter_map(|l| l.trim().strip_prefix("; run:"));
        for line in run_lines {
            let toks: Vec<&str> = if line.trim().is_empty() {
                vec![]
            } else {
                line.split(',').collect()
            };
            assert_eq!(
                toks.len(),
                trace.inputs.len(),
                "{}: arity of `; run:{line}`",
                path.display()
            );
            let inputs: Vec<Value> = toks
                .iter()
                .zip(&trace.inputs)
                .map(|(t, &k)| parse_value(t, k, &buf))
                .collect();
            match differential::<A>(&trace, &inputs, &mut buf, None) {
                Ok(true) => runs += 1,
                Ok(false) => failures.push(format!(
                    "{}: `; run:{line}` hits the step limit",
                    path.display()
                )),
                Err(e) => failures.push(format!("{}: {e}", path.display())),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} suite failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    runs
}

/// Inputs for a random trace: small ints, floats, null refs.
pub fn random_inputs(trace: &Trace, seed: u64) -> Vec<Value> {
    let mut rng = SplitMix64::new(seed ^ 0x5eed);
    trace
        .inputs
        .iter()
        .map(|k| match k {
            Kind::Int => Value::Int(rng.below(200) as i64 - 100),
            Kind::Float => Value::Float(rng.below(1000) as f64 / 8.0 - 60.0),
            Kind::Ref => Value::Ref(0),
        })
        .collect()
}

/// The differential fuzzer: `cases` random traces from `first_seed` on
/// (every third with random scheduling and allocation strategies),
/// or only `MAJIT_FUZZ_SEED` when set; `MAJIT_FUZZ_CASES` overrides
/// `cases`. Panics with the seed and trace text on a mismatch.
pub fn fuzz<A: Arch>(cases: u64, first_seed: u64) -> u64 {
    let (first, cases) = match std::env::var("MAJIT_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        Some(seed) => (seed, 1),
        None => {
            let n = std::env::var("MAJIT_FUZZ_CASES")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(cases);
            (first_seed, n)
        }
    };
    let mut buf = Buffer::new();
    let mut ran = 0;
    for seed in first..first + cases {
        let knobs = Knobs {
            memory: false,
            lowered: false,
            loops: seed % 2 == 0,
            max_ops: 10 + (seed % 60) as usize,
            max_inputs: 1 + (seed % 8) as usize,
            ..Knobs::default()
        };
        let mut trace = random_trace(seed, &knobs);
        bind_calls(&mut trace);
        let inputs = random_inputs(&trace, seed);
        let strategies = (seed % 3 == 1).then_some(seed);
        match differential::<A>(&trace, &inputs, &mut buf, strategies) {
            Ok(true) => ran += 1,
            Ok(false) => {}
            Err(e) => panic!("MAJIT_FUZZ_SEED={seed}: {e}\n{}", print(&trace)),
        }
    }
    ran
}

/// The whole shared backend suite for one architecture module of
/// `majit_backend_dynasm` (which exports its `Arch` as `ArchImpl`).
#[macro_export]
macro_rules! backend_suite {
    ($arch:ident) => {
        mod $arch {
            use majit_backend_dynasm::$arch::ArchImpl;

            #[test]
            fn trace_suite() {
                let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/suite");
                let runs = $crate::support::run_suite::<ArchImpl>(&dir);
                assert!(runs > 0);
            }

            #[test]
            fn differential_fuzz() {
                let ran = $crate::support::fuzz::<ArchImpl>(300, 1);
                eprintln!("{ran} random traces agreed");
                assert!(ran > 100, "only {ran} random traces reached an exit");
            }
        }
    };
}
