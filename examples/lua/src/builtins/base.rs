//! The basic functions (`lbaselib.c`): the globals that need no callback
//! into Lua, and the prims behind the prelude's `tostring`, `print`,
//! `getmetatable` and argument checks.

use super::{
    boolean, def, float, int, io, is_str, prim, rets, str_obj, write_out, Call, Def, Rets,
};
use crate::errors::type_name;
use crate::strings::{bytes_of, text_of, with_text};
use crate::table as tbl;
use crate::value::{float_of, int_of, is_float, is_int};
use crate::vm::{Bool, Builtin, Closure, Str, Table};
use majit::prelude::*;
use std::cell::Cell;

pub(super) const DEFS: &[Def] = &[
    // `pcall` must come first: its id is `PCALL`.
    def("", "pcall", "pcall", pcall),
    def("", "type", "type", type_of),
    def("", "tonumber", "tonumber", tonumber),
    def("", "select", "select", select),
    def("", "rawget", "rawget", rawget),
    def("", "rawset", "rawset", rawset),
    def("", "rawequal", "rawequal", rawequal),
    def("", "rawlen", "rawlen", rawlen),
    def("", "setmetatable", "setmetatable", setmetatable),
    def("", "assert", "assert", assert),
    def("", "error", "error", error),
    def("", "next", "next", next),
    def("", "collectgarbage", "collectgarbage", collectgarbage),
    prim("getmetatable", "getmetatable", 0, getmetatable),
    prim("tostring", "tostring", 0, tostring_prim),
    prim("print", "print", 0, print_plain),
    prim("metafield", "?", 0, metafield),
    prim("typename", "?", 0, typename),
    prim("argerror", "?", 0, argerror),
    prim("raise", "?", 0, raise),
    prim(RETHROW, "?", 0, rethrow),
];

/// The prelude's `rethrow(e)`: raises `e` again, keeping the traceback
/// recorded where it was first raised (the script's uncaught error).
pub(super) const RETHROW: &str = "rethrow";

/// `pcall` without arguments (the interpreter makes every other call of
/// `pcall` a protected call itself).
fn pcall(c: &Call) -> Result<Rets, Obj> {
    Err(c.bad(0, "value expected"))
}

/// Lua's type of `v` (file handles are userdata).
pub(super) fn lua_type(v: Obj) -> &'static str {
    match io::is_file(v) {
        true => "userdata",
        false => type_name(v),
    }
}

/// The metatable of `v` (tables and file handles have one; strings' is
/// the prelude's).
fn metatable(v: Obj) -> Option<Table> {
    let m = crate::meta::metatable(v);
    m.is::<Table>().then(|| m.cast::<Table>())
}

/// Field `name` of `v`'s metatable, raw (`luaL_getmetafield`); nil when
/// there is none.
pub(super) fn meta_field(v: Obj, name: &[u8]) -> Obj {
    metatable(v).map_or(Obj::null(), |m| tbl::get_bytes(m, name))
}

pub(super) use crate::errors::shown_type;

/// A made-up address for `tostring`: the serial number (objects move, so
/// their addresses are no identity), in the shape of a heap address.
fn address(serial: i64) -> String {
    format!("0x{:012x}", 0x5555_0000_0000 + serial * 0x40)
}

/// `tostring` of a value without `__tostring` (which the prelude calls):
/// `__name` names tables that have it.
pub fn tostring_raw(v: Obj) -> Vec<u8> {
    if let Some(t) = text_of(v) {
        return t;
    }
    if v.is_null() {
        return b"nil".to_vec();
    }
    if v.is::<Bool>() {
        return if v.cast::<Bool>().v() {
            b"true".to_vec()
        } else {
            b"false".to_vec()
        };
    }
    let serial = if v.is::<Table>() {
        v.cast::<Table>().serial()
    } else if v.is::<Builtin>() {
        v.cast::<Builtin>().serial()
    } else if v.is::<Closure>() {
        v.cast::<Closure>().serial()
    } else {
        0
    };
    format!("{}: {}", shown_type(v), address(serial)).into_bytes()
}

/// The prelude's `tostring(v)`: the string, or `nil` and the `__tostring`
/// metamethod to call.
fn tostring_prim(c: &Call) -> Result<Rets, Obj> {
    let v = c.any(0)?;
    let mm = meta_field(v, b"__tostring");
    match mm.is_null() {
        // A string is its own `tostring`, a number's is made with no `Vec`.
        true if v.is::<Str>() => Ok(rets![v]),
        true => Ok(rets![
            with_text(v, str_obj).unwrap_or_else(|| str_obj(&tostring_raw(v)))
        ]),
        false => Ok(rets![Obj::null(), mm]),
    }
}

/// `print(...)` when no argument has `__tostring`: prints and returns
/// true; otherwise prints nothing and returns false (the prelude prints).
fn print_plain(c: &Call) -> Result<Rets, Obj> {
    if c.args
        .iter()
        .any(|&v| !meta_field(v, b"__tostring").is_null())
    {
        return Ok(rets![boolean(false)]);
    }
    let mut line = Vec::new();
    for (i, v) in c.args.iter().enumerate() {
        if i > 0 {
            line.push(b'\t');
        }
        line.extend(tostring_raw(*v));
    }
    line.push(b'\n');
    write_out(&line);
    Ok(rets![boolean(true)])
}

/// The prelude's `metafield(v, name)`: `luaL_getmetafield`.
fn metafield(c: &Call) -> Result<Rets, Obj> {
    Ok(rets![meta_field(c.arg(0), &c.string(1)?)])
}

/// The prelude's `typename(v)`: the name messages give `v`'s type.
fn typename(c: &Call) -> Result<Rets, Obj> {
    Ok(rets![str_obj(shown_type(c.arg(0)).as_bytes())])
}

/// The prelude's `argerror(i, name, message)`: raises `bad argument #i`
/// for the prelude function `name` (its caller's view, see `Call::bad`).
fn argerror(c: &Call) -> Result<Rets, Obj> {
    let i = c.integer(0)?;
    let name = String::from_utf8_lossy(&c.string(1)?).into_owned();
    let message = String::from_utf8_lossy(&c.string(2)?).into_owned();
    Err(c.bad_as(i.max(1) as usize - 1, &name, &message))
}

/// The prelude's `raise(message)`: an error of a library function, placed
/// like `luaL_error`'s (at the prelude function's caller).
fn raise(c: &Call) -> Result<Rets, Obj> {
    Err(c.error(&String::from_utf8_lossy(&c.string(0)?)))
}

fn rethrow(c: &Call) -> Result<Rets, Obj> {
    Err(c.arg(0))
}

fn type_of(c: &Call) -> Result<Rets, Obj> {
    let v = c.any(0)?;
    Ok(rets![str_obj(lua_type(v).as_bytes())])
}

fn tonumber(c: &Call) -> Result<Rets, Obj> {
    if c.arg(1).is_null() {
        let v = c.any(0)?;
        if is_int(v) || is_float(v) {
            return Ok(rets![v]);
        }
        let n = match v.is::<Str>() {
            true => crate::arith::to_number(v),
            false => Obj::null(),
        };
        return Ok(rets![n]);
    }
    let base = c.integer(1)?;
    let v = c.arg(0);
    if !v.is::<Str>() {
        return Err(c.expected(0, "string"));
    }
    if !(2..=36).contains(&base) {
        return Err(c.bad(1, "base out of range"));
    }
    let n = crate::number::str_to_int_base(v.cast::<Str>().bytes().as_slice(), base as u32);
    Ok(rets![n.map_or(Obj::null(), int)])
}

fn select(c: &Call) -> Result<Rets, Obj> {
    let n = c.args.len() as i64 - 1;
    if is_str(c.arg(0), b"#") {
        return Ok(rets![int(n)]);
    }
    let i = c.integer(0)?;
    let from = if i < 0 {
        if i < -n {
            return Err(c.bad(0, "index out of range"));
        }
        n + i
    } else if i == 0 {
        return Err(c.bad(0, "index out of range"));
    } else {
        (i - 1).min(n)
    };
    Ok(Rets::from_slice(&c.args[1 + from as usize..]))
}

fn rawget(c: &Call) -> Result<Rets, Obj> {
    let t = c.table(0)?;
    c.any(1)?;
    Ok(rets![tbl::get(t, c.arg(1))])
}

fn rawset(c: &Call) -> Result<Rets, Obj> {
    let t = c.table(0)?;
    c.any(1)?;
    c.any(2)?;
    // No position: lua5.4 raises these inside the C function.
    match tbl::set(t, c.arg(1), c.arg(2)) {
        tbl::SET_OK => Ok(rets![Obj::from(t)]),
        tbl::SET_NAN_KEY => Err(str_obj(b"table index is NaN")),
        _ => Err(str_obj(b"table index is nil")),
    }
}

fn rawequal(c: &Call) -> Result<Rets, Obj> {
    let (a, b) = (c.any(0)?, c.any(1)?);
    Ok(rets![boolean(raw_equal(a, b))])
}

/// Primitive equality: numbers by value, strings by content, the rest by
/// identity.
pub fn raw_equal(a: Obj, b: Obj) -> bool {
    let num = |o: Obj| is_int(o) || is_float(o);
    if num(a) && num(b) {
        return crate::number::eq(number_of(a), number_of(b));
    }
    tbl::same_key(a, b)
}

/// A number value as `number.rs` takes it.
pub(super) fn number_of(o: Obj) -> crate::number::Number {
    match is_int(o) {
        true => crate::number::Number::Int(int_of(o)),
        false => crate::number::Number::Float(float_of(o)),
    }
}

fn rawlen(c: &Call) -> Result<Rets, Obj> {
    let v = c.arg(0);
    if v.is::<Str>() {
        return Ok(rets![int(v.cast::<Str>().bytes().len() as i64)]);
    }
    if v.is::<Table>() && !io::is_file(v) {
        return Ok(rets![int(tbl::len(v.cast::<Table>()))]);
    }
    Err(c.expected(0, "table or string"))
}

fn setmetatable(c: &Call) -> Result<Rets, Obj> {
    let m = c.arg(1);
    let t = c.table(0)?;
    if !(m.is_null() || m.is::<Table>()) || c.args.len() < 2 {
        return Err(c.expected(1, "nil or table"));
    }
    if !meta_field(Obj::from(t), b"__metatable").is_null() {
        return Err(c.error("cannot change a protected metatable"));
    }
    t.set_meta(m);
    Ok(rets![Obj::from(t)])
}

/// `getmetatable(v)` (the prelude's handles strings): the `__metatable`
/// field stands in for a protected metatable.
fn getmetatable(c: &Call) -> Result<Rets, Obj> {
    let v = c.any(0)?;
    let Some(m) = metatable(v) else {
        return Ok(rets![Obj::null()]);
    };
    let protected = tbl::get_bytes(m, b"__metatable");
    match protected.is_null() {
        true => Ok(rets![Obj::from(m)]),
        false => Ok(rets![protected]),
    }
}

fn assert(c: &Call) -> Result<Rets, Obj> {
    let v = c.any(0)?;
    if crate::value::truthy(v) {
        return Ok(Rets::from_slice(&c.args));
    }
    // `error(message or "assertion failed!")` at level 1.
    let message = match c.args.len() > 1 {
        true => c.arg(1),
        false => str_obj(b"assertion failed!"),
    };
    Err(positioned(c, message, 1))
}

/// `message` with the position of error level `level` in front when it
/// is a string (`luaB_error`).
fn positioned(c: &Call, message: Obj, level: i64) -> Obj {
    if !message.is::<Str>() || level <= 0 {
        return message;
    }
    let mut text = c.where_level(level).into_bytes();
    text.extend(bytes_of(message.cast::<Str>()));
    str_obj(&text)
}

fn error(c: &Call) -> Result<Rets, Obj> {
    let level = c.opt_integer(1, 1)?;
    Err(positioned(c, c.arg(0), level))
}

fn next(c: &Call) -> Result<Rets, Obj> {
    let t = c.table(0)?;
    match tbl::next_position(t, c.arg(1)) {
        Ok(Some(p)) => {
            let (k, v) = tbl::entry_at(t, p);
            Ok(rets![k, v])
        }
        Ok(None) => Ok(rets![Obj::null()]),
        // No position: lua5.4 raises it inside the C function.
        Err(_) => Err(str_obj(b"invalid key to 'next'")),
    }
}

thread_local! {
    /// What `collectgarbage` reports back: running, generational mode,
    /// the pause and the step multiplier.
    static GC_STATE: Cell<(bool, bool, i64, i64)> = const { Cell::new((true, false, 200, 100)) };
}

/// `collectgarbage(opt, ...)`. The collector runs at the interpreter's
/// safepoints on its own terms, so the options only report: `count` the
/// old space in use, the settings what was set.
fn collectgarbage(c: &Call) -> Result<Rets, Obj> {
    const OPTIONS: [&str; 10] = [
        "stop",
        "restart",
        "collect",
        "count",
        "step",
        "setpause",
        "setstepmul",
        "isrunning",
        "generational",
        "incremental",
    ];
    let opt = c.opt_string(0, b"collect")?;
    let Some(&opt) = OPTIONS.iter().find(|o| o.as_bytes() == opt.as_slice()) else {
        let text = String::from_utf8_lossy(&opt).into_owned();
        return Err(c.bad(0, &format!("invalid option '{text}'")));
    };
    let (running, generational, pause, stepmul) = GC_STATE.with(Cell::get);
    let set = |s| GC_STATE.with(|g| g.set(s));
    let mode = |g: bool| str_obj(if g { b"generational" } else { b"incremental" });
    Ok(rets![match opt {
        "stop" | "restart" => {
            set((opt == "restart", generational, pause, stepmul));
            int(0)
        }
        "count" => float(heap_kilobytes()),
        "step" => boolean(true),
        "setpause" => {
            set((running, generational, c.opt_integer(1, 0)?, stepmul));
            int(pause)
        }
        "setstepmul" => {
            set((running, generational, pause, c.opt_integer(1, 0)?));
            int(stepmul)
        }
        "isrunning" => boolean(running),
        "generational" | "incremental" => {
            set((running, opt == "generational", pause, stepmul));
            mode(generational)
        }
        _ => int(0),
    }])
}

/// The kilobytes the heap holds (its chunks in use, nursery included).
fn heap_kilobytes() -> f64 {
    let Ok(heap) = majit::gc::thread_heap::shared() else {
        return 0.0;
    };
    let bytes = heap.try_borrow().map_or(0, |gc| gc.stats().heap_bytes);
    bytes as f64 / 1024.0
}
