//! Array reds: a stack machine with four stacks of GC nodes held in a
//! `[Node; 4]` red and a register file `[i64; 3]`, the selected stack a
//! green. The JIT run (RefExec, several thresholds) gives the plain run's
//! result and output; in the compiled loop, items indexed by the green
//! fold to their registers (no `guard_value` on the index) and a pushed
//! node that is popped in the same iteration is not allocated.

use majit::{jit_interp, JitDriver, JitParams, RefExec};

const HALT: i64 = 0;
/// `SEL k`: stack `k` is selected.
const SEL: i64 = 1;
/// `PUSH r`: pushes register `r` onto the selected stack.
const PUSH: i64 = 2;
/// `POP r`: pops the selected stack into register `r` (0 when empty).
const POP: i64 = 3;
/// `ADDI r k`: register `r` += k.
const ADDI: i64 = 4;
/// `PRINT r`.
const PRINT: i64 = 5;
/// `LOOP r target`: register `r` -= 1; jumps to `target` while not zero.
const LOOP: i64 = 6;
/// `MOVE k`: moves the selected stack's top onto stack `k`.
const MOVE: i64 = 7;

mod common;
use common::{emit, take_output};

#[jit_interp(
    greens = [pc, sel, code],
    reds = [stacks, regs],
    structs = [Node { value: i64, next: Node }],
    helpers = [residual fn emit(x: i64)]
)]
fn run(code: &[i64], count: i64) -> i64 {
    let mut pc: usize = 0;
    let mut sel: usize = 0;
    let mut stacks: [Node; 4] = [Node::null(); 4];
    let mut regs: [i64; 3] = [count, 0, 0];
    loop {
        jit_merge_point!();
        let op = code[pc];
        let a = code[pc + 1] as usize;
        pc += 2;
        match op {
            HALT => return regs[1],
            SEL => sel = a,
            PUSH => stacks[sel] = Node::new(regs[a], stacks[sel]),
            POP => {
                let top = stacks[sel];
                if top.is_null() {
                    regs[a] = 0;
                } else {
                    regs[a] = top.value();
                    stacks[sel] = top.next();
                }
            }
            MOVE => {
                let top = stacks[sel];
                if !top.is_null() {
                    stacks[sel] = top.next();
                    stacks[a] = Node::new(top.value(), stacks[a]);
                }
            }
            ADDI => regs[a] = regs[a].wrapping_add(code[pc]),
            PRINT => emit(regs[a]),
            LOOP => {
                regs[a] -= 1;
                if regs[a] != 0 {
                    pc = code[pc] as usize;
                    can_enter_jit!();
                    continue;
                }
                pc += 1;
            }
            _ => return -1,
        }
        if op == ADDI {
            pc += 1;
        }
    }
}

/// Counts down register 0; each round pushes register 2 on stack 1,
/// pops it into register 1 (a push/pop pair), adds, and every round moves
/// a value between stacks 2 and 3 and back (the node survives the
/// iteration on another stack).
fn program() -> Vec<i64> {
    vec![
        SEL, 2, PUSH, 0, // stack 2 holds one node from the start
        SEL, 1, // loop head at 4
        ADDI, 2, 3, PUSH, 2, POP, 1, // r2 += 3; push r2; pop into r1
        SEL, 2, MOVE, 3, SEL, 3, MOVE, 2, // stack 2 -> 3 -> 2
        LOOP, 0, 4, // back to SEL 1
        PRINT, 1, PRINT, 2, SEL, 2, POP, 1, HALT, 0,
    ]
}

fn driver(threshold: u32) -> JitDriver<RefExec> {
    let (codes, portal) = run_jitcode().unwrap();
    let params = JitParams::default().with_threshold(threshold);
    JitDriver::new(codes, portal, RefExec::new(), params).unwrap()
}

#[test]
fn array_reds_jit_equals_plain() {
    let prog = program();
    for count in [1, 3, 50, 2000] {
        let plain = run(&prog, count);
        let plain_out = take_output();
        for threshold in [1, 7] {
            let mut jit = driver(threshold);
            let r = run_jit(&mut jit, &prog, count).unwrap();
            let out = take_output();
            assert_eq!((r, out), (plain, plain_out.clone()), "count {count}");
            if count >= 50 {
                assert!(jit.stats().loop_entries >= 1, "{}", jit.stats());
            }
        }
    }
}

#[test]
fn green_index_folds_and_the_pair_is_virtual() {
    let prog = program();
    let mut jit = driver(3);
    run_jit(&mut jit, &prog, 500).unwrap();
    take_output();
    assert_eq!(jit.loops().len(), 1, "{}", jit.report());
    let trace = majit::ir::text::print(&jit.loops()[0].trace);
    assert!(!trace.contains("guard_value"), "{trace}");
    // The push/pop pair on stack 1 allocates nothing; the moves between
    // stacks 2 and 3 leave the node where it was, so nothing escapes.
    assert!(!trace.contains("new("), "{trace}");
}
