// `can_enter_jit!(); n += 1; continue;`: the JIT would resume at the merge
// point and skip `n += 1` (it printed `plain 99999 jit 99998`).
use majit::jit_interp;

#[jit_interp(greens = [pc], reds = [n, limit])]
fn run(limit: i64) -> i64 {
    let mut pc: usize = 0;
    let mut n: i64 = 0;
    loop {
        jit_merge_point!();
        if n >= limit {
            return n;
        }
        pc = 1 - pc;
        can_enter_jit!();
        n += 1;
        continue;
    }
}

fn main() {}
