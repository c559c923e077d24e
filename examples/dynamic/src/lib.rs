//! # dynamic: a dynamic language's values, unboxed by the JIT
//!
//! The representation `docs/macros.md` ("Dynamic values") recommends for
//! the values of a dynamically typed language: every value is an [`Obj`],
//! a handle of a `#[headered]` GC struct whose header is its class (the
//! tag) and whose fields are the payload: [`Int`] (an `i64`), [`Float`]
//! (an `f64`) and [`List`] (a reference, `Array<Obj>`). Operations test the
//! class with `is::<T>()` and read the payload through `cast::<T>()`;
//! arithmetic allocates a fresh box for its result ([`ops::add`]).
//!
//! In a trace, a class test is a `guard_class` that the optimizer folds
//! once the class is known, and a box that does not escape an iteration
//! is never allocated: the loop of [`run`] over a list of `Int`s keeps the
//! running sum in a register (`tests/dynamic.rs` checks the optimized
//! trace has no allocation left).
//!
//! ```
//! use majit::prelude::*;
//! let xs = [dynamic::int(1), dynamic::float(0.5), dynamic::int(2)];
//! assert_eq!(dynamic::run(&dynamic::SUM, dynamic::list(&xs)), 3.5);
//! let mut driver = dynamic::run_driver::<RefExec>(JitParams::default()).unwrap();
//! let xs = [dynamic::int(1), dynamic::float(0.5), dynamic::int(2)];
//! assert_eq!(dynamic::run_jit(&mut driver, &dynamic::SUM, dynamic::list(&xs)).unwrap(), 3.5);
//! ```

use majit::prelude::*;

/// The operations on values, outside the interpreter's module (traced
/// functions: the JIT traces through them).
pub mod ops {
    use super::{Float, Int};
    use majit::prelude::*;

    /// `a + b`: two `Int`s add (wrapping) to an `Int`; with a `Float`, the
    /// sum of both as floats is a `Float`. A fresh box either way.
    ///
    /// # Panics
    /// If a value is not a number (`Obj::cast`'s message).
    #[majit::traced]
    pub fn add(a: Obj, b: Obj) -> Obj {
        if a.is::<Int>() && b.is::<Int>() {
            return Obj::from(Int::new(a.cast::<Int>().v.wrapping_add(b.cast::<Int>().v)));
        }
        Obj::from(Float::new(to_f64(a) + to_f64(b)))
    }

    /// The number `a` as an `f64`.
    ///
    /// # Panics
    /// If `a` is not a number.
    #[majit::traced]
    pub fn to_f64(a: Obj) -> f64 {
        if a.is::<Int>() {
            return a.cast::<Int>().v as f64;
        }
        a.cast::<Float>().v
    }
}

/// Stop when the list is exhausted (`i == len`): return the sum.
pub const DONE: i64 = 0;
/// `acc = add(acc, items[i])`.
pub const ADD: i64 = 1;
/// `i += 1` and back to the start (the user program's loop).
pub const NEXT: i64 = 2;
/// The program summing a list.
pub const SUM: [i64; 3] = [DONE, ADD, NEXT];

/// Runs `code` over `list` (a [`List`]) from `acc = Int(0)`, `i = 0`;
/// returns the sum as an `f64` (NaN for an unknown instruction).
///
/// # Panics
/// If `list` is not a `List` or holds a value that is not a number.
#[jit_interp(
    greens = [pc, code],
    reds = [acc, xs, i],
    structs = [
        #[headered] Int { v: i64 },
        #[headered] Float { v: f64 },
        #[headered] List { items: Array<Obj> },
    ],
    traced = [ops::add, ops::to_f64],
)]
pub fn run(code: &[i64], list: Obj) -> f64 {
    let mut pc: usize = 0;
    let mut acc: Obj = Obj::from(Int::new(0));
    let mut xs: Obj = list;
    let mut i: usize = 0;
    loop {
        jit_merge_point!();
        match code[pc] {
            DONE => {
                if i == xs.cast::<List>().items.len() {
                    return ops::to_f64(acc);
                }
                pc += 1;
            }
            ADD => {
                acc = ops::add(acc, xs.cast::<List>().items[i]);
                pc += 1;
            }
            NEXT => {
                i += 1;
                pc = 0;
                can_enter_jit!();
                continue;
            }
            _ => return f64::NAN,
        }
    }
}

/// A boxed integer.
pub fn int(v: i64) -> Obj {
    Obj::from(Int::new(v))
}

/// A boxed float.
pub fn float(v: f64) -> Obj {
    Obj::from(Float::new(v))
}

/// A list of `items` (allocating never collects, so `items` stay valid
/// until the next safepoint: pass the list straight to [`run`]).
pub fn list(items: &[Obj]) -> Obj {
    let mut a = Array::<Obj>::new(items.len());
    for (k, &x) in items.iter().enumerate() {
        a[k] = x;
    }
    Obj::from(List::new(a))
}
