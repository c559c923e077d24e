//! Metatables: which metamethod an operation looks for, by event number
//! (the interpreter passes small integers, not strings).

use crate::table::{get_bytes, get_name};
use crate::vm::Table;
use majit::prelude::*;

/// The metamethod names by event number: `__index` 0, `__newindex` 1,
/// the binary operators from 10 in opcode order (`ADD` .. `SHR`), then
/// `__unm` 22, `__bnot` 23, `__len` 24, `__concat` 25, `__eq` 26, `__lt`
/// 27, `__le` 28, `__call` 29.
pub fn event_name(event: i64) -> &'static [u8] {
    const BINARY: [&[u8]; 12] = [
        b"__add", b"__sub", b"__mul", b"__div", b"__mod", b"__pow", b"__idiv", b"__band", b"__bor",
        b"__bxor", b"__shl", b"__shr",
    ];
    match event {
        0 => b"__index",
        1 => b"__newindex",
        10..=21 => BINARY[(event - 10) as usize],
        22 => b"__unm",
        23 => b"__bnot",
        24 => b"__len",
        25 => b"__concat",
        26 => b"__eq",
        27 => b"__lt",
        28 => b"__le",
        _ => b"__call",
    }
}

/// The metatable of `o` (`nil` for values without one: only tables have
/// per-value metatables here; strings' is the interpreter's business).
pub fn metatable(o: Obj) -> Obj {
    if o.is::<Table>() {
        o.cast::<Table>().meta()
    } else {
        Obj::null()
    }
}

/// The metamethod of `o` for `event`, or `nil`.
pub fn metamethod(o: Obj, event: i64) -> Obj {
    let meta = metatable(o);
    if meta.is::<Table>() {
        let m = meta.cast::<Table>();
        if m.shape() == crate::shape::DICT {
            get_bytes(m, event_name(event))
        } else {
            get_name(m, crate::shape::event(event))
        }
    } else {
        Obj::null()
    }
}
