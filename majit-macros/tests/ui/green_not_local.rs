use majit::jit_interp;

#[jit_interp(greens = [position], reds = [acc])]
fn run(n: i64) -> i64 {
    let mut acc: i64 = n;
    loop {
        jit_merge_point!();
        acc -= 1;
        if acc == 0 {
            return acc;
        }
    }
}

fn main() {}
