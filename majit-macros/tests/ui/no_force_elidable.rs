// `no_force` is for residual helpers; an elidable one never forces.
use majit::jit_interp;

fn twice(k: i64) -> i64 {
    2 * k
}

#[jit_interp(greens = [pc], reds = [acc], helpers = [elidable(no_force) fn twice(k: i64) -> i64])]
fn run(n: i64) -> i64 {
    let mut pc: usize = 0;
    let mut acc: i64 = n;
    loop {
        jit_merge_point!();
        acc += twice(1);
        pc += 1;
        if pc > 3 {
            return acc;
        }
    }
}

fn main() {}
