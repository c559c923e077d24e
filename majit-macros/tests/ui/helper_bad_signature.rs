use majit::jit_interp;

fn first(xs: &[i64]) -> i64 {
    xs[0]
}

#[jit_interp(greens = [pc, code], reds = [acc], helpers = [residual fn first(xs: &[i64]) -> i64])]
fn run(code: &[i64], n: i64) -> i64 {
    let mut pc: usize = 0;
    let mut acc: i64 = n;
    loop {
        jit_merge_point!();
        acc += first(code);
        pc += 1;
        if pc > 3 {
            return acc;
        }
    }
}

fn main() {}
