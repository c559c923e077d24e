use majit::jit_interp;

#[majit::traced]
impl Node {
    pub(crate) fn grow(&mut self) -> i64 {
        self.v += 1;
        self.v
    }
}

#[jit_interp(greens = [pc], reds = [node], structs = [Node { v: i64 }], traced = [Node::grow])]
fn run(n: i64) -> i64 {
    let mut pc: usize = 0;
    let mut node: Node = Node::new(n);
    loop {
        jit_merge_point!();
        pc += 1;
        if pc > 3 {
            return node.v;
        }
        node.grow();
    }
}

fn main() {}
