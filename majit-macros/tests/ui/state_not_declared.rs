use majit::jit_interp;

#[jit_interp(greens = [pc], reds = [acc])]
fn run(n: i64) -> i64 {
    let mut pc: usize = 0;
    let mut acc: i64 = n;
    let mut total: i64 = 0;
    loop {
        jit_merge_point!();
        total += acc;
        pc += 1;
        if pc > 3 {
            return total;
        }
    }
}

fn main() {}
