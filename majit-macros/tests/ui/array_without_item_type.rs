// `Array::new(len)` in a handler must name its item type.
use majit::prelude::*;

#[jit_interp(greens = [pc], reds = [a])]
fn run(n: usize) -> usize {
    let mut pc: usize = 0;
    let mut a: Array<i64> = Array::null();
    loop {
        jit_merge_point!();
        a = Array::new(n);
        pc += 1;
        if pc > 3 {
            return a.len();
        }
    }
}

fn main() {}
