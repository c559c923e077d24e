// A `no_force` helper cannot take the virtualizable frame's struct.
use majit::prelude::*;

fn depth(frame: Frame) -> i64 {
    frame.a().len() as i64
}

#[jit_interp(
    greens = [pc],
    reds = [frame],
    helpers = [residual(no_force) fn depth(frame: Frame) -> i64],
    structs = [Frame { a: Array<i64> }],
    virtualizable = frame,
)]
fn run() -> i64 {
    let mut pc: usize = 0;
    let mut frame: Frame = Frame::new(Array::new(1));
    loop {
        jit_merge_point!();
        frame.a[0] += depth(frame);
        pc += 1;
        if pc > 3 {
            return frame.a[0];
        }
    }
}

fn main() {}
