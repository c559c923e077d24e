//! Small floats in a reference word ("flonums", CRuby's scheme): the one
//! definition of the encoding, shared by `majit_gc::Obj::small_float` and
//! the ops `float_tag`, `float_untag`, `ptr_is_float_tagged` and
//! `float_fits_tag` (`eval.rs`; the backends implement the same bits).
//!
//! A word's low two bits tell what it holds: `x1` a small integer, `10` a
//! small float, `00` an object (8-byte aligned) or null.
//!
//! A double is **encodable** when its exponent's top three bits are `011`
//! or `100` (magnitudes in `[2^-255, 2^257)`, the middle of the range,
//! where nearly all of a program's doubles lie). The word is the bits
//! rotated left by three with the low two bits replaced by `10`: the two
//! bits dropped (the exponent's top two) are recoverable, because in the
//! encodable range they are `!e8, e8` where `e8` is the exponent's third
//! bit, now the word's sign bit. So decoding is an arithmetic shift right
//! by two (which copies `e8` back into the top two bits), a rotation right
//! by one and a flip of the exponent's top bit.
//!
//! The encodable doubles map one to one onto all `2^62` words ending in
//! `10`, so no word is left for the doubles outside the range: zeros (both
//! signs), subnormals, infinities and NaNs stay boxed. Giving `+0.0` a
//! word, as CRuby does, would cost a compare and a select in every encode
//! and decode (an interpreter's float fast path runs three of them per
//! operation) for a value that is mostly a loop's initial sum.
//!
//! ```
//! use majit_ir::flonum;
//! for f in [1.5, -0.1, 1e-70, -3e76, 2f64.powi(-255)] {
//!     assert!(flonum::fits(f));
//!     let w = flonum::encode(f);
//!     assert!(flonum::is_tagged(w));
//!     assert_eq!(flonum::decode(w).to_bits(), f.to_bits());
//! }
//! for f in [0.0, -0.0, f64::NAN, f64::INFINITY, 1e-300, 1e300] {
//!     assert!(!flonum::fits(f));
//! }
//! ```

/// The low two bits of a small float's word.
pub const TAG: u64 = 0b10;
/// The bits of 2^-255, the smallest encodable magnitude.
pub const LOW: u64 = 0x3000_0000_0000_0000;

/// Whether `f` has a word (`encode(f)` decodes back to exactly `f`): the
/// bits minus [`LOW`]'s, rotated left by one to bring the sign to the
/// bottom, are below 2^62 (the backends test the same way).
#[inline]
pub fn fits(f: f64) -> bool {
    f.to_bits().wrapping_sub(LOW).rotate_left(1) >> 62 == 0
}

/// The word of `f`. Total: an unencodable `f` gets a word too (the same
/// rotation; `decode` of it is another double), so only `fits` values
/// should be encoded.
#[inline]
pub fn encode(f: f64) -> u64 {
    f.to_bits().rotate_left(3) & !3 | TAG
}

/// The double a small float's word holds. Total: every word decodes to a
/// double that `fits` (the tag bits are ignored).
#[inline]
pub fn decode(w: u64) -> f64 {
    f64::from_bits(((w as i64 >> 2) as u64).rotate_right(1) ^ 1 << 62)
}

/// Whether the word holds a small float (low bits `10`).
#[inline]
pub fn is_tagged(w: u64) -> bool {
    w & 3 == TAG
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A xorshift generator: random bit patterns, every exponent alike.
    fn bits(n: usize) -> impl Iterator<Item = u64> {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        (0..n).map(move |_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        })
    }

    /// Patterns near every exponent edge and special value.
    fn edges() -> Vec<u64> {
        let mut v = Vec::new();
        for e in [
            0u64, 1, 0x2ff, 0x300, 0x301, 0x3ff, 0x400, 0x4fe, 0x4ff, 0x500, 0x7fe, 0x7ff,
        ] {
            for m in [0u64, 1, 2, (1 << 51) - 1, 1 << 51, (1 << 52) - 1] {
                for s in [0u64, 1 << 63] {
                    v.push(s | e << 52 | m);
                }
            }
        }
        v
    }

    /// The encodable set, stated as a range of values.
    fn in_range(f: f64) -> bool {
        let a = f.abs();
        a >= 2f64.powi(-255) && a < 2f64.powi(257)
    }

    #[test]
    fn every_encodable_double_round_trips() {
        let mut encodable = 0;
        for b in bits(1_000_000).chain(edges()) {
            let f = f64::from_bits(b);
            assert_eq!(fits(f), in_range(f), "{b:#x}");
            let w = encode(f);
            assert!(is_tagged(w) && w & 1 == 0, "{b:#x}");
            if fits(f) {
                encodable += 1;
                assert_eq!(decode(w).to_bits(), b, "{b:#x}");
            }
        }
        // A quarter of the random patterns (2 of 8 exponent tops).
        assert!(encodable > 240_000, "{encodable}");
    }

    #[test]
    fn every_word_decodes_to_an_encodable_double_and_back() {
        for w in bits(1_000_000).chain(edges()) {
            let w = w & !3 | TAG;
            let f = decode(w);
            assert!(fits(f), "{w:#x}");
            assert_eq!(encode(f), w, "{w:#x}");
        }
    }

    #[test]
    fn zeros_nans_and_the_range_edges() {
        assert!(!fits(0.0) && !fits(-0.0), "zeros are boxed");
        let low = f64::from_bits(LOW);
        assert_eq!(low, 2f64.powi(-255));
        assert!(fits(low) && fits(-low) && !fits(low.next_down()));
        for nan in [f64::NAN, -f64::NAN, f64::from_bits(0x7ff0_0000_0000_0001)] {
            assert!(!fits(nan));
        }
        assert!(!fits(f64::INFINITY) && !fits(f64::NEG_INFINITY));
        assert!(!fits(f64::MIN_POSITIVE) && !fits(5e-324));
        assert!(fits(f64::from_bits(0x4fff_ffff_ffff_ffff)) && !fits(2f64.powi(257)));
    }
}
