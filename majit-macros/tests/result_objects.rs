//! `Obj` as a `Result`'s error type: a dynamic language's exception
//! object, raised by a residual helper and by a traced function (`return
//! Err(..)`, `?`), caught with `match` and `if let` and class-tested
//! there, and raised out of an interpreter returning `Result<i64, Obj>`.
//! Plain and JIT (RefExec and the native backend) under GC stress give
//! the same results; the loop is compiled and entered and the guards after
//! the failing calls fail.

#[path = "common/heap.rs"]
mod heap;

use heap::stress_heap;
use majit::prelude::*;

/// `x` reduced, or an exception object: a `Bad` when `x % 13 == 5`, a
/// boxed `Num` when `x % 17 == 3` (residual: allocates its error).
fn check(x: i64) -> Result<i64, Obj> {
    if x.rem_euclid(13) == 5 {
        return Err(Obj::from(Bad::new(x.rem_euclid(97))));
    }
    if x.rem_euclid(17) == 3 {
        return Err(Obj::from(Num::new(x & 7)));
    }
    Ok(x.rem_euclid(1_000_003))
}

mod vm {
    use super::{check, Bad};
    use majit::prelude::*;

    /// `check(x)` twice; a `Bad` of its own for a multiple of 11 (traced:
    /// `?` and `return Err` of an `Obj`).
    #[majit::traced]
    pub(crate) fn twice(x: i64) -> Result<i64, Obj> {
        if x % 11 == 0 {
            return Err(Obj::from(Bad::new(-1)));
        }
        let y = check(x)?;
        check(y + 1)
    }
}

const CHECK: i64 = 0;
const TWICE: i64 = 1;
const ESCAPE: i64 = 2;
const LOOP: i64 = 3;
const HALT: i64 = 4;

#[jit_interp(
    greens = [pc, code, fail_at],
    reds = [acc, i, n],
    helpers = [residual fn check(x: i64) -> Result<i64, Obj>],
    structs = [#[headered] Num { v: i64 }, #[headered] Bad { code: i64 }],
    traced = [vm::twice],
)]
fn run(code: &[i64], fail_at: i64, n0: i64) -> Result<i64, Obj> {
    let mut pc: usize = 0;
    let mut acc: i64 = 1;
    let mut i: i64 = 0;
    let n: i64 = n0;
    loop {
        jit_merge_point!();
        match code[pc] {
            CHECK => match check(acc) {
                Ok(v) => acc = v.wrapping_mul(3) + i,
                Err(e) => {
                    if e.is::<Bad>() {
                        acc = acc / 2 + e.cast::<Bad>().code;
                    } else {
                        acc += e.cast::<Num>().v + 1;
                    }
                }
            },
            TWICE => {
                if let Err(e) = vm::twice(acc + i) {
                    acc += if e.is::<Bad>() { 7 } else { 3 };
                }
            }
            // Raises out of the portal at `i == fail_at`.
            ESCAPE => {
                if i == fail_at {
                    acc += vm::twice(0)?;
                }
            }
            LOOP => {
                if i < n {
                    i += 1;
                    pc = 0;
                    can_enter_jit!();
                    continue;
                }
            }
            HALT => return Ok(acc),
            _ => return Ok(-1),
        }
        pc += 1;
    }
}

const PROG: [i64; 5] = [CHECK, TWICE, ESCAPE, LOOP, HALT];

/// A run's result with its error object as (is a `Bad`, payload):
/// objects of two runs are compared by content.
fn content(r: Result<i64, Obj>) -> Result<i64, (bool, i64)> {
    r.map_err(|e| match e.is::<Bad>() {
        true => (true, e.cast::<Bad>().code()),
        false => (false, e.cast::<Num>().v()),
    })
}

/// Plain, then with `B`, under GC stress: equal results (an escaping
/// error included), the loop compiled and entered, guards failing.
fn jit_equals_plain<B: GcBackend>() {
    for (n, fail_at) in [(600, -1), (600, 400)] {
        stress_heap();
        let plain = content(run(&PROG, fail_at, n));
        assert_eq!(plain.is_err(), fail_at >= 0, "{plain:?}");
        stress_heap();
        let params = JitParams::default().with_threshold(3);
        let mut driver = run_driver::<B>(params).unwrap();
        let r = content(run_jit(&mut driver, &PROG, fail_at, n).unwrap());
        assert_eq!(r, plain, "fail_at {fail_at}");
        let s = driver.stats();
        assert!(s.loops_compiled >= 1 && s.loop_entries >= 1, "{s}");
        assert!(s.guard_failures >= 10, "{s}");
    }
}

#[test]
fn obj_errors_jit_equals_plain_on_refexec() {
    jit_equals_plain::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn obj_errors_jit_equals_plain_natively() {
    jit_equals_plain::<HostBackend>();
}
