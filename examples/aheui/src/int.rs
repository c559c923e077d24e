//! Aheui integers: an `i64` fast path that overflows into exact big integers.
//!
//! A storage node holds a plain `i64`. The one value [`BIG`] (`i64::MIN`)
//! is reserved: it marks "this value is big", and the big value itself lives
//! in the storage's side list of [`BigInt`]s, kept in the same order as the
//! marked nodes (see `session.rs`). A genuine `i64::MIN` is therefore stored
//! as a big, so every non-marker node value lies in `-(2^63-1)..=2^63-1`.
//!
//! Arithmetic first tries [`fast`]: both operands unmarked, checked `i64`
//! operations, a result that is not the marker. Anything else (a marker, an
//! overflow, division by zero) returns `None` and the caller takes the slow
//! path, [`slow`], over [`Int`] with exact results, normalised back to the
//! small form whenever the value fits. A future JIT sees only the fast path;
//! a `None` there is a guard failure.
//!
//! Division and remainder floor, like the reference interpreter:
//! −7 ÷ 2 = −4, −7 mod 2 = 1, 7 mod −2 = −1 (LANGUAGE.md §7).

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::ToPrimitive;
use std::fmt;

/// The node value that means "the value is in the side list".
pub const BIG: i64 = i64::MIN;

/// A value taken out of a storage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Int {
    /// A value that fits a node (never [`BIG`]).
    Small(i64),
    /// A value outside `-(2^63-1)..=2^63-1`.
    Big(BigInt),
}

/// The six binary commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// ㄷ: b + a.
    Add,
    /// ㅌ: b − a.
    Sub,
    /// ㄸ: b × a.
    Mul,
    /// ㄴ: b ÷ a, floored.
    Div,
    /// ㄹ: b mod a, floored.
    Mod,
    /// ㅈ: 1 if b ≥ a else 0.
    Cmp,
}

/// Largest magnitude of a value, in bits (about 315,000 decimal digits):
/// past it arithmetic fails rather than exhausting memory and time (big
/// multiplication, decimal conversion).
pub const MAX_BITS: u64 = 1 << 20;

/// Why exact arithmetic failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithError {
    /// ÷ or mod by zero.
    DivisionByZero,
    /// The result would exceed [`MAX_BITS`].
    TooLarge,
}

impl Int {
    /// The exact value as a big integer.
    pub fn to_big(&self) -> BigInt {
        match self {
            Int::Small(v) => BigInt::from(*v),
            Int::Big(b) => b.clone(),
        }
    }

    /// Normalises: a big integer that fits a node becomes [`Int::Small`].
    pub fn from_big(value: BigInt) -> Int {
        match value.to_i64() {
            Some(v) if v != BIG => Int::Small(v),
            _ => Int::Big(value),
        }
    }

    /// True if the value is zero (a normalised big is never zero).
    pub fn is_zero(&self) -> bool {
        matches!(self, Int::Small(0))
    }

    /// The process exit status for this value: its low 8 bits in two's
    /// complement, as the OS would truncate it (−1 → 255, 510 → 254).
    pub fn exit_status(&self) -> u8 {
        match self {
            Int::Small(v) => *v as u8,
            Int::Big(b) => b.mod_floor(&BigInt::from(256)).to_u8().unwrap_or(0),
        }
    }

    /// The character ㅁ+ㅎ prints: the code point, or U+FFFD for 0, for a
    /// negative value, a surrogate or anything past U+10FFFF (the reference
    /// interpreter's choice; LANGUAGE.md §10).
    pub fn to_char(&self) -> char {
        match self {
            Int::Small(v) if *v > 0 => u32::try_from(*v)
                .ok()
                .and_then(char::from_u32)
                .unwrap_or(char::REPLACEMENT_CHARACTER),
            _ => char::REPLACEMENT_CHARACTER,
        }
    }
}

impl fmt::Display for Int {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Int::Small(v) => write!(f, "{v}"),
            Int::Big(b) => write!(f, "{b}"),
        }
    }
}

/// The fast path: `b OP a` on node values, or `None` when either operand is
/// the [`BIG`] marker, the result overflows or is the marker, or `a` is zero
/// for ÷/mod. `None` sends the caller to [`slow`].
#[inline(always)]
pub fn fast(op: BinOp, b: i64, a: i64) -> Option<i64> {
    if a == BIG || b == BIG {
        return None;
    }
    let result = match op {
        BinOp::Add => b.checked_add(a)?,
        BinOp::Sub => b.checked_sub(a)?,
        BinOp::Mul => b.checked_mul(a)?,
        // Neither operand is i64::MIN, so the only overflow is excluded;
        // a == 0 returns None from checked_*.
        BinOp::Div => {
            let q = b.checked_div(a)?;
            if (b % a != 0) && ((b < 0) != (a < 0)) {
                q - 1
            } else {
                q
            }
        }
        BinOp::Mod => {
            let r = b.checked_rem(a)?;
            if r != 0 && ((r < 0) != (a < 0)) {
                r + a
            } else {
                r
            }
        }
        BinOp::Cmp => i64::from(b >= a),
    };
    if result == BIG {
        None
    } else {
        Some(result)
    }
}

/// The exact path: `b OP a` on any values. Fails for ÷/mod by zero and for
/// results beyond [`MAX_BITS`].
pub fn slow(op: BinOp, b: &Int, a: &Int) -> Result<Int, ArithError> {
    if let (Int::Small(bs), Int::Small(as_)) = (b, a) {
        if let Some(r) = fast(op, *bs, *as_) {
            return Ok(Int::Small(r));
        }
    }
    if matches!(op, BinOp::Div | BinOp::Mod) && a.is_zero() {
        return Err(ArithError::DivisionByZero);
    }
    let (b, a) = (b.to_big(), a.to_big());
    // Sums and differences grow by at most one bit; check a product before
    // computing it.
    if op == BinOp::Mul && b.bits() + a.bits() > MAX_BITS + 1 {
        return Err(ArithError::TooLarge);
    }
    let result = match op {
        BinOp::Add => b + a,
        BinOp::Sub => b - a,
        BinOp::Mul => b * a,
        BinOp::Div => b.div_floor(&a),
        BinOp::Mod => b.mod_floor(&a),
        BinOp::Cmp => return Ok(Int::Small(i64::from(b >= a))),
    };
    if result.bits() > MAX_BITS {
        return Err(ArithError::TooLarge);
    }
    Ok(Int::from_big(result))
}

/// Parses an optionally negative decimal numeral (digits only, already
/// validated by the reader) into a normalised [`Int`].
pub fn parse_decimal(text: &str) -> Option<Int> {
    match text.parse::<i64>() {
        Ok(v) if v != BIG => Some(Int::Small(v)),
        _ => text.parse::<BigInt>().ok().map(Int::from_big),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big(text: &str) -> Int {
        Int::from_big(text.parse().unwrap())
    }

    #[test]
    fn division_and_remainder_floor() {
        assert_eq!(fast(BinOp::Div, -7, 2), Some(-4));
        assert_eq!(fast(BinOp::Mod, -7, 2), Some(1));
        assert_eq!(fast(BinOp::Mod, 7, -2), Some(-1));
        assert_eq!(fast(BinOp::Div, 7, -2), Some(-4));
        assert_eq!(fast(BinOp::Div, -8, 2), Some(-4));
        assert_eq!(fast(BinOp::Mod, -8, 2), Some(0));
        assert_eq!(fast(BinOp::Div, 0, 0), None);
    }

    #[test]
    fn fast_and_slow_agree_on_small_values() {
        let values = [-9, -7, -2, -1, 0, 1, 2, 3, 7, 100];
        for op in [
            BinOp::Add,
            BinOp::Sub,
            BinOp::Mul,
            BinOp::Div,
            BinOp::Mod,
            BinOp::Cmp,
        ] {
            for &b in &values {
                for &a in &values {
                    let exact = slow(op, &big(&b.to_string()), &big(&a.to_string()));
                    match fast(op, b, a) {
                        Some(r) => assert_eq!(exact, Ok(Int::Small(r)), "{op:?} {b} {a}"),
                        None => assert!(a == 0 && exact == Err(ArithError::DivisionByZero)),
                    }
                }
            }
        }
    }

    #[test]
    fn overflow_continues_exactly() {
        assert_eq!(fast(BinOp::Mul, i64::MAX, 2), None);
        let r = slow(BinOp::Mul, &Int::Small(i64::MAX), &Int::Small(2)).unwrap();
        assert_eq!(r.to_string(), "18446744073709551614");
        // i64::MIN itself is a big value, and back to small when it fits.
        let min = slow(BinOp::Sub, &Int::Small(-i64::MAX), &Int::Small(1)).unwrap();
        assert_eq!(min, Int::Big(BigInt::from(i64::MIN)));
        let back = slow(BinOp::Add, &min, &Int::Small(1)).unwrap();
        assert_eq!(back, Int::Small(-i64::MAX));
        assert_eq!(fast(BinOp::Sub, -i64::MAX, 1), None);
    }

    #[test]
    fn big_division_floors_and_rejects_zero() {
        let b = big("-36893488147419103232"); // -2^65
        assert_eq!(
            slow(BinOp::Div, &b, &Int::Small(3)).unwrap().to_string(),
            "-12297829382473034411"
        );
        assert_eq!(slow(BinOp::Mod, &b, &Int::Small(3)).unwrap(), Int::Small(1));
        assert_eq!(
            slow(BinOp::Div, &b, &Int::Small(0)),
            Err(ArithError::DivisionByZero)
        );
        assert_eq!(slow(BinOp::Cmp, &b, &Int::Small(0)).unwrap(), Int::Small(0));
    }

    #[test]
    fn values_past_the_size_limit_fail() {
        let mut x = Int::Small(3);
        let mut squarings = 0;
        let err = loop {
            match slow(BinOp::Mul, &x, &x) {
                Ok(y) => x = y,
                Err(e) => break e,
            }
            squarings += 1;
        };
        assert_eq!(err, ArithError::TooLarge);
        assert!(squarings > 15 && squarings < 25, "{squarings}");
        let Int::Big(b) = &x else { panic!() };
        assert!(b.bits() <= MAX_BITS);
    }

    #[test]
    fn exit_status_and_characters() {
        assert_eq!(Int::Small(510).exit_status(), 254);
        assert_eq!(Int::Small(-1).exit_status(), 255);
        assert_eq!(big("36893488147419103274").exit_status(), 42); // 2^65 + 42
        assert_eq!(big("-36893488147419103233").exit_status(), 255);
        assert_eq!(Int::Small(0xAC00).to_char(), '가');
        for bad in [0, -1, 0xD800, 0x110000] {
            assert_eq!(Int::Small(bad).to_char(), '\u{FFFD}');
        }
    }

    #[test]
    fn parses_decimal_of_any_size() {
        assert_eq!(parse_decimal("-42"), Some(Int::Small(-42)));
        assert_eq!(
            parse_decimal("-9223372036854775808"),
            Some(big("-9223372036854775808"))
        );
        assert!(matches!(
            parse_decimal("99999999999999999999"),
            Some(Int::Big(_))
        ));
    }
}
