// An interpreter returning `Result` calls itself where the error is
// handled (`run(..)?` or `match run(..)`), not as a plain value.
use majit::prelude::*;

#[jit_interp(greens = [pc], reds = [n])]
fn run(start: i64, arg: i64) -> Result<i64, i64> {
    let mut pc: i64 = start;
    let mut n: i64 = arg;
    loop {
        jit_merge_point!();
        if n == 0 {
            return Ok(pc);
        }
        n -= 1;
        if pc == 1 {
            let r = run(0, n);
            pc = 2;
            let _ = r;
        }
    }
}

fn main() {
    let _ = run(0, 3);
}
