// `is` names the struct it tests for: `o.is::<T>()`.
use majit::prelude::*;

#[jit_interp(greens = [pc], reds = [o, acc], structs = [#[headered] Leaf { v: i64 }])]
fn run(o0: Obj) -> i64 {
    let mut pc: usize = 0;
    let mut o: Obj = o0;
    let mut acc: i64 = 0;
    loop {
        jit_merge_point!();
        if o.is_null() || o.cast() == Leaf::null() {
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
