use majit::jit_interp;

#[jit_interp(greens = [pc, code], reds = [acc])]
fn run(code: &[i64], start: usize) -> i64 {
    let mut pc: usize = start;
    let mut acc: i64 = 0;
    loop {
        jit_merge_point!();
        let op = code[pc];
        pc += 1;
        match op {
            0 => return acc,
            1 => acc += 1 + run(code, pc + 1),
            _ => acc -= 1,
        }
    }
}

fn main() {}
