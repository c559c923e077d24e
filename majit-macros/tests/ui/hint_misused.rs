use majit::{jit_interp, promote};

#[jit_interp(greens = [pc, code], reds = [acc])]
fn run(code: &[i64], n: i64) -> i64 {
    let mut pc: usize = 0;
    let mut acc: i64 = n;
    loop {
        jit_merge_point!();
        let c = promote(code);
        acc += c.len() as i64;
        pc += 1;
        if pc > 3 {
            return acc;
        }
    }
}

fn main() {}
