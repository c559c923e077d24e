use majit::jit_interp;

mod vm {
    use super::Node;

    #[majit::traced]
    impl Node {
        pub(crate) fn len(self) -> i64 {
            if self.is_null() {
                return 0;
            }
            1 + self.next.len()
        }
    }
}

#[jit_interp(
    greens = [pc],
    reds = [node],
    structs = [Node { v: i64, next: Node }],
    traced = [vm::Node::len],
)]
fn run(n: i64) -> i64 {
    let mut pc: usize = 0;
    let mut node: Node = Node::new(n, Node::null());
    loop {
        jit_merge_point!();
        pc += 1;
        if pc > 3 {
            return node.len();
        }
        node = Node::new(pc as i64, node);
    }
}

fn main() {}
