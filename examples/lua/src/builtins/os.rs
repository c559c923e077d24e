//! The os library (`loslib.c`): `clock`, `time`, `exit`, `getenv`.

use super::{boolean, def, float, flush_out, int, rets, str_obj, Call, Def, Rets};
use crate::table as tbl;
use crate::value::{int_of, is_int};
use crate::vm::{Bool, Table};
use majit::prelude::*;
use std::time::Instant;

pub(super) const DEFS: &[Def] = &[
    def("os", "clock", "os.clock", clock),
    def("os", "time", "os.time", time),
    def("os", "exit", "os.exit", exit),
    def("os", "getenv", "os.getenv", getenv),
];

thread_local! {
    static START: Instant = Instant::now();
}

/// Microseconds since the interpreter started: `clock()`'s ticks (the
/// interpreter runs on one thread, so its time is the CPU time it used).
pub(super) fn cpu_clock_ticks() -> u64 {
    START.with(|s| s.elapsed().as_micros() as u64)
}

fn clock(_: &Call) -> Result<Rets, Obj> {
    Ok(rets![float(cpu_clock_ticks() as f64 / 1e6)])
}

fn exit(c: &Call) -> Result<Rets, Obj> {
    let v = c.arg(0);
    let code = if v.is_null() {
        0
    } else if v.is::<Bool>() {
        i32::from(!v.cast::<Bool>().v())
    } else {
        c.integer(0)? as i32
    };
    flush_out();
    std::process::exit(code)
}

fn getenv(c: &Call) -> Result<Rets, Obj> {
    let name = c.string(0)?;
    let value = std::str::from_utf8(&name).ok().and_then(std::env::var_os);
    Ok(rets![value.map_or(Obj::null(), |v| {
        str_obj(v.to_string_lossy().as_bytes())
    })])
}

/// C's `struct tm` (glibc, LP64).
#[repr(C)]
#[derive(Default)]
struct Tm {
    sec: i32,
    min: i32,
    hour: i32,
    mday: i32,
    mon: i32,
    year: i32,
    wday: i32,
    yday: i32,
    isdst: i32,
    gmtoff: i64,
    zone: usize,
}

extern "C" {
    fn mktime(tm: *mut Tm) -> i64;
}

/// `os.time([t])`: now, or the time the date table `t` stands for in the
/// local time zone (C's `mktime`, which also normalizes `t`'s fields).
fn time(c: &Call) -> Result<Rets, Obj> {
    if c.arg(0).is_null() {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        return Ok(rets![int(now.map_or(0, |d| d.as_secs() as i64))]);
    }
    let t = c.table(0)?;
    let mut tm = Tm {
        year: date_field(c, t, "year", None, 1900)?,
        mon: date_field(c, t, "month", None, 1)?,
        mday: date_field(c, t, "day", None, 0)?,
        hour: date_field(c, t, "hour", Some(12), 0)?,
        min: date_field(c, t, "min", Some(0), 0)?,
        sec: date_field(c, t, "sec", Some(0), 0)?,
        ..Tm::default()
    };
    let isdst = tbl::get_bytes(t, b"isdst");
    tm.isdst = if isdst.is_null() {
        -1
    } else {
        i32::from(crate::value::truthy(isdst))
    };
    // SAFETY: `tm` is a valid, initialized `struct tm`; `mktime` reads
    // and normalizes it and keeps no pointer to it.
    let secs = unsafe { mktime(&mut tm) };
    if secs == -1 {
        return Err(c.error("time result cannot be represented in this installation"));
    }
    let fields = [
        ("year", tm.year + 1900),
        ("month", tm.mon + 1),
        ("day", tm.mday),
        ("hour", tm.hour),
        ("min", tm.min),
        ("sec", tm.sec),
        ("yday", tm.yday + 1),
        ("wday", tm.wday + 1),
    ];
    for (key, v) in fields {
        tbl::set(t, str_obj(key.as_bytes()), int(i64::from(v)));
    }
    if tm.isdst >= 0 {
        tbl::set(t, str_obj(b"isdst"), boolean(tm.isdst != 0));
    }
    Ok(rets![int(secs)])
}

/// Field `key` of a date table less `delta` (`getfield`): `default` when
/// absent, an error when absent without one, not an integer, or out of
/// C's `int` range.
fn date_field(c: &Call, t: Table, key: &str, default: Option<i32>, delta: i64) -> Result<i32, Obj> {
    let v = crate::arith::to_number(tbl::get_bytes(t, key.as_bytes()));
    let n = if is_int(v) {
        Some(int_of(v))
    } else if v.is::<crate::vm::Float>() {
        crate::number::float_to_int(v.cast::<crate::vm::Float>().v())
    } else {
        None
    };
    let Some(n) = n else {
        return match (tbl::get_bytes(t, key.as_bytes()).is_null(), default) {
            (false, _) => Err(c.error(&format!("field '{key}' is not an integer"))),
            (true, None) => Err(c.error(&format!("field '{key}' missing in date table"))),
            (true, Some(d)) => Ok(d),
        };
    };
    n.checked_sub(delta)
        .and_then(|n| i32::try_from(n).ok())
        .ok_or_else(|| c.error(&format!("field '{key}' is out-of-bound")))
}
