use majit::jit_interp;

#[jit_interp(greens = [pc], reds = [acc, n])]
fn run(x: f64) -> f64 {
    let mut pc: usize = 0;
    let mut acc: f64 = x;
    let mut n: i64 = 3;
    loop {
        jit_merge_point!();
        acc = f64::from_bits(acc.to_bits() ^ 1) + (acc.to_bits() & 1) as f64;
        n = (acc ^ 1.0) as i64;
        pc += 1;
        if pc > 3 {
            return acc;
        }
    }
}

fn main() {}
