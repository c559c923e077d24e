use majit::jit_interp;

fn epoch(k: i64) -> i64 {
    k
}

#[jit_interp(greens = [pc], reds = [acc], helpers = [loop_invariant fn epoch(k: i64) -> i64])]
fn run(n: i64) -> i64 {
    let mut pc: usize = 0;
    let mut acc: i64 = n;
    loop {
        jit_merge_point!();
        acc += epoch(1);
        pc += 1;
        if pc > 3 {
            return acc;
        }
    }
}

fn main() {}
