//! The math library (`lmathlib.c`), with lua5.4's generator for
//! `math.random` (xoshiro256**, seeded and projected into ranges as
//! lua5.4 does, so a seed gives lua5.4's sequence) and the functions
//! Debian's lua5.4 keeps for compatibility (`pow`, `cosh`, `frexp`...).

use super::base::number_of;
use super::{def, float, int, rets, str_obj, Call, Def, Rets};
use crate::table as tbl;
use crate::value;
use crate::vm::{Str, Table};
use majit::prelude::*;
use std::cell::Cell;

pub(super) const DEFS: &[Def] = &[
    def("math", "floor", "math.floor", floor),
    def("math", "ceil", "math.ceil", ceil),
    def("math", "abs", "math.abs", abs),
    def("math", "sqrt", "math.sqrt", |c| unary(c, f64::sqrt)),
    def("math", "sin", "math.sin", |c| unary(c, f64::sin)),
    def("math", "cos", "math.cos", |c| unary(c, f64::cos)),
    def("math", "tan", "math.tan", |c| unary(c, f64::tan)),
    def("math", "asin", "math.asin", |c| unary(c, f64::asin)),
    def("math", "acos", "math.acos", |c| unary(c, f64::acos)),
    def("math", "exp", "math.exp", |c| unary(c, f64::exp)),
    def("math", "cosh", "math.cosh", |c| unary(c, f64::cosh)),
    def("math", "sinh", "math.sinh", |c| unary(c, f64::sinh)),
    def("math", "tanh", "math.tanh", |c| unary(c, f64::tanh)),
    def("math", "log10", "math.log10", |c| unary(c, f64::log10)),
    def("math", "atan", "math.atan", atan),
    def("math", "log", "math.log", log),
    def("math", "pow", "math.pow", pow),
    def("math", "frexp", "math.frexp", frexp),
    def("math", "ldexp", "math.ldexp", ldexp),
    def("math", "fmod", "math.fmod", fmod),
    def("math", "modf", "math.modf", modf),
    def("math", "max", "math.max", |c| extreme(c, true)),
    def("math", "min", "math.min", |c| extreme(c, false)),
    def("math", "tointeger", "math.tointeger", tointeger),
    def("math", "type", "math.type", math_type),
    def("math", "ult", "math.ult", ult),
    def("math", "random", "math.random", random),
    def("math", "randomseed", "math.randomseed", randomseed),
];

/// Sets the constants of the `math` table.
pub(super) fn install(math: Table) {
    let consts = [
        ("pi", float(std::f64::consts::PI)),
        ("huge", float(f64::INFINITY)),
        ("maxinteger", int(i64::MAX)),
        ("mininteger", int(i64::MIN)),
    ];
    for (name, v) in consts {
        tbl::set(math, str_obj(name.as_bytes()), v);
    }
}

/// Whether argument `i` is an integer value (`lua_isinteger`: not a
/// numeric string).
fn arg_is_int(c: &Call, i: usize) -> bool {
    value::is_int(c.arg(i))
}

/// A float with an integer value as an integer when it fits
/// (`pushnumint`).
fn num_int(f: f64) -> Obj {
    crate::number::float_to_int(f).map_or(float(f), int)
}

fn floor(c: &Call) -> Result<Rets, Obj> {
    match arg_is_int(c, 0) {
        true => Ok(rets![c.arg(0)]),
        false => Ok(rets![num_int(c.float(0)?.floor())]),
    }
}

fn ceil(c: &Call) -> Result<Rets, Obj> {
    match arg_is_int(c, 0) {
        true => Ok(rets![c.arg(0)]),
        false => Ok(rets![num_int(c.float(0)?.ceil())]),
    }
}

fn abs(c: &Call) -> Result<Rets, Obj> {
    match arg_is_int(c, 0) {
        true => Ok(rets![int(value::int_of(c.arg(0)).wrapping_abs())]),
        false => Ok(rets![float(c.float(0)?.abs())]),
    }
}

fn unary(c: &Call, f: fn(f64) -> f64) -> Result<Rets, Obj> {
    Ok(rets![float(f(c.float(0)?))])
}

fn atan(c: &Call) -> Result<Rets, Obj> {
    let y = c.float(0)?;
    let x = match c.arg(1).is_null() {
        true => 1.0,
        false => c.float(1)?,
    };
    Ok(rets![float(y.atan2(x))])
}

fn log(c: &Call) -> Result<Rets, Obj> {
    let x = c.float(0)?;
    if c.arg(1).is_null() {
        return Ok(rets![float(x.ln())]);
    }
    let r = match c.float(1)? {
        2.0 => x.log2(),
        10.0 => x.log10(),
        base => x.ln() / base.ln(),
    };
    Ok(rets![float(r)])
}

fn pow(c: &Call) -> Result<Rets, Obj> {
    Ok(rets![float(c.float(0)?.powf(c.float(1)?))])
}

/// C's `frexp`: `x = m * 2^e` with `0.5 <= |m| < 1`.
fn frexp(c: &Call) -> Result<Rets, Obj> {
    let x = c.float(0)?;
    if x == 0.0 || !x.is_finite() {
        return Ok(rets![float(x), int(0)]);
    }
    // Scale subnormals into the normal range first.
    let (x, bias) = if x.abs() < f64::MIN_POSITIVE {
        (x * 2f64.powi(64), -64)
    } else {
        (x, 0)
    };
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i64 - 1022;
    let m = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    Ok(rets![float(m), int(exp + bias)])
}

/// C's `ldexp`: `m * 2^e`, scaled in steps so no intermediate overflows
/// or underflows early.
fn ldexp(c: &Call) -> Result<Rets, Obj> {
    let mut x = c.float(0)?;
    let mut e = c.integer(1)?.clamp(-10_000, 10_000);
    while e > 1000 {
        x *= 2f64.powi(1000);
        e -= 1000;
    }
    while e < -1000 {
        x *= 2f64.powi(-1000);
        e += 1000;
    }
    Ok(rets![float(x * 2f64.powi(e as i32))])
}

fn fmod(c: &Call) -> Result<Rets, Obj> {
    if arg_is_int(c, 0) && arg_is_int(c, 1) {
        let (a, d) = (value::int_of(c.arg(0)), value::int_of(c.arg(1)));
        return match d {
            0 => Err(c.bad(1, "zero")),
            -1 => Ok(rets![int(0)]),
            _ => Ok(rets![int(a % d)]),
        };
    }
    Ok(rets![float(c.float(0)? % c.float(1)?)])
}

fn modf(c: &Call) -> Result<Rets, Obj> {
    if arg_is_int(c, 0) {
        return Ok(rets![c.arg(0), float(0.0)]);
    }
    let n = c.float(0)?;
    let ip = if n < 0.0 { n.ceil() } else { n.floor() };
    let frac = if n == ip { 0.0 } else { n - ip };
    Ok(rets![num_int(ip), float(frac)])
}

/// `math.max` (`max`) or `math.min`: the first of the extreme values, by
/// `<` on numbers and on strings.
fn extreme(c: &Call, max: bool) -> Result<Rets, Obj> {
    let mut best = c.any(0)?;
    for &v in &c.args[1..] {
        let (a, b) = if max { (best, v) } else { (v, best) };
        if less(a, b)? {
            best = v;
        }
    }
    Ok(rets![best])
}

/// `a < b` for numbers and strings (`lua_compare`); other values raise
/// the comparison error, with no position as lua5.4 raises it in C.
fn less(a: Obj, b: Obj) -> Result<bool, Obj> {
    let num = |o: Obj| value::is_int(o) || value::is_float(o);
    if num(a) && num(b) {
        return Ok(crate::number::lt(number_of(a), number_of(b)));
    }
    if a.is::<Str>() && b.is::<Str>() {
        return Ok(crate::strings::less(
            a.cast::<Str>(),
            b.cast::<Str>(),
            false,
        ));
    }
    let (s, t) = (super::base::shown_type(a), super::base::shown_type(b));
    let message = match s == t {
        true => format!("attempt to compare two {s} values"),
        false => format!("attempt to compare {s} with {t}"),
    };
    Err(str_obj(message.as_bytes()))
}

fn tointeger(c: &Call) -> Result<Rets, Obj> {
    let v = crate::arith::to_number(c.any(0)?);
    let r = if value::is_int(v) {
        v
    } else if value::is_float(v) {
        crate::number::float_to_int(value::float_of(v)).map_or(Obj::null(), int)
    } else {
        Obj::null()
    };
    Ok(rets![r])
}

fn math_type(c: &Call) -> Result<Rets, Obj> {
    let v = c.any(0)?;
    let r = if value::is_int(v) {
        str_obj(b"integer")
    } else if value::is_float(v) {
        str_obj(b"float")
    } else {
        Obj::null()
    };
    Ok(rets![r])
}

fn ult(c: &Call) -> Result<Rets, Obj> {
    let (a, b) = (c.integer(0)?, c.integer(1)?);
    Ok(rets![super::boolean((a as u64) < (b as u64))])
}

thread_local! {
    /// The generator's state; seeded at the first use from the clock, as
    /// lua5.4 seeds it at start.
    static STATE: Cell<Option<[u64; 4]>> = const { Cell::new(None) };
}

/// xoshiro256**: the next value, advancing `s`.
fn next_rand(s: &mut [u64; 4]) -> u64 {
    let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
    let t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = s[3].rotate_left(45);
    result
}

/// The state `setseed` makes of two seeds (16 values discarded).
fn seeded(n1: u64, n2: u64) -> [u64; 4] {
    let mut s = [n1, 0xff, n2, 0];
    for _ in 0..16 {
        next_rand(&mut s);
    }
    s
}

/// Seeds from the clock (`randseed`): the time and a per-run value.
fn clock_seeds() -> (u64, u64) {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    let now = now.unwrap_or_default();
    (
        now.as_secs(),
        u64::from(now.subsec_nanos()) ^ u64::from(std::process::id()) << 32,
    )
}

/// Runs `f` on the generator's state.
fn with_state<R>(f: impl FnOnce(&mut [u64; 4]) -> R) -> R {
    STATE.with(|cell| {
        let mut s = cell.get().unwrap_or_else(|| {
            let (a, b) = clock_seeds();
            seeded(a, b)
        });
        let r = f(&mut s);
        cell.set(Some(s));
        r
    })
}

/// A random value in `0..=n` from `ran` (`project`): masked to the
/// smallest all-ones value covering `n`, drawing again while above `n`.
fn project(mut ran: u64, n: u64, s: &mut [u64; 4]) -> u64 {
    if n & n.wrapping_add(1) == 0 {
        return ran & n;
    }
    let mut lim = n;
    for shift in [1, 2, 4, 8, 16, 32] {
        lim |= lim >> shift;
    }
    loop {
        ran &= lim;
        if ran <= n {
            return ran;
        }
        ran = next_rand(s);
    }
}

fn random(c: &Call) -> Result<Rets, Obj> {
    let rv = with_state(next_rand);
    let (low, up) = match c.args.len() {
        0 => return Ok(rets![float((rv >> 11) as f64 * 2f64.powi(-53))]),
        1 => {
            let up = c.integer(0)?;
            if up == 0 {
                return Ok(rets![int(rv as i64)]);
            }
            (1, up)
        }
        2 => (c.integer(0)?, c.integer(1)?),
        _ => return Err(c.error("wrong number of arguments")),
    };
    if low > up {
        return Err(c.bad(0, "interval is empty"));
    }
    let p = with_state(|s| project(rv, (up as u64).wrapping_sub(low as u64), s));
    Ok(rets![int(p.wrapping_add(low as u64) as i64)])
}

fn randomseed(c: &Call) -> Result<Rets, Obj> {
    let (n1, n2) = match c.args.is_empty() {
        true => clock_seeds(),
        false => (c.integer(0)? as u64, c.opt_integer(1, 0)? as u64),
    };
    STATE.with(|cell| cell.set(Some(seeded(n1, n2))));
    Ok(rets![int(n1 as i64), int(n2 as i64)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_lua54s_sequence() {
        // lua5.4: math.randomseed(42); math.random(1, 100) ten times.
        let mut s = seeded(42, 0);
        let got: Vec<u64> = (0..10)
            .map(|_| {
                let rv = next_rand(&mut s);
                project(rv, 99, &mut s) + 1
            })
            .collect();
        assert_eq!(got, [50, 76, 86, 54, 64, 7, 25, 3, 24, 24]);
        // lua5.4: math.randomseed(7, 3); math.random(1000) is 180.
        let mut s = seeded(7, 3);
        let rv = next_rand(&mut s);
        assert_eq!(project(rv, 999, &mut s) + 1, 180);
    }
}
