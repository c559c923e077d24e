// A headerless struct's objects carry no class: testing one is an error at
// the tested value, saying to declare the struct `#[headered]`.
use majit::prelude::*;

#[jit_interp(
    greens = [pc],
    reds = [node, acc],
    structs = [#[headered] Leaf { v: i64 }, Node { v: i64 }]
)]
fn run(n: i64) -> i64 {
    let mut pc: usize = 0;
    let mut node: Node = Node::new(n);
    let mut acc: i64 = n;
    loop {
        jit_merge_point!();
        if node.is::<Leaf>() {
            acc += 1;
        }
        node = Node::null();
        pc += 1;
        if pc > 3 {
            return acc;
        }
    }
}

fn main() {}
