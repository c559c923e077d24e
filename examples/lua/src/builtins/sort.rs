//! `table.sort`: lua5.4's quicksort (`ltablib.c`'s `auxsort`), step for
//! step, so that ties, inconsistent orders and errors come out as they do
//! there. The prelude's `table.sort` calls the prim here, which sorts in
//! Rust when no Lua code is involved (no comparator, no metatables) and
//! otherwise leaves it to the prelude's copy of the same algorithm.

use super::base::{meta_field, number_of, shown_type};
use super::{boolean, int, prim, rets, str_obj, Call, Def, Rets};
use crate::table::{self as tbl};
use crate::value::{is_float, is_int};
use crate::vm::{Builtin, Closure, Str};
use majit::prelude::*;

pub(super) const DEFS: &[Def] = &[
    prim("sort", "table.sort", 0, sort),
    prim("lessthan", "table.sort", 0, lessthan),
    prim("sort_random", "table.sort", 0, sort_random),
];

/// Intervals this long or longer may get a random pivot.
const RANLIMIT: u64 = 100;

/// Whether `a < b` without metamethods: `None` when a metamethod would
/// decide; `Err` the message when the values do not compare (raised with
/// no position: lua5.4 raises it inside `sort`).
fn primitive_lt(a: Obj, b: Obj) -> Result<Option<bool>, String> {
    let num = |o: Obj| is_int(o) || is_float(o);
    if num(a) && num(b) {
        return Ok(Some(crate::number::lt(number_of(a), number_of(b))));
    }
    if a.is::<Str>() && b.is::<Str>() {
        return Ok(Some(crate::strings::less(
            a.cast::<Str>(),
            b.cast::<Str>(),
            false,
        )));
    }
    if !meta_field(a, b"__lt").is_null() || !meta_field(b, b"__lt").is_null() {
        return Ok(None);
    }
    let (s, t) = (shown_type(a), shown_type(b));
    Err(match s == t {
        true => format!("attempt to compare two {s} values"),
        false => format!("attempt to compare {s} with {t}"),
    })
}

/// The prelude's `lessthan(a, b)`: `a < b` for values that compare
/// without metamethods, `nil` when `__lt` must decide.
fn lessthan(c: &Call) -> Result<Rets, Obj> {
    match primitive_lt(c.arg(0), c.arg(1)) {
        Ok(r) => Ok(rets![r.map_or(Obj::null(), boolean)]),
        Err(message) => Err(str_obj(message.as_bytes())),
    }
}

/// A pivot seed from the clock, as `l_randomizePivot` makes one.
fn random_pivot_seed() -> u64 {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    let t = now.map_or(0, |d| d.as_secs());
    let clock = super::os::cpu_clock_ticks();
    // The sum of the words of `clock()` and `time()`, as unsigned ints.
    let words = [clock, clock >> 32, t, t >> 32];
    words.iter().fold(0u32, |s, &w| s.wrapping_add(w as u32)) as u64
}

/// The prelude's `sort_random()`: a new pivot seed.
fn sort_random(_: &Call) -> Result<Rets, Obj> {
    Ok(rets![int(random_pivot_seed() as i64)])
}

/// The prelude's `sort(t, comp)`: checks the arguments; sorts `t` and
/// returns nothing when that takes no Lua code, else returns `true` (the
/// prelude checks the rest and sorts; a table with a metatable is left to
/// it whole, its `__len` and `__index` being Lua's to call).
fn sort(c: &Call) -> Result<Rets, Obj> {
    let t = c.table(0)?;
    if !t.meta().is_null() {
        return Ok(rets![boolean(true)]);
    }
    let n = tbl::len(t);
    if n <= 1 {
        return Ok(Rets::new());
    }
    if n >= i32::MAX as i64 {
        return Err(c.bad(0, "array too big"));
    }
    let comp = c.arg(1);
    if !(comp.is_null() || comp.is::<Closure>() || comp.is::<Builtin>()) {
        return Err(c.expected(1, "function"));
    }
    if !comp.is_null() {
        return Ok(rets![boolean(true)]);
    }
    let mut a: Vec<Obj> = (1..=n).map(|i| tbl::get(t, int(i))).collect();
    let needs_lua = a.iter().any(|&v| !meta_field(v, b"__lt").is_null());
    if needs_lua {
        return Ok(rets![boolean(true)]);
    }
    let sorted = Sorter { a: &mut a }.auxsort(0, n as u64 - 1, 0);
    for (i, &v) in a.iter().enumerate() {
        tbl::set(t, int(i as i64 + 1), v);
    }
    match sorted {
        Ok(()) => Ok(Rets::new()),
        Err(Failure::Compare(message)) => Err(str_obj(message.as_bytes())),
        Err(Failure::Order) => Err(c.error("invalid order function for sorting")),
    }
}

/// Why a sort stopped.
enum Failure {
    /// Two values that do not compare.
    Compare(String),
    /// The order is inconsistent (`<` on NaNs).
    Order,
}

/// `auxsort` over the elements `a` (0-based here, 1-based in Lua: the
/// indexes and pivot choices are the same up to that shift).
struct Sorter<'a> {
    a: &'a mut [Obj],
}

impl Sorter<'_> {
    fn lt(&self, i: Obj, j: Obj) -> Result<bool, Failure> {
        match primitive_lt(i, j) {
            Ok(r) => Ok(r.unwrap_or(false)),
            Err(message) => Err(Failure::Compare(message)),
        }
    }

    /// Sorts `a[lo..=up]`; `rnd` seeds pivot choices (0: middle).
    fn auxsort(&mut self, mut lo: u64, mut up: u64, mut rnd: u64) -> Result<(), Failure> {
        let a = |s: &Self, i: u64| s.a[i as usize];
        while lo < up {
            if self.lt(a(self, up), a(self, lo))? {
                self.a.swap(lo as usize, up as usize);
            }
            if up - lo == 1 {
                break;
            }
            // lua5.4's middle `(lo + up) / 2` of 1-based positions is
            // this one of 0-based positions.
            let p = if up - lo < RANLIMIT || rnd == 0 {
                (lo + up) / 2
            } else {
                let r4 = (up - lo) / 4;
                (rnd as u32 % (r4 * 2) as u32) as u64 + lo + r4
            };
            if self.lt(a(self, p), a(self, lo))? {
                self.a.swap(p as usize, lo as usize);
            } else if self.lt(a(self, up), a(self, p))? {
                self.a.swap(p as usize, up as usize);
            }
            if up - lo == 2 {
                break;
            }
            let pivot = a(self, p);
            self.a.swap(p as usize, up as usize - 1);
            let p = self.partition(lo, up, pivot)?;
            let n;
            if p - lo < up - p {
                self.auxsort(lo, p - 1, rnd)?;
                n = p - lo;
                lo = p + 1;
            } else {
                self.auxsort(p + 1, up, rnd)?;
                n = up - p;
                up = p - 1;
            }
            if up.wrapping_sub(lo) / 128 > n {
                rnd = random_pivot_seed();
            }
        }
        Ok(())
    }

    /// `partition`: `a[lo..p] <= pivot == a[p] <= a[p+1..=up]`.
    fn partition(&mut self, lo: u64, up: u64, pivot: Obj) -> Result<u64, Failure> {
        let (mut i, mut j) = (lo, up - 1);
        loop {
            i += 1;
            while self.lt(self.a[i as usize], pivot)? {
                if i == up - 1 {
                    return Err(Failure::Order);
                }
                i += 1;
            }
            j -= 1;
            while self.lt(pivot, self.a[j as usize])? {
                if j < i {
                    return Err(Failure::Order);
                }
                j -= 1;
            }
            if j < i {
                self.a.swap(up as usize - 1, i as usize);
                return Ok(i);
            }
            self.a.swap(i as usize, j as usize);
        }
    }
}
