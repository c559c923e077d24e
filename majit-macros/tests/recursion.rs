//! Recursion of the interpreter function: a handler calls the interpreter
//! itself for a call of the interpreted program. Two interpreters: a
//! register machine with integer state, and a stack machine whose frames
//! are GC structs (the current one virtualizable), allocated per call and
//! run under GC stress. Both run plain and with the JIT (RefExec and the
//! native backend) and must agree; the stats show calls inlined and made
//! residual, nested runs, entry traces, guard failures inside callees.

mod common;
#[path = "common/heap.rs"]
mod heap;

use common::{emit, take_output};
use heap::stress_heap;
use majit::prelude::*;

// ---- the register machine: greens pc, code; reds a, n, t ----

const RET: i64 = 0;
const LOADA: i64 = 1;
const ADDA: i64 = 2;
const NTOA: i64 = 3;
const ATOT: i64 = 4;
const ADDT: i64 = 5;
const ADDN: i64 = 6;
const DECN: i64 = 7;
const JNZ: i64 = 8;
const JLT2: i64 = 9;
const JZ: i64 = 10;
const CALL: i64 = 11;
const PRINT: i64 = 12;

#[jit_interp(
    greens = [pc, code],
    reds = [a, n, t],
    helpers = [residual fn emit(x: i64)],
)]
fn calls(code: &[i64], start: usize, arg: i64) -> i64 {
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
            RET => return a,
            LOADA => a = x,
            ADDA => a += x,
            NTOA => a = n,
            ATOT => t = a,
            ADDT => a += t,
            ADDN => a += n,
            DECN => n -= 1,
            PRINT => emit(a),
            JNZ => {
                if n != 0 {
                    pc = x as usize;
                    can_enter_jit!();
                    continue;
                }
            }
            JLT2 => {
                if n < 2 {
                    pc = x as usize;
                }
            }
            JZ => {
                if n == 0 {
                    pc = x as usize;
                }
            }
            CALL => {
                let r = calls(code, x as usize, a);
                a = r;
            }
            _ => return -1,
        }
    }
}

fn flat(code: &[(i64, i64)]) -> Vec<i64> {
    code.iter().flat_map(|&(o, a)| [o, a]).collect()
}

/// fib(n), recursive.
fn fib() -> Vec<i64> {
    flat(&[
        (JLT2, 10),
        (NTOA, 0),
        (ADDA, -1),
        (CALL, 0),
        (ATOT, 0),
        (NTOA, 0),
        (ADDA, -2),
        (CALL, 0),
        (ADDT, 0),
        (RET, 0),
        (NTOA, 0),
        (RET, 0),
    ])
}

/// A loop printing the running sum of sq(i) = 3i for i = n..1.
fn loop_calls() -> Vec<i64> {
    flat(&[
        (NTOA, 0),
        (CALL, 8),
        (ADDT, 0),
        (ATOT, 0),
        (PRINT, 0),
        (DECN, 0),
        (JNZ, 0),
        (RET, 0),
        (ADDN, 0),
        (ADDN, 0),
        (ADDN, 0),
        (RET, 0),
    ])
}

/// The sum of even(i) for i = n..1, even and odd calling each other.
fn even_odd() -> Vec<i64> {
    flat(&[
        (NTOA, 0),
        (CALL, 7),
        (ADDT, 0),
        (ATOT, 0),
        (DECN, 0),
        (JNZ, 0),
        (RET, 0),
        (JZ, 12),
        (NTOA, 0),
        (ADDA, -1),
        (CALL, 14),
        (RET, 0),
        (LOADA, 1),
        (RET, 0),
        (JZ, 19),
        (NTOA, 0),
        (ADDA, -1),
        (CALL, 7),
        (RET, 0),
        (LOADA, 0),
        (RET, 0),
    ])
}

fn calls_agree<B: GcBackend>() {
    for (name, code, arg) in [
        ("fib", fib(), 18),
        ("loop_calls", loop_calls(), 200),
        ("even_odd", even_odd(), 120),
    ] {
        for threshold in [2, 7] {
            let want = calls(&code, 0, arg);
            let printed = take_output();
            let p = JitParams::default()
                .with_threshold(threshold)
                .with_bridge_threshold(5);
            let mut driver = calls_driver::<B>(p).unwrap();
            assert_eq!(
                calls_jit(&mut driver, &code, 0, arg).unwrap(),
                want,
                "{name}"
            );
            assert_eq!(take_output(), printed, "{name}");
            let s = driver.stats();
            assert!(s.loops_compiled >= 1, "{name}: {s}");
            match name {
                "fib" => {
                    assert!(s.entry_traces_compiled >= 1, "{name}: {s}");
                    assert!(s.calls_residual >= 1, "{name}: {s}");
                    assert!(s.portal_entries > 100, "{name}: {s}");
                    assert!(s.portal_returns > 100, "{name}: {s}");
                }
                "loop_calls" => {
                    assert!(s.calls_inlined >= 1, "{name}: {s}");
                    assert!(s.loop_entries >= 1, "{name}: {s}");
                }
                _ => {
                    assert!(s.calls_inlined >= 1, "{name}: {s}");
                    assert!(s.calls_residual >= 1, "{name}: {s}");
                    assert!(s.callee_guard_failures >= 1, "{name}: {s}");
                }
            }
        }
    }
}

/// A loop whose every run takes its back edge once: each trace from that
/// back edge sees the loop end and the function return (`PortalReturned`).
/// The driver's last attempt at the key compiles that trace with its
/// `finish` (`tracer/portal.rs`) instead of giving the loop up: later runs
/// enter it at the back edge, and a run that goes on looping fails its exit
/// guard until a bridge closes the loop at its header. Without it no loop
/// is compiled.
fn loops_ending_while_traced_still_compile<B: GcBackend>() {
    // f(n) = n + (n-1) + ... + 1, its loop test at the bottom.
    let code = flat(&[(ADDN, 0), (DECN, 0), (JNZ, 0), (RET, 0)]);
    let params = JitParams::default()
        .with_threshold(2)
        .with_bridge_threshold(5);
    let max_aborts = u64::from(params.max_aborts);
    let mut driver = calls_driver::<B>(params).unwrap();
    for _ in 0..30 {
        assert_eq!(calls_jit(&mut driver, &code, 0, 2).unwrap(), 3);
    }
    let s = driver.stats();
    assert_eq!(s.loops_compiled, 1, "{s}");
    assert_eq!(s.aborts.values().sum::<u64>(), max_aborts - 1, "{s}");
    assert!(s.loop_entries >= 20, "{s}");
    for n in [10, 40, 100] {
        assert_eq!(
            calls_jit(&mut driver, &code, 0, n).unwrap(),
            calls(&code, 0, n)
        );
    }
    let s = driver.stats();
    assert_eq!(s.bridges_to_loop_start, 1, "{s}");
}

#[test]
fn loops_ending_while_traced_still_compile_refexec() {
    loops_ending_while_traced_still_compile::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn loops_ending_while_traced_still_compile_native() {
    loops_ending_while_traced_still_compile::<HostBackend>();
}

#[test]
fn recursive_register_machine_refexec() {
    calls_agree::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn recursive_register_machine_native() {
    calls_agree::<HostBackend>();
}

// ---- the stack machine: greens pc, code; red frame (virtualizable) ----

const PUSH: i64 = 1;
const LOAD: i64 = 2;
const STORE: i64 = 3;
const ADD: i64 = 4;
const SUB: i64 = 5;
/// `a < b` (1 or 0).
const LT: i64 = 6;
/// Pop; jump forward when zero.
const JZF: i64 = 7;
/// Pop; jump back when not zero.
const JNZB: i64 = 8;
/// Pop the argument, call the function at the argument with a new frame
/// holding it in slot 0, push the result.
const CALLF: i64 = 9;
/// Return the top item.
const RETF: i64 = 10;
/// Pop and print.
const PRINTF: i64 = 11;
/// Push a new one-field `Point` and pop it (an allocation per run).
const POINT: i64 = 12;

#[jit_interp(
    greens = [pc, code],
    reds = [frame],
    helpers = [residual fn emit(x: i64)],
    structs = [Frame { sp: i64, stack: Array<i64> }, Point { x: i64 }],
    virtualizable = frame,
)]
fn frames(code: &[i64], start: usize, mut frame: Frame) -> i64 {
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
                let r = frames(code, x as usize, callee);
                let top = frame.sp as usize;
                frame.stack[top] = r;
                frame.sp += 1;
            }
            RETF => return frame.stack[sp - 1],
            PRINTF => {
                emit(frame.stack[sp - 1]);
                frame.sp -= 1;
            }
            POINT => {
                let p = Point::new(frame.stack[sp - 1]);
                frame.stack[sp - 1] = p.x + 1;
            }
            _ => return -1,
        }
    }
}

/// fib(slot 0), recursive.
fn fib_frames() -> Vec<i64> {
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
        (CALLF, 0),
        (LOAD, 0),
        (PUSH, 2),
        (SUB, 0),
        (CALLF, 0),
        (ADD, 0),
        (RETF, 0),
    ])
}

/// A loop over n = slot 0 printing acc (slot 1) += f(n), f(n) = (n + 1)
/// through a `Point` allocated in the callee.
fn loop_frames() -> Vec<i64> {
    flat(&[
        (PUSH, 0),
        (LOAD, 0), // 1: loop head
        (CALLF, 14),
        (LOAD, 1),
        (ADD, 0),
        (STORE, 1),
        (LOAD, 1),
        (PRINTF, 0),
        (LOAD, 0),
        (PUSH, 1),
        (SUB, 0),
        (STORE, 0),
        (LOAD, 0),
        (JNZB, 1),
        // f at 14
        (LOAD, 0),
        (POINT, 0),
        (RETF, 0),
    ])
}

/// f(k) (k in slot 0) adds k, k - 1, ..., 1 up in slot 1, in a loop
/// (counting down in slot 2) whose merge point (pc 2) is not the
/// function's first, then returns that sum plus f(k + 1), or the sum alone
/// at k == n.
fn sums_frames(n: i64) -> Vec<i64> {
    flat(&[
        (PUSH, 0), // slot 1
        (LOAD, 0), // slot 2
        (LOAD, 1), // 2: loop head
        (LOAD, 2),
        (ADD, 0),
        (STORE, 1),
        (LOAD, 2),
        (PUSH, 1),
        (SUB, 0),
        (STORE, 2),
        (LOAD, 2),
        (JNZB, 2),
        (LOAD, 0),
        (PUSH, n),
        (SUB, 0),
        (JZF, 23),
        (LOAD, 0),
        (PUSH, 1),
        (ADD, 0),
        (CALLF, 0),
        (LOAD, 1),
        (ADD, 0),
        (RETF, 0),
        (LOAD, 1), // 23
        (RETF, 0),
    ])
}

/// A frame holding `n` in slot 0.
fn frame_of(n: i64) -> Frame {
    let f = Frame::new(1, Array::<i64>::new(8));
    let mut stack = f.stack();
    stack[0] = n;
    f
}

fn frames_agree<B: GcBackend>(diff: u32) {
    for stress in [false, true] {
        if stress {
            stress_heap();
        }
        for (name, code, arg) in [("fib", fib_frames(), 15), ("loop", loop_frames(), 150)] {
            let want = frames(&code, 0, frame_of(arg));
            let printed = take_output();
            let p = JitParams::default()
                .with_threshold(3)
                .with_bridge_threshold(5)
                .with_diff(diff);
            let mut driver = frames_driver::<B>(p).unwrap();
            let got = frames_jit(&mut driver, &code, 0, frame_of(arg)).unwrap();
            assert_eq!(got, want, "{name} stress {stress}");
            assert_eq!(take_output(), printed, "{name}");
            let s = driver.stats();
            assert!(s.loops_compiled >= 1, "{name}: {s}");
            assert!(s.calls_inlined + s.calls_residual >= 1, "{name}: {s}");
            // An entry trace takes the reds alone (it loads the frame's
            // values after its label, which takes the reds too); fib's
            // return `finish`es carry the result alone (the trace stores
            // the frame back before them).
            let entries: Vec<_> = driver.loops().into_iter().filter(|l| l.entry).collect();
            assert!(name != "fib" || !entries.is_empty(), "{name}: {s}");
            for l in entries {
                let t = &l.recorded;
                assert_eq!(t.inputs.len(), 1, "{name}: {t:?}");
                assert!(l.values > 1, "{name}: {t:?}");
                let label = t.ops.iter().find(|o| o.opcode == majit::ir::OpCode::Label);
                assert_eq!(label.map(|o| o.args.len()), Some(1), "{name}: {t:?}");
                let finish = |o: &&majit::ir::Op| o.opcode == majit::ir::OpCode::Finish;
                let finishes = t.ops.iter().filter(finish);
                assert!(
                    name != "fib" || finishes.clone().all(|o| o.args.len() <= 1),
                    "{t:?}"
                );
            }
        }
    }
}

#[test]
fn recursive_stack_machine_with_gc_frames_refexec() {
    frames_agree::<RefExec>(0);
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn recursive_stack_machine_with_gc_frames_native() {
    frames_agree::<HostBackend>(0);
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn recursive_stack_machine_with_gc_frames_native_diff_mode() {
    frames_agree::<HostBackend>(3);
}

/// f(1) of `sums_frames`: the first calls of f barely loop, so f's entry
/// trace (traced at its third call) ends in a `finish` at the loop's merge
/// point before a loop is compiled there. Once one is, the guard on the
/// loop word before that `finish` fails, and when hot gets a bridge into
/// the loop (`loop_words.rs`): later calls stay in compiled code instead
/// of leaving to the driver at that merge point on every call.
fn entry_traces_enter_later_loops<B: GcBackend>() {
    // Each level of the recursion nests a run of the driver on the native
    // stack: 40 levels fit a test thread's stack in a debug build.
    let n = 40;
    let code = sums_frames(n);
    let want = frames(&code, 0, frame_of(1));
    assert_eq!(want, (1..=n).map(|k| k * (k + 1) / 2).sum::<i64>());
    let threshold = 5;
    let params = JitParams::default()
        .with_threshold(3)
        .with_bridge_threshold(threshold);
    let mut driver = frames_driver::<B>(params).unwrap();
    let got = frames_jit(&mut driver, &code, 0, frame_of(1)).unwrap();
    assert_eq!(got, want);
    let s = driver.stats();
    // f's entry, and its loop head too when that is traced in a nested
    // run (the loop trace that inlined f(k + 1) met f's back edge and
    // marked f don't-inline: `AbortReason::LoopInCallee`).
    assert!(s.entry_traces_compiled >= 1, "{s}");
    assert!(s.portal_entries >= 35, "{s}");
    assert!(s.bridges_to_loop_start >= 1, "{s}");
    // The entry trace leaves at its loop-word guard only until that guard
    // has its bridge into the loop.
    assert!(s.merge_point_exits <= u64::from(threshold) + 1, "{s}");
}

#[test]
fn an_entry_trace_enters_a_loop_compiled_after_it_refexec() {
    entry_traces_enter_later_loops::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn an_entry_trace_enters_a_loop_compiled_after_it_native() {
    entry_traces_enter_later_loops::<HostBackend>();
}
