use majit::jit_interp;

mod vm {
    #[majit::traced]
    pub(crate) fn even(n: i64) -> bool {
        if n == 0 {
            return true;
        }
        odd(n - 1)
    }

    #[majit::traced]
    pub(crate) fn odd(n: i64) -> bool {
        if n == 0 {
            return false;
        }
        even(n - 1)
    }
}

#[jit_interp(greens = [pc], reds = [acc], traced = [vm::even, vm::odd])]
fn run(n: i64) -> i64 {
    let mut pc: usize = 0;
    let mut acc: i64 = n;
    loop {
        jit_merge_point!();
        if vm::even(acc) {
            acc += 1;
        }
        pc += 1;
        if pc > 3 {
            return acc;
        }
    }
}

fn main() {}
