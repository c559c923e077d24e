//! `#[quasi_immutable]` fields: a loop reading `shape.slots` through a
//! promoted handle compiles with the value folded (no load, a
//! `guard_not_invalidated`); writing the field (in a handler, and in a
//! residual helper called from compiled code) invalidates the loop, the
//! next iterations see the new value (results equal the plain run's), the
//! key is traced again and the old loop's code is freed. On RefExec and
//! natively.

use majit::metainterp::lifetime::TreeState;
use majit::metainterp::stats::AbortReason;
use majit::prelude::*;

/// A residual helper that writes the field through the setter (as the
/// interpreter's runtime would): at iteration `at` only.
fn grow_at(shape: Shape, i: i64, at: i64) -> i64 {
    if i == at {
        shape.set_slots(shape.slots() + 100);
    }
    0
}

#[jit_interp(
    greens = [pc, code],
    reds = [shape, acc, i, n],
    helpers = [residual fn grow_at(shape: Shape, i: i64, at: i64) -> i64],
    structs = [Shape { #[quasi_immutable] slots: i64, version: i64 }],
)]
fn count(code: &[i64], n0: i64) -> i64 {
    let mut pc: usize = 0;
    let mut shape: Shape = Shape::new(3, 0);
    let mut acc: i64 = 0;
    let mut i: i64 = 0;
    let n: i64 = n0;
    loop {
        jit_merge_point!();
        match code[pc] {
            // The shape promoted: `slots` folds in the trace.
            0 => {
                let s = promote(shape);
                acc = acc.wrapping_add(s.slots * 7);
            }
            // The program writes the field, in a rare branch (a guard
            // failure runs it in the blackhole).
            1 => {
                if i == n / 3 {
                    shape.slots += 10;
                }
            }
            // A residual helper writes it from compiled code.
            2 => acc = acc.wrapping_add(grow_at(shape, i, 2 * n / 3)),
            3 => {
                i += 1;
                if i < n {
                    pc = 0;
                    can_enter_jit!();
                    continue;
                }
                return acc;
            }
            _ => return -1,
        }
        pc += 1;
    }
}

const N: i64 = 3000;

fn body(driver_trace: &majit::ir::Trace) -> String {
    majit::ir::text::print(driver_trace)
}

fn invalidated_and_recompiled<B: GcBackend>() {
    // Only the field folding: no write.
    let fold = [0, 3];
    let plain = count(&fold, N);
    let mut driver = count_driver::<B>(JitParams::default().with_threshold(5)).unwrap();
    assert_eq!(count_jit(&mut driver, &fold, N).unwrap(), plain);
    let trace = body(&driver.loops()[0].trace);
    assert!(!trace.contains("getfield_gc"), "no load of slots: {trace}");
    assert!(trace.contains("quasiimmut_field("), "{trace}");
    assert!(trace.contains("guard_not_invalidated("), "{trace}");
    // Once in the preamble and once in the peeled loop: no call between.
    assert_eq!(
        trace.matches("guard_not_invalidated(").count(),
        2,
        "{trace}"
    );
    assert_eq!(driver.stats().invalidations, 0);

    // Written by the program and by a helper: two invalidations.
    let prog = [0, 1, 2, 3];
    let plain = count(&prog, N);
    let mut driver = count_driver::<B>(JitParams::default().with_threshold(5)).unwrap();
    assert_eq!(count_jit(&mut driver, &prog, N).unwrap(), plain);
    let s = driver.stats().clone();
    assert_eq!(s.invalidations, 2, "{s}");
    assert_eq!(
        s.loops_compiled, 3,
        "traced again after each invalidation: {s}"
    );
    assert_eq!(s.loops_freed, 2, "{s}");
    assert!(s.code_freed_bytes > 0 && s.code_in_use > 0, "{s}");
    assert!(s.loop_entries >= 3, "{s}");
    let last = driver.loops().len() - 1;
    assert_eq!(driver.loop_state(0), Some(TreeState::Freed));
    assert_eq!(driver.loop_state(last), Some(TreeState::Live));
    let summary = driver.summary();
    assert!(
        summary.contains("; 2 traces invalidated; freed 2 loops"),
        "{summary}"
    );
}

#[test]
fn a_write_invalidates_the_loop_on_refexec() {
    invalidated_and_recompiled::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn a_write_invalidates_the_loop_natively() {
    invalidated_and_recompiled::<HostBackend>();
}

#[test]
fn the_setter_invalidates_and_plain_runs_are_unchanged() {
    // The plain function writes through the same setter: with no trace
    // depending on the shape it is a lookup in an empty table.
    assert_eq!(count(&[0, 1, 2, 3], 30), {
        let (mut slots, mut acc) = (3i64, 0i64);
        for i in 0..30 {
            acc += slots * 7;
            if i == 10 {
                slots += 10;
            }
            if i == 20 {
                slots += 100;
            }
        }
        acc
    });
    assert_eq!(majit::metainterp::quasi::registered(), 0);
}

/// `JitParams::max_code` (`MAJIT_MAX_CODE`): a loop whose code does not
/// fit is not kept (`CodeFull`, the program runs interpreted, same
/// result); with room for one tree at a time, freeing the invalidated
/// loops makes room for their successors.
fn bounded_code<B: GcBackend>() {
    let prog = [0, 1, 2, 3];
    let plain = count(&prog, N);
    let params = || JitParams::default().with_threshold(5);
    let mut driver = count_driver::<B>(params().with_max_code(1)).unwrap();
    assert_eq!(count_jit(&mut driver, &prog, N).unwrap(), plain);
    let s = driver.stats().clone();
    assert_eq!(
        (s.loops_compiled, s.code_in_use, s.code_peak),
        (0, 0, 0),
        "{s}"
    );
    assert_eq!(
        s.aborts_for(AbortReason::CodeFull),
        1,
        "the key is not traced again: {s}"
    );
    let why: Vec<&str> = s.abort_messages_for(AbortReason::CodeFull).collect();
    assert!(why[0].contains("MAJIT_MAX_CODE=1"), "{why:?}");

    let mut driver = count_driver::<B>(params()).unwrap();
    count_jit(&mut driver, &prog, N).unwrap();
    let one_tree = driver.stats().code_peak as usize;
    let mut driver = count_driver::<B>(params().with_max_code(one_tree)).unwrap();
    assert_eq!(count_jit(&mut driver, &prog, N).unwrap(), plain);
    let s = driver.stats().clone();
    assert_eq!((s.loops_compiled, s.loops_freed), (3, 2), "{s}");
    assert_eq!(s.aborts_for(AbortReason::CodeFull), 0, "{s}");
}

#[test]
fn max_code_bounds_the_code_in_use_on_refexec() {
    bounded_code::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn max_code_bounds_the_code_in_use_natively() {
    bounded_code::<HostBackend>();
}

#[test]
fn majit_max_code_is_a_byte_count() {
    let read = |v: &str| {
        JitParams::from_lookup(|k| (k == "MAJIT_MAX_CODE").then(|| v.to_string()))
            .map(|p| p.max_code)
    };
    assert_eq!(read("4k"), Ok(4096));
    assert_eq!(read("100"), Ok(100));
    let e = read("lots").unwrap_err();
    assert_eq!(
        e.to_string(),
        "MAJIT_MAX_CODE=\"lots\": expected a byte count such as 1048576, 512k or 4m"
    );
    assert_eq!(
        JitParams::default().max_code,
        usize::MAX,
        "unbounded by default"
    );
}
