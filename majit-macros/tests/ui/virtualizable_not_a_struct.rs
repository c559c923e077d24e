// The virtualizable frame must be a red of a declared GC struct.
use majit::prelude::*;

#[jit_interp(greens = [pc], reds = [acc], virtualizable = acc)]
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
