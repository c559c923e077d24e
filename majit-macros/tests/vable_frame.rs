//! `virtualizable = frame`: a textbook stack VM whose frame (a GC struct
//! with `pc`, `sp` and a stack `Array<i64>`) is a red, run plain and with
//! the JIT (RefExec and the native backend) under GC stress (a scratch
//! array per iteration makes every safepoint collect and move the frame).
//! The optimized loop reads and writes the frame through no load or store,
//! and guard failures (a branch taken every 7th iteration) hand the
//! interpreter the frame the plain run has. A residual helper given the
//! frame sees and changes its current state. A frame whose array is
//! replaced while a loop is traced, by the interpreter or by a residual
//! helper, aborts the trace (the VM grew its frame), and the loop is
//! traced again with the new array.

mod common;
#[path = "common/heap.rs"]
mod heap;

use common::{emit, take_output};
use heap::stress_heap;
use majit::metainterp::stats::AbortReason;
use majit::prelude::*;

const HALT: i64 = 0;
const PUSH: i64 = 1;
const LOAD: i64 = 2;
const STORE: i64 = 3;
const ADD: i64 = 4;
const SUB: i64 = 5;
/// `top %= 7`.
const MOD7: i64 = 6;
/// Pop; jump forward when not zero.
const JNZF: i64 = 7;
/// Pop; jump back when not zero.
const JNZ: i64 = 8;
/// `top += 1` through a scratch array.
const TMP: i64 = 9;
/// Emit what [`peek`] sees (it adds 1 to the top item).
const OBSERVE: i64 = 10;
/// `top += negatives(code)` (0): a residual call given a slice, not the
/// frame.
const SLICE: i64 = 11;
/// Pushes what [`peek`] sees, modulo 1000: a store into the frame whose
/// place (`frame.stack[sp]`) is evaluated before the call that forces the
/// frame; the next instructions must read the stored value.
const PEEKPUSH: i64 = 12;
/// Replaces the stack with a copy twice as long while tracing (a VM
/// growing its frame; plain runs never do).
const GROW: i64 = 13;
/// The same, done by a residual helper given the frame.
const GROW_IN_HELPER: i64 = 14;
/// Replaces the stack with a copy 4 times as long, in plain runs too, by
/// a residual helper given the frame, then pushes the top item plus 999
/// in the same handler (read before the call, stored after it). The
/// plain interpreter's cached view of the stack must follow
/// (majit-macros' `vcache.rs`).
const WIDEN: i64 = 15;
/// [`WIDEN`] by a traced function.
const WIDEN_TRACED: i64 = 16;
/// Replaces the stack as [`WIDEN`] does, then `continue`s (the next
/// instruction is the first to touch the stack).
const WIDEN_CONTINUE: i64 = 17;
/// Replaces the stack when the argument is not zero (an `if` without
/// `else`), touching it no more.
const WIDEN_IF: i64 = 18;
/// Replaces the stack in a `let`'s `if` initializer; adds the value (0)
/// to the top item.
const WIDEN_LET: i64 = 19;
/// Replaces the stack and `break`s out of a loop that touches it, at the
/// argument's iteration; adds 0 to the top item after the loop.
const WIDEN_BREAK: i64 = 20;
/// `top += negatives_in(new array)` (0): a `no_force` helper given a GC
/// handle that is not the frame, so its call forces nothing.
const HANDLE: i64 = 21;
/// Emit what [`total`], a `no_force` helper, sees of the stack: given the
/// frame's array after all, the call writes the frame back first.
const STACK: i64 = 22;

/// How many negative numbers `code` holds (none): a residual helper taking
/// a slice, which cannot be given the frame, so its call forces nothing.
fn negatives(code: &[i64]) -> i64 {
    code.iter().filter(|&&c| c < 0).count() as i64
}

/// How many negative numbers `a` holds: declared `no_force`, it is never
/// given the frame.
fn negatives_in(a: Array<i64>) -> i64 {
    (0..a.len()).filter(|&i| a[i] < 0).count() as i64
}

/// The sum of the first `n` items of `a`: declared `no_force`, yet given
/// the frame's stack by [`STACK`].
fn total(a: Array<i64>, n: i64) -> i64 {
    (0..n as usize).map(|i| a[i]).sum()
}

/// A helper looking at the frame: its pc, depth and top item; it also
/// changes the top item.
fn peek(frame: Frame) -> i64 {
    let mut stack = frame.stack();
    let top = frame.sp() as usize - 1;
    let seen = frame.pc() * 1_000_000 + frame.sp() * 100_000 + stack[top];
    stack[top] += 1;
    seen
}

/// Replaces the frame's stack with a copy twice as long when `now` and
/// it is shorter than 16: a residual call that changes the length of the
/// virtualizable frame's array.
fn grow_in_helper(frame: Frame, now: bool) {
    let old = frame.stack();
    if now && old.len() < 16 {
        let mut bigger = Array::<i64>::new(old.len() * 2);
        for i in 0..old.len() {
            bigger[i] = old[i];
        }
        frame.set_stack(bigger);
    }
}

/// [`WIDEN`] by a residual helper.
fn widen_in_helper(frame: Frame) {
    let old = frame.stack();
    let mut wide = Array::<i64>::new(old.len() * 4);
    for i in 0..old.len() {
        wide[i] = old[i];
    }
    frame.set_stack(wide);
}

/// [`WIDEN`] by a traced function.
#[majit::traced]
fn widen(frame: Frame) {
    let mut wide: Array<i64> = Array::<i64>::new(frame.stack.len() * 4);
    let mut i: usize = 0;
    while i < frame.stack.len() {
        wide[i] = frame.stack[i];
        i += 1;
    }
    frame.stack = wide;
}

#[jit_interp(
    greens = [pc, code],
    reds = [frame],
    helpers = [
        residual fn peek(frame: Frame) -> i64,
        residual fn emit(x: i64),
        residual fn negatives(code: &[i64]) -> i64,
        residual fn grow_in_helper(frame: Frame, now: bool),
        residual fn widen_in_helper(frame: Frame),
        residual(no_force) fn negatives_in(a: Array<i64>) -> i64,
        residual(no_force) fn total(a: Array<i64>, n: i64) -> i64,
    ],
    traced = [widen],
    structs = [Frame { pc: i64, sp: i64, stack: Array<i64> }],
    virtualizable = frame,
)]
fn run(code: &[i64]) -> i64 {
    let mut pc: usize = 0;
    let mut frame: Frame = Frame::new(0, 0, Array::new(8));
    loop {
        jit_merge_point!();
        let op = code[pc];
        let arg = code[pc + 1];
        pc += 2;
        frame.pc = pc as i64;
        let sp = frame.sp as usize;
        match op {
            HALT => return frame.stack[sp - 1],
            PUSH => {
                frame.stack[sp] = arg;
                frame.sp += 1;
            }
            LOAD => {
                frame.stack[sp] = frame.stack[arg as usize];
                frame.sp += 1;
            }
            STORE => {
                frame.stack[arg as usize] = frame.stack[sp - 1];
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
            MOD7 => frame.stack[sp - 1] %= 7,
            TMP => {
                let mut t: Array<i64> = Array::<i64>::new(1);
                t[0] = frame.stack[sp - 1];
                frame.stack[sp - 1] = t[0] + 1;
            }
            JNZF | JNZ => {
                frame.sp -= 1;
                if frame.stack[sp - 1] != 0 {
                    pc = arg as usize;
                    frame.pc = arg;
                    if op == JNZ {
                        can_enter_jit!();
                        continue;
                    }
                }
            }
            OBSERVE => emit(peek(frame)),
            SLICE => frame.stack[sp - 1] += negatives(code),
            HANDLE => frame.stack[sp - 1] += negatives_in(Array::<i64>::new(1)),
            STACK => emit(total(frame.stack, frame.sp)),
            PEEKPUSH => {
                frame.stack[sp] = peek(frame) % 1000;
                frame.sp += 1;
            }
            GROW => {
                if we_are_jitted() && frame.stack.len() < 16 {
                    let mut bigger: Array<i64> = Array::<i64>::new(frame.stack.len() * 2);
                    let mut i: usize = 0;
                    while i < frame.stack.len() {
                        bigger[i] = frame.stack[i];
                        i += 1;
                    }
                    frame.stack = bigger;
                }
            }
            GROW_IN_HELPER => grow_in_helper(frame, we_are_jitted()),
            WIDEN => {
                let top: i64 = frame.stack[sp - 1];
                widen_in_helper(frame);
                frame.stack[sp] = top + 999;
                frame.sp += 1;
            }
            WIDEN_TRACED => {
                let top: i64 = frame.stack[sp - 1];
                widen(frame);
                frame.stack[sp] = top + 999;
                frame.sp += 1;
            }
            WIDEN_CONTINUE => {
                widen_in_helper(frame);
                continue;
            }
            WIDEN_IF => {
                if arg != 0 {
                    widen_in_helper(frame);
                }
            }
            WIDEN_LET => {
                let zero: i64 = if arg != 0 {
                    widen_in_helper(frame);
                    0
                } else {
                    frame.stack[sp - 1] - frame.stack[sp - 1]
                };
                frame.stack[sp - 1] += zero;
            }
            WIDEN_BREAK => {
                let mut i: i64 = 0;
                while i < 4 {
                    let top: i64 = frame.stack[sp - 1];
                    if i == arg {
                        widen_in_helper(frame);
                        break;
                    }
                    frame.stack[sp - 1] = top;
                    i += 1;
                }
                frame.stack[sp - 1] += i - arg;
            }
            _ => return -1,
        }
    }
}

/// `acc = 0; n = N; do { acc += n + 1; if n % 7 == 0 { acc += 1000 };
/// n -= 1 } while n != 0; return acc`, as (opcode, argument) pairs with
/// `acc` and `n` in stack slots 0 and 1, and `probe` right after the add:
/// [`OBSERVE`] ([`peek`] sees and bumps `acc + n` every iteration),
/// [`SLICE`] or [`HANDLE`] (add 0) or [`STACK`] (emits the stack's sum).
fn program(n: i64, probe: i64) -> Vec<i64> {
    let mut code = vec![
        (PUSH, 0),
        (PUSH, n),
        (LOAD, 0), // 4: loop head
        (LOAD, 1),
        (ADD, 0),
        (TMP, 0),
        (STORE, 0),
        (LOAD, 1),
        (MOD7, 0),
        (JNZF, 28),
        (LOAD, 0),
        (PUSH, 1000),
        (ADD, 0),
        (STORE, 0),
        (LOAD, 1), // 28
        (PUSH, 1),
        (SUB, 0),
        (STORE, 1),
        (LOAD, 1),
        (JNZ, 4),
        (LOAD, 0),
        (HALT, 0),
    ];
    // After `ADD` (a fixed-size insertion: jump targets move by 2).
    code.insert(5, (probe, 0));
    for c in &mut code {
        if c.0 == JNZF {
            c.1 += 2;
        }
    }
    code.iter().flat_map(|&(o, a)| [o, a]).collect()
}

fn expected(n: i64) -> i64 {
    (1..=n)
        .map(|k| k + 1 + if k % 7 == 0 { 1000 } else { 0 })
        .sum()
}

fn jit_agrees<B: GcBackend>() {
    for stress in [false, true] {
        for probe in [SLICE, OBSERVE, HANDLE, STACK] {
            if stress {
                stress_heap();
            }
            let code = program(500, probe);
            let want = run(&code);
            let seen = take_output();
            if probe != OBSERVE {
                assert_eq!(want, expected(500));
            }
            let mut driver = run_driver::<B>(JitParams::default().with_threshold(3)).unwrap();
            assert_eq!(run_jit(&mut driver, &code).unwrap(), want);
            assert_eq!(take_output(), seen, "what the helper saw");
            let s = driver.stats();
            assert!(s.loops_compiled >= 1 && s.loop_entries >= 1, "{s}");
            assert!(s.guard_failures >= 1, "{s}");
            let text = majit::ir::text::print(&driver.loops()[0].trace);
            let peeled = text.split(".peeled)\n").nth(1).expect("unrolled");
            match probe {
                // The frame is written back before the call, reloaded after.
                OBSERVE => {
                    assert!(peeled.contains("setfield_gc") && peeled.contains("getfield_gc"))
                }
                // Given the frame's array, a `no_force` call forces too.
                STACK => assert!(peeled.contains("setarrayitem_gc"), "{text}"),
                // The call given a slice or another handle forces nothing.
                _ => {
                    let descr = if probe == SLICE {
                        "negatives"
                    } else {
                        "negatives_in"
                    };
                    assert!(peeled.contains(&format!("descr={descr})")), "{text}");
                    for op in ["getfield", "setfield", "arrayitem", "arraylen"] {
                        assert!(!peeled.contains(op), "{op} in the loop:\n{text}");
                    }
                }
            }
        }
    }
}

/// `acc = 0; n = N; do { acc += peek() % 1000 + n; n -= 1 } while n != 0`.
fn peek_program(n: i64) -> Vec<i64> {
    let code = [
        (PUSH, 0),
        (PUSH, n),
        (LOAD, 1), // 4: loop head
        (PEEKPUSH, 0),
        (ADD, 0),
        (LOAD, 0),
        (ADD, 0),
        (STORE, 0),
        (LOAD, 1),
        (PUSH, 1),
        (SUB, 0),
        (STORE, 1),
        (LOAD, 1),
        (JNZ, 4),
        (LOAD, 0),
        (HALT, 0),
    ];
    code.iter().flat_map(|&(o, a)| [o, a]).collect()
}

/// A call result stored into the frame right after the call that forced
/// it is what the trace reads next (the tracer once read the value from
/// before the call: the place's array was a register loaded before it).
fn call_results_stored_into_the_frame_are_read_back<B: GcBackend>() {
    let code = peek_program(300);
    let want = run(&code);
    let mut driver = run_driver::<B>(JitParams::default().with_threshold(3)).unwrap();
    assert_eq!(run_jit(&mut driver, &code).unwrap(), want);
    let s = driver.stats();
    assert!(s.loops_compiled >= 1 && s.loop_entries >= 1, "{s}");
}

/// The stack grows while the loop is first traced (by `grow`: `GROW`, or
/// `GROW_IN_HELPER` in a residual call): that trace aborts, the blackhole
/// makes the store or goes on after the call, and the loop is traced
/// again on the grown stack, compiled and entered.
fn a_frame_grown_while_tracing_is_traced_again<B: GcBackend>(grow: i64) {
    let mut code = program(500, SLICE);
    // `grow` at the loop head (later jump targets move by 2).
    code.splice(4..4, [grow, 0]);
    for i in (0..code.len()).step_by(2) {
        if (code[i] == JNZF || code[i] == JNZ) && code[i + 1] > 4 {
            code[i + 1] += 2;
        }
    }
    let want = run(&code);
    assert_eq!(want, expected(500));
    let mut driver = run_driver::<B>(JitParams::default().with_threshold(3)).unwrap();
    assert_eq!(run_jit(&mut driver, &code).unwrap(), want);
    let s = driver.stats();
    assert_eq!(s.aborts_for(AbortReason::ArrayReplaced), 1, "{s}");
    assert!(s.loops_compiled >= 1 && s.loop_entries >= 1, "{s}");
}

/// The plain interpreter reads and writes the stack through a view cached
/// between calls: after a helper or a traced function replaced the stack
/// (`WIDEN`), the store right after the call and the pushes past the old
/// length (8) land in the new one, also when the handler leaves by a
/// `continue`, an `if`, a `let` or a `break` out of a loop.
#[test]
fn plain_runs_follow_a_replaced_stack() {
    for widen in [WIDEN, WIDEN_TRACED] {
        assert_eq!(widened(widen, true), 1210, "widened by opcode {widen}");
    }
    // The handler touches the stack no more after replacing it: the next
    // instructions' pushes past the old length find the new one.
    for widen in [WIDEN_CONTINUE, WIDEN_IF, WIDEN_LET, WIDEN_BREAK] {
        assert_eq!(widened(widen, false), 210, "widened by opcode {widen}");
    }
}

/// Runs `PUSH 1`, `widen 2`, the pushes of 2 to 20 and the adds that sum
/// the stack, one more when `widen` pushes an item.
fn widened(widen: i64, pushes: bool) -> i64 {
    let mut code = vec![PUSH, 1, widen, 2];
    for k in 2..=20 {
        code.extend([PUSH, k]);
    }
    for _ in 0..19 + usize::from(pushes) {
        code.extend([ADD, 0]);
    }
    code.extend([HALT, 0]);
    run(&code)
}

#[test]
fn a_frame_grown_while_tracing_refexec() {
    a_frame_grown_while_tracing_is_traced_again::<RefExec>(GROW);
    a_frame_grown_while_tracing_is_traced_again::<RefExec>(GROW_IN_HELPER);
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn a_frame_grown_while_tracing_native() {
    a_frame_grown_while_tracing_is_traced_again::<HostBackend>(GROW);
    a_frame_grown_while_tracing_is_traced_again::<HostBackend>(GROW_IN_HELPER);
}

#[test]
fn call_results_stored_into_the_frame_refexec() {
    call_results_stored_into_the_frame_are_read_back::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn call_results_stored_into_the_frame_native() {
    call_results_stored_into_the_frame_are_read_back::<HostBackend>();
}

#[test]
fn stack_vm_frame_in_registers_refexec() {
    jit_agrees::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn stack_vm_frame_in_registers_native() {
    jit_agrees::<HostBackend>();
}
