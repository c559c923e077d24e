//! The table library (`ltablib.c`) but `sort` (`sort.rs`). Elements are
//! read and written raw: these functions do not call `__index`,
//! `__newindex` or `__len` (a builtin cannot call Lua).

use super::base::lua_type;
use super::{def, int, rets, str_obj, Call, Def, Rets};
use crate::strings::{with_scratch, with_text};
use crate::table::{self as tbl, new_table};
use crate::vm::{Str, Table};
use majit::prelude::*;

pub(super) const DEFS: &[Def] = &[
    def("table", "insert", "table.insert", insert),
    def("table", "remove", "table.remove", remove),
    def("table", "concat", "table.concat", concat),
    def("table", "unpack", "table.unpack", unpack),
    def("table", "pack", "table.pack", pack),
    def("table", "move", "table.move", move_),
];

fn get(t: Table, i: i64) -> Obj {
    tbl::get(t, int(i))
}

fn set(t: Table, i: i64, v: Obj) {
    tbl::set(t, int(i), v);
}

fn insert(c: &Call) -> Result<Rets, Obj> {
    let t = c.table(0)?;
    let e = tbl::len(t).wrapping_add(1);
    let pos = match c.args.len() {
        2 => e,
        3 => {
            let pos = c.integer(1)?;
            if (pos as u64).wrapping_sub(1) >= e as u64 {
                return Err(c.bad(1, "position out of bounds"));
            }
            if pos < e {
                // The top item first: it may grow the array part.
                set(t, e, get(t, e - 1));
                if !tbl::move_in_array(t, pos, e - 2, pos + 1) {
                    for i in (pos + 1..e).rev() {
                        set(t, i, get(t, i - 1));
                    }
                }
            }
            pos
        }
        _ => return Err(c.error("wrong number of arguments to 'insert'")),
    };
    set(t, pos, c.arg(c.args.len() - 1));
    Ok(Rets::new())
}

fn remove(c: &Call) -> Result<Rets, Obj> {
    let t = c.table(0)?;
    let size = tbl::len(t);
    let pos = c.opt_integer(1, size)?;
    // lua5.4.4 blames argument #1 here.
    if pos != size && (pos as u64).wrapping_sub(1) > size as u64 {
        return Err(c.bad(0, "position out of bounds"));
    }
    let removed = get(t, pos);
    if pos < size && !tbl::move_in_array(t, pos + 1, size, pos) {
        for i in pos..size {
            set(t, i, get(t, i + 1));
        }
    }
    set(t, pos.max(size), Obj::null());
    Ok(rets![removed])
}

fn concat(c: &Call) -> Result<Rets, Obj> {
    let t = c.table(0)?;
    let last = tbl::len(t);
    c.with_opt_string(1, b"", |_| ())?; // lua5.4 checks it before the range
    let first = c.opt_integer(2, 1)?;
    let last = c.opt_integer(3, last)?;
    let joined = c.with_opt_string(1, b"", |sep| {
        with_scratch(|out| join(c, t, sep, first, last, out).map(|()| str_obj(out)))
    })?;
    Ok(rets![joined?])
}

/// Appends the items `first..=last` of `t`, strings or numbers, to `out`
/// with `sep` between them, each straight from the table.
fn join(
    c: &Call,
    t: Table,
    sep: &[u8],
    first: i64,
    last: i64,
    out: &mut Vec<u8>,
) -> Result<(), Obj> {
    let mut i = first;
    while i <= last {
        let v = get(t, i);
        if with_text(v, |text| out.extend_from_slice(text)).is_none() {
            let what = format!(
                "invalid value ({}) at index {i} in table for 'concat'",
                lua_type(v)
            );
            return Err(c.error(&what));
        }
        if i == last {
            break;
        }
        out.extend_from_slice(sep);
        i += 1;
    }
    Ok(())
}

/// Most values `unpack` returns (`lua_checkstack`'s limit).
const MAX_RESULTS: u64 = 1_000_000;

fn unpack(c: &Call) -> Result<Rets, Obj> {
    let v = c.arg(0);
    let first = c.opt_integer(1, 1)?;
    let last = match c.arg(2).is_null() {
        false => c.integer(2)?,
        true if v.is::<Table>() => tbl::len(v.cast::<Table>()),
        true if v.is::<Str>() => v.cast::<Str>().bytes().len() as i64,
        // No position: lua5.4 raises it inside the C function.
        true => {
            let what = format!("attempt to get length of a {} value", lua_type(v));
            return Err(str_obj(what.as_bytes()));
        }
    };
    if first > last {
        return Ok(Rets::new());
    }
    if (last as u64).wrapping_sub(first as u64) >= MAX_RESULTS {
        return Err(c.error("too many results to unpack"));
    }
    if !v.is::<Table>() && !v.is::<Str>() {
        let what = format!("attempt to index a {} value", lua_type(v));
        return Err(str_obj(what.as_bytes()));
    }
    let t = v.is::<Table>().then(|| v.cast::<Table>());
    Ok((first..=last)
        .map(|i| t.map_or(Obj::null(), |t| get(t, i)))
        .collect())
}

fn pack(c: &Call) -> Result<Rets, Obj> {
    let t = new_table(c.args.len() as i64, 1);
    for (i, &v) in c.args.iter().enumerate() {
        set(t, i as i64 + 1, v);
    }
    tbl::set(t, str_obj(b"n"), int(c.args.len() as i64));
    Ok(rets![Obj::from(t)])
}

fn move_(c: &Call) -> Result<Rets, Obj> {
    let f = c.integer(1)?;
    let e = c.integer(2)?;
    let t = c.integer(3)?;
    let src = c.table(0)?;
    let dst = match c.arg(4).is_null() {
        true => src,
        false => c.table(4)?,
    };
    if e >= f {
        if !(f > 0 || e < i64::MAX + f) {
            return Err(c.bad(2, "too many elements to move"));
        }
        let n = e - f + 1;
        if t > i64::MAX - n + 1 {
            return Err(c.bad(3, "destination wrap around"));
        }
        let same = dst.serial() == src.serial();
        if same && tbl::move_in_array(src, f, e, t) {
            return Ok(rets![Obj::from(dst)]);
        }
        let forward = t > e || t <= f || !same;
        for k in 0..n {
            let i = if forward { k } else { n - 1 - k };
            set(dst, t + i, get(src, f + i));
        }
    }
    Ok(rets![Obj::from(dst)])
}
