use majit::jit_interp;

#[jit_interp(greens = [pc], reds = [acc, n])]
fn run(x: f64) -> f64 {
    let mut pc: usize = 0;
    let mut acc: f64 = x;
    let mut n: i64 = 3;
    loop {
        jit_merge_point!();
        let r = n.overflowing_add(1);
        n = r.0;
        acc += 1.0;
        pc += 1;
        if pc > 3 {
            return acc;
        }
    }
}

fn main() {}
