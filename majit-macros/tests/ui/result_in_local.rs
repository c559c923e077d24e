use majit::jit_interp;

fn parse(x: i64) -> Result<i64, i64> {
    if x > 0 {
        Ok(x)
    } else {
        Err(x)
    }
}

#[jit_interp(greens = [pc], reds = [acc], helpers = [residual fn parse(x: i64) -> Result<i64, i64>])]
fn run(n: i64) -> i64 {
    let mut pc: usize = 0;
    let mut acc: i64 = n;
    loop {
        jit_merge_point!();
        let r = parse(acc);
        if let Ok(v) = r {
            acc = v;
        }
        pc += 1;
        if pc > 3 {
            return acc;
        }
    }
}

fn main() {}
