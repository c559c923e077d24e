use majit::jit_interp;

mod vm {
    #[majit::traced]
    pub(crate) fn tail(xs: &[i64]) -> &[i64] {
        &xs[1..]
    }
}

#[jit_interp(greens = [pc], reds = [acc], traced = [vm::tail])]
fn run(n: i64) -> i64 {
    let mut pc: usize = 0;
    let mut acc: i64 = n;
    loop {
        jit_merge_point!();
        pc += 1;
        if pc > 3 {
            return acc;
        }
        acc += 1;
    }
}

fn main() {}
