// A GC struct field takes `#[immutable]` or `#[quasi_immutable]`, nothing else.
use majit::prelude::*;

#[jit_interp(greens = [pc], reds = [acc], structs = [Point { #[pure] x: i64 }])]
fn run(n: i64) -> i64 {
    let mut pc: usize = 0;
    let mut acc: i64 = n;
    loop {
        jit_merge_point!();
        acc += 1;
        pc += 1;
        if pc > 3 {
            return acc;
        }
    }
}

fn main() {}
