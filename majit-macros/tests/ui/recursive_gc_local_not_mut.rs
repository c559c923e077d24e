use majit::prelude::*;

#[jit_interp(
    greens = [pc, code],
    reds = [acc],
    structs = [Cell { v: i64 }],
)]
fn run(code: &[i64], start: usize) -> i64 {
    let mut pc: usize = start;
    let mut acc: i64 = 0;
    loop {
        jit_merge_point!();
        let op = code[pc];
        pc += 1;
        let cell = Cell::new(acc);
        match op {
            0 => return acc,
            1 => {
                let r = run(code, pc + 1);
                acc = cell.v + r;
            }
            _ => acc -= 1,
        }
    }
}

fn main() {}
