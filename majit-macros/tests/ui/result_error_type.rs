use majit::jit_interp;

fn ratio(x: i64) -> Result<i64, f64> {
    if x > 0 {
        Ok(x)
    } else {
        Err(0.5)
    }
}

#[jit_interp(greens = [pc], reds = [acc], helpers = [residual fn ratio(x: i64) -> Result<i64, f64>])]
fn run(n: i64) -> i64 {
    let mut pc: usize = 0;
    let mut acc: i64 = n;
    loop {
        jit_merge_point!();
        match ratio(acc) {
            Ok(v) => acc = v,
            Err(_) => acc = 0,
        }
        pc += 1;
        if pc > 3 {
            return acc;
        }
    }
}

fn main() {}
