// A helper cannot take a slice of GC handles: a Rust slice is outside the
// GC heap, so the collector could not see or move what it holds.
use majit::prelude::*;

fn first(xs: &[Obj]) -> i64 {
    xs.len() as i64
}

#[jit_interp(
    greens = [pc],
    reds = [acc],
    helpers = [residual fn first(xs: &[Obj]) -> i64],
)]
fn run(n: i64) -> i64 {
    let mut pc: i64 = 0;
    let mut acc: i64 = 0;
    loop {
        jit_merge_point!();
        if pc == n {
            return acc;
        }
        pc += 1;
    }
}

fn main() {
    let _ = first(&[]);
    let _ = run(3);
}
