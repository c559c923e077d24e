// A virtualizable frame has at most one `Array` field.
use majit::prelude::*;

#[jit_interp(
    greens = [pc],
    reds = [frame],
    structs = [Frame { a: Array<i64>, b: Array<i64> }],
    virtualizable = frame,
)]
fn run() -> i64 {
    let mut pc: usize = 0;
    let mut frame: Frame = Frame::new(Array::new(1), Array::new(1));
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
