//! The string library (`lstrlib.c`) over `pattern.rs` and `format.rs`.
//! `format`, `gsub` and `gmatch` are the prelude's (they may call Lua
//! back, or return an iterator); their prims here do the work.

use super::base::{shown_type, tostring_raw};
use super::{def, int, prim, rets, str_obj, Call, Def, Rets};
use crate::format::{format, FmtArg, FormatError};
use crate::pattern::{self, Capture, Captures, PatternError};
use crate::strings::{bytes_of, text_of, with_scratch, with_text};
use crate::table::{self as tbl, new_table};
use crate::value::{float_of, int_of, is_float, is_int};
use crate::vm::{Bool, Builtin, Closure, Str, Table};
use majit::prelude::*;
use smallvec::SmallVec;

pub(super) const DEFS: &[Def] = &[
    def("string", "len", "string.len", len),
    def("string", "sub", "string.sub", sub),
    def("string", "upper", "string.upper", upper),
    def("string", "lower", "string.lower", lower),
    def("string", "rep", "string.rep", rep),
    def("string", "reverse", "string.reverse", reverse),
    def("string", "byte", "string.byte", byte),
    def("string", "char", "string.char", char),
    def("string", "find", "string.find", find),
    def("string", "match", "string.match", str_match),
    prim("format", "string.format", 0, format_prim),
    prim("gsub", "string.gsub", 0, gsub),
    prim("gsub_step", "string.gsub", 0, gsub_step),
    prim("gsub_done", "string.gsub", 0, gsub_done),
    prim("gmatch", "string.gmatch", 0, gmatch),
    prim("gmatch_step", "string.gmatch", 0, gmatch_step),
];

/// Start position `i` (1-based, negative from the end) as `posrelatI`
/// clips it: at least 1.
pub(super) fn start_pos(i: i64, len: usize) -> usize {
    if i > 0 {
        i as usize
    } else if i == 0 || i < -(len as i64) {
        1
    } else {
        (len as i64 + i + 1) as usize
    }
}

/// End position `j` as `getendpos` clips it: in `0..=len`.
pub(super) fn end_pos(j: i64, len: usize) -> usize {
    if j > len as i64 {
        len
    } else if j >= 0 {
        j as usize
    } else if j < -(len as i64) {
        0
    } else {
        (len as i64 + j + 1) as usize
    }
}

fn len(c: &Call) -> Result<Rets, Obj> {
    Ok(rets![int(c.with_string(0, <[u8]>::len)? as i64)])
}

fn sub(c: &Call) -> Result<Rets, Obj> {
    c.with_string(0, |_| ())?; // lua5.4 checks the string first
    let (from, to) = (c.integer(1)?, c.opt_integer(2, -1)?);
    let piece = c.with_string(0, |s| {
        let (i, j) = (start_pos(from, s.len()), end_pos(to, s.len()));
        str_obj(if i <= j { &s[i - 1..j] } else { b"" })
    })?;
    Ok(rets![piece])
}

/// A new string of the bytes `f` gives for argument 0's, in order.
fn map_bytes(c: &Call, f: impl Fn(&u8) -> u8) -> Result<Rets, Obj> {
    let s = c.with_string(0, |s| {
        with_scratch(|out| {
            out.extend(s.iter().map(f));
            str_obj(out)
        })
    })?;
    Ok(rets![s])
}

fn upper(c: &Call) -> Result<Rets, Obj> {
    map_bytes(c, u8::to_ascii_uppercase)
}

fn lower(c: &Call) -> Result<Rets, Obj> {
    map_bytes(c, u8::to_ascii_lowercase)
}

fn rep(c: &Call) -> Result<Rets, Obj> {
    let len = c.with_string(0, <[u8]>::len)?;
    let n = c.integer(1)?;
    let sep_len = c.with_opt_string(2, b"", <[u8]>::len)?;
    if n <= 0 {
        return Ok(rets![str_obj(b"")]);
    }
    let total = (len + sep_len) as u128 * n as u128;
    if total >= i64::MAX as u128 {
        return Err(c.error("resulting string too large"));
    }
    if total > 1 << 32 {
        // What lua5.4 runs into allocating it (no position: a memory error).
        return Err(str_obj(b"not enough memory"));
    }
    let repeated = c.with_string(0, |s| {
        c.with_opt_string(2, b"", |sep| {
            with_scratch(|out| {
                out.reserve(total as usize);
                for k in 0..n {
                    if k > 0 {
                        out.extend_from_slice(sep);
                    }
                    out.extend_from_slice(s);
                }
                str_obj(out)
            })
        })
    })??;
    Ok(rets![repeated])
}

fn reverse(c: &Call) -> Result<Rets, Obj> {
    let s = c.with_string(0, |s| {
        with_scratch(|out| {
            out.extend(s.iter().rev());
            str_obj(out)
        })
    })?;
    Ok(rets![s])
}

fn byte(c: &Call) -> Result<Rets, Obj> {
    c.with_string(0, |_| ())?; // lua5.4 checks the string first
    let pi = c.opt_integer(1, 1)?;
    let pj = c.opt_integer(2, pi)?;
    let codes = c.with_string(0, |s| {
        let (i, j) = (start_pos(pi, s.len()), end_pos(pj, s.len()));
        match i > j {
            true => Some(Rets::new()),
            false => (j - i < i32::MAX as usize)
                .then(|| s[i - 1..j].iter().map(|&b| int(i64::from(b))).collect()),
        }
    })?;
    codes.ok_or_else(|| c.error("string slice too long"))
}

fn char(c: &Call) -> Result<Rets, Obj> {
    let mut out = Vec::with_capacity(c.args.len());
    for i in 0..c.args.len() {
        let b = c.integer(i)?;
        if !(0..=255).contains(&b) {
            return Err(c.bad(i, "value out of range"));
        }
        out.push(b as u8);
    }
    Ok(rets![str_obj(&out)])
}

/// A capture's value: the captured bytes, or a position (1-based).
fn capture_value(s: &[u8], cap: Capture) -> Obj {
    match cap {
        Capture::Str(a, b) => str_obj(&s[a..b]),
        Capture::Pos(p) => int(p as i64 + 1),
    }
}

/// A pattern error as the function raising it reports it.
fn pattern_error(c: &Call, e: PatternError) -> Obj {
    c.error(&e.0)
}

/// The values of a match's captures (the whole match without any).
fn values(c: &Call, s: &[u8], m: &Captures) -> Result<Rets, Obj> {
    let caps = m.values().map_err(|e| pattern_error(c, e))?;
    Ok(caps.into_iter().map(|cap| capture_value(s, cap)).collect())
}

/// `string.find` and `string.match` (`str_find_aux`).
fn find_aux(c: &Call, find: bool) -> Result<Rets, Obj> {
    let s = c.string(0)?;
    let p = c.string(1)?;
    let init = start_pos(c.opt_integer(2, 1)?, s.len()) - 1;
    if init > s.len() {
        return Ok(rets![Obj::null()]);
    }
    if find && (crate::value::truthy(c.arg(3)) || pattern::is_plain(&p)) {
        return Ok(match pattern::plain_find(&s, &p, init) {
            Some(at) => rets![int(at as i64 + 1), int((at + p.len()) as i64)],
            None => rets![Obj::null()],
        });
    }
    let Some(m) = pattern::find(&s, &p, init).map_err(|e| pattern_error(c, e))? else {
        return Ok(rets![Obj::null()]);
    };
    if !find {
        return values(c, &s, &m);
    }
    let caps = m.captures().map_err(|e| pattern_error(c, e))?;
    let mut out = rets![int(m.start as i64 + 1), int(m.end as i64)];
    out.extend(caps.into_iter().map(|cap| capture_value(&s, cap)));
    Ok(out)
}

fn find(c: &Call) -> Result<Rets, Obj> {
    find_aux(c, true)
}

fn str_match(c: &Call) -> Result<Rets, Obj> {
    find_aux(c, false)
}

/// Why the format prim stopped.
enum FormatStop {
    Error(FormatError),
    /// `%s` of argument `i` (0-based after the format), which has a
    /// `__tostring` the prelude must call.
    NeedsTostring(usize),
}

impl From<FormatError> for FormatStop {
    fn from(e: FormatError) -> Self {
        FormatStop::Error(e)
    }
}

/// `v` as `format.rs` takes it; `bytes` is `v`'s if it is a string.
fn fmt_arg(v: Obj, bytes: &Array<u8>) -> FmtArg<'_> {
    if v.is_null() {
        FmtArg::Nil
    } else if v.is::<Bool>() {
        FmtArg::Bool(v.cast::<Bool>().v())
    } else if is_int(v) {
        FmtArg::Int(int_of(v))
    } else if is_float(v) {
        FmtArg::Float(float_of(v))
    } else if v.is::<Str>() {
        FmtArg::Str(bytes.as_slice())
    } else {
        FmtArg::Other {
            type_name: shown_type(v),
        }
    }
}

/// The prelude's `format(fmt, ...)`: the result, or `nil` and the
/// 1-based position (in `...` after `fmt`, plus one) of an argument whose
/// `__tostring` the prelude must call first (it passes the string in its
/// place and calls again).
fn format_prim(c: &Call) -> Result<Rets, Obj> {
    let made = c.with_string(0, |fmt| {
        // The arguments' byte arrays (null but for strings), which their
        // `FmtArg`s borrow: nothing is copied until the result is built.
        let arrays: SmallVec<[Array<u8>; 8]> = (c.args[1..].iter())
            .map(|&v| match v.is::<Str>() {
                true => v.cast::<Str>().bytes(),
                false => Array::null(),
            })
            .collect();
        let args: SmallVec<[FmtArg; 8]> = (c.args[1..].iter().zip(&arrays))
            .map(|(&v, bytes)| fmt_arg(v, bytes))
            .collect();
        with_scratch(|out| {
            let done = format(out, fmt, &args, |i| {
                let v = c.args[i + 1];
                match super::base::meta_field(v, b"__tostring").is_null() {
                    true => Ok(tostring_raw(v)),
                    false => Err(FormatStop::NeedsTostring(i)),
                }
            });
            done.map(|()| str_obj(out))
        })
    })?;
    match made {
        Ok(s) => Ok(rets![s]),
        Err(FormatStop::NeedsTostring(i)) => Ok(rets![Obj::null(), int(i as i64 + 2)]),
        Err(FormatStop::Error(FormatError::BadArg { arg, message })) => {
            Err(c.bad(arg - 1, &message))
        }
        Err(FormatStop::Error(FormatError::Invalid(message))) => Err(c.error(&message)),
    }
}

/// `gsub`'s checks (`str_gsub`): the subject, the pattern and the most
/// replacements.
fn gsub_args(c: &Call) -> Result<(Vec<u8>, Vec<u8>, i64), Obj> {
    let s = c.string(0)?;
    let p = c.string(1)?;
    let r = c.arg(2);
    let max = c.opt_integer(3, s.len() as i64 + 1)?;
    let table = r.is::<Table>() && !super::io::is_file(r);
    let ok = r.is::<Str>() || is_int(r) || is_float(r) || table;
    if !(ok || r.is::<Closure>() || r.is::<Builtin>()) {
        return Err(c.expected(2, "string/function/table"));
    }
    Ok((s, p, max))
}

/// The prelude's `gsub(s, p, repl, n)`: with a string (or number)
/// replacement the result and the count; with a function or table the
/// state `gsub_step` takes.
fn gsub(c: &Call) -> Result<Rets, Obj> {
    let (s, p, max) = gsub_args(c)?;
    let r = c.arg(2);
    let Some(repl) = text_of(r) else {
        let st = new_table(7, 0);
        let items = [
            c.arg(0),
            c.arg(1),
            int(0),
            int(-1),
            int(0),
            int(max),
            int(0),
        ];
        for (i, v) in items.into_iter().enumerate() {
            tbl::set(st, int(i as i64 + 1), v);
        }
        return Ok(rets![Obj::from(st)]);
    };
    let max = usize::try_from(max).unwrap_or(0);
    let gsubbed = pattern::gsub(&s, &p, Some(max), |m| {
        pattern::expand_repl_string(&repl, &s, m).map(Some)
    });
    let (out, n) = gsubbed.map_err(|e| pattern_error(c, e))?;
    Ok(rets![str_obj(&out), int(n as i64)])
}

/// Integer field `i` of a state table.
fn field(st: Table, i: i64) -> i64 {
    int_of(tbl::get(st, int(i)))
}

/// String field `i` of a state table.
fn str_field(st: Table, i: i64) -> Vec<u8> {
    bytes_of(tbl::get(st, int(i)).cast::<Str>())
}

/// Appends `piece` to the sequence `parts`.
fn push(parts: Table, piece: &[u8]) {
    tbl::set(parts, int(tbl::len(parts) + 1), str_obj(piece));
}

/// The prelude's `gsub_step(state, parts)`: finds the next match,
/// appends the text before it to `parts`, and returns the match and its
/// values (the captures, or the match); nothing when done. The state is
/// `{s, p, pos, last_end, count, max, done}` (offsets 0-based, -1: none;
/// `done` 1 once the matches ran out).
fn gsub_step(c: &Call) -> Result<Rets, Obj> {
    let (st, parts) = (c.table(0)?, c.table(1)?);
    let (s, p) = (str_field(st, 1), str_field(st, 2));
    let (mut pos, last_end, count, max) = (field(st, 3), field(st, 4), field(st, 5), field(st, 6));
    let anchored = p.first() == Some(&b'^');
    if count >= max || field(st, 7) != 0 || (anchored && count > 0) {
        return Ok(Rets::new());
    }
    loop {
        let found = pattern::find(&s, &p, pos as usize).map_err(|e| pattern_error(c, e))?;
        let Some(m) = found.filter(|m| !(anchored && m.start as i64 != pos)) else {
            tbl::set(st, int(3), int(pos));
            tbl::set(st, int(7), int(1));
            return Ok(Rets::new());
        };
        if m.end as i64 == last_end {
            // An empty match where the last one ended is skipped.
            if pos < s.len() as i64 {
                push(parts, &s[pos as usize..pos as usize + 1]);
            }
            pos += 1;
            if anchored || pos > s.len() as i64 {
                tbl::set(st, int(3), int(pos));
                tbl::set(st, int(7), int(1));
                return Ok(Rets::new());
            }
            continue;
        }
        push(parts, &s[pos as usize..m.start]);
        let mut out = rets![str_obj(&s[m.start..m.end])];
        out.extend(values(c, &s, &m)?);
        tbl::set(st, int(3), int(m.end as i64));
        tbl::set(st, int(4), int(m.end as i64));
        tbl::set(st, int(5), int(count + 1));
        return Ok(out);
    }
}

/// The prelude's `gsub_done(state, parts)`: the result and the count.
fn gsub_done(c: &Call) -> Result<Rets, Obj> {
    let (st, parts) = (c.table(0)?, c.table(1)?);
    let s = tbl::get(st, int(1)).cast::<Str>().bytes();
    let s = s.as_slice();
    let joined = with_scratch(|out| {
        for i in 1..=tbl::len(parts) {
            with_text(tbl::get(parts, int(i)), |piece| {
                out.extend_from_slice(piece)
            });
        }
        let pos = (field(st, 3) as usize).min(s.len());
        out.extend_from_slice(&s[pos..]);
        str_obj(out)
    });
    Ok(rets![joined, int(field(st, 5))])
}

/// The prelude's `gmatch(s, p, init)`: the state `gmatch_step` takes,
/// `{s, p, pos, last_end}`. A `^` is no anchor in `gmatch`: it is escaped
/// for `pattern::find`.
fn gmatch(c: &Call) -> Result<Rets, Obj> {
    let s = c.string(0)?;
    let mut p = c.string(1)?;
    let init = start_pos(c.opt_integer(2, 1)?, s.len()) - 1;
    if p.first() == Some(&b'^') {
        p.insert(0, b'%');
    }
    let st = new_table(4, 0);
    let init = init.min(s.len() + 1);
    let items = [str_obj(&s), str_obj(&p), int(init as i64), int(-1)];
    for (i, v) in items.into_iter().enumerate() {
        tbl::set(st, int(i as i64 + 1), v);
    }
    Ok(rets![Obj::from(st)])
}

/// The prelude's `gmatch_step(state)`: the next match's values, or
/// nothing.
fn gmatch_step(c: &Call) -> Result<Rets, Obj> {
    let st = c.table(0)?;
    let (s, p) = (str_field(st, 1), str_field(st, 2));
    let (mut pos, last_end) = (field(st, 3), field(st, 4));
    while pos <= s.len() as i64 {
        let found = pattern::find(&s, &p, pos as usize).map_err(|e| pattern_error(c, e))?;
        let Some(m) = found else {
            break;
        };
        if m.end as i64 == last_end {
            pos = m.start as i64 + 1;
            continue;
        }
        tbl::set(st, int(3), int(m.end as i64));
        tbl::set(st, int(4), int(m.end as i64));
        return values(c, &s, &m);
    }
    tbl::set(st, int(3), int(s.len() as i64 + 1));
    Ok(Rets::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_clip_as_lua54s() {
        assert_eq!(
            (start_pos(0, 3), start_pos(-1, 3), start_pos(-9, 3)),
            (1, 3, 1)
        );
        assert_eq!((end_pos(9, 3), end_pos(-1, 3), end_pos(-9, 3)), (3, 3, 0));
    }
}
