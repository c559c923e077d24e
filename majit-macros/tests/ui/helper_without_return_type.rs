// `double` returns `i64`, but its declaration says nothing: the error is at
// the declaration (and names the use), not "the operands have different
// types" at the use.
use majit::jit_interp;

fn double(x: i64) -> i64 {
    x * 2
}

#[jit_interp(greens = [pc], reds = [acc], helpers = [elidable fn double(x: i64)])]
fn run(n: i64) -> i64 {
    let mut pc: usize = 0;
    let mut acc: i64 = n;
    loop {
        jit_merge_point!();
        acc = acc + double(acc);
        pc += 1;
        if pc > 3 {
            return acc;
        }
    }
}

fn main() {}
