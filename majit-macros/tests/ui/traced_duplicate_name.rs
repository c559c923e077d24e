use majit::jit_interp;

mod a {
    #[majit::traced]
    pub(crate) fn step(x: i64) -> i64 {
        x + 1
    }
}

mod b {
    #[majit::traced]
    pub(crate) fn step(x: i64) -> i64 {
        x - 1
    }
}

#[jit_interp(greens = [pc], reds = [acc], traced = [a::step, b::step])]
fn run(n: i64) -> i64 {
    let mut pc: usize = 0;
    let mut acc: i64 = n;
    loop {
        jit_merge_point!();
        acc = a::step(b::step(acc));
        pc += 1;
        if pc > 3 {
            return acc;
        }
    }
}

fn main() {}
