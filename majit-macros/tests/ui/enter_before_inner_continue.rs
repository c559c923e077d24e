// `can_enter_jit!(); continue;` inside a `while` of a handler: that
// `continue` is the inner loop's, not a back edge of the user program
// (it printed `plain 300000 jit 299999`).
use majit::jit_interp;

const LOOP: i64 = 0;
const HALT: i64 = 1;

#[jit_interp(greens = [pc, code], reds = [n, i, limit])]
fn run(code: &[i64], limit: i64) -> i64 {
    let mut pc: usize = 0;
    let mut n: i64 = 0;
    let mut i: i64 = 0;
    loop {
        jit_merge_point!();
        match code[pc] {
            LOOP => {
                while i < limit {
                    i += 1;
                    n += 3;
                    can_enter_jit!();
                    continue;
                }
                pc += 1;
            }
            HALT => return n,
            _ => return -1,
        }
    }
}

fn main() {}
