use majit::jit_interp;

fn tail(xs: &[i64]) -> &[i64] {
    &xs[1..]
}

#[jit_interp(greens = [pc, code], reds = [acc], helpers = [residual fn tail(xs: &[i64]) -> &[i64]])]
fn run(code: &[i64], n: i64) -> i64 {
    let mut pc: usize = 0;
    let mut acc: i64 = n;
    loop {
        jit_merge_point!();
        acc += tail(code).len() as i64;
        pc += 1;
        if pc > 3 {
            return acc;
        }
    }
}

fn main() {}
