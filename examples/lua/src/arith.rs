//! The arithmetic the interpreter calls out for (elidable helpers: pure
//! functions of numbers), with Lua 5.4's semantics.

use crate::value::{float_obj, float_of, int_obj, is_float, is_int};
use crate::vm::Str;
use majit::prelude::*;

/// `a // b` on integers, flooring (`b != 0`; `MIN // -1` wraps). Traced:
/// a division in the trace, no call (and with a constant divisor the
/// `-1` test folds).
#[majit::traced]
#[inline]
pub fn int_floor_div(a: i64, b: i64) -> i64 {
    if b == -1 {
        return a.wrapping_neg();
    }
    let q: i64 = a / b;
    if a % b != 0 && (a ^ b) < 0 {
        q - 1
    } else {
        q
    }
}

/// `a % b` on integers: the sign of the divisor (`b != 0`). Traced, as
/// [`int_floor_div`].
#[majit::traced]
#[inline]
pub fn int_mod(a: i64, b: i64) -> i64 {
    if b == -1 {
        return 0;
    }
    let m: i64 = a % b;
    if m != 0 && (m ^ b) < 0 {
        m + b
    } else {
        m
    }
}

/// `a // b` on floats.
pub fn float_floor_div(a: f64, b: f64) -> f64 {
    (a / b).floor()
}

/// `a % b` on floats: C's `fmod`, moved toward the divisor's sign.
pub fn float_mod(a: f64, b: f64) -> f64 {
    let m = a % b;
    if m != 0.0 && (m < 0.0) != (b < 0.0) {
        m + b
    } else {
        m
    }
}

/// Whether `i < f` (with `or_equal`, `i <= f`), or with `flip` whether
/// `f < i` (`f <= i`), exactly: no rounding of large integers.
pub fn lt_int_float(i: i64, f: f64, flip: bool, or_equal: bool) -> bool {
    if f.is_nan() {
        return false;
    }
    // Compare i with f's floor or ceiling as integers when f is in range;
    // beyond the integer range the answer is f's sign.
    let limit = 9_223_372_036_854_775_808.0; // 2^63
    let ord = if f >= limit {
        std::cmp::Ordering::Less
    } else if f < -limit {
        std::cmp::Ordering::Greater
    } else {
        let fl = f.floor();
        match i.cmp(&(fl as i64)) {
            std::cmp::Ordering::Equal if f > fl => std::cmp::Ordering::Less,
            o => o,
        }
    };
    let ord = if flip { ord.reverse() } else { ord };
    match ord {
        std::cmp::Ordering::Less => true,
        std::cmp::Ordering::Equal => or_equal,
        std::cmp::Ordering::Greater => false,
    }
}

/// `a << n` (a right shift for negative `n`), logical; shifts of 64 bits
/// or more give 0.
pub fn shift_left(a: i64, n: i64) -> i64 {
    if n <= -64 || n >= 64 {
        0
    } else if n >= 0 {
        ((a as u64) << n) as i64
    } else {
        ((a as u64) >> -n) as i64
    }
}

/// A float with an integer value as that integer; anything else as it is
/// (a bitwise operator then fails on it).
pub fn exact_int(o: Obj) -> Obj {
    if is_float(o) {
        if let Some(i) = crate::number::float_to_int(float_of(o)) {
            return int_obj(i);
        }
    }
    o
}

/// The number a string stands for, as arithmetic coerces it (`nil` when
/// it is not a numeral); other values are returned as they are.
pub fn to_number(o: Obj) -> Obj {
    if !o.is::<Str>() {
        return o;
    }
    match crate::number::str_to_number(o.cast::<Str>().bytes().as_slice()) {
        Some(crate::number::Number::Int(i)) => int_obj(i),
        Some(crate::number::Number::Float(f)) => float_obj(f),
        None => Obj::null(),
    }
}

/// The limit of an integer `for` loop with step `step` at `pc` when it is
/// no integer (lua5.4's `forlimit`): a float or numeric string floored
/// (ceiled for a negative step) to an `Int`, clipped to the integer range
/// when beyond it, or `nil` when the loop runs no iteration (a limit above
/// every integer with a negative step, or below them with a positive one;
/// NaN counts as below).
pub fn for_limit(frame: crate::vm::Frame, pc: i64, limit: Obj, step: i64) -> Result<Obj, Obj> {
    let n = to_number(limit);
    let f = if is_int(n) {
        return Ok(n);
    } else if is_float(n) {
        float_of(n)
    } else {
        return Err(crate::errors::for_error(frame, pc, 2, limit));
    };
    let rounded = if step < 0 { f.ceil() } else { f.floor() };
    if let Some(i) = crate::number::float_to_int(rounded) {
        return Ok(int_obj(i));
    }
    let clipped = match f > 0.0 {
        true if step < 0 => return Ok(Obj::null()),
        true => i64::MAX,
        false if step > 0 => return Ok(Obj::null()),
        false => i64::MIN,
    };
    Ok(int_obj(clipped))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flooring_division_and_modulo_follow_the_divisor() {
        assert_eq!((int_floor_div(7, -2), int_mod(7, -2)), (-4, -1));
        assert_eq!((int_floor_div(-7, 2), int_mod(-7, 2)), (-4, 1));
        assert_eq!(
            (int_floor_div(i64::MIN, -1), int_mod(i64::MIN, -1)),
            (i64::MIN, 0)
        );
        // Powers of two: the low bits, also for negative and extreme values.
        for (a, b, m) in [
            (-7, 4, 1),
            (-8, 4, 0),
            (7, 4, 3),
            (i64::MIN, 2, 0),
            (i64::MAX, 1, 0),
        ] {
            assert_eq!(int_mod(a, b), m, "{a} % {b}");
            assert_eq!(int_mod(a, b), a.rem_euclid(b), "{a} % {b}");
        }
        assert_eq!(float_mod(5.5, -2.0), -0.5);
        assert_eq!(float_floor_div(7.0, -2.0), -4.0);
    }

    #[test]
    fn integers_and_floats_compare_exactly() {
        let big = (1i64 << 53) + 1;
        assert!(!lt_int_float(big, (1i64 << 53) as f64, false, true));
        assert!(lt_int_float(
            i64::MAX,
            9_223_372_036_854_775_808.0,
            false,
            false
        ));
        assert!(lt_int_float(1, 1.5, false, false));
        assert!(lt_int_float(2, 1.5, true, false)); // 1.5 < 2
        assert!(lt_int_float(1, 1.0, false, true) && !lt_int_float(1, 1.0, false, false));
        assert!(!lt_int_float(1, f64::NAN, false, true));
    }
}
