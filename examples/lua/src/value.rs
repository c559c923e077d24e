//! Small facts about values the interpreter and its traced functions
//! share (traced: inlined into traces).

use crate::vm::{Bool, Float, Int};
use majit::prelude::*;

/// Whether `o` is a number (an integer or a float).
#[majit::traced]
pub(crate) fn is_num(o: Obj) -> bool {
    o.is::<Int>() || o.is::<Float>()
}

/// The number `o` as a float (`o` a number).
#[majit::traced]
pub(crate) fn to_f64(o: Obj) -> f64 {
    if o.is::<Int>() {
        o.cast::<Int>().v as f64
    } else {
        o.cast::<Float>().v
    }
}

/// Lua's truth: everything but `nil` and `false`.
#[majit::traced]
pub(crate) fn truthy(o: Obj) -> bool {
    !(o.is_null() || (o.is::<Bool>() && !o.cast::<Bool>().v))
}
