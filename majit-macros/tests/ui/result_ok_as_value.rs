use majit::jit_interp;

mod vm {
    #[majit::traced]
    pub(crate) fn half(x: i64) -> Result<i64, i64> {
        let r = if x % 2 == 0 { Ok(x / 2) } else { Err(x) };
        r
    }
}

#[jit_interp(greens = [pc], reds = [acc], traced = [vm::half])]
fn run(n: i64) -> i64 {
    let mut pc: usize = 0;
    let mut acc: i64 = n;
    loop {
        jit_merge_point!();
        match vm::half(acc) {
            Ok(v) => acc = v,
            Err(e) => acc = e + 1,
        }
        pc += 1;
        if pc > 3 {
            return acc;
        }
    }
}

fn main() {}
