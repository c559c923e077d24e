//! A recursive interpreter that also lists traced functions: its
//! expansion goes through the `traced` chain's macro_rules, and the GC
//! handles it holds across a call of itself are still rooted and reloaded
//! (their names keep the user's hygiene). `sum(n)` keeps `n` in a GC cell
//! across the recursive call, under GC stress; plain and JIT agree.

#[path = "common/heap.rs"]
mod heap;

use heap::stress_heap;
use majit::prelude::*;

mod vm {
    use super::Cell;

    /// The cell's value (traced: inlined into traces).
    #[majit::traced]
    pub(crate) fn value(c: Cell) -> i64 {
        c.v
    }
}

#[jit_interp(
    greens = [pc, code],
    reds = [n],
    structs = [Cell { v: i64 }],
    traced = [vm::value],
)]
fn sum(code: &[i64], start: usize, arg: i64) -> i64 {
    let mut pc: usize = start;
    let mut n: i64 = arg;
    loop {
        jit_merge_point!();
        let op = code[pc];
        pc += 1;
        if op == 1 {
            continue; // a no-op
        }
        if n == 0 {
            return 0;
        }
        // Held across the call, whose collections move it.
        let held = Cell::new(n);
        let below = sum(code, 0, n - 1);
        n = below + vm::value(held);
        return n;
    }
}

fn agrees<B: GcBackend>() {
    stress_heap();
    let code = [1, 0];
    // 100 levels: while tracing, each level of a debug build's JIT-mode
    // call takes ~5 KB of native stack (more on aarch64), and a test
    // thread has 2 MB.
    assert_eq!(sum(&code, 0, 100), 5050);
    let p = JitParams::default().with_threshold(3);
    let mut driver = sum_driver::<B>(p).unwrap();
    assert_eq!(sum_jit(&mut driver, &code, 0, 100).unwrap(), 5050);
    let s = driver.stats();
    assert!(s.entry_traces_compiled >= 1, "{s}");
}

#[test]
fn refexec_agrees() {
    agrees::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn native_agrees() {
    agrees::<HostBackend>();
}
