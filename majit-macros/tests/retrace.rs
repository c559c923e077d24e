//! Retrace: a loop whose traced path passes a box through unchanged (its
//! peeled label takes the box as a real object) and whose other path
//! boxes a new value. The bridge of that path ends holding a virtual box
//! the label cannot take, so it retraces the loop behind itself with the
//! box unboxed; the retraced body's own bridge enters that label. Nothing
//! is allocated in compiled code, and the results equal the plain run
//! (RefExec and the native backend, under GC stress).

mod common;
#[path = "common/heap.rs"]
mod heap;

use common::{emit, take_output};
use heap::stress_heap;
use majit::jit_interp;
use majit::metainterp::gcheap::GcBackend;
use majit::JitParams;
use majit::RefExec;

const STEP: i64 = 0;
const LOOP: i64 = 1;

#[jit_interp(
    greens = [pc, code],
    reds = [b, n],
    helpers = [residual fn emit(x: i64)],
    structs = [Cell { v: i64 }]
)]
fn run(code: &[i64], count: i64) -> i64 {
    let mut pc: usize = 0;
    let mut b: Cell = Cell::new(1);
    let mut n: i64 = count;
    loop {
        jit_merge_point!();
        let op = code[pc];
        pc += 1;
        match op {
            // Every fourth iteration boxes a new value; the others keep
            // the box.
            STEP => {
                if n % 4 == 0 {
                    b = Cell::new(b.v() + n);
                }
                if n % 1000 == 0 {
                    emit(b.v());
                }
            }
            LOOP => {
                n -= 1;
                if n != 0 {
                    pc = 0;
                    can_enter_jit!();
                    continue;
                }
                return b.v();
            }
            _ => return -1,
        }
    }
}

const CODE: [i64; 2] = [STEP, LOOP];
const COUNT: i64 = 5001;

fn retraces<B: GcBackend>(limit: u32) -> majit::Stats {
    stress_heap();
    let want = run(&CODE, COUNT);
    let out = take_output();
    assert_eq!(out.len(), 5);
    stress_heap();
    let p = JitParams::default()
        .with_threshold(3)
        .with_bridge_threshold(5)
        .with_retrace_limit(limit);
    let mut driver = run_driver::<B>(p).unwrap();
    let got = run_jit(&mut driver, &CODE, COUNT).unwrap();
    assert_eq!(got, want);
    assert_eq!(take_output(), out);
    let stats = driver.stats();
    assert!(stats.loop_entries >= 1, "{stats}");
    stats
}

fn retrace_keeps_the_box_virtual<B: GcBackend>() {
    let stats = retraces::<B>(5);
    assert_eq!(stats.bridges_retraced, 1, "{stats}");
    assert!(stats.bridges_into_body >= 1, "{stats}");
    assert_eq!(stats.allocations_kept, 0, "{stats}");
}

#[test]
fn refexec_retrace_keeps_the_box_virtual() {
    retrace_keeps_the_box_virtual::<RefExec>();
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn native_retrace_keeps_the_box_virtual() {
    retrace_keeps_the_box_virtual::<majit::HostBackend>();
}

#[test]
fn without_retraces_the_box_is_allocated_in_the_bridge() {
    let stats = retraces::<RefExec>(0);
    assert_eq!(stats.bridges_retraced, 0, "{stats}");
    assert!(stats.allocations_kept >= 1, "{stats}");
}
