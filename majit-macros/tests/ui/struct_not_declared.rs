// `Node::new` without `structs = [Node { .. }]`: the error names the
// struct and the key to declare it in.
use majit::jit_interp;

pub struct Node;

impl Node {
    pub fn new(_value: i64) -> Node {
        Node
    }
}

#[jit_interp(greens = [pc], reds = [acc])]
fn run(n: i64) -> i64 {
    let mut pc: usize = 0;
    let mut acc: i64 = n;
    loop {
        jit_merge_point!();
        let _node = Node::new(acc);
        pc += 1;
        if pc > 3 {
            return acc;
        }
    }
}

fn main() {}
