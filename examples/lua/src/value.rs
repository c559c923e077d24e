//! Small facts about values the interpreter and its traced functions
//! share (traced: inlined into traces).

use crate::bytecode::{IMM_BIAS, IMM_FLOAT, IMM_FLOAT_BIAS};
use crate::vm::{Bool, Float, Int};
use majit::prelude::*;

/// The Lua integer `v`: in the handle itself when it fits in 63 bits
/// (`Obj::small_int`: no allocation), else boxed in an `Int`. Every
/// integer is made here, so a value has one representation and integers
/// compare and hash by it.
#[majit::traced]
#[inline]
pub fn int_obj(v: i64) -> Obj {
    if Obj::fits_small_int(v) {
        Obj::small_int(v)
    } else {
        Obj::from(Int::new(v))
    }
}

/// Whether `o` is a Lua integer (small or boxed).
#[majit::traced]
#[inline]
pub fn is_int(o: Obj) -> bool {
    o.is_small_int() || o.is::<Int>()
}

/// The Lua integer `o` holds (`o` an integer).
#[majit::traced]
#[inline]
pub fn int_of(o: Obj) -> i64 {
    if o.is_small_int() {
        o.to_small_int()
    } else {
        o.cast::<Int>().v
    }
}

/// The Lua float `f`: in the handle itself when it fits
/// (`Obj::small_float`: most magnitudes, not zeros, NaNs or infinities),
/// else boxed in a `Float`. Every float is made here.
#[majit::traced]
#[inline]
pub fn float_obj(f: f64) -> Obj {
    if Obj::fits_small_float(f) {
        Obj::small_float(f)
    } else {
        Obj::from(Float::new(f))
    }
}

/// Whether `o` is a Lua float (small or boxed).
#[majit::traced]
#[inline]
pub fn is_float(o: Obj) -> bool {
    o.is_small_float() || o.is::<Float>()
}

/// The Lua float `o` holds (`o` a float).
#[majit::traced]
#[inline]
pub fn float_of(o: Obj) -> f64 {
    if o.is_small_float() {
        o.to_small_float()
    } else {
        o.cast::<Float>().v
    }
}

/// Whether `o` is a number (an integer or a float).
#[majit::traced]
#[inline]
pub(crate) fn is_num(o: Obj) -> bool {
    o.is_small_int() || o.is_small_float() || o.is::<Int>() || o.is::<Float>()
}

/// The number `o` as a float (`o` a number).
#[majit::traced]
#[inline]
pub(crate) fn to_f64(o: Obj) -> f64 {
    if o.is_small_float() {
        o.to_small_float()
    } else if o.is_small_int() {
        o.to_small_int() as f64
    } else if o.is::<Float>() {
        o.cast::<Float>().v
    } else {
        o.cast::<Int>().v as f64
    }
}

/// Lua's truth: everything but `nil` and `false`.
#[majit::traced]
#[inline]
pub(crate) fn truthy(o: Obj) -> bool {
    !(o.is_null() || (o.is::<Bool>() && !o.cast::<Bool>().v))
}

/// The number an immediate operand stands for (`bytecode::IMM`; `o` at or
/// above it).
#[majit::traced]
#[inline]
pub(crate) fn immediate(o: usize) -> Obj {
    if o < IMM_FLOAT {
        Obj::small_int(o as i64 - IMM_BIAS)
    } else {
        Obj::small_float((o as i64 - IMM_FLOAT_BIAS) as f64)
    }
}
