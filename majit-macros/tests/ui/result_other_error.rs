use majit::jit_interp;

fn parse(x: i64) -> Result<i64, u8> {
    if x > 0 {
        Ok(x)
    } else {
        Err(1)
    }
}

mod vm {
    use super::parse;

    #[majit::traced]
    pub(crate) fn twice(x: i64) -> Result<i64, i64> {
        let v = parse(x)?;
        Ok(v * 2)
    }
}

#[jit_interp(
    greens = [pc],
    reds = [acc],
    helpers = [residual fn parse(x: i64) -> Result<i64, u8>],
    traced = [vm::twice],
)]
fn run(n: i64) -> i64 {
    let mut pc: usize = 0;
    let mut acc: i64 = n;
    loop {
        jit_merge_point!();
        match vm::twice(acc) {
            Ok(v) => acc = v,
            Err(e) => acc = e,
        }
        pc += 1;
        if pc > 3 {
            return acc;
        }
    }
}

fn main() {}
