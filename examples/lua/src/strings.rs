//! Lua strings as GC objects: immutable byte arrays with their hash
//! computed once at creation.

use crate::number::{fmt_float, fmt_int, DIGITS_MAX};
use crate::value::{float_of, int_of, is_float, is_int};
use crate::vm::Str;
use majit::prelude::*;
use std::cell::Cell;

/// The hash of a string's bytes (FNV-1a): tables look strings up by it.
pub fn hash(bytes: &[u8]) -> i64 {
    hash_parts(&[bytes])
}

/// [`hash`] of the bytes of `parts` one after another.
fn hash_parts(parts: &[&[u8]]) -> i64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in parts.iter().flat_map(|p| p.iter()) {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    crate::table::spread(h) as i64
}

/// A new string object holding `bytes`.
pub fn new_str(bytes: &[u8]) -> Str {
    Str::new(hash(bytes), Array::from_slice(bytes))
}

/// A new string object holding the bytes of `parts` one after another.
fn new_str_of(parts: &[&[u8]]) -> Str {
    Str::new(hash_parts(parts), Array::from_slices(parts))
}

/// The most bytes of scratch buffer [`with_scratch`] keeps between
/// calls: a huge `string.rep` result is not held on to.
const SCRATCH_KEPT: usize = 1 << 16;

thread_local! {
    static SCRATCH: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// `f` of an empty buffer to build a string's bytes in (`f` makes the
/// string). The buffer is reused from call to call: building a string
/// costs no malloc.
pub fn with_scratch<R>(f: impl FnOnce(&mut Vec<u8>) -> R) -> R {
    // Taken, not borrowed: an `f` building a string too gets a new buffer.
    let mut buf = SCRATCH.take();
    buf.clear();
    let r = f(&mut buf);
    if buf.capacity() <= SCRATCH_KEPT {
        SCRATCH.set(buf);
    }
    r
}

/// The bytes of `s`.
pub fn bytes_of(s: Str) -> Vec<u8> {
    s.bytes().as_slice().to_vec()
}

/// The bytes `..` and `tostring` give a string or a number; `None` for
/// other values.
pub fn text_of(o: Obj) -> Option<Vec<u8>> {
    with_text(o, <[u8]>::to_vec)
}

/// `f` of the bytes `..` and `tostring` give a string (not copied) or a
/// number (an integer formatted on the stack); `None` for other values.
pub fn with_text<R>(o: Obj, f: impl FnOnce(&[u8]) -> R) -> Option<R> {
    if o.is::<Str>() {
        Some(f(o.cast::<Str>().bytes().as_slice()))
    } else if is_int(o) {
        Some(f(fmt_int(&mut [0; DIGITS_MAX], int_of(o))))
    } else if is_float(o) {
        Some(f(fmt_float(float_of(o)).as_bytes()))
    } else {
        None
    }
}

/// `x .. y` for strings and numbers; `nil` otherwise (a metamethod or an
/// error follows). The operands' bytes go straight into the new string.
pub fn concat2(x: Obj, y: Obj) -> Obj {
    let s = with_text(x, |a| with_text(y, |b| new_str_of(&[a, b])));
    s.flatten().map_or(Obj::null(), Obj::from)
}

/// Whether two strings hold the same bytes (elidable: strings never
/// change).
pub fn equal(a: Str, b: Str) -> bool {
    if a == b {
        return true;
    }
    a.hash() == b.hash() && a.bytes().as_slice() == b.bytes().as_slice()
}

/// Whether `a < b` (with `or_equal`, `a <= b`), bytewise as C's `strcmp`
/// in the C locale.
pub fn less(a: Str, b: Str, or_equal: bool) -> bool {
    match a.bytes().as_slice().cmp(b.bytes().as_slice()) {
        std::cmp::Ordering::Less => true,
        std::cmp::Ordering::Equal => or_equal,
        std::cmp::Ordering::Greater => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_keep_their_bytes_and_hash() {
        let s = new_str(b"h\xffllo\0");
        assert_eq!(bytes_of(s), b"h\xffllo\0");
        assert_eq!(s.hash(), hash(b"h\xffllo\0"));
        assert_ne!(hash(b"ab"), hash(b"ba"));
    }
}
