//! A recursive interpreter returning `Result`: the interpreted program
//! raises an error deep in recursion (`return Err(..)`), which unwinds the
//! interpreter's frames (`?` on the interpreter's call of itself) up to a
//! protected call (`match` on it) or out of the program. Plain and JIT
//! runs (RefExec and native) must agree at several thresholds, and the
//! JIT must have compiled and entered code.

mod common;

use common::{emit, take_output};
use majit::prelude::*;

const RET: i64 = 0;
const LOADA: i64 = 1;
const ADDA: i64 = 2;
const NTOA: i64 = 3;
const ATOT: i64 = 4;
const ADDT: i64 = 5;
const ADDN: i64 = 6;
const DECN: i64 = 7;
const JNZ: i64 = 8;
const JZ: i64 = 9;
/// `a = f(a)?`: a call whose error goes on to the caller.
const CALL: i64 = 10;
/// `a = f(a)`, or `1000 + e` when it failed with `e`.
const PCALL: i64 = 11;
/// Fails with `a`.
const THROW: i64 = 12;
const PRINT: i64 = 13;
/// Jumps when `n` is odd.
const JODD: i64 = 14;

#[jit_interp(
    greens = [pc, code],
    reds = [a, n, t],
    helpers = [residual fn emit(x: i64)],
)]
fn run(code: &[i64], start: usize, arg: i64) -> Result<i64, i64> {
    let mut pc: usize = start;
    let mut a: i64 = 0;
    let mut n: i64 = arg;
    let mut t: i64 = 0;
    loop {
        jit_merge_point!();
        let op = code[2 * pc];
        let x = code[2 * pc + 1];
        pc += 1;
        match op {
            RET => return Ok(a),
            LOADA => a = x,
            ADDA => a += x,
            NTOA => a = n,
            ATOT => t = a,
            ADDT => a += t,
            ADDN => a += n,
            DECN => n -= 1,
            PRINT => emit(a),
            THROW => return Err(a),
            JNZ => {
                if n != 0 {
                    pc = x as usize;
                    can_enter_jit!();
                    continue;
                }
            }
            JZ => {
                if n == 0 {
                    pc = x as usize;
                }
            }
            JODD => {
                if n & 1 == 1 {
                    pc = x as usize;
                }
            }
            CALL => {
                let r = run(code, x as usize, a)?;
                a = r;
            }
            PCALL => match run(code, x as usize, a) {
                Ok(r) => a = r,
                Err(e) => a = 1000 + e,
            },
            _ => return Err(-1),
        }
    }
}

fn flat(code: &[(i64, i64)]) -> Vec<i64> {
    code.iter().flat_map(|&(o, a)| [o, a]).collect()
}

/// For i = n..1: a protected call of f(i), which returns 3i for an even
/// i and fails with 7 from recursion i deep for an odd one; prints the
/// running sum.
fn mixed() -> Vec<i64> {
    flat(&[
        (NTOA, 0),
        (PCALL, 8),
        (ADDT, 0),
        (ATOT, 0),
        (PRINT, 0),
        (DECN, 0),
        (JNZ, 0),
        (RET, 0),
        // f(n)
        (JODD, 13),
        (ADDN, 0),
        (ADDN, 0),
        (ADDN, 0),
        (RET, 0),
        (NTOA, 0),
        (CALL, 16),
        (RET, 0),
        // down(n): fails with 7 at depth n
        (JZ, 21),
        (NTOA, 0),
        (ADDA, -1),
        (CALL, 16),
        (RET, 0),
        (LOADA, 7),
        (THROW, 0),
    ])
}

/// A loop summing i for i = n..1, then a call failing from 20 deep that
/// nothing catches: the program fails with 7.
fn uncaught() -> Vec<i64> {
    flat(&[
        (ADDN, 0),
        (DECN, 0),
        (JNZ, 0),
        (PRINT, 0),
        (LOADA, 20),
        (CALL, 6),
        // down(n)
        (JZ, 11),
        (NTOA, 0),
        (ADDA, -1),
        (CALL, 6),
        (RET, 0),
        (LOADA, 7),
        (THROW, 0),
    ])
}

fn agree<B: GcBackend>() {
    for (name, code, arg) in [("mixed", mixed(), 60), ("uncaught", uncaught(), 300)] {
        for threshold in [2, 7] {
            let want = run(&code, 0, arg);
            let printed = take_output();
            let p = JitParams::default()
                .with_threshold(threshold)
                .with_bridge_threshold(5);
            let mut driver = run_driver::<B>(p).unwrap();
            let got = run_jit(&mut driver, &code, 0, arg).unwrap();
            assert_eq!(got, want, "{name} at threshold {threshold}");
            assert_eq!(take_output(), printed, "{name}");
            let s = driver.stats();
            assert!(s.loops_compiled >= 1, "{name}: {s}");
            assert!(s.loop_entries + s.portal_entries >= 1, "{name}: {s}");
            assert!(s.calls_residual >= 1, "{name}: {s}");
            if name == "mixed" {
                // Failures deep in inlined calls resume every frame.
                assert!(s.calls_inlined >= 1, "{name}: {s}");
                assert!(s.callee_guard_failures >= 1, "{name}: {s}");
            }
        }
    }
    assert_eq!(run(&uncaught(), 0, 300), Err(7));
}

#[test]
fn recursive_results_refexec() {
    agree::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn recursive_results_native() {
    agree::<HostBackend>();
}

// ---- the same with GC frames: handles rooted across the calls, and in
// the arms of a `match` on a call ----

#[path = "common/heap.rs"]
mod heap;

const PUSH: i64 = 1;
const LOAD: i64 = 2;
const STORE: i64 = 3;
const SUB: i64 = 4;
const ADDF: i64 = 5;
/// Pop; jump forward when zero.
const JZF: i64 = 6;
/// Pop; jump back when not zero.
const JNZB: i64 = 7;
/// Pop the argument, `push(f(arg)?)` on a new frame.
const CALLF: i64 = 8;
/// Pop the argument, push `f(arg)` or `1000 + e`.
const PCALLF: i64 = 9;
const RETF: i64 = 10;
/// Fail with the top item.
const THROWF: i64 = 11;
const PRINTF: i64 = 12;

#[jit_interp(
    greens = [pc, code],
    reds = [frame],
    helpers = [residual fn emit(x: i64)],
    structs = [Frame { sp: i64, stack: Array<i64> }],
)]
fn frames(code: &[i64], start: usize, mut frame: Frame) -> Result<i64, i64> {
    let mut pc: usize = start;
    loop {
        jit_merge_point!();
        let op = code[2 * pc];
        let x = code[2 * pc + 1];
        pc += 1;
        let sp = frame.sp as usize;
        match op {
            PUSH => {
                frame.stack[sp] = x;
                frame.sp += 1;
            }
            LOAD => {
                frame.stack[sp] = frame.stack[x as usize];
                frame.sp += 1;
            }
            STORE => {
                frame.stack[x as usize] = frame.stack[sp - 1];
                frame.sp -= 1;
            }
            SUB => {
                frame.stack[sp - 2] -= frame.stack[sp - 1];
                frame.sp -= 1;
            }
            ADDF => {
                frame.stack[sp - 2] += frame.stack[sp - 1];
                frame.sp -= 1;
            }
            JZF => {
                frame.sp -= 1;
                if frame.stack[sp - 1] == 0 {
                    pc = x as usize;
                }
            }
            JNZB => {
                frame.sp -= 1;
                if frame.stack[sp - 1] != 0 {
                    pc = x as usize;
                    can_enter_jit!();
                    continue;
                }
            }
            CALLF => {
                let callee = Frame::new(1, Array::<i64>::new(8));
                callee.stack[0] = frame.stack[sp - 1];
                frame.sp -= 1;
                let r = frames(code, x as usize, callee)?;
                let top = frame.sp as usize;
                frame.stack[top] = r;
                frame.sp += 1;
            }
            PCALLF => {
                let callee = Frame::new(1, Array::<i64>::new(8));
                callee.stack[0] = frame.stack[sp - 1];
                match frames(code, x as usize, callee) {
                    Ok(r) => frame.stack[sp - 1] = r,
                    Err(e) => frame.stack[sp - 1] = 1000 + e,
                }
            }
            RETF => return Ok(frame.stack[sp - 1]),
            THROWF => return Err(frame.stack[sp - 1]),
            PRINTF => {
                emit(frame.stack[sp - 1]);
                frame.sp -= 1;
            }
            _ => return Err(-1),
        }
    }
}

/// For n = slot 0 down to 1: acc (slot 1) += a protected call of
/// down(n), which fails with 7 from n deep; prints acc, returns it.
fn frames_program() -> Vec<i64> {
    flat(&[
        (PUSH, 0),
        (LOAD, 0), // 1: loop head
        (PCALLF, 16),
        (LOAD, 1),
        (ADDF, 0),
        (STORE, 1),
        (LOAD, 1),
        (PRINTF, 0),
        (LOAD, 0),
        (PUSH, 1),
        (SUB, 0),
        (STORE, 0),
        (LOAD, 0),
        (JNZB, 1),
        (LOAD, 1),
        (RETF, 0),
        // down at 16: fails with 7 when slot 0 is 0, else down(n - 1)?
        (LOAD, 0),
        (JZF, 23),
        (LOAD, 0),
        (PUSH, 1),
        (SUB, 0),
        (CALLF, 16),
        (RETF, 0),
        (PUSH, 7),
        (THROWF, 0),
    ])
}

fn frame_of(n: i64) -> Frame {
    let f = Frame::new(1, Array::<i64>::new(8));
    let mut stack = f.stack();
    stack[0] = n;
    f
}

fn frames_agree<B: GcBackend>() {
    for stress in [false, true] {
        if stress {
            heap::stress_heap();
        }
        let code = frames_program();
        let want = frames(&code, 0, frame_of(40));
        let printed = take_output();
        assert_eq!(want, Ok(40 * 1007), "every call failed and was caught");
        let p = JitParams::default()
            .with_threshold(3)
            .with_bridge_threshold(5);
        let mut driver = frames_driver::<B>(p).unwrap();
        let got = frames_jit(&mut driver, &code, 0, frame_of(40)).unwrap();
        assert_eq!(got, want, "stress {stress}");
        assert_eq!(take_output(), printed, "stress {stress}");
        let s = driver.stats();
        assert!(s.loops_compiled >= 1, "{s}");
        assert!(s.calls_inlined + s.calls_residual >= 1, "{s}");
    }
}

#[test]
fn recursive_results_with_gc_frames_refexec() {
    frames_agree::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn recursive_results_with_gc_frames_native() {
    frames_agree::<HostBackend>();
}
