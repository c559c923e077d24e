use majit::jit_interp;

#[allow(clippy::too_many_arguments)]
fn wide(
    a: i64, b: i64, c: i64, d: i64, e: i64, f: i64, g: i64, h: i64, i: i64,
    j: i64, k: i64, l: i64, m: i64, n: i64, o: i64, p: i64, q: i64,
) -> i64 {
    a + b + c + d + e + f + g + h + i + j + k + l + m + n + o + p + q
}

#[jit_interp(greens = [pc], reds = [acc], helpers = [residual fn wide(
    a: i64, b: i64, c: i64, d: i64, e: i64, f: i64, g: i64, h: i64, i: i64,
    j: i64, k: i64, l: i64, m: i64, n: i64, o: i64, p: i64, q: i64,
) -> i64])]
fn run(x: i64) -> i64 {
    let mut pc: usize = 0;
    let mut acc: i64 = x;
    loop {
        jit_merge_point!();
        acc = wide(acc, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
        pc += 1;
        if pc > 3 {
            return acc;
        }
    }
}

fn main() {}
