//! Run-time error values: a string `chunk:line: message` worded as PUC
//! Lua words it, made where the interpreter fails (residual helpers, off
//! the hot path).

use crate::bytecode::op;
use crate::code::insn;
use crate::proto::{operand_name, position};
use crate::strings::new_str;
use crate::vm::{Bool, Builtin, Closure, Float, Int, Str, Table};
use majit::prelude::*;

/// Lua's name of the type of `v`.
pub fn type_name(v: Obj) -> &'static str {
    if v.is_null() {
        "nil"
    } else if v.is::<Bool>() {
        "boolean"
    } else if v.is::<Int>() || v.is::<Float>() {
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

fn is_number(v: Obj) -> bool {
    v.is::<Int>() || v.is::<Float>()
}

/// An arithmetic instruction at `pc` failed on `x` and `y`.
pub fn arith_error(pc: i64, x: Obj, y: Obj) -> Obj {
    let code = insn(pc) & 0xff;
    if is_number(x) && is_number(y) {
        if code == op::MOD {
            return at(pc, "attempt to perform 'n%0'");
        }
        if code == op::IDIV {
            return at(pc, "attempt to divide by zero");
        }
        let k = usize::from(crate::number::float_to_int(crate::value::to_f64(x)).is_some());
        return at(
            pc,
            &format!("number{} has no integer representation", named(pc, k)),
        );
    }
    if !is_bitwise(code)
        && (x.is::<Str>() || y.is::<Str>())
        && (is_number(x) || x.is::<Str>())
        && (is_number(y) || y.is::<Str>())
    {
        // The string library's arithmetic metamethods word it so.
        let names = ["add", "sub", "mul", "div", "mod", "pow", "idiv"];
        let name = if code == op::UNM {
            "unm"
        } else {
            names[(code - op::ADD).clamp(0, 6) as usize]
        };
        return at(
            pc,
            &format!(
                "attempt to {name} a '{}' with a '{}'",
                type_name(x),
                type_name(y)
            ),
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
            type_name(bad),
            named(pc, k)
        ),
    )
}

fn is_bitwise(code: i64) -> bool {
    (op::BAND..=op::SHR).contains(&code) || code == op::BNOT
}

/// A comparison at `pc` of `x` and `y` has no meaning.
pub fn compare_error(pc: i64, x: Obj, y: Obj) -> Obj {
    let (s, t) = (type_name(x), type_name(y));
    if s == t {
        at(pc, &format!("attempt to compare two {s} values"))
    } else {
        at(pc, &format!("attempt to compare {s} with {t}"))
    }
}

/// The value `f` called at `pc` is not a function.
pub fn call_error(pc: i64, f: Obj) -> Obj {
    at(
        pc,
        &format!("attempt to call a {} value{}", type_name(f), named(pc, 0)),
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
pub fn for_error(pc: i64, what: i64, v: Obj) -> Obj {
    let part = match what {
        0 => return at(pc, "'for' step is zero"),
        1 => "initial value",
        2 => "limit",
        _ => "step",
    };
    at(
        pc,
        &format!("bad 'for' {part} (number expected, got {})", type_name(v)),
    )
}

/// Calls nested deeper than `vm::MAX_DEPTH` at `pc`.
pub fn overflow_error(pc: i64) -> Obj {
    at(pc, "stack overflow")
}

/// `..` at `pc` of `x` and `y`, one of which is no string or number.
pub fn concat_error(pc: i64, x: Obj, y: Obj) -> Obj {
    let k = usize::from(x.is::<Str>() || is_number(x));
    let bad = if k == 1 { y } else { x };
    at(
        pc,
        &format!(
            "attempt to concatenate a {} value{}",
            type_name(bad),
            named(pc, k)
        ),
    )
}

/// Indexing `x` at `pc`, which has no fields.
pub fn index_error(pc: i64, x: Obj) -> Obj {
    at(
        pc,
        &format!("attempt to index a {} value{}", type_name(x), named(pc, 0)),
    )
}

/// A table store at `pc` with an invalid key (`why`: `table::SET_*`).
pub fn key_error(pc: i64, why: i64) -> Obj {
    let what = if why == crate::table::SET_NAN_KEY {
        "NaN"
    } else {
        "nil"
    };
    at(pc, &format!("table index is {what}"))
}

/// `#x` at `pc`, which has no length.
pub fn len_error(pc: i64, x: Obj) -> Obj {
    at(
        pc,
        &format!(
            "attempt to get length of a {} value{}",
            type_name(x),
            named(pc, 0)
        ),
    )
}

/// Where error level `level` points for a builtin called at `pc` in
/// `frame`: `chunk:line: ` of the call at that level (1: the builtin's own
/// call, 2: the call of the function that called it, ...), or nothing
/// (level 0, or past the main function).
pub fn where_at(frame: crate::vm::Frame, pc: i64, level: i64) -> String {
    if level <= 0 {
        return String::new();
    }
    let (mut f, mut at) = (frame, pc);
    for _ in 1..level {
        if f.is_null() || f.call_pc() < 0 {
            return String::new();
        }
        at = f.call_pc();
        f = f.parent();
    }
    format!("{}: ", position(at as usize))
}
