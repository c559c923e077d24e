use majit::jit_interp;

#[jit_interp(greens = [pc], reds = [n, limit])]
fn run(limit: i64) -> i64 {
    let mut pc: usize = 0;
    let mut n: i64 = 0;
    can_enter_jit!();
    loop {
        jit_merge_point!();
        if n >= 10 {
            return n + limit;
        }
        pc = 1 - pc;
        n += 1;
    }
}

fn main() {}
