use majit::jit_interp;

#[jit_interp(greens = [pc], reds = [acc])]
fn run(n: i64) -> i64 {
    let mut pc: usize = 0;
    let mut acc: i64 = n;
    loop {
        jit_merge_point!();
        println!("{acc}");
        pc += 1;
        if pc > 3 {
            return acc;
        }
    }
}

fn main() {}
