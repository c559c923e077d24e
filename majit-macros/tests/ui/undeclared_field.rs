use majit::jit_interp;

pub struct State {
    pub acc: i64,
}

#[jit_interp(greens = [pc], reds = [acc])]
fn run(st: &mut State) -> i64 {
    let mut pc: usize = 0;
    let mut acc: i64 = 0;
    loop {
        jit_merge_point!();
        acc += st.acc;
        pc += 1;
        if pc > 3 {
            return acc;
        }
    }
}

fn main() {}
