use majit::jit_interp;

#[jit_interp(greens = [pc], reds = [acc, n])]
fn run(x: f64) -> f64 {
    let mut pc: usize = 0;
    let mut acc: f64 = x;
    let mut n: i64 = 3;
    loop {
        jit_merge_point!();
        let r = n.checked_add(1);
        n = r.unwrap();
        acc += 1.0;
        pc += 1;
        if pc > 3 {
            return acc;
        }
    }
}

fn main() {}
