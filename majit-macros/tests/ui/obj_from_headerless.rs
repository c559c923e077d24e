// A headerless struct cannot become an `Obj` (nothing could test its
// class): the error is at the argument.
use majit::prelude::*;

#[jit_interp(greens = [pc], reds = [o, acc], structs = [Node { v: i64 }])]
fn run(n: i64) -> i64 {
    let mut pc: usize = 0;
    let mut o: Obj = Obj::null();
    let mut acc: i64 = n;
    loop {
        jit_merge_point!();
        o = Obj::from(Node::new(acc));
        acc += 1;
        pc += 1;
        if pc > 3 {
            return acc;
        }
    }
}

fn main() {}
