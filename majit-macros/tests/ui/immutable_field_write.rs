// An `#[immutable]` field is set by the constructor only: traces keep its
// loads across calls, which a write would make wrong.
use majit::prelude::*;

#[jit_interp(
    greens = [pc],
    reds = [node],
    structs = [Node { value: i64, #[immutable] next: Node }]
)]
fn run(n: i64) -> i64 {
    let mut pc: usize = 0;
    let mut node: Node = Node::new(n, Node::null());
    loop {
        jit_merge_point!();
        node.set_next(Node::null());
        pc += 1;
        if pc > 3 {
            return node.value;
        }
    }
}

fn main() {}
