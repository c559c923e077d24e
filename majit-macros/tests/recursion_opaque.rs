//! `virtualizable = frame(opaque_to_callees)`: a stack machine with GC
//! frames whose calls of the interpreted program promise not to look at
//! their callers' frames. Compiled code then keeps the caller's frame in
//! registers across `call_assembler` (no store of the frame before the
//! call, no load of it after), and JIT and plain runs still agree, on
//! RefExec and natively, under GC stress too (the boxes kept across the
//! call are roots). A callee breaking the promise (it writes its caller's
//! stack) is an error while the caller's loop is traced, naming the
//! promise.

mod common;
#[path = "common/heap.rs"]
mod heap;

use common::{emit, take_output};
use heap::stress_heap;
use majit::ir::{Op, OpCode, OpRef, Trace};
use majit::prelude::*;

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
/// Pop the argument, call the function at `x` with a new frame holding it
/// in slot 0, push the result.
const CALLF: i64 = 9;
/// Return the top item.
const RETF: i64 = 10;
/// Pop and print.
const PRINTF: i64 = 11;
/// Add 1 to the caller's slot 0: what `opaque_to_callees` rules out.
const POKE: i64 = 12;

#[jit_interp(
    greens = [pc, code],
    reds = [frame],
    helpers = [residual fn emit(x: i64)],
    structs = [Frame { sp: i64, parent: Frame, stack: Array<i64> }],
    virtualizable = frame(opaque_to_callees),
)]
fn opaque(code: &[i64], start: usize, mut frame: Frame) -> i64 {
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
                let callee = Frame::new(1, frame, Array::<i64>::new(8));
                callee.stack[0] = frame.stack[sp - 1];
                frame.sp -= 1;
                let r = opaque(code, x as usize, callee);
                let top = frame.sp as usize;
                frame.stack[top] = r;
                frame.sp += 1;
            }
            RETF => return frame.stack[sp - 1],
            PRINTF => {
                emit(frame.stack[sp - 1]);
                frame.sp -= 1;
            }
            POKE => {
                let caller: Frame = frame.parent;
                if !caller.is_null() {
                    caller.stack[0] += 1;
                }
            }
            _ => return -1,
        }
    }
}

fn flat(code: &[(i64, i64)]) -> Vec<i64> {
    code.iter().flat_map(|&(op, x)| [op, x]).collect()
}

/// fib(slot 0), recursive.
fn fib() -> Vec<i64> {
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

/// f(n) = n < 2 ? n : f(n - 1) + 1, where each call first adds 1 to its
/// caller's n.
fn poking() -> Vec<i64> {
    flat(&[
        (POKE, 0),
        (LOAD, 0),
        (PUSH, 2),
        (LT, 0),
        (JZF, 7),
        (LOAD, 0),
        (RETF, 0),
        (LOAD, 0),
        (PUSH, 1),
        (SUB, 0),
        (CALLF, 0),
        (PUSH, 1),
        (ADD, 0),
        (RETF, 0),
    ])
}

/// A frame holding `n` in slot 0, called by no one.
fn frame_of(n: i64) -> Frame {
    let f = Frame::new(1, Frame::null(), Array::<i64>::new(8));
    let mut stack = f.stack();
    stack[0] = n;
    f
}

/// Whether `op` reads or writes the fields or the stack of the frame that
/// is `trace`'s input (its stack: what the trace loads from it).
fn touches_caller(op: &Op, trace: &Trace) -> bool {
    let frame = OpRef::input(0);
    let stack = |r: OpRef| {
        (0..trace.ops.len()).any(|i| {
            let o = &trace.ops[i];
            OpRef::op(i) == r && o.opcode == OpCode::GetfieldGcR && o.args[0] == frame
        })
    };
    let memory = matches!(
        op.opcode,
        OpCode::GetfieldGcI
            | OpCode::GetfieldGcR
            | OpCode::SetfieldGc
            | OpCode::GetarrayitemGcI
            | OpCode::SetarrayitemGc
    );
    memory && (op.args[0] == frame || stack(op.args[0]))
}

/// Runs fib(`n`) with the JIT (under GC stress when `stress`), checks it
/// against the plain run and `want`, and returns the driver.
fn jit_fib<B: GcBackend>(n: i64, want: i64, stress: bool) -> JitDriver<B> {
    if stress {
        stress_heap();
    }
    let code = fib();
    let plain = opaque(&code, 0, frame_of(n));
    let params = JitParams::default().with_threshold(3);
    let mut driver = opaque_driver::<B>(params).unwrap();
    let got = opaque_jit(&mut driver, &code, 0, frame_of(n)).unwrap();
    assert_eq!((got, plain), (want, want), "stress {stress}");
    driver
}

fn opaque_calls_agree<B: GcBackend>() {
    for stress in [false, true] {
        let driver = jit_fib::<B>(16, 987, stress);
        let s = driver.stats();
        assert!(s.call_assembler >= 1, "stress {stress}: {s}");
        let entry = driver
            .loops()
            .into_iter()
            .find(|l| l.entry)
            .expect("fib's entry trace");
        // Between the first call and the last one nothing reads or
        // writes the caller's frame: its values stay in boxes.
        let t = &entry.trace;
        let calls: Vec<usize> = (0..t.ops.len())
            .filter(|&i| t.ops[i].opcode.is_call_assembler())
            .collect();
        assert_eq!(calls.len(), 2, "{t:?}");
        let between = &t.ops[calls[0]..calls[1]];
        assert!(!between.iter().any(|o| touches_caller(o, t)), "{t:?}");
        // The return stores back only what changed: the frame's parent,
        // loaded at entry and never written, is not stored.
        let parent_stored = t.ops.iter().any(|o| {
            o.opcode == OpCode::SetfieldGc
                && o.args[0] == OpRef::input(0)
                && o.descr
                    .as_ref()
                    .is_some_and(|d| d.name().ends_with("parent"))
        });
        assert!(!parent_stored, "{t:?}");
    }
}

#[test]
fn opaque_frames_stay_in_registers_across_calls_refexec() {
    opaque_calls_agree::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn opaque_frames_stay_in_registers_across_calls_native() {
    opaque_calls_agree::<HostBackend>();
}

/// Whether `op` loads field `name` of the trace's input frame.
fn loads_frame_field(op: &Op, name: &str) -> bool {
    op.opcode.is_load()
        && op.args.first() == Some(&OpRef::input(0))
        && op.descr.as_ref().is_some_and(|d| d.name().ends_with(name))
}

/// The entry trace's guards leave out of their fail args the frame's
/// values the trace did not change (the frame holds them): `parent`, which
/// fib never reads, is not even loaded. Bridges from those guards load
/// what they need from the frame, and the results still agree.
fn untouched_values_stay_in_the_frame<B: GcBackend>() {
    for stress in [false, true] {
        let driver = jit_fib::<B>(18, 2584, stress);
        let entry = driver
            .loops()
            .into_iter()
            .find(|l| l.entry)
            .expect("an entry trace");
        let recorded = &entry.recorded;
        let loaded = recorded.ops.iter().any(|o| loads_frame_field(o, "parent"));
        assert!(loaded, "the tracer loads every value: {recorded:?}");
        let t = &entry.trace;
        assert!(
            !t.ops.iter().any(|o| loads_frame_field(o, "parent")),
            "{t:?}"
        );
        let s = driver.stats();
        assert!(
            s.bridges_compiled >= 1 && s.call_assembler >= 1,
            "stress {stress}: {s}"
        );
    }
}

#[test]
fn untouched_values_stay_in_the_frame_refexec() {
    untouched_values_stay_in_the_frame::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn untouched_values_stay_in_the_frame_native() {
    untouched_values_stay_in_the_frame::<HostBackend>();
}

#[test]
fn a_callee_writing_its_callers_frame_breaks_the_promise() {
    let code = poking();
    let params = JitParams::default().with_threshold(3);
    let mut driver = opaque_driver::<RefExec>(params).unwrap();
    let err = opaque_jit(&mut driver, &code, 0, frame_of(30)).unwrap_err();
    let message = err.to_string();
    assert!(message.contains("declared opaque to callees"), "{message}");
    assert!(message.contains("array item 0"), "{message}");
    take_output();
}
