// A `#[quasi_immutable]` field holds an integer, `bool` or `f64`: a folded
// GC reference would go stale when the collector moves its object.
use majit::prelude::*;

#[jit_interp(
    greens = [pc],
    reds = [acc],
    structs = [Class { #[quasi_immutable] methods: Class, version: i64 }]
)]
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
