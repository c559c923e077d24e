use majit::jit_interp;

#[allow(clippy::too_many_arguments)]
fn nine(a: f64, b: f64, c: f64, d: f64, e: f64, f: f64, g: f64, h: f64, i: f64) -> f64 {
    a + b + c + d + e + f + g + h + i
}

#[jit_interp(greens = [pc], reds = [acc, n], helpers = [residual fn nine(a: f64, b: f64, c: f64, d: f64, e: f64, f: f64, g: f64, h: f64, i: f64) -> f64])]
fn run(x: f64) -> f64 {
    let mut pc: usize = 0;
    let mut acc: f64 = x;
    let mut n: i64 = 3;
    loop {
        jit_merge_point!();
        acc = nine(acc, acc, acc, acc, acc, acc, acc, acc, acc) + n as f64;
        pc += 1;
        if pc > 3 {
            return acc;
        }
    }
}

fn main() {}
