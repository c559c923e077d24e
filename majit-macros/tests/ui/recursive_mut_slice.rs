use majit::jit_interp;

#[jit_interp(greens = [pc, code], reds = [regs])]
fn run(code: &[i64], regs: &mut [i64]) -> i64 {
    let mut pc: usize = 0;
    loop {
        jit_merge_point!();
        let op = code[pc];
        pc += 1;
        match op {
            0 => return regs[0],
            1 => {
                let r = run(code, regs);
                regs[0] += r;
            }
            _ => regs[0] -= 1,
        }
    }
}

fn main() {}
