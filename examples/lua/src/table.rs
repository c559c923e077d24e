//! Lua tables: an array part for the keys `1..=n` and a hash part for the
//! rest, in GC arrays (residual helpers: they allocate and loop). The hash
//! part of a table whose other keys are all strings, and few, is *shaped*
//! (`shape.rs`): its keys sit in insertion order in slots `0..`, so that
//! compiled code finds a field at a slot its shape gives. Any other key
//! makes it an open-addressed hash table for good ([`shape::DICT`]). A key
//! set to `nil` keeps its slot (and `nil` value) until the next rehash,
//! so `next` keeps working while a loop clears fields.

use crate::shape;
use crate::value::{float_of, int_obj, int_of, is_float, is_int};
use crate::vm::{Bool, Builtin, Closure, Str, Table};
use majit::prelude::*;

/// A new table with room for `narr` array items and `nhash` hash entries.
pub fn new_table(narr: i64, nhash: i64) -> Table {
    let cap = nhash.max(0) as usize;
    Table::new(
        crate::vm::next_serial(),
        part(narr.max(0) as usize),
        part(cap),
        part(cap),
        0,
        Obj::null(),
        shape::EMPTY,
    )
}

/// A table part of `n` slots: an empty one is the shared empty array (a
/// part only grows by replacement), so `{}` and a list with no hash part
/// allocate one object less per empty part (binary_trees: one of four).
fn part(n: usize) -> Array<Obj> {
    if n == 0 {
        Array::empty()
    } else {
        Array::new(n)
    }
}

/// `k` as the key it stands for: a float with an integer value is that
/// integer.
fn normalize(k: Obj) -> Obj {
    if !k.is_small_int() && is_float(k) {
        let f = float_of(k);
        if f.floor() == f && (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f) {
            return int_obj(f as i64);
        }
    }
    k
}

/// The hash of key `k` (class tests in the order of how common the key
/// type is: each costs a header load and a type-id look-up).
fn hash(k: Obj) -> u64 {
    let h = if k.is_small_int() {
        k.to_small_int() as u64
    } else if k.is::<Str>() {
        // Spread already (`strings::hash`).
        return k.cast::<Str>().hash() as u64;
    } else if is_float(k) {
        float_of(k).to_bits()
    } else if is_int(k) {
        int_of(k) as u64
    } else if k.is::<Bool>() {
        u64::from(k.cast::<Bool>().v())
    } else if k.is::<Table>() {
        k.cast::<Table>().serial() as u64
    } else if k.is::<Closure>() {
        k.cast::<Closure>().serial() as u64
    } else if k.is::<Builtin>() {
        k.cast::<Builtin>().serial() as u64
    } else {
        0
    };
    spread(h)
}

/// Spreads a hash over the low bits the slot mask keeps (integers are
/// often sequential).
pub(crate) fn spread(h: u64) -> u64 {
    h.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 7
}

/// Whether two keys are the same key (both normalized).
pub fn same_key(a: Obj, b: Obj) -> bool {
    if a == b {
        return true;
    }
    // An integer has one representation (`int_obj`): a small one equals
    // only itself.
    if a.is_small_int() || b.is_small_int() {
        false
    } else if a.is::<Str>() && b.is::<Str>() {
        crate::strings::equal(a.cast::<Str>(), b.cast::<Str>())
    } else if is_int(a) && is_int(b) {
        int_of(a) == int_of(b)
    } else if is_float(a) && is_float(b) {
        float_of(a) == float_of(b)
    } else if a.is::<Bool>() && b.is::<Bool>() {
        a.cast::<Bool>().v() == b.cast::<Bool>().v()
    } else {
        false
    }
}

/// The hash slot holding `k`, if any.
fn slot_of(t: Table, k: Obj) -> Option<usize> {
    if t.shape() != shape::DICT {
        return if k.is::<Str>() {
            shaped_slot(t, k.cast::<Str>())
        } else {
            None
        };
    }
    probe(t, hash(k), |s| same_key(s, k))
}

/// The slot of string `k` in shaped table `t`, if any: a scan of a few
/// keys, else the shape's index.
fn shaped_slot(t: Table, k: Str) -> Option<usize> {
    let used = t.used() as usize;
    if used <= 8 {
        let keys = t.keys();
        return (0..used)
            .find(|&i| keys[i] == Obj::from(k) || crate::strings::equal(keys[i].cast::<Str>(), k));
    }
    let name = shape::find(k.hash(), k.bytes().as_slice())?;
    let s = shape::slot(t.shape(), name);
    (s >= 0).then_some(s as usize)
}

/// The hash slot from hash `h` on (`h` as [`hash`] gives it) whose key
/// `is_key` accepts, if any.
fn probe(t: Table, h: u64, is_key: impl Fn(Obj) -> bool) -> Option<usize> {
    let keys = t.keys();
    let cap = keys.len();
    if cap == 0 {
        return None;
    }
    let mut i = h as usize & (cap - 1);
    loop {
        let s = keys[i];
        if s.is_null() {
            return None;
        }
        if is_key(s) {
            return Some(i);
        }
        i = (i + 1) & (cap - 1);
    }
}

/// The slot of `key`, a string, in hash table `t` (shape
/// [`shape::DICT`]) when its first probe holds that very object, else -1
/// (`get` and `set` look further). For the plain interpreter: a constant
/// key of a chunk is the object its own `t.name = v` stored, so a field
/// access is a few loads and one compare.
#[majit::traced]
#[inline]
pub fn first_slot(t: Table, key: Obj) -> i64 {
    let keys: Array<Obj> = t.keys;
    let cap: i64 = keys.len() as i64;
    if cap == 0 {
        return -1;
    }
    let s: Str = key.cast::<Str>();
    let i: i64 = s.hash & (cap - 1);
    if keys[i as usize] == key {
        i
    } else {
        -1
    }
}

/// The array index (0-based) of integer key `k`, if in the array part.
fn array_index(t: Table, k: Obj) -> Option<usize> {
    if !is_int(k) {
        return None;
    }
    let i = int_of(k);
    (i >= 1 && i as u64 <= t.arr().len() as u64).then(|| i as usize - 1)
}

/// `t[k]` without metamethods (`nil` when absent).
pub fn get(t: Table, k: Obj) -> Obj {
    if k.is::<Str>() {
        return str_slot(t, k).map_or(Obj::null(), |s| t.vals()[s]);
    }
    let k = normalize(k);
    if let Some(i) = array_index(t, k) {
        return t.arr()[i];
    }
    match slot_of(t, k) {
        Some(s) => t.vals()[s],
        None => Obj::null(),
    }
}

/// The hash slot holding string `k`, if any: the common key, with no
/// normalizing, no array part and one class test.
fn str_slot(t: Table, k: Obj) -> Option<usize> {
    let key = k.cast::<Str>();
    if t.shape() != shape::DICT {
        return shaped_slot(t, key);
    }
    probe(t, key.hash() as u64, |s| {
        s == k || (s.is::<Str>() && crate::strings::equal(s.cast::<Str>(), key))
    })
}

/// `t[s]` without metamethods, for a string key given as bytes (no
/// string object is made).
pub fn get_bytes(t: Table, s: &[u8]) -> Obj {
    let h = crate::strings::hash(s);
    if t.shape() != shape::DICT {
        return shape::find(h, s).map_or(Obj::null(), |name| get_name(t, name));
    }
    let found = probe(t, h as u64, |k| {
        k.is::<Str>() && k.cast::<Str>().hash() == h && k.cast::<Str>().bytes().as_slice() == s
    });
    found.map_or(Obj::null(), |i| t.vals()[i])
}

/// `t[name]` without metamethods, for shaped table `t` and a key given
/// by its name (`shape.rs`).
pub fn get_name(t: Table, name: i64) -> Obj {
    match shape::slot(t.shape(), name) {
        -1 => Obj::null(),
        s => t.vals()[s as usize],
    }
}

/// What [`set`] refused.
pub const SET_OK: i64 = 0;
pub const SET_NIL_KEY: i64 = 1;
pub const SET_NAN_KEY: i64 = 2;

/// `t[k] = v` without metamethods: [`SET_OK`], or why the key is invalid.
pub fn set(t: Table, k: Obj, v: Obj) -> i64 {
    if k.is_null() {
        return SET_NIL_KEY;
    }
    if k.is::<Str>() {
        match str_slot(t, k) {
            Some(s) => t.vals()[s] = v,
            // A shaped table takes a new key even with a `nil` value, so
            // that its shape does not depend on which fields were `nil`
            // when it was made (`{link = nil, id = 1}`).
            None if v.is_null() && t.shape() == shape::DICT => {}
            None => insert(t, k, v),
        }
        return SET_OK;
    }
    if is_float(k) && float_of(k).is_nan() {
        return SET_NAN_KEY;
    }
    let k = normalize(k);
    if let Some(i) = array_index(t, k) {
        let mut arr = t.arr();
        arr[i] = v;
        return SET_OK;
    }
    if let Some(s) = slot_of(t, k) {
        let mut vals = t.vals();
        vals[s] = v;
        return SET_OK;
    }
    if v.is_null() {
        return SET_OK;
    }
    if is_int(k) && int_of(k) as u64 == t.arr().len() as u64 + 1 {
        grow_array(t);
        let i = int_of(k) as usize - 1;
        let mut arr = t.arr();
        arr[i] = v;
        return SET_OK;
    }
    insert(t, k, v);
    SET_OK
}

/// `t[k] = v` when `t[k]` is not `nil`, so that no `__newindex` applies:
/// whether it was set. One call where a table with a metatable took a
/// look-up and a store.
pub fn replace(t: Table, k: Obj, v: Obj) -> bool {
    !get(t, k).is_null() && set(t, k, v) == SET_OK
}

/// Doubles the array part and moves the hash part's integer keys that now
/// fall in it.
fn grow_array(t: Table) {
    let old = t.arr();
    let n = (old.len() * 2).max(4);
    let mut arr = Array::<Obj>::new(n);
    for i in 0..old.len() {
        arr[i] = old[i];
    }
    t.set_arr(arr);
    // Only a dictionary-mode hash part holds integer keys (a shaped one
    // holds strings alone): skip a probe per new slot.
    if t.shape() != shape::DICT || t.used() == 0 {
        return;
    }
    for i in old.len() + 1..=n {
        let k = int_obj(i as i64);
        if let Some(s) = slot_of(t, k) {
            let mut arr = t.arr();
            arr[i - 1] = t.vals()[s];
            let mut vals = t.vals();
            vals[s] = Obj::null();
        }
    }
}

/// Adds the new key `k` to the hash part.
fn insert(t: Table, k: Obj, v: Obj) {
    if t.shape() != shape::DICT {
        if k.is::<Str>() {
            let key = k.cast::<Str>();
            let name = shape::intern(key.hash(), key.bytes().as_slice());
            if let Some(next) = shape::with_name(t.shape(), name) {
                return append_slot(t, k, v, next);
            }
        }
        t.set_shape(shape::DICT);
        rehash(t);
    }
    if (t.used() as usize + 1) * 4 > t.keys().len() * 3 {
        rehash(t);
    }
    let (mut keys, mut vals) = (t.keys(), t.vals());
    let cap = keys.len();
    let mut i = hash(k) as usize & (cap - 1);
    while !keys[i].is_null() {
        i = (i + 1) & (cap - 1);
    }
    keys[i] = k;
    vals[i] = v;
    t.set_used(t.used() + 1);
}

/// Puts the new key `k` (value `v`) of shaped table `t` in its next slot;
/// `next` is its shape with `k`.
fn append_slot(t: Table, k: Obj, v: Obj, next: i64) {
    let i = t.used() as usize;
    if i == t.keys().len() {
        let cap = (i * 2).max(4);
        let (old_keys, old_vals) = (t.keys(), t.vals());
        let (mut keys, mut vals) = (Array::<Obj>::new(cap), Array::<Obj>::new(cap));
        for j in 0..i {
            keys[j] = old_keys[j];
            vals[j] = old_vals[j];
        }
        t.set_keys(keys);
        t.set_vals(vals);
    }
    let (mut keys, mut vals) = (t.keys(), t.vals());
    keys[i] = k;
    vals[i] = v;
    t.set_used(i as i64 + 1);
    t.set_shape(next);
}

/// Rebuilds the hash part with room for twice its live entries, dropping
/// the keys whose value is `nil`.
fn rehash(t: Table) {
    let (keys, vals) = (t.keys(), t.vals());
    let live = (0..keys.len()).filter(|&i| !vals[i].is_null()).count();
    let cap = ((live + 1) * 2).next_power_of_two().max(4);
    t.set_keys(Array::<Obj>::new(cap));
    t.set_vals(Array::<Obj>::new(cap));
    t.set_used(0);
    for i in 0..keys.len() {
        if !vals[i].is_null() {
            insert(t, keys[i], vals[i]);
        }
    }
}

/// `t[d..=d + b - a] = t[a..=b]` (raw, integer keys) when both ranges lie
/// in the array part, as one move: whether it did (else the caller moves
/// item by item). An empty range (`b < a`) is moved.
pub fn move_in_array(t: Table, a: i64, b: i64, d: i64) -> bool {
    if b < a {
        return true;
    }
    let len = t.arr().len() as i64;
    let last = d.checked_add(b - a);
    if a < 1 || d < 1 || b > len || last.is_none_or(|l| l > len) {
        return false;
    }
    t.arr()
        .copy_within(a as usize - 1..b as usize, d as usize - 1);
    true
}

/// `#t` without metamethods: a border (a `n` with `t[n]` non-nil and
/// `t[n + 1]` nil, or 0).
pub fn len(t: Table) -> i64 {
    let arr = t.arr();
    let n = arr.len();
    if n > 0 && arr[n - 1].is_null() {
        // Binary search: arr[lo - 1] is non-nil (or lo == 0), arr[hi - 1] nil.
        let (mut lo, mut hi) = (0usize, n);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if arr[mid - 1].is_null() {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        return lo as i64;
    }
    let mut j = n as i64;
    while !get(t, int_obj(j + 1)).is_null() {
        j += 1;
    }
    j
}

/// `next` was given a key its table does not hold.
#[derive(Debug)]
pub struct InvalidKey;

/// The traversal position after key `k` (`nil`: the start): `Some(p)` for
/// the next entry at position `p` (array indexes, then hash slots past the
/// array length), `None` at the end.
pub fn next_position(t: Table, k: Obj) -> Result<Option<usize>, InvalidKey> {
    let arr = t.arr();
    let start = if k.is_null() {
        0
    } else if let Some(i) = array_index(t, normalize(k)) {
        i + 1
    } else {
        arr.len() + slot_of(t, normalize(k)).ok_or(InvalidKey)? + 1
    };
    let vals = t.vals();
    let total = arr.len() + vals.len();
    Ok((start..total).find(|&p| {
        let v = if p < arr.len() {
            arr[p]
        } else {
            vals[p - arr.len()]
        };
        !v.is_null()
    }))
}

/// The key and value at traversal position `p` (see [`next_position`]).
pub fn entry_at(t: Table, p: usize) -> (Obj, Obj) {
    let arr = t.arr();
    if p < arr.len() {
        (int_obj(p as i64 + 1), arr[p])
    } else {
        let s = p - arr.len();
        (t.keys()[s], t.vals()[s])
    }
}
