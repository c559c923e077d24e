//! `can_enter_jit!()` right before a `continue` of the dispatch loop (the
//! only placement the macro accepts; `tests/ui/enter_before_*.rs` are the
//! rejected ones): the corrected forms of the two programs that gave wrong
//! JIT results when a misplaced `can_enter_jit!()` was accepted give the
//! plain result, with a loop compiled and entered.

use majit::{jit_interp, JitDriver, JitParams, RefExec, Stats};

/// Counts to `limit`; `n += 1` comes before `can_enter_jit!()`.
#[jit_interp(greens = [pc], reds = [n, limit])]
fn count(limit: i64) -> i64 {
    let mut pc: usize = 0;
    let mut n: i64 = 0;
    loop {
        jit_merge_point!();
        if n >= limit {
            return n;
        }
        pc = 1 - pc;
        n += 1;
        can_enter_jit!();
        continue;
    }
}

const LOOP: i64 = 0;
const HALT: i64 = 1;

/// A handler's `while` leaves through a labelled `continue` of the
/// dispatch loop, the back edge where `can_enter_jit!()` stands.
#[jit_interp(greens = [pc, code], reds = [n, i, limit])]
fn inner(code: &[i64], limit: i64) -> i64 {
    let mut pc: usize = 0;
    let mut n: i64 = 0;
    let mut i: i64 = 0;
    'dispatch: loop {
        jit_merge_point!();
        match code[pc] {
            LOOP => {
                while i < limit {
                    i += 1;
                    n += 3;
                    if i % 4 == 0 {
                        can_enter_jit!();
                        continue 'dispatch;
                    }
                }
                pc += 1;
            }
            HALT => return n,
            _ => return -1,
        }
    }
}

fn assert_entered(s: &Stats) {
    assert!(s.loops_compiled >= 1 && s.loop_entries >= 1, "{s}");
}

#[test]
fn code_before_can_enter_jit_runs_in_both_modes() {
    assert_eq!(count(99_999), 99_999);
    let (codes, portal) = count_jitcode().unwrap();
    let params = JitParams::default().with_threshold(2);
    let mut jit = JitDriver::new(codes, portal, RefExec::new(), params).unwrap();
    assert_eq!(count_jit(&mut jit, 99_999).unwrap(), 99_999);
    assert_entered(&jit.stats());
}

#[test]
fn labelled_continue_out_of_a_handler_loop_is_a_back_edge() {
    let code = [LOOP, HALT];
    assert_eq!(inner(&code, 100_000), 300_000);
    let (codes, portal) = inner_jitcode().unwrap();
    let params = JitParams::default().with_threshold(2);
    let mut jit = JitDriver::new(codes, portal, RefExec::new(), params).unwrap();
    assert_eq!(inner_jit(&mut jit, &code, 100_000).unwrap(), 300_000);
    assert_entered(&jit.stats());
}
