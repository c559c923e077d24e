use majit::prelude::*;

#[jit_interp(greens = [pc], reds = [x])]
fn run(x0: f64) -> f64 {
    let mut pc: usize = 0;
    let mut x: f64 = x0;
    loop {
        jit_merge_point!();
        x = promote(x) + 1.0;
        pc += 1;
        if pc > 3 {
            return x;
        }
    }
}

fn main() {
    run(0.0);
}
