//! Opcodes as a fieldless `#[repr(u8)]` enum declared in `enums`: the
//! code is a green `&[Op]`, handlers `match` on the variants, and the JIT
//! run equals the plain run with a loop compiled and entered.

use majit::{jit_interp, JitDriver, JitParams, RefExec};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Op {
    Halt = 0,
    Dec = 1,
    Jnz = 2,
    Add = 3,
}

#[jit_interp(greens = [pc, code, args], reds = [acc, sum], enums = [Op: u8])]
fn run(code: &[Op], args: &[i64], start: i64) -> i64 {
    let mut pc: usize = 0;
    let mut acc: i64 = start;
    let mut sum: i64 = 0;
    loop {
        jit_merge_point!();
        let op = code[pc];
        match op {
            Op::Halt => return sum,
            Op::Dec => acc -= 1,
            Op::Add => sum = sum.wrapping_add(acc.wrapping_mul(args[pc])),
            Op::Jnz => {
                if acc != 0 && op == Op::Jnz {
                    pc = args[pc] as usize;
                    can_enter_jit!();
                    continue;
                }
            }
        }
        pc += 1;
    }
}

#[test]
fn enum_opcodes_jit_equals_plain() {
    let code = [Op::Add, Op::Dec, Op::Jnz, Op::Halt];
    let args = [7, 0, 0, 0];
    let plain = run(&code, &args, 500);
    let (codes, portal) = run_jitcode().unwrap();
    let params = JitParams::default().with_threshold(2);
    let mut jit = JitDriver::new(codes, portal, RefExec::new(), params).unwrap();
    assert_eq!(run_jit(&mut jit, &code, &args, 500).unwrap(), plain);
    let s = jit.stats();
    assert!(s.loops_compiled >= 1 && s.loop_entries >= 1, "{s}");
}
