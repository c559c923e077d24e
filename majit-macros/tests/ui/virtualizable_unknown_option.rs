// `virtualizable = red(..)` takes `opaque_to_callees` only.
use majit::prelude::*;

#[jit_interp(
    greens = [pc],
    reds = [frame],
    structs = [Frame { n: i64, a: Array<i64> }],
    virtualizable = frame(opaque),
)]
fn run() -> i64 {
    let mut pc: usize = 0;
    let mut frame: Frame = Frame::new(0, Array::new(1));
    loop {
        jit_merge_point!();
        frame.a[0] += 1;
        pc += 1;
        if pc > 3 {
            return frame.a[0];
        }
    }
}

fn main() {}
