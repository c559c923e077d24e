//! An interpreter split into traced functions of another module
//! (`#[majit::traced]`, calling each other and helpers of every policy)
//! gives the same output plain and with the JIT on RefExec and on the
//! native backend, with a loop compiled and entered. The optimized traces
//! show what the policies and hints promise: traced functions leave no
//! call, a `dont_look_inside` one stays a call, a `loop_invariant` call
//! runs once per iteration, `promote` leaves a `guard_value` and folds
//! an elidable lookup on the promoted GC handle, and `we_are_jitted()` is
//! true only in compiled code.

mod common;

use common::{emit, take_output};
use majit::prelude::*;
use std::cell::Cell;

thread_local! {
    /// How often `vm::epoch` ran.
    static EPOCHS: Cell<u64> = const { Cell::new(0) };
}

/// The VM's operations, outside the interpreter's module.
mod vm {
    use super::Shape;

    /// Private: a traced function's consts resolve in its own module.
    const MASK: i64 = 0xffff;

    /// The current epoch: the same for a whole loop iteration.
    pub fn epoch() -> i64 {
        super::EPOCHS.with(|c| c.set(c.get() + 1));
        7
    }

    #[majit::traced]
    pub(crate) fn scale(x: i64, k: i64) -> i64 {
        match k {
            MASK => x,
            _ => x.wrapping_mul(k) ^ k,
        }
    }

    #[majit::traced]
    pub(crate) fn mix(a: i64, b: i64) -> i64 {
        if a > b {
            a.wrapping_sub(b)
        } else {
            scale(b, 3).wrapping_add(a)
        }
    }

    /// Traced, calling a traced function and a loop-invariant helper.
    #[majit::traced]
    pub(crate) fn step(acc: i64, i: i64) -> i64 {
        mix(acc, i).wrapping_add(epoch()) & MASK
    }

    /// Traced, over a GC struct (field syntax, as in a handler).
    #[majit::traced]
    pub(crate) fn area(s: Shape) -> i64 {
        s.base.wrapping_mul(s.stride)
    }

    /// Traced, over floats.
    #[majit::traced]
    pub(crate) fn lerp(a: f64, b: f64, t: f64) -> f64 {
        a + (b - a) * t
    }

    /// Traced, returning a GC handle.
    #[majit::traced]
    pub(crate) fn grown(s: Shape, by: i64) -> Shape {
        if by == 0 {
            return s;
        }
        let t = Shape::new(s.base, s.stride());
        t.base = t.base.wrapping_add(by);
        t
    }

    /// A residual helper returning a GC handle (through the shim's
    /// `to_raw`).
    pub fn fresh(base: i64) -> Shape {
        Shape::new(base, 2)
    }

    /// Traced, but the interpreter calls it `dont_look_inside`.
    #[majit::traced]
    pub(crate) fn checksum(x: i64) -> i64 {
        x % 1000 + scale(x, 2) % 7
    }
}

const STEP: i64 = 0;
const SUM: i64 = 1;
const INC: i64 = 2;
const LOOP: i64 = 3;
const PRINT: i64 = 4;
const HALT: i64 = 5;

#[jit_interp(
    greens = [pc, code],
    reds = [acc, i, n],
    helpers = [
        residual fn emit(x: i64),
        loop_invariant fn vm::epoch() -> i64,
        dont_look_inside fn vm::checksum(x: i64) -> i64,
    ],
    traced = [vm::step, vm::mix, vm::scale],
)]
fn run(code: &[i64], n0: i64) -> i64 {
    let mut pc: usize = 0;
    let mut acc: i64 = 1;
    let mut i: i64 = 0;
    let n: i64 = n0;
    loop {
        jit_merge_point!();
        match code[pc] {
            STEP => acc = vm::step(acc, i),
            SUM => acc = vm::checksum(acc).wrapping_add(vm::epoch()),
            INC => i += 1,
            LOOP => {
                if i < n {
                    pc = 0;
                    can_enter_jit!();
                    continue;
                }
            }
            PRINT => emit(acc),
            HALT => return acc,
            _ => return -1,
        }
        pc += 1;
    }
}

const PROG: [i64; 7] = [STEP, SUM, PRINT, INC, LOOP, PRINT, HALT];

fn epochs() -> u64 {
    EPOCHS.with(|c| c.replace(0))
}

/// Plain, then with `B`: equal result and output, and a loop compiled
/// and entered when the program loops long enough.
fn jit_equals_plain<B: GcBackend>() {
    for n in [1, 10, 500] {
        let plain = run(&PROG, n);
        let plain_out = take_output();
        let mut driver = run_driver::<B>(JitParams::default().with_threshold(3)).unwrap();
        let r = run_jit(&mut driver, &PROG, n).unwrap();
        assert_eq!((r, take_output()), (plain, plain_out), "n {n}");
        if n >= 10 {
            let s = driver.stats();
            assert!(s.loops_compiled >= 1 && s.loop_entries >= 1, "{s}");
        }
    }
}

#[test]
fn traced_functions_jit_equals_plain_on_refexec() {
    jit_equals_plain::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn traced_functions_jit_equals_plain_natively() {
    jit_equals_plain::<HostBackend>();
}

/// The optimized loop of `run` (the part after its last `label`).
fn loop_body<B: GcBackend>(driver: &JitDriver<B>) -> String {
    assert!(!driver.loops().is_empty(), "{}", driver.report());
    let trace = majit::ir::text::print(&driver.loops()[0].trace);
    let at = trace.rfind("label(").expect("a loop has a label");
    trace[at..].to_string()
}

#[test]
fn policies_show_in_the_optimized_loop() {
    let n = 500;
    run(&PROG, n);
    let plain_epochs = epochs();
    let mut driver = run_driver::<RefExec>(JitParams::default().with_threshold(3)).unwrap();
    run_jit(&mut driver, &PROG, n).unwrap();
    take_output();
    let jit_epochs = epochs();
    let body = loop_body(&driver);
    // Traced functions are inlined: no calls of them.
    for f in ["step", "mix", "scale"] {
        assert!(!body.contains(&format!("descr={f})")), "{f}: {body}");
    }
    // `dont_look_inside`: one residual call per iteration.
    assert_eq!(body.matches("descr=checksum)").count(), 1, "{body}");
    // Two `epoch()` calls per iteration in the source, one in the loop.
    assert_eq!(body.matches("descr=epoch)").count(), 1, "{body}");
    assert_eq!(plain_epochs, 2 * n as u64);
    assert!(jit_epochs < plain_epochs, "{jit_epochs} >= {plain_epochs}");
}

/// Shapes: a lookup keyed by a shape object, elidable (its result depends
/// only on the shape and the key).
fn slot_of(shape: Shape, key: i64) -> i64 {
    shape.base() + key * shape.stride()
}

#[jit_interp(
    greens = [pc, code],
    reds = [shape, acc, n, jitted],
    helpers = [
        elidable fn slot_of(shape: Shape, key: i64) -> i64,
        residual fn vm::fresh(base: i64) -> Shape,
    ],
    structs = [Shape { base: i64, stride: i64 }],
    traced = [vm::area, vm::grown, vm::lerp, halve],
)]
fn lookup(code: &[i64], n0: i64) -> i64 {
    let mut pc: usize = 0;
    let mut shape: Shape = Shape::new(100, 3);
    let mut acc: i64 = 0;
    let mut n: i64 = n0;
    let mut jitted: i64 = 0;
    loop {
        jit_merge_point!();
        match code[pc] {
            // The shape promoted: the lookup folds in the trace.
            0 => {
                let s = promote(shape);
                acc = acc.wrapping_add(slot_of(s, 2));
            }
            // Not promoted: the lookup stays a call.
            1 => acc = acc.wrapping_add(slot_of(shape, 5)),
            2 => {
                if we_are_jitted() {
                    jitted += 1;
                }
            }
            // Traced functions over GC handles (`grown` allocates, so does
            // the residual `fresh`) and floats.
            4 => {
                let g = vm::grown(shape, n & 1);
                acc = acc.wrapping_add(halve(vm::area(g) & 0xff));
                acc = acc.wrapping_add(vm::area(vm::fresh(n & 7)));
                acc = acc.wrapping_add(vm::lerp(1.5, n as f64, 0.25) as i64);
            }
            3 => {
                n -= 1;
                if n > 0 {
                    pc = 0;
                    can_enter_jit!();
                    continue;
                }
                return acc.wrapping_mul(1000).wrapping_add(jitted);
            }
            _ => return -1,
        }
        pc += 1;
    }
}

/// A traced function in the interpreter's own module, listed by name
/// (defined after the interpreter).
#[majit::traced]
fn halve(x: i64) -> i64 {
    x >> 1
}

#[test]
fn promote_leaves_a_guard_value_and_folds_the_lookup() {
    let promoted = [0, 3];
    let plain = lookup(&promoted, 200);
    let mut driver = lookup_driver::<RefExec>(JitParams::default().with_threshold(3)).unwrap();
    assert_eq!(lookup_jit(&mut driver, &promoted, 200).unwrap(), plain);
    let trace = majit::ir::text::print(&driver.loops()[0].trace);
    assert!(trace.contains("guard_value("), "{trace}");
    assert!(!trace.contains("slot_of"), "{trace}");

    let opaque = [1, 3];
    let plain = lookup(&opaque, 200);
    let mut driver = lookup_driver::<RefExec>(JitParams::default().with_threshold(3)).unwrap();
    assert_eq!(lookup_jit(&mut driver, &opaque, 200).unwrap(), plain);
    // Called once, in the preamble (`shape` is loop-invariant).
    let trace = majit::ir::text::print(&driver.loops()[0].trace);
    assert!(trace.contains("descr=slot_of)"), "{trace}");
}

/// `lookup` over traced functions taking and returning GC handles, with
/// `B`: equal to plain, and the shape `grown` makes is virtual (read,
/// never stored), so the loop allocates nothing but in the residual
/// `fresh`.
fn gc_handles_agree<B: GcBackend>() {
    let prog = [4, 3];
    let plain = lookup(&prog, 300);
    let mut driver = lookup_driver::<B>(JitParams::default().with_threshold(3)).unwrap();
    assert_eq!(lookup_jit(&mut driver, &prog, 300).unwrap(), plain);
    assert!(driver.stats().loop_entries >= 1, "{}", driver.stats());
    assert!(
        !loop_body(&driver).contains("new("),
        "{}",
        loop_body(&driver)
    );
}

#[test]
fn traced_functions_over_gc_handles_agree_and_allocate_nothing() {
    gc_handles_agree::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn traced_functions_over_gc_handles_agree_natively() {
    gc_handles_agree::<HostBackend>();
}

#[test]
fn we_are_jitted_is_true_only_in_compiled_code() {
    let prog = [2, 3];
    assert_eq!(lookup(&prog, 300), 0);
    for native in [false, true] {
        let params = JitParams::default().with_threshold(3);
        let (r, s) = if native && cfg!(any(target_arch = "x86_64", target_arch = "aarch64")) {
            let mut driver = lookup_driver::<HostBackend>(params).unwrap();
            (
                lookup_jit(&mut driver, &prog, 300).unwrap(),
                driver.stats().clone(),
            )
        } else {
            let mut driver = lookup_driver::<RefExec>(params).unwrap();
            (
                lookup_jit(&mut driver, &prog, 300).unwrap(),
                driver.stats().clone(),
            )
        };
        // Every iteration run by compiled code counted itself.
        assert!(r > 0 && r < 300, "{r}");
        assert!(s.loop_entries >= 1, "{s}");
    }
}
