struct Vm(i64);

impl Vm {
    #[majit::traced]
    fn get(&self) -> i64 {
        self.0
    }
}

fn main() {}
