// `is::<T>()` of a headerless struct: its objects carry no class. The error
// is at `Node` and says to declare it `#[headered]`.
use majit::prelude::*;

#[jit_interp(
    greens = [pc],
    reds = [o, acc],
    structs = [#[headered] Leaf { v: i64 }, Node { v: i64 }]
)]
fn run(o0: Obj, n: i64) -> i64 {
    let mut pc: usize = 0;
    let mut o: Obj = o0;
    let mut acc: i64 = n;
    loop {
        jit_merge_point!();
        if o.is::<Node>() {
            acc += 1;
        }
        o = Obj::null();
        pc += 1;
        if pc > 3 {
            return acc;
        }
    }
}

fn main() {}
