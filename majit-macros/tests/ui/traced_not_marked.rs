use majit::jit_interp;

mod vm {
    pub(crate) fn double(x: i64) -> i64 {
        x * 2
    }
}

#[jit_interp(greens = [pc], reds = [acc], traced = [vm::double])]
fn run(n: i64) -> i64 {
    let mut pc: usize = 0;
    let mut acc: i64 = n;
    loop {
        jit_merge_point!();
        acc = vm::double(acc);
        pc += 1;
        if pc > 3 {
            return acc;
        }
    }
}

fn main() {}
