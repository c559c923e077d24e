use majit::jit_interp;

/// A plain Rust type: the JIT has no register for it.
#[derive(Clone, Copy)]
pub struct Counter(i64);

#[majit::traced]
impl Counter {
    pub(crate) fn get(&self) -> i64 {
        self.0
    }
}

#[jit_interp(greens = [pc], reds = [acc], traced = [Counter::get])]
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
