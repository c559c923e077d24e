//! A few builtins inline, in the interpreter and in traces: `math.sqrt`,
//! `math.floor`, `string.byte`, `string.sub`, `setmetatable`, and
//! `table.insert`/`table.remove` at the end, on the arguments their
//! callers usually give them. [`call_builtin`] takes the
//! frame (a trace writes every register back before the call and reads
//! them all after) and builds argument and result vectors; here a call is
//! a few guards, the work, and one result. Anything else (another
//! argument type, a count, an error to raise) takes the builtin itself.
//!
//! [`call_builtin`]: super::call_builtin

use super::{def_of, LIBS};
use crate::table::{get as table_get, len as table_len, set as table_set};
use crate::value::{float_obj, float_of, int_obj, is_float, to_f64};
use crate::vm::{Str, Table};
use majit::prelude::*;
use std::sync::OnceLock;

/// Kinds of inline builtins ([`kind`]); `NONE`: not inline.
pub const NONE: i64 = 0;
const SQRT: i64 = 1;
const FLOOR: i64 = 2;
const BYTE: i64 = 3;
const SUB: i64 = 4;
const SETMETATABLE: i64 = 5;
const INSERT: i64 = 6;
const REMOVE: i64 = 7;

/// The inline kind of builtin `id` (elidable: ids never change).
pub fn kind(id: i64) -> i64 {
    static KINDS: OnceLock<Vec<i64>> = OnceLock::new();
    let kinds = KINDS.get_or_init(|| {
        let count: usize = LIBS.iter().map(|l| l.len()).sum();
        (0..count as i64)
            .map(|id| {
                let d = def_of(id);
                match (d.lib, d.key) {
                    ("math", "sqrt") => SQRT,
                    ("math", "floor") => FLOOR,
                    ("string", "byte") => BYTE,
                    ("string", "sub") => SUB,
                    ("", "setmetatable") => SETMETATABLE,
                    ("table", "insert") => INSERT,
                    ("table", "remove") => REMOVE,
                    _ => NONE,
                }
            })
            .collect()
    });
    kinds.get(id as usize).copied().unwrap_or(NONE)
}

/// Whether a builtin of inline kind `kind` called with `nargs` arguments,
/// the first three `x`, `y`, `z` (`nil` past `nargs`), is done by [`call`].
#[majit::traced]
#[inline]
pub fn applies(kind: i64, nargs: i64, x: Obj, y: Obj, z: Obj) -> bool {
    if kind == SQRT {
        nargs == 1 && (x.is_small_int() || is_float(x))
    } else if kind == FLOOR {
        if nargs != 1 || !(x.is_small_int() || is_float(x)) {
            return false;
        }
        // An integer result `math.floor` gives exactly (the same
        // elidable floor as `call`'s: one call in a trace).
        x.is_small_int() || ffloor(float_of(x)).abs() <= 9.007_199_254_740_992e15
    } else if kind == BYTE {
        if nargs == 1 {
            if !x.is::<Str>() {
                return false;
            }
            let n: usize = x.cast::<Str>().bytes.len();
            n != 0
        } else {
            // One byte in range: one result.
            nargs == 2
                && x.is::<Str>()
                && y.is_small_int()
                && y.to_small_int() >= 1
                && y.to_small_int() <= x.cast::<Str>().bytes.len() as i64
        }
    } else if kind == SUB {
        (nargs == 2 || (nargs == 3 && z.is_small_int())) && x.is::<Str>() && y.is_small_int()
    } else if kind == INSERT {
        nargs == 2 && x.is::<Table>()
    } else if kind == REMOVE {
        nargs == 1 && x.is::<Table>()
    } else {
        // `setmetatable(t, m)` on a table with no metatable (so none
        // protected): the common constructor.
        nargs == 2
            && x.is::<Table>()
            && x.cast::<Table>().meta.is_null()
            && (y.is_null() || y.is::<Table>())
    }
}

/// The one result of a call [`applies`] accepted.
#[majit::traced]
#[inline]
pub fn call(kind: i64, nargs: i64, x: Obj, y: Obj, z: Obj) -> Obj {
    if kind == SQRT {
        float_obj(to_f64(x).sqrt())
    } else if kind == FLOOR {
        if x.is_small_int() {
            x
        } else {
            int_obj(ffloor(float_of(x)) as i64)
        }
    } else if kind == BYTE {
        let i: i64 = if nargs == 1 { 1 } else { y.to_small_int() };
        int_obj(str_byte(x.cast::<Str>(), i))
    } else if kind == SUB {
        let j: i64 = if nargs == 3 { z.to_small_int() } else { -1 };
        Obj::from(str_sub(x.cast::<Str>(), y.to_small_int(), j))
    } else if kind == INSERT {
        // Raw, as the builtin: `t[#t + 1] = y`.
        let t: Table = x.cast::<Table>();
        let n: i64 = table_len(t);
        if n < t.arr.len() as i64 {
            t.arr[n as usize] = y;
        } else {
            table_set(t, int_obj(n + 1), y);
        }
        Obj::null()
    } else if kind == REMOVE {
        // `t[#t]`, made `nil`.
        let t: Table = x.cast::<Table>();
        let n: i64 = table_len(t);
        if n >= 1 && n <= t.arr.len() as i64 {
            let v: Obj = t.arr[(n - 1) as usize];
            t.arr[(n - 1) as usize] = Obj::null();
            v
        } else {
            let v: Obj = table_get(t, int_obj(n));
            table_set(t, int_obj(n), Obj::null());
            v
        }
    } else {
        let t: Table = x.cast::<Table>();
        t.meta = y;
        x
    }
}

/// How many results [`call`] gives for `kind`.
#[majit::traced]
#[inline]
pub fn results(kind: i64) -> i64 {
    if kind == INSERT {
        0
    } else {
        1
    }
}

/// `f.floor()` (elidable).
pub fn ffloor(f: f64) -> f64 {
    f.floor()
}

/// Byte `i` (1-based, in range) of `s` (elidable: strings never change).
pub fn str_byte(s: Str, i: i64) -> i64 {
    i64::from(s.bytes()[i as usize - 1])
}

/// `string.sub(s, i, j)`.
pub fn str_sub(s: Str, i: i64, j: i64) -> Str {
    let bytes = s.bytes();
    let len = bytes.len();
    let (i, j) = (
        super::string::start_pos(i, len),
        super::string::end_pos(j, len),
    );
    let piece = if i <= j {
        &bytes.as_slice()[i - 1..j]
    } else {
        &[][..]
    };
    crate::strings::new_str(piece)
}
