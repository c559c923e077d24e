//! Run-time error values: a string `chunk:line: message` worded as PUC
//! Lua words it, made where the interpreter fails (residual helpers, off
//! the hot path).

use crate::arith::to_number;
use crate::bytecode::op;
use crate::code::insn;
use crate::proto::{describe_pc, operand_name, position};
use crate::strings::new_str;
use crate::traceback;
use crate::value::{is_float, is_int};
use crate::vm::{Bool, Builtin, Closure, Frame, Str, Table};
use majit::prelude::*;

/// Lua's name of the type of `v`.
pub fn type_name(v: Obj) -> &'static str {
    if v.is_null() {
        "nil"
    } else if v.is::<Bool>() {
        "boolean"
    } else if is_int(v) || is_float(v) {
        "number"
    } else if v.is::<Str>() {
        "string"
    } else if v.is::<Table>() {
        "table"
    } else if v.is::<Closure>() || v.is::<Builtin>() {
        "function"
    } else {
        "userdata"
    }
}

/// The error value for `message` raised by the instruction at `pc`.
pub fn at(pc: i64, message: &str) -> Obj {
    let text = format!("{}: {message}", position(pc as usize));
    Obj::from(new_str(text.as_bytes()))
}

/// ` (global 'x')` for operand `k` of the instruction at `pc`, when the
/// compiler named it.
fn named(pc: i64, k: usize) -> String {
    operand_name(pc as usize, k).map_or(String::new(), |n| format!(" ({n})"))
}

/// The type name messages show for `v`: its metatable's `__name` when
/// that is a string (`luaT_objtypename`).
pub fn shown_type(v: Obj) -> String {
    let meta = crate::meta::metatable(v);
    let name = match meta.is::<Table>() {
        true => crate::table::get_bytes(meta.cast::<Table>(), b"__name"),
        false => Obj::null(),
    };
    match name.is::<Str>() {
        true => String::from_utf8_lossy(&crate::strings::bytes_of(name.cast::<Str>())).into_owned(),
        false => type_name(v).to_string(),
    }
}

fn is_number(v: Obj) -> bool {
    is_int(v) || is_float(v)
}

/// An arithmetic instruction at `pc` failed on `x` and `y` (its
/// operands as they were, before any conversion).
pub fn arith_error(frame: Frame, pc: i64, x: Obj, y: Obj) -> Obj {
    traceback::record(frame, pc, None);
    let code = insn(pc) & 0xff;
    if !is_bitwise(code) && (x.is::<Str>() || y.is::<Str>()) {
        return string_arith_error(pc, code, x, y);
    }
    if is_number(x) && is_number(y) {
        let text = match code == op::MOD {
            true => "attempt to perform 'n%0'",
            false => "attempt to divide by zero",
        };
        if code == op::MOD || code == op::IDIV {
            let where_ = match saved_pc(pc) {
                Ok(at) => {
                    traceback::record(frame, at, None);
                    position(at as usize)
                }
                Err(start) => start,
            };
            return Obj::from(new_str(format!("{where_}: {text}").as_bytes()));
        }
        let k = usize::from(crate::number::float_to_int(crate::value::to_f64(x)).is_some());
        return at(
            pc,
            &format!("number{} has no integer representation", named(pc, k)),
        );
    }
    let k = usize::from(is_number(x));
    let bad = if k == 1 { y } else { x };
    let what = if is_bitwise(code) {
        "perform bitwise operation on"
    } else {
        "perform arithmetic on"
    };
    at(
        pc,
        &format!(
            "attempt to {what} a {} value{}",
            shown_type(bad),
            named(pc, k)
        ),
    )
}

/// Where lua5.4 (5.4.4) places an integer division by zero: its `//` and
/// `%` raise without saving the program counter, so the message shows
/// the line of the last instruction that did save it (a call, a `for`
/// loop's start, a concatenation, a length), or of the function's start.
/// The last such instruction before `pc` in the code stands for it:
/// `Ok` its program counter, or `Err` the function's start `chunk:line`.
fn saved_pc(pc: i64) -> Result<i64, String> {
    let Some((chunk, defined, _, entry)) = describe_pc(pc as usize) else {
        return Ok(pc);
    };
    let mut saved = None;
    let mut at = entry as i64;
    while at < pc {
        let code = insn(at) & 0xff;
        if [op::CALL, op::TFORCALL, op::FORPREP, op::CONCAT, op::LEN].contains(&code) {
            saved = Some(at);
        }
        at += crate::bytecode::width(code) as i64;
    }
    // A main chunk starts on line 1 (lua5.4's VARARGPREP).
    saved.ok_or_else(|| format!("{chunk}:{}", defined.max(1)))
}

/// Arithmetic with a string operand: in lua5.4 the string library's
/// metamethods do it (lstrlib's `arith`), so they word its errors: a
/// non-numeral as `luaL_error` does, and a division by zero without a
/// position (raised inside a C function).
fn string_arith_error(pc: i64, code: i64, x: Obj, y: Obj) -> Obj {
    let (nx, ny) = (to_number(x), to_number(y));
    if is_number(nx) && is_number(ny) {
        let text: &[u8] = match code == op::MOD {
            true => b"attempt to perform 'n%0'",
            false => b"attempt to divide by zero",
        };
        return Obj::from(new_str(text));
    }
    let names = ["add", "sub", "mul", "div", "mod", "pow", "idiv"];
    let name = match code == op::UNM {
        true => "unm",
        false => names[(code - op::ADD).clamp(0, 6) as usize],
    };
    at(
        pc,
        &format!(
            "attempt to {name} a '{}' with a '{}'",
            type_name(x),
            type_name(y)
        ),
    )
}

fn is_bitwise(code: i64) -> bool {
    (op::BAND..=op::SHR).contains(&code) || code == op::BNOT
}

/// A comparison at `pc` of `x` and `y` has no meaning.
pub fn compare_error(frame: Frame, pc: i64, x: Obj, y: Obj) -> Obj {
    traceback::record(frame, pc, None);
    let (s, t) = (shown_type(x), shown_type(y));
    if s == t {
        at(pc, &format!("attempt to compare two {s} values"))
    } else {
        at(pc, &format!("attempt to compare {s} with {t}"))
    }
}

/// An access at `pc` followed `MAX_CHAIN` `__index` (`event` 0) or
/// `__newindex` (1) tables without an end.
pub fn chain_error(frame: Frame, pc: i64, event: i64) -> Obj {
    traceback::record(frame, pc, None);
    let name = String::from_utf8_lossy(crate::meta::event_name(event)).into_owned();
    at(pc, &format!("'{name}' chain too long; possible loop"))
}

/// The value `f` called at `pc` is not a function.
pub fn call_error(frame: Frame, pc: i64, f: Obj) -> Obj {
    traceback::record(frame, pc, None);
    at(
        pc,
        &format!("attempt to call a {} value{}", shown_type(f), named(pc, 0)),
    )
}

/// An error of a call `pcall` makes (from C, so with no position): `why`
/// 0, `f` cannot be called; 1, too many nested `pcall`s; 2, too long a
/// chain of `__call` handlers.
pub fn protected_error(why: i64, f: Obj) -> Obj {
    let text = match why {
        0 => format!("attempt to call a {} value", type_name(f)),
        1 => "C stack overflow".to_string(),
        _ => "stack overflow".to_string(),
    };
    Obj::from(new_str(text.as_bytes()))
}

/// A numeric `for` at `pc` cannot start: `what` is 0 for a zero step, 1, 2
/// or 3 for a non-number initial value, limit or step (`v`).
pub fn for_error(frame: Frame, pc: i64, what: i64, v: Obj) -> Obj {
    traceback::record(frame, pc, None);
    let part = match what {
        0 => return at(pc, "'for' step is zero"),
        1 => "initial value",
        2 => "limit",
        _ => "step",
    };
    at(
        pc,
        &format!("bad 'for' {part} (number expected, got {})", shown_type(v)),
    )
}

/// Calls nested deeper than `vm::MAX_DEPTH` at `pc`.
pub fn overflow_error(frame: Frame, pc: i64) -> Obj {
    traceback::record(frame, pc, None);
    at(pc, "stack overflow")
}

/// `..` at `pc` of `x` and `y`, one of which is no string or number.
pub fn concat_error(frame: Frame, pc: i64, x: Obj, y: Obj) -> Obj {
    traceback::record(frame, pc, None);
    let k = usize::from(x.is::<Str>() || is_number(x));
    let bad = if k == 1 { y } else { x };
    at(
        pc,
        &format!(
            "attempt to concatenate a {} value{}",
            shown_type(bad),
            named(pc, k)
        ),
    )
}

/// Indexing `x` at `pc`, which has no fields.
pub fn index_error(frame: Frame, pc: i64, x: Obj) -> Obj {
    traceback::record(frame, pc, None);
    at(
        pc,
        &format!("attempt to index a {} value{}", shown_type(x), named(pc, 0)),
    )
}

/// A table store at `pc` with an invalid key (`why`: `table::SET_*`).
pub fn key_error(frame: Frame, pc: i64, why: i64) -> Obj {
    traceback::record(frame, pc, None);
    let what = if why == crate::table::SET_NAN_KEY {
        "NaN"
    } else {
        "nil"
    };
    at(pc, &format!("table index is {what}"))
}

/// `#x` at `pc`, which has no length.
pub fn len_error(frame: Frame, pc: i64, x: Obj) -> Obj {
    traceback::record(frame, pc, None);
    at(
        pc,
        &format!(
            "attempt to get length of a {} value{}",
            shown_type(x),
            named(pc, 0)
        ),
    )
}
