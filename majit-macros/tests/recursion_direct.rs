//! Direct calls (`call_assembler` entering the callee's entry trace from
//! machine code) where they must not happen, and with a float result: a
//! stack machine with GC frames whose calls make the callee's frame as
//! large as the call instruction says, so one function is called with
//! frames of two sizes. Its entry trace loads the items of the size it
//! was traced with, so a call with the other size must go through the
//! runner (the direct call's array-length check), while calls of the
//! traced size enter it directly. The interpreter returns `f64`, so the
//! direct path hands back a float. JIT and plain runs must agree, on
//! RefExec (no direct calls) and natively, also under GC stress.

mod common;
#[path = "common/heap.rs"]
mod heap;

use common::{emit, take_output};
use heap::stress_heap;
use majit::prelude::*;

const PUSH: i64 = 1;
const LOAD: i64 = 2;
const ADD: i64 = 3;
const SUB: i64 = 4;
/// `a < b` (1 or 0).
const LT: i64 = 5;
/// Pop; jump forward when zero.
const JZF: i64 = 6;
/// Pop the argument, call the function at `x & 0xff` with a new frame of
/// `x >> 8` items holding it in item 0, push the result.
const CALLF: i64 = 7;
/// Return the top item (as a float).
const RETF: i64 = 8;
/// Pop and print.
const PRINTF: i64 = 9;

#[jit_interp(
    greens = [pc, code],
    reds = [frame],
    helpers = [residual fn emit(x: i64)],
    structs = [Frame { sp: i64, stack: Array<i64> }],
    virtualizable = frame,
)]
fn sized(code: &[i64], start: usize, mut frame: Frame) -> f64 {
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
            ADD => {
                frame.stack[sp - 2] += frame.stack[sp - 1];
                frame.sp -= 1;
            }
            SUB => {
                frame.stack[sp - 2] -= frame.stack[sp - 1];
                frame.sp -= 1;
            }
            LT => {
                frame.stack[sp - 2] = (frame.stack[sp - 2] < frame.stack[sp - 1]) as i64;
                frame.sp -= 1;
            }
            JZF => {
                frame.sp -= 1;
                if frame.stack[sp - 1] == 0 {
                    pc = x as usize;
                }
            }
            CALLF => {
                let size = (x >> 8) as usize;
                let callee = Frame::new(1, Array::<i64>::new(size));
                callee.stack[0] = frame.stack[sp - 1];
                frame.sp -= 1;
                let r = sized(code, (x & 0xff) as usize, callee);
                let top = frame.sp as usize;
                frame.stack[top] = r as i64;
                frame.sp += 1;
            }
            RETF => return frame.stack[sp - 1] as f64,
            PRINTF => {
                emit(frame.stack[sp - 1]);
                frame.sp -= 1;
            }
            _ => return -1.0,
        }
    }
}

fn flat(code: &[(i64, i64)]) -> Vec<i64> {
    code.iter().flat_map(|&(op, x)| [op, x]).collect()
}

/// fib(item 0), calling fib(n - 1) with a frame of `first` items and
/// fib(n - 2) with one of `second`.
fn fib(first: i64, second: i64) -> Vec<i64> {
    flat(&[
        (LOAD, 0),
        (PUSH, 2),
        (LT, 0),
        (JZF, 6),
        (LOAD, 0),
        (RETF, 0),
        (LOAD, 0),
        (PUSH, 1),
        (SUB, 0),
        (CALLF, first << 8),
        (LOAD, 0),
        (PUSH, 2),
        (SUB, 0),
        (CALLF, second << 8),
        (ADD, 0),
        (PRINTF, 0),
        (LOAD, 0),
        (RETF, 0),
    ])
}

/// A frame of `items` items holding `n` in item 0.
fn frame_of(n: i64, items: usize) -> Frame {
    let f = Frame::new(1, Array::<i64>::new(items));
    let mut stack = f.stack();
    stack[0] = n;
    f
}

/// Runs fib(`n`) (which prints every sum and returns its argument) plain
/// and with the JIT; the stats of the JIT run.
fn agree<B: GcBackend>(first: i64, second: i64, n: i64) -> Stats {
    let code = fib(first, second);
    let want = sized(&code, 0, frame_of(n, first as usize));
    let printed = take_output();
    let p = JitParams::default()
        .with_threshold(3)
        .with_bridge_threshold(5);
    let mut driver = sized_driver::<B>(p).unwrap();
    let got = sized_jit(&mut driver, &code, 0, frame_of(n, first as usize)).unwrap();
    assert_eq!(got, want, "{first}/{second}");
    assert_eq!(take_output(), printed, "{first}/{second}");
    driver.stats()
}

fn calls_agree<B: GcBackend>(direct: bool) {
    for stress in [false, true] {
        if stress {
            stress_heap();
        }
        // One frame size: calls of fib enter its entry trace directly.
        let s = agree::<B>(8, 8, 16);
        assert!(s.entry_traces_compiled >= 1, "{s}");
        assert!(s.call_assembler > 100, "{s}");
        if direct {
            assert!(s.call_assembler_direct * 10 > s.call_assembler * 9, "{s}");
        } else {
            assert_eq!(s.call_assembler_direct, 0, "{s}");
        }
        // Two sizes: the calls with the size the entry trace was not
        // traced with go through the runner and the interpreter, the
        // others still enter directly. Entering a trace traced with more
        // items than the frame has would read and write past its array.
        for (first, second) in [(8, 12), (12, 8)] {
            let s = agree::<B>(first, second, 16);
            assert!(s.entry_traces_compiled >= 1, "{s}");
            assert!(s.portal_runs > s.call_assembler + 100, "{s}");
            assert_eq!(s.call_assembler_direct > 100, direct, "{s}");
        }
    }
}

#[test]
fn frames_of_another_size_go_through_the_runner_refexec() {
    calls_agree::<RefExec>(false);
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn frames_of_another_size_go_through_the_runner_native() {
    calls_agree::<HostBackend>(true);
}
