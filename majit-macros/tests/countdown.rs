//! A countdown interpreter written with `#[jit_interp]`: the JIT run
//! (RefExec backend, threshold 2) gives the plain run's result and
//! output, and the stats show a compiled loop that was entered.

use majit::{jit_interp, JitDriver, JitParams, RefExec};

const HALT: i64 = 0;
const DEC: i64 = 1;
const JNZ: i64 = 2;
const PRINT: i64 = 3;
const ADD: i64 = 4;
const POW2: i64 = 5;

mod common;
use common::{emit, take_output};

#[jit_interp(
    greens = [pc, code],
    reds = [acc, sum],
    helpers = [residual fn emit(x: i64), inline fn scale(x: i64, k: i64) -> i64]
)]
fn run(code: &[i64], start: i64) -> i64 {
    let mut pc: usize = 0;
    let mut acc: i64 = start;
    let mut sum: i64 = 0;
    fn scale(x: i64, k: i64) -> i64 {
        if x > 10 {
            x * k
        } else {
            x
        }
    }
    loop {
        jit_merge_point!();
        let op = code[pc];
        match op {
            HALT => return sum,
            DEC => {
                acc -= 1;
                pc += 1;
            }
            ADD => {
                sum = sum.wrapping_add(scale(acc, code[pc + 1]));
                pc += 2;
            }
            POW2 => {
                // An inner loop: traced once per iteration.
                let mut n = code[pc + 1] + (acc & 1);
                let mut x: i64 = 1;
                while n > 0 {
                    x = x.wrapping_mul(2);
                    n -= 1;
                }
                sum = sum.wrapping_add(x);
                pc += 2;
            }
            PRINT => {
                emit(acc);
                pc += 1;
            }
            JNZ => {
                if acc != 0 {
                    pc = code[pc + 1] as usize;
                    can_enter_jit!();
                    continue;
                }
                pc += 2;
            }
            _ => return -1,
        }
    }
}

fn driver(threshold: u32) -> JitDriver<RefExec> {
    let (codes, portal) = run_jitcode().unwrap();
    let params = JitParams::default().with_threshold(threshold);
    JitDriver::new(codes, portal, RefExec::new(), params).unwrap()
}

#[test]
fn countdown_jit_equals_plain_and_enters_a_loop() {
    let prog = [ADD, 3, POW2, 3, PRINT, DEC, JNZ, 0, HALT];
    for start in [1, 5, 1000] {
        let plain = run(&prog, start);
        let plain_out = take_output();
        let mut jit = driver(2);
        let r = run_jit(&mut jit, &prog, start).unwrap();
        assert_eq!((r, take_output()), (plain, plain_out), "start {start}");
        if start >= 5 {
            let s = jit.stats();
            assert!(s.loops_compiled >= 1 && s.loop_entries >= 1, "{s}");
        }
    }
}

#[test]
fn dispatch_folds_away_in_the_trace() {
    // `code` is a green `&[i64]`: its loads are elidable calls on
    // constants, so the loop keeps only the handlers' work.
    let prog = [ADD, 3, PRINT, DEC, JNZ, 0, HALT];
    let mut jit = driver(2);
    run_jit(&mut jit, &prog, 100).unwrap();
    take_output();
    let report = jit.report();
    assert_eq!(jit.loops().len(), 1, "{report}");
    let trace = majit::ir::text::print(&jit.loops()[0].trace);
    assert!(!trace.contains("load_code"), "{trace}");
    assert!(!trace.contains("guard_value"), "{trace}");
    assert!(trace.contains("descr=emit"), "{trace}");
}
