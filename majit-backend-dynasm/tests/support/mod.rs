//! Shared backend test support: the trace-text suite runner, the
//! differential fuzzer (refexec against a native backend) and the call
//! helpers both use beyond those of `majit_metainterp::testing` (the
//! test heap is `majit_gc::testing`'s). An architecture runs all of it with one line:
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
//! `@many`, `@r_r`, `@force_i`, `@scribble`, `@c11`, `@collect`,
//! `@raise_ref`, `@alloc_uncollected`. The exception a run leaves pending must agree too.

#![allow(dead_code)]

use majit_backend_dynasm::arch::Arch;
use majit_backend_dynasm::regalloc::RandomPolicy;
use majit_backend_dynasm::sched::RandomSched;
use majit_backend_dynasm::NativeBackend;
use majit_gc::rewrite::RewriteConfig;
use majit_gc::testing::{rewrite_test_trace, stress_config, test_heap};
use majit_ir::fuzzing::{test_namespace, Knobs};
use majit_ir::{parse_with, print, Const, Kind, Namespace, Trace, Value};
use majit_metainterp::refexec::RefExec;
use majit_metainterp::testing::{
    bound_random_trace, ff_f, ff_v, force_i, fuzz_seeds, i_v, ii_i, many, r_r, random_case, RefArgs,
};
use majit_metainterp::{Backend, DeadFrame, ExecError};
use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;

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
/// The aarch64 version: every AAPCS64 caller-saved register a JIT may
/// allocate (`x0`–`x17`, `v0`–`v7`, `v16`–`v31`).
#[cfg(target_arch = "aarch64")]
pub extern "C" fn scribble(a: i64) -> i64 {
    // SAFETY: only caller-saved registers are written, and all of them
    // are declared clobbered.
    unsafe {
        std::arch::asm!(
            "mov x0, #-1", "mov x1, #-1", "mov x2, #-1", "mov x3, #-1", "mov x4, #-1",
            "mov x5, #-1", "mov x6, #-1", "mov x7, #-1", "mov x8, #-1", "mov x9, #-1",
            "mov x10, #-1", "mov x11, #-1", "mov x12, #-1", "mov x13, #-1", "mov x14, #-1",
            "mov x15, #-1", "mov x16, #-1", "mov x17, #-1",
            "movi v0.2d, #-1", "movi v1.2d, #-1", "movi v2.2d, #-1", "movi v3.2d, #-1",
            "movi v4.2d, #-1", "movi v5.2d, #-1", "movi v6.2d, #-1", "movi v7.2d, #-1",
            "movi v16.2d, #-1", "movi v17.2d, #-1", "movi v18.2d, #-1", "movi v19.2d, #-1",
            "movi v20.2d, #-1", "movi v21.2d, #-1", "movi v22.2d, #-1", "movi v23.2d, #-1",
            "movi v24.2d, #-1", "movi v25.2d, #-1", "movi v26.2d, #-1", "movi v27.2d, #-1",
            "movi v28.2d, #-1", "movi v29.2d, #-1", "movi v30.2d, #-1", "movi v31.2d, #-1",
            out("x0") _, out("x1") _, out("x2") _, out("x3") _, out("x4") _, out("x5") _,
            out("x6") _, out("x7") _, out("x8") _, out("x9") _, out("x10") _, out("x11") _,
            out("x12") _, out("x13") _, out("x14") _, out("x15") _, out("x16") _, out("x17") _,
            out("v0") _, out("v1") _, out("v2") _, out("v3") _, out("v4") _, out("v5") _,
            out("v6") _, out("v7") _, out("v16") _, out("v17") _, out("v18") _, out("v19") _,
            out("v20") _, out("v21") _, out("v22") _, out("v23") _, out("v24") _,
            out("v25") _, out("v26") _, out("v27") _, out("v28") _, out("v29") _,
            out("v30") _, out("v31") _,
        );
    }
    a.wrapping_add(1)
}
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
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

thread_local! {
    /// The heap `@collect` collects (set by `gc_differential` per executor).
    pub static CURRENT_HEAP: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A helper that runs a minor collection of [`CURRENT_HEAP`] (moving every
/// young object its caller holds) and returns `a + 1`.
pub extern "C" fn collect(a: i64) -> i64 {
    let heap = CURRENT_HEAP.with(|h| h.get()) as *mut majit_gc::GcHeap;
    if !heap.is_null() {
        // SAFETY: the heap is alive while a run on it is in progress; the
        // caller's frame is registered with it.
        let ok = unsafe { majit_gc::majit_gc_collect(heap, std::ptr::null_mut()) };
        assert_eq!(ok, 1, "collection failed");
    }
    a.wrapping_add(1)
}

thread_local! {
    /// The heap `@alloc_uncollected` allocates on.
    static UNCOLLECTED_HEAP: RefCell<Option<Rc<RefCell<majit_gc::Gc>>>> =
        const { RefCell::new(None) };
}

/// A helper that allocates a `Node` on [`UNCOLLECTED_HEAP`] as a
/// mutator's helper does, without collecting (a stress heap then asks for
/// a collection), and returns `a + 1`.
pub extern "C" fn alloc_uncollected(a: i64) -> i64 {
    UNCOLLECTED_HEAP.with(|h| {
        if let Some(gc) = &*h.borrow() {
            let node = test_namespace()
                .descr("Node")
                .and_then(|d| d.as_size().cloned());
            let ty = majit_gc::TypeId(node.expect("the Node layout").type_id);
            gc.borrow_mut().alloc_uncollected(ty).expect("allocation");
        }
    });
    a.wrapping_add(1)
}

/// Raises the ref `p` ([`majit_metainterp::runtime::raise`]) when `n % 3
/// == 0`; returns `n + 1` either way (a raising call still has a result).
pub extern "C" fn raise_ref(p: usize, n: i64) -> i64 {
    if n.rem_euclid(3) == 0 {
        majit_metainterp::runtime::raise(p);
    }
    n.wrapping_add(1)
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
        ("collect", collect as *const () as usize),
        ("raise_ref", raise_ref as *const () as usize),
        ("alloc_uncollected", alloc_uncollected as *const () as usize),
    ] {
        ns.add_symbol(sym, Const::Int(f as i64));
    }
    ns.add_symbol("buf", Const::Int(buf.addr() as i64));
    ns
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
        native.replace_strategies(
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
            f.exception,
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

/// The differential fuzzer: `cases` random traces from `first_seed` on
/// (every third with random scheduling and allocation strategies),
/// or only `MAJIT_FUZZ_SEED` when set; `MAJIT_FUZZ_CASES` overrides
/// `cases`. Panics with the seed and trace text on a mismatch.
pub fn fuzz<A: Arch>(cases: u64, first_seed: u64) -> u64 {
    let mut buf = Buffer::new();
    let mut ran = 0;
    for seed in fuzz_seeds(first_seed..first_seed + cases) {
        let knobs = Knobs {
            memory: false,
            lowered: false,
            loops: seed % 2 == 0,
            max_ops: 10 + (seed % 60) as usize,
            max_inputs: 1 + (seed % 8) as usize,
            ..Knobs::default()
        };
        let (trace, inputs) = random_case(seed, &knobs, RefArgs::Addresses);
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
            fn bridge_loops_back() {
                use $crate::support::{scenario, Step, BRIDGE_BACK, BRIDGE_LOOP};
                scenario::<ArchImpl>(&[
                    Step::Loop(BRIDGE_LOOP),
                    Step::Run {
                        code: 0,
                        inputs: "0, 0",
                    },
                    Step::Bridge {
                        code: 0,
                        op_index: 3,
                        text: BRIDGE_BACK,
                    },
                    Step::Run {
                        code: 0,
                        inputs: "0, 0",
                    },
                    Step::Run {
                        code: 0,
                        inputs: "50, 7",
                    },
                    Step::Bridge {
                        code: 1,
                        op_index: 2,
                        text: "[i0, i1]\nfinish(i1, i0, descr=g9)",
                    },
                    Step::Run {
                        code: 0,
                        inputs: "95, 1",
                    },
                    Step::Free(1),
                    Step::Run {
                        code: 0,
                        inputs: "0, 0",
                    },
                    Step::Free(0),
                    Step::Run {
                        code: 0,
                        inputs: "0, 0",
                    },
                ]);
            }

            #[test]
            fn bridge_needing_more_slots_than_its_loop() {
                use $crate::support::{scenario, Step, BRIDGE_LOOP, HEAVY_BRIDGE};
                scenario::<ArchImpl>(&[
                    Step::Loop(BRIDGE_LOOP),
                    Step::Bridge {
                        code: 0,
                        op_index: 3,
                        text: HEAVY_BRIDGE,
                    },
                    Step::Run {
                        code: 0,
                        inputs: "0, 0",
                    },
                    Step::Run {
                        code: 0,
                        inputs: "-20, 3",
                    },
                ]);
            }

            #[test]
            fn bridge_inputs_from_constants_duplicates_floats_and_refs() {
                use $crate::support::{scenario, Step};
                let looped = "[i0, f1, p2]
                    label(i0, f1, p2, descr=Loop)
                    i3 = int_add(i0, 1)
                    f4 = float_mul(f1, 1.5)
                    i5 = int_lt(i3, 20)
                    guard_true(i5, descr=g1) [i3, 7, i3, f4, 2.5, p2, null, f4]
                    jump(i3, f4, p2, descr=Loop)";
                let bridge = "[i0, i1, i2, f3, f4, p5, p6, f7]
                    i8 = int_add(i0, i1)
                    i9 = int_mul(i8, i2)
                    f10 = float_add(f3, f4)
                    f11 = float_sub(f10, f7)
                    i12 = ptr_eq(p5, p6)
                    finish(i9, f11, i12, p5, descr=g9)";
                scenario::<ArchImpl>(&[
                    Step::Loop(looped),
                    Step::Run {
                        code: 0,
                        inputs: "0, 1.0, buf",
                    },
                    Step::Bridge {
                        code: 0,
                        op_index: 4,
                        text: bridge,
                    },
                    Step::Run {
                        code: 0,
                        inputs: "0, 1.0, buf",
                    },
                    Step::Run {
                        code: 0,
                        inputs: "5, -2.0, null",
                    },
                ]);
            }

            #[test]
            fn exceptions_and_forcing() {
                use $crate::support::{scenario, Step};
                let looped = "[i0, i1]
                    label(i0, i1, descr=Loop)
                    i2 = int_add(i0, 1)
                    call_n(@i_v, i2, descr=Call.i_v)
                    guard_no_exception(descr=g1) [i2, i1]
                    i3 = call_may_force_i(@force_i, i1, descr=Call.force_i)
                    guard_not_forced(descr=g2) [i2, i3]
                    i4 = int_lt(i2, 30)
                    guard_true(i4, descr=g3) [i2, i3]
                    jump(i2, i3, descr=Loop)";
                scenario::<ArchImpl>(&[
                    Step::Loop(looped),
                    Step::Run {
                        code: 0,
                        inputs: "0, 0",
                    },
                    Step::Run {
                        code: 0,
                        inputs: "3, 0",
                    },
                    Step::Run {
                        code: 0,
                        inputs: "0, -5",
                    },
                    // The bridge of the guard_no_exception takes the int
                    // exception `i_v` raised (its argument).
                    Step::Bridge {
                        code: 0,
                        op_index: 3,
                        text: "[i0, i1]
                            guard_exception(descr=g4) [i0, i1]
                            i3 = save_exception_i()
                            i4 = int_add(i1, i3)
                            jump(i0, i4, descr=Loop)",
                    },
                    Step::Run {
                        code: 0,
                        inputs: "0, 0",
                    },
                    Step::Run {
                        code: 0,
                        inputs: "0, -500",
                    },
                ]);
            }

            #[test]
            fn invalidation() {
                // `guard_not_invalidated` tests the word at its argument: a
                // constant (as traces record it) or a register.
                use majit_metainterp::Backend;
                let words = [std::cell::Cell::new(0u64), std::cell::Cell::new(0u64)];
                let text = format!(
                    "[i0, p1]\nguard_not_invalidated(ptr({:#x}), descr=g1) [i0]\ni2 = int_add(i0, 1)\nguard_not_invalidated(p1, descr=g2) [i2]\nfinish(i2, descr=g3)",
                    words[0].as_ptr() as usize
                );
                let buf = $crate::support::Buffer::new();
                let t = $crate::support::parse_text(&text, &buf);
                let mut reference = majit_metainterp::refexec::RefExec::new();
                let mut native = majit_backend_dynasm::NativeBackend::<ArchImpl>::new().unwrap();
                let (a, b) = (reference.compile_loop(&t).unwrap(), native.compile_loop(&t).unwrap());
                let run = |r: Result<majit_metainterp::DeadFrame, _>| r.map(|d| (d.exit.op_index, d.values));
                let v = [majit_ir::Value::Int(4), majit_ir::Value::Ref(words[1].as_ptr() as usize)];
                let mut both = || {
                    let n = run(native.execute(b, &v));
                    assert_eq!(n, run(reference.execute(a, &v)));
                    n.unwrap().0
                };
                assert_eq!(both(), 3, "valid: the finish");
                words[1].set(1);
                assert_eq!(both(), 2, "the second guard fails");
                words[0].set(1);
                assert_eq!(both(), 0, "the first guard fails");
            }

            #[test]
            fn jumps_between_traces() {
                use $crate::support::{scenario, Step};
                let second = "[i0, f1]
                    label(i0, f1, descr=Loop2)
                    f2 = float_add(f1, 0.5)
                    i3 = int_sub(i0, 1)
                    i4 = int_gt(i3, 0)
                    guard_true(i4, descr=g4) [i3, f2]
                    jump(i3, f2, descr=Loop2)";
                let first = "[i0, f1, p2]
                    i3 = int_mul(i0, 2)
                    guard_nonnull(p2, descr=g5) [i3, f1, p2]
                    jump(i3, f1, descr=Loop2)";
                scenario::<ArchImpl>(&[
                    Step::Loop(second),
                    Step::Loop(first),
                    Step::Run {
                        code: 1,
                        inputs: "5, 1.25, 8",
                    },
                    Step::Run {
                        code: 1,
                        inputs: "5, 1.25, null",
                    },
                    Step::Bridge {
                        code: 1,
                        op_index: 1,
                        text: "[i0, f1, p2]\ni3 = int_add(i0, 100)\njump(i3, f1, descr=Loop2)",
                    },
                    Step::Run {
                        code: 1,
                        inputs: "5, 1.25, null",
                    },
                ]);
            }

            #[test]
            fn same_trace_same_bytes() {
                let n = $crate::support::deterministic_bytes::<ArchImpl>(0..60);
                assert_eq!(n, 60);
                let n = $crate::support::deterministic_gc_bytes::<ArchImpl>(0..30);
                assert_eq!(n, 30);
            }

            #[test]
            fn refs_in_registers_survive_collections() {
                let t = $crate::support::parse_text(
                    $crate::support::GC_PRESSURE,
                    &$crate::support::Buffer::new(),
                );
                for (inputs, native_rewrites) in [([1i64, 0], false), ([-5000, 1], true)] {
                    let values = [
                        majit_ir::Value::Int(inputs[0]),
                        majit_ir::Value::Float(inputs[1] as f64),
                        majit_ir::Value::Ref(0),
                    ];
                    let outcome =
                        $crate::support::gc_differential::<ArchImpl>(&t, &values, native_rewrites)
                            .unwrap();
                    assert_eq!(
                        outcome.and_then(|o| o.1).as_deref(),
                        Some("g3"),
                        "left the loop through g3"
                    );
                }
            }

            #[test]
            fn refs_survive_a_collection_inside_a_call() {
                let text =
                    "descr Call.collect = call(args=[int], result=int, effect=random, can_collect)
                    [i0, p0]
                    p1 = new(descr=Node)
                    setfield_gc(p1, i0, descr=Node.value)
                    setfield_gc(p1, p0, descr=Node.next)
                    p2 = new_with_vtable(descr=Stack)
                    setfield_gc(p2, p1, descr=Stack.head)
                    setfield_gc(p2, 5, descr=Stack.len)
                    i3 = call_i(@collect, i0, descr=Call.collect)
                    i4 = call_i(@collect, i3, descr=Call.collect)
                    p5 = getfield_gc_r(p2, descr=Stack.head)
                    i6 = getfield_gc_i(p5, descr=Node.value)
                    i7 = getfield_gc_i(p1, descr=Node.value)
                    i8 = ptr_eq(p5, p1)
                    guard_true(i8, descr=g1) [i6, i7]
                    guard_class(p2, 0x5700, descr=g2) [i6]
                    finish(i4, i6, i7, p1, p2, descr=g3)";
                let t = $crate::support::parse_text(text, &$crate::support::Buffer::new());
                let values = [majit_ir::Value::Int(41), majit_ir::Value::Ref(0)];
                let outcome = $crate::support::gc_differential::<ArchImpl>(&t, &values, false)
                    .unwrap()
                    .unwrap();
                assert_eq!(outcome.1.as_deref(), Some("g3"));
                assert_eq!(outcome.2[..3], [Some(43), Some(41), Some(41)]);
            }

            #[test]
            fn a_ref_exception_survives_a_collection() {
                let text = "descr Call.collect = call(args=[int], result=int, effect=random, can_collect)
                    descr Call.raise_ref = call(args=[ref, int], result=int, effect=random, can_raise)
                    [i0]
                    p1 = new(descr=Node)
                    setfield_gc(p1, i0, descr=Node.value)
                    i2 = call_i(@raise_ref, p1, 3, descr=Call.raise_ref)
                    guard_exception(descr=g1) [i2]
                    p3 = save_exception_r()
                    i4 = call_i(@collect, i2, descr=Call.collect)
                    p5 = new(descr=Node)
                    setfield_gc(p5, p3, descr=Node.next)
                    i6 = call_i(@collect, i4, descr=Call.collect)
                    p7 = getfield_gc_r(p5, descr=Node.next)
                    i8 = getfield_gc_i(p7, descr=Node.value)
                    i9 = getfield_gc_i(p3, descr=Node.value)
                    i10 = call_i(@raise_ref, p3, i9, descr=Call.raise_ref)
                    guard_no_exception(descr=g2) [i8, i9, p3]
                    finish(i6, i8, i9, i10, descr=g3)";
                let t = $crate::support::parse_text(text, &$crate::support::Buffer::new());
                // 41: the second raise_ref does not raise; 42 (0 mod 3):
                // it raises the node again, which guard_no_exception sees.
                for (n, exit, first) in [(41, "g3", 6), (42, "g2", 42)] {
                    let values = [majit_ir::Value::Int(n)];
                    let outcome = $crate::support::gc_differential::<ArchImpl>(&t, &values, true)
                        .unwrap()
                        .unwrap();
                    assert_eq!(outcome.1.as_deref(), Some(exit), "{n}");
                    assert_eq!(outcome.2[..2], [Some(first), Some(n as u64)], "{n}");
                }
            }

            #[test]
            fn helper_allocations_are_collected_at_the_back_edge() {
                $crate::support::polled_collections::<ArchImpl>(500);
            }

            #[test]
            fn escaping_nodes_rewritten_by_the_backend() {
                $crate::support::escaping_nodes::<ArchImpl>(3000);
            }

            #[test]
            fn bad_input_is_an_error() {
                $crate::support::bad_input_errors::<ArchImpl>();
            }

            #[test]
            fn gc_stress_fuzz() {
                let ran = $crate::support::gc_fuzz::<ArchImpl>(150, 1);
                eprintln!("{ran} allocating traces agreed under GC stress");
                assert!(ran > 50, "only {ran} allocating traces reached an exit");
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

/// Parses `text` (with `;` metadata lines) in the suite namespace.
pub fn parse_text(text: &str, buf: &Buffer) -> Trace {
    let body: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with(';'))
        .collect();
    parse_with(&body.join("\n"), &namespace(buf)).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// One step of a multi-trace scenario.
pub enum Step<'a> {
    /// Compile a loop.
    Loop(&'a str),
    /// Compile a bridge for the guard at op `op_index` of code number `code`.
    Bridge {
        code: u32,
        op_index: u32,
        text: &'a str,
    },
    /// Free code number `code`.
    Free(u32),
    /// Run code number `code` with these inputs (`; run:` syntax).
    Run { code: u32, inputs: &'a str },
}

/// Plays `steps` on refexec and natively; every run must agree.
pub fn scenario<A: Arch>(steps: &[Step]) {
    let mut buf = Buffer::new();
    let mut reference = RefExec::new();
    reference.set_step_limit(1_000_000);
    let mut native = NativeBackend::<A>::new().expect("backend");
    let mut loops: Vec<Trace> = Vec::new();
    for (n, step) in steps.iter().enumerate() {
        match step {
            Step::Loop(text) => {
                let t = parse_text(text, &buf);
                let a = reference.compile_loop(&t).expect("refexec compiles");
                let b = native
                    .compile_loop(&t)
                    .unwrap_or_else(|e| panic!("step {n}: {e}"));
                assert_eq!(a, b, "step {n}: code ids");
                loops.push(t);
            }
            Step::Bridge {
                code,
                op_index,
                text,
            } => {
                let t = parse_text(text, &buf);
                let guard = majit_metainterp::ExitId {
                    code: majit_metainterp::CodeId(*code),
                    op_index: *op_index,
                };
                let a = reference
                    .compile_bridge(guard, &t)
                    .expect("refexec compiles the bridge");
                let b = native
                    .compile_bridge(guard, &t)
                    .unwrap_or_else(|e| panic!("step {n}: {e}"));
                assert_eq!(a, b, "step {n}: code ids");
            }
            Step::Free(code) => {
                reference.free(majit_metainterp::CodeId(*code));
                native.free(majit_metainterp::CodeId(*code));
            }
            Step::Run { code, inputs } => {
                let id = majit_metainterp::CodeId(*code);
                let kinds: Vec<Kind> = loops
                    .get(*code as usize)
                    .map(|t| t.inputs.clone())
                    .unwrap_or_default();
                let toks: Vec<&str> = if inputs.trim().is_empty() {
                    vec![]
                } else {
                    inputs.split(',').collect()
                };
                let values: Vec<Value> = toks
                    .iter()
                    .zip(&kinds)
                    .map(|(t, &k)| parse_value(t, k, &buf))
                    .collect();
                buf.reset();
                let e = reference.execute(id, &values);
                let e_mem = buf.snapshot();
                buf.reset();
                let f = native.execute(id, &values);
                let f_mem = buf.snapshot();
                let show = |r: &Result<DeadFrame, ExecError>| match r {
                    Ok(d) => format!(
                        "{:?} {:?} {:?} exception {:?}",
                        d.exit,
                        d.descr.as_ref().map(|x| x.name().to_string()),
                        d.values,
                        d.exception
                    ),
                    Err(e) => format!("error {e}"),
                };
                assert_eq!(show(&f), show(&e), "step {n}: native vs refexec");
                assert_eq!(f_mem, e_mem, "step {n}: memory");
            }
        }
    }
}

/// Compiles every random trace of `seeds` on two fresh backends and
/// checks the instruction bytes are identical.
pub fn deterministic_bytes<A: Arch>(seeds: std::ops::Range<u64>) -> usize {
    let mut compared = 0;
    for seed in seeds {
        let knobs = Knobs {
            memory: false,
            lowered: false,
            loops: seed % 2 == 0,
            ..Knobs::default()
        };
        let trace = bound_random_trace(seed, &knobs, RefArgs::Addresses);
        let mut a = NativeBackend::<A>::new().expect("backend");
        let mut b = NativeBackend::<A>::new().expect("backend");
        let (Ok(ca), Ok(cb)) = (a.compile_loop(&trace), b.compile_loop(&trace)) else {
            panic!(
                "MAJIT_FUZZ_SEED={seed}: does not compile\n{}",
                print(&trace)
            );
        };
        assert_eq!(
            a.code_bytes(ca),
            b.code_bytes(cb),
            "seed {seed}: bytes differ\n{}",
            print(&trace)
        );
        compared += 1;
    }
    compared
}

/// A policy that returns a register nobody offered, or panics.
pub struct BadPolicy {
    pub panic: bool,
}

impl majit_backend_dynasm::regalloc::AllocPolicy for BadPolicy {
    fn decide(
        &mut self,
        _: &majit_backend_dynasm::regalloc::policy::AllocCx,
    ) -> majit_backend_dynasm::regalloc::AllocDecision {
        assert!(!self.panic, "a user policy panicked");
        majit_backend_dynasm::regalloc::AllocDecision::Reg(u8::MAX)
    }
}

/// Errors a caller can provoke come back as errors, never as panics.
pub fn bad_input_errors<A: Arch>() {
    use majit_backend_dynasm::sched::NativeSched;
    use majit_metainterp::{CodeId, CompileError, ExitId};
    let buf = Buffer::new();
    let t = parse_text(
        "[i0]\ni1 = int_add(i0, 1)\nguard_true(i1, descr=g1) [i1]\nfinish(i1)",
        &buf,
    );
    for panic in [false, true] {
        let mut b = NativeBackend::<A>::new().expect("backend");
        b.replace_strategies(Box::new(NativeSched), Box::new(BadPolicy { panic }));
        let e = b
            .compile_loop(&t)
            .expect_err("an illegal choice is rejected");
        assert!(matches!(e, CompileError::Strategy { .. }), "{e:?}");
    }
    let mut b = NativeBackend::<A>::new().expect("backend");
    let code = b.compile_loop(&t).expect("compiles");
    assert!(matches!(
        b.execute(code, &[Value::Float(1.0)]),
        Err(ExecError::BadInputs(_))
    ));
    assert!(matches!(
        b.execute(CodeId(99), &[]),
        Err(ExecError::UnknownCode(_))
    ));
    let nowhere = ExitId { code, op_index: 0 };
    assert!(matches!(
        b.compile_bridge(nowhere, &t),
        Err(CompileError::UnknownTarget(_))
    ));
    let finish = ExitId { code, op_index: 2 };
    assert!(matches!(
        b.compile_bridge(finish, &t),
        Err(CompileError::UnknownTarget(_))
    ));
    let guard = ExitId { code, op_index: 1 };
    let floats = parse_text("[f0]\nfinish(f0)", &buf);
    assert!(
        matches!(
            b.compile_bridge(guard, &floats),
            Err(CompileError::Invalid(_))
        ),
        "input kinds differ"
    );
    let unknown = parse_text("[i0]\njump(i0, descr=Loop2)", &buf);
    assert!(matches!(
        b.compile_loop(&unknown),
        Err(CompileError::UnknownTarget(_))
    ));
    let high_level = parse_text("[]\np0 = new(descr=Node)\nfinish(p0)", &buf);
    assert!(matches!(
        b.compile_loop(&high_level),
        Err(CompileError::Unsupported { .. })
    ));
    let lowered = parse_text("[]\np0 = call_malloc_nursery(16)\nfinish(p0)", &buf);
    assert!(
        matches!(
            b.compile_loop(&lowered),
            Err(CompileError::Unsupported { .. })
        ),
        "no GC configured"
    );
}

/// Compiles rewritten allocating traces on two backends over two
/// different heaps: the instruction bytes must not differ (every address
/// of the GC contract is read from the pool).
pub fn deterministic_gc_bytes<A: Arch>(seeds: std::ops::Range<u64>) -> usize {
    let mut compared = 0;
    for seed in seeds {
        let knobs = Knobs {
            memory: true,
            lowered: false,
            loops: seed % 2 == 0,
            ..Knobs::default()
        };
        let trace = bound_random_trace(seed, &knobs, RefArgs::Addresses);
        let (heap_a, heap_b) = (stress_heap(), stress_heap());
        let lowered = gc_rewrite(&trace, &heap_a.borrow().jit_info());
        let mut a = NativeBackend::<A>::with_gc(heap_a.borrow().jit_info()).expect("backend");
        let mut b = NativeBackend::<A>::with_gc(heap_b.borrow().jit_info()).expect("backend");
        let (ca, cb) = (
            a.compile_loop(&lowered).expect("compiles"),
            b.compile_loop(&lowered).expect("compiles"),
        );
        assert_eq!(
            a.code_bytes(ca),
            b.code_bytes(cb),
            "seed {seed}: bytes differ\n{}",
            print(&lowered)
        );
        compared += 1;
    }
    compared
}

/// A loop whose guard `g1` (op 3) fails every third iteration; the bridge
/// adds 1000 and jumps back.
pub const BRIDGE_LOOP: &str = "
[i0, i1]
label(i0, i1, descr=Loop)
i2 = int_add(i0, 1)
i3 = int_mod(i2, 3)
guard_true(i3, descr=g1) [i2, i1]
i4 = int_add(i1, i2)
i5 = int_lt(i2, 100)
guard_true(i5, descr=g2) [i2, i4]
jump(i2, i4, descr=Loop)";

/// The bridge of [`BRIDGE_LOOP`]'s `g1`: loops back, leaves through `g3`.
pub const BRIDGE_BACK: &str = "
[i0, i1]
i2 = int_add(i1, 1000)
i3 = int_lt(i0, 100)
guard_true(i3, descr=g3) [i0, i2]
jump(i0, i2, descr=Loop)";

/// A bridge for [`BRIDGE_LOOP`]'s `g1` with 40 values live at once: it
/// needs more spill slots than the loop.
pub const HEAVY_BRIDGE: &str = "
[i0, i1]
i2 = int_add(i1, 2)
i3 = int_add(i2, 3)
i4 = int_add(i3, 4)
i5 = int_add(i4, 5)
i6 = int_add(i5, 6)
i7 = int_add(i6, 7)
i8 = int_add(i7, 8)
i9 = int_add(i8, 9)
i10 = int_add(i9, 10)
i11 = int_add(i10, 11)
i12 = int_add(i11, 12)
i13 = int_add(i12, 13)
i14 = int_add(i13, 14)
i15 = int_add(i14, 15)
i16 = int_add(i15, 16)
i17 = int_add(i16, 17)
i18 = int_add(i17, 18)
i19 = int_add(i18, 19)
i20 = int_add(i19, 20)
i21 = int_add(i20, 21)
i22 = int_add(i21, 22)
i23 = int_add(i22, 23)
i24 = int_add(i23, 24)
i25 = int_add(i24, 25)
i26 = int_add(i25, 26)
i27 = int_add(i26, 27)
i28 = int_add(i27, 28)
i29 = int_add(i28, 29)
i30 = int_add(i29, 30)
i31 = int_add(i30, 31)
i32 = int_add(i31, 32)
i33 = int_add(i32, 33)
i34 = int_add(i33, 34)
i35 = int_add(i34, 35)
i36 = int_add(i35, 36)
i37 = int_add(i36, 37)
i38 = int_add(i37, 38)
i39 = int_add(i38, 39)
i_x39 = int_xor(i0, i39)
i_x38 = int_xor(i_x39, i38)
i_x37 = int_xor(i_x38, i37)
i_x36 = int_xor(i_x37, i36)
i_x35 = int_xor(i_x36, i35)
i_x34 = int_xor(i_x35, i34)
i_x33 = int_xor(i_x34, i33)
i_x32 = int_xor(i_x33, i32)
i_x31 = int_xor(i_x32, i31)
i_x30 = int_xor(i_x31, i30)
i_x29 = int_xor(i_x30, i29)
i_x28 = int_xor(i_x29, i28)
i_x27 = int_xor(i_x28, i27)
i_x26 = int_xor(i_x27, i26)
i_x25 = int_xor(i_x26, i25)
i_x24 = int_xor(i_x25, i24)
i_x23 = int_xor(i_x24, i23)
i_x22 = int_xor(i_x23, i22)
i_x21 = int_xor(i_x22, i21)
i_x20 = int_xor(i_x21, i20)
i_x19 = int_xor(i_x20, i19)
i_x18 = int_xor(i_x19, i18)
i_x17 = int_xor(i_x18, i17)
i_x16 = int_xor(i_x17, i16)
i_x15 = int_xor(i_x16, i15)
i_x14 = int_xor(i_x15, i14)
i_x13 = int_xor(i_x14, i13)
i_x12 = int_xor(i_x13, i12)
i_x11 = int_xor(i_x12, i11)
i_x10 = int_xor(i_x11, i10)
i_x9 = int_xor(i_x10, i9)
i_x8 = int_xor(i_x9, i8)
i_x7 = int_xor(i_x8, i7)
i_x6 = int_xor(i_x7, i6)
i_x5 = int_xor(i_x6, i5)
i_x4 = int_xor(i_x5, i4)
i_x3 = int_xor(i_x4, i3)
i_x2 = int_xor(i_x3, i2)
i_m = int_and(i_x2, 255)
i_y = int_add(i1, i_m)
jump(i0, i_y, descr=Loop)";

/// A majit-gc heap in stress mode (a collection at every allocation)
/// whose type ids match the shared test namespace.
pub fn stress_heap() -> Rc<RefCell<majit_gc::Gc>> {
    Rc::new(RefCell::new(test_heap(stress_config())))
}

/// Lowers `trace`'s allocations and barriers with majit-gc's rewrite.
pub fn gc_rewrite(trace: &Trace, info: &majit_gc::JitGcInfo) -> Trace {
    let config = RewriteConfig::from_jit_info(info);
    rewrite_test_trace(trace, &config).unwrap_or_else(|e| panic!("rewrite: {e}\n{}", print(trace)))
}

/// An exit, its descr name and its values with refs reduced to null or not.
pub type GcOutcome = (u32, Option<String>, Vec<Option<u64>>);

/// A dead frame with refs reduced to null or not (addresses differ
/// between two heaps).
fn gc_outcome(r: Result<DeadFrame, ExecError>) -> Result<GcOutcome, String> {
    let d = r.map_err(|e| e.to_string())?;
    let values = d
        .values
        .iter()
        .map(|v| match v {
            Value::Ref(p) => Some(u64::MAX - (*p != 0) as u64),
            other => Some(other.to_bits()),
        })
        .collect();
    Ok((
        d.exit.op_index,
        d.descr.map(|x| x.name().to_string()),
        values,
    ))
}

/// Runs rewritten `trace` on refexec (with a `GcAllocator`) and natively,
/// each on its own stress heap; returns the common outcome (`None`:
/// refexec hit its step limit). With `native_rewrites` both get `trace`
/// itself: refexec allocates through the `GcAllocator`, the native backend
/// runs the GC rewrite on its own.
pub fn gc_differential<A: Arch>(
    trace: &Trace,
    inputs: &[Value],
    native_rewrites: bool,
) -> Result<Option<GcOutcome>, String> {
    use majit_metainterp::runtime::GcAllocator;
    let heap_a = stress_heap();
    let heap_b = stress_heap();
    let lowered = gc_rewrite(trace, &heap_a.borrow().jit_info());
    let mut reference = RefExec::with_allocator(Box::new(GcAllocator::new(heap_a.clone())));
    reference.set_step_limit(20_000);
    let layouts: Vec<majit_ir::SizeDescr> = test_namespace()
        .descrs()
        .filter_map(|d| d.as_size().map(|s| (**s).clone()))
        .collect();
    for l in &layouts {
        reference.register_layout(l);
    }
    let given = if native_rewrites { trace } else { &lowered };
    let code = reference
        .compile_loop(given)
        .map_err(|e| format!("refexec: {e}"))?;
    let expected = reference.execute(code, inputs);
    if matches!(expected, Err(ExecError::StepLimit)) {
        return Ok(None);
    }
    let info = heap_b.borrow().jit_info();
    let mut native = NativeBackend::<A>::with_gc(info).map_err(|e| e.to_string())?;
    for l in &layouts {
        native.register_layout(l);
    }
    let code = native
        .compile_loop(given)
        .map_err(|e| format!("native: {e}\n{}", print(given)))?;
    CURRENT_HEAP.with(|h| h.set(heap_b.borrow().heap_ptr() as usize));
    let found = native.execute(code, inputs);
    CURRENT_HEAP.with(|h| h.set(0));
    let (e, f) = (gc_outcome(expected), gc_outcome(found));
    if e != f {
        return Err(format!(
            "inputs {inputs:?}\nrefexec: {e:?}\nnative:  {f:?}\n{}",
            print(given)
        ));
    }
    drop(native);
    Ok(e.ok())
}

/// A loop that allocates one headerless `Node` per iteration and links it
/// to the previous one (so every node escapes into the next iteration),
/// `n` iterations on two stress heaps: refexec with a `GcAllocator` and
/// the native backend, both given the trace *before* the GC rewrite (the
/// native backend runs it itself). Both must leave through `g2` with the
/// sum of the values read back, and the list each heap holds afterwards
/// must be `n, n-1, .., 1, 0`.
pub fn escaping_nodes<A: Arch>(n: i64) {
    use majit_metainterp::runtime::GcAllocator;
    let text = format!(
        "[i0, i1]
        p0 = new(descr=Node)
        setfield_gc(p0, 0, descr=Node.value)
        label(i0, i1, p0, descr=Loop)
        i2 = getfield_gc_i(p0, descr=Node.value)
        i3 = int_add(i1, i2)
        p1 = new(descr=Node)
        i4 = int_add(i0, 1)
        setfield_gc(p1, i4, descr=Node.value)
        setfield_gc(p1, p0, descr=Node.next)
        p5 = getfield_gc_r(p1, descr=Node.next)
        i6 = ptr_eq(p5, p0)
        guard_true(i6, descr=g1) [i0]
        i7 = int_lt(i4, {n})
        guard_true(i7, descr=g2) [i4, i3, p1]
        jump(i4, i3, p1, descr=Loop)"
    );
    let trace = parse_text(&text, &Buffer::new());
    let inputs = [Value::Int(0), Value::Int(0)];
    let (heap_a, heap_b) = (stress_heap(), stress_heap());
    let mut reference = RefExec::with_allocator(Box::new(GcAllocator::new(heap_a.clone())));
    reference.set_step_limit(u64::MAX);
    let code = reference.compile_loop(&trace).expect("refexec compiles");
    let expected = reference.execute(code, &inputs).expect("refexec runs");
    let info = heap_b.borrow().jit_info();
    let mut native = NativeBackend::<A>::with_gc(info).expect("backend");
    let code = native.compile_loop(&trace).expect("native compiles");
    let found = native.execute(code, &inputs).expect("native runs");
    assert_eq!(
        gc_outcome(Ok(expected.clone())),
        gc_outcome(Ok(found.clone()))
    );
    let sum: i64 = (0..n).sum();
    for (frame, heap) in [(&expected, &heap_a), (&found, &heap_b)] {
        assert_eq!(frame.descr.as_ref().map(|d| d.name()), Some("g2"));
        assert_eq!(frame.values[..2], [Value::Int(n), Value::Int(sum)]);
        let gc = heap.borrow();
        let mut node = majit_gc::GcRef(frame.values[2].to_bits() as usize);
        let mut values = Vec::new();
        while !node.is_null() {
            values.push(gc.read_word(node, 0) as i64);
            node = gc.read_ref(node, 8);
        }
        assert_eq!(values, (0..=n).rev().collect::<Vec<_>>());
        assert!(gc.stats().minor_collections >= n as u64, "{:?}", gc.stats());
    }
}

/// A loop whose only allocations are `@alloc_uncollected`'s, `n`
/// iterations on a stress heap: each asks for a collection, which the
/// poll the GC rewrite puts before the `jump` runs, moving the node the
/// loop carries (first out of the nursery) without losing it.
pub fn polled_collections<A: Arch>(n: i64) {
    let text = format!(
        "descr Call.alloc = call(args=[int], result=int, effect=random)
        [i0]
        p0 = new(descr=Node)
        setfield_gc(p0, 7, descr=Node.value)
        label(i0, p0, descr=Loop)
        i1 = call_i(@alloc_uncollected, i0, descr=Call.alloc)
        i2 = int_lt(i1, {n})
        guard_true(i2, descr=g2) [i1, p0]
        jump(i1, p0, descr=Loop)"
    );
    let trace = parse_text(&text, &Buffer::new());
    let heap = stress_heap();
    let mut native = NativeBackend::<A>::with_gc(heap.borrow().jit_info()).expect("backend");
    let code = native.compile_loop(&trace).expect("native compiles");
    UNCOLLECTED_HEAP.with(|h| *h.borrow_mut() = Some(heap.clone()));
    let found = native.execute(code, &[Value::Int(0)]);
    UNCOLLECTED_HEAP.with(|h| *h.borrow_mut() = None);
    let found = found.expect("native runs");
    assert_eq!(found.descr.as_ref().map(|d| d.name()), Some("g2"));
    assert_eq!(found.values[0], Value::Int(n));
    let gc = heap.borrow();
    let node = majit_gc::GcRef(found.values[1].to_bits() as usize);
    assert_eq!(gc.read_word(node, 0), 7, "the carried node survived");
    let minors = gc.stats().minor_collections;
    assert!(
        minors >= n as u64 - 1,
        "{minors} collections for {n} requests"
    );
}

/// Random allocating traces (majit-ir's generator with memory on),
/// rewritten by majit-gc, under the GC stress setting.
pub fn gc_fuzz<A: Arch>(cases: u64, first_seed: u64) -> u64 {
    let mut ran = 0;
    for seed in fuzz_seeds(first_seed..first_seed + cases) {
        let knobs = Knobs {
            memory: true,
            lowered: false,
            loops: seed % 2 == 0,
            max_ops: 10 + (seed % 50) as usize,
            ..Knobs::default()
        };
        let (trace, inputs) = random_case(seed, &knobs, RefArgs::Nullness);
        match gc_differential::<A>(&trace, &inputs, seed % 2 == 0) {
            Ok(Some(_)) => ran += 1,
            Ok(None) => {}
            Err(e) => panic!("MAJIT_FUZZ_SEED={seed}: {e}\noriginal:\n{}", print(&trace)),
        }
    }
    ran
}

/// Twelve fresh nodes, twelve ints and twelve floats live across every
/// allocation (and a guard_class on a headered object), in a loop.
pub const GC_PRESSURE: &str = "
[i0, f0, p0]
label(i0, f0, p0, descr=Loop)
p1 = new(descr=Node)
i1 = int_add(i0, 1)
setfield_gc(p1, i1, descr=Node.value)
setfield_gc(p1, p0, descr=Node.next)
f1 = float_add(f0, 1.25)
p2 = new(descr=Node)
i2 = int_add(i1, 2)
setfield_gc(p2, i2, descr=Node.value)
setfield_gc(p2, p1, descr=Node.next)
f2 = float_add(f1, 2.25)
p3 = new(descr=Node)
i3 = int_add(i2, 3)
setfield_gc(p3, i3, descr=Node.value)
setfield_gc(p3, p2, descr=Node.next)
f3 = float_add(f2, 3.25)
p4 = new(descr=Node)
i4 = int_add(i3, 4)
setfield_gc(p4, i4, descr=Node.value)
setfield_gc(p4, p3, descr=Node.next)
f4 = float_add(f3, 4.25)
p5 = new(descr=Node)
i5 = int_add(i4, 5)
setfield_gc(p5, i5, descr=Node.value)
setfield_gc(p5, p4, descr=Node.next)
f5 = float_add(f4, 5.25)
p6 = new(descr=Node)
i6 = int_add(i5, 6)
setfield_gc(p6, i6, descr=Node.value)
setfield_gc(p6, p5, descr=Node.next)
f6 = float_add(f5, 6.25)
p7 = new(descr=Node)
i7 = int_add(i6, 7)
setfield_gc(p7, i7, descr=Node.value)
setfield_gc(p7, p6, descr=Node.next)
f7 = float_add(f6, 7.25)
p8 = new(descr=Node)
i8 = int_add(i7, 8)
setfield_gc(p8, i8, descr=Node.value)
setfield_gc(p8, p7, descr=Node.next)
f8 = float_add(f7, 8.25)
p9 = new(descr=Node)
i9 = int_add(i8, 9)
setfield_gc(p9, i9, descr=Node.value)
setfield_gc(p9, p8, descr=Node.next)
f9 = float_add(f8, 9.25)
p10 = new(descr=Node)
i10 = int_add(i9, 10)
setfield_gc(p10, i10, descr=Node.value)
setfield_gc(p10, p9, descr=Node.next)
f10 = float_add(f9, 10.25)
p11 = new(descr=Node)
i11 = int_add(i10, 11)
setfield_gc(p11, i11, descr=Node.value)
setfield_gc(p11, p10, descr=Node.next)
f11 = float_add(f10, 11.25)
p12 = new(descr=Node)
i12 = int_add(i11, 12)
setfield_gc(p12, i12, descr=Node.value)
setfield_gc(p12, p11, descr=Node.next)
f12 = float_add(f11, 12.25)
p99 = new_with_vtable(descr=Stack)
setfield_gc(p99, p12, descr=Stack.head)
setfield_gc(p99, i12, descr=Stack.len)
guard_class(p99, 0x5700, descr=g1) [i0]
i_j1 = getfield_gc_i(p1, descr=Node.value)
i_a1 = int_add(i0, i_j1)
p_q1 = getfield_gc_r(p1, descr=Node.next)
i_e1 = ptr_eq(p_q1, p0)
guard_true(i_e1, descr=g2) [i_e1]
i_j2 = getfield_gc_i(p2, descr=Node.value)
i_a2 = int_add(i_a1, i_j2)
p_q2 = getfield_gc_r(p2, descr=Node.next)
i_e2 = ptr_eq(p_q2, p1)
guard_true(i_e2, descr=g2) [i_e2]
i_j3 = getfield_gc_i(p3, descr=Node.value)
i_a3 = int_add(i_a2, i_j3)
p_q3 = getfield_gc_r(p3, descr=Node.next)
i_e3 = ptr_eq(p_q3, p2)
guard_true(i_e3, descr=g2) [i_e3]
i_j4 = getfield_gc_i(p4, descr=Node.value)
i_a4 = int_add(i_a3, i_j4)
p_q4 = getfield_gc_r(p4, descr=Node.next)
i_e4 = ptr_eq(p_q4, p3)
guard_true(i_e4, descr=g2) [i_e4]
i_j5 = getfield_gc_i(p5, descr=Node.value)
i_a5 = int_add(i_a4, i_j5)
p_q5 = getfield_gc_r(p5, descr=Node.next)
i_e5 = ptr_eq(p_q5, p4)
guard_true(i_e5, descr=g2) [i_e5]
i_j6 = getfield_gc_i(p6, descr=Node.value)
i_a6 = int_add(i_a5, i_j6)
p_q6 = getfield_gc_r(p6, descr=Node.next)
i_e6 = ptr_eq(p_q6, p5)
guard_true(i_e6, descr=g2) [i_e6]
i_j7 = getfield_gc_i(p7, descr=Node.value)
i_a7 = int_add(i_a6, i_j7)
p_q7 = getfield_gc_r(p7, descr=Node.next)
i_e7 = ptr_eq(p_q7, p6)
guard_true(i_e7, descr=g2) [i_e7]
i_j8 = getfield_gc_i(p8, descr=Node.value)
i_a8 = int_add(i_a7, i_j8)
p_q8 = getfield_gc_r(p8, descr=Node.next)
i_e8 = ptr_eq(p_q8, p7)
guard_true(i_e8, descr=g2) [i_e8]
i_j9 = getfield_gc_i(p9, descr=Node.value)
i_a9 = int_add(i_a8, i_j9)
p_q9 = getfield_gc_r(p9, descr=Node.next)
i_e9 = ptr_eq(p_q9, p8)
guard_true(i_e9, descr=g2) [i_e9]
i_j10 = getfield_gc_i(p10, descr=Node.value)
i_a10 = int_add(i_a9, i_j10)
p_q10 = getfield_gc_r(p10, descr=Node.next)
i_e10 = ptr_eq(p_q10, p9)
guard_true(i_e10, descr=g2) [i_e10]
i_j11 = getfield_gc_i(p11, descr=Node.value)
i_a11 = int_add(i_a10, i_j11)
p_q11 = getfield_gc_r(p11, descr=Node.next)
i_e11 = ptr_eq(p_q11, p10)
guard_true(i_e11, descr=g2) [i_e11]
i_j12 = getfield_gc_i(p12, descr=Node.value)
i_a12 = int_add(i_a11, i_j12)
p_q12 = getfield_gc_r(p12, descr=Node.next)
i_e12 = ptr_eq(p_q12, p11)
guard_true(i_e12, descr=g2) [i_e12]
f_s1 = float_add(f0, f1)
f_s2 = float_add(f_s1, f2)
f_s3 = float_add(f_s2, f3)
f_s4 = float_add(f_s3, f4)
f_s5 = float_add(f_s4, f5)
f_s6 = float_add(f_s5, f6)
f_s7 = float_add(f_s6, f7)
f_s8 = float_add(f_s7, f8)
f_s9 = float_add(f_s8, f9)
f_s10 = float_add(f_s9, f10)
f_s11 = float_add(f_s10, f11)
f_s12 = float_add(f_s11, f12)
p_h = getfield_gc_r(p99, descr=Stack.head)
i_hv = getfield_gc_i(p_h, descr=Node.value)
i_c = int_lt(i_a12, 100000)
guard_true(i_c, descr=g3) [i_a12, f_s12, i_hv, p99]
jump(i_a12, f_s12, p_h, descr=Loop)";
