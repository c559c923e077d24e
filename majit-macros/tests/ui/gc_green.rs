use majit::jit_interp;

#[jit_interp(greens = [pc, here], reds = [acc], structs = [Node { value: i64, next: Node }])]
fn run(n: i64) -> i64 {
    let mut pc: usize = 0;
    let mut here: Node = Node::null();
    let mut acc: i64 = n;
    loop {
        jit_merge_point!();
        acc += 1;
        pc += 1;
        if pc > 3 {
            return acc;
        }
    }
}

fn main() {}
