//! Shapes (hidden classes) of Lua tables. A table whose hash part holds
//! only string keys, at most [`LIMIT`] of them, keeps them in insertion
//! order in slots `0..`; its shape, a number, says which key is in which
//! slot. Tables given the same keys in the same order share a shape, so in
//! a trace a field access is a guard on the (promoted) shape and a load
//! from a constant slot: [`field_slot`] and [`slot`] are elidable and fold.
//! Any other key, or one too many, turns the table into a hash table
//! ([`DICT`]) for good.
//!
//! Keys are *names*: a number per distinct byte string that was ever a key
//! of a shaped table or of a field instruction (`t.name`), interned here.
//! Shapes and names live as long as the thread; [`BUDGET`] bounds them.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Maps keyed by small integers, hashed by one multiply (the default
/// hasher's cost showed in table-building programs).
type IntMap<K, V> = HashMap<K, V, BuildHasherDefault<IntHasher>>;

/// See [`IntMap`].
#[derive(Default)]
struct IntHasher(u64);

impl Hasher for IntHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_i64(&mut self, x: i64) {
        self.write_u64(x as u64);
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

/// The shape of a table whose hash part is a hash table.
pub const DICT: i64 = -1;
/// The shape of a table with no hash keys.
pub const EMPTY: i64 = 0;
/// Keys a shaped table holds at most.
pub const LIMIT: usize = 128;
/// Shapes a thread makes at most; a table that would need another becomes
/// a hash table (programs using tables as dictionaries of ever new keys).
pub const BUDGET: usize = 1 << 16;
/// The name of `"__index"` (interned first).
pub const INDEX_NAME: i64 = 0;

/// Events are numbered up to here (`meta::event_name`).
const EVENTS: usize = 30;

/// One shape: its parent plus one name in slot `len - 1`.
struct Shape {
    parent: i64,
    name: i64,
    len: usize,
    /// Name -> slot, for long shapes (built at the first look-up).
    index: Option<IntMap<i64, usize>>,
}

/// The interned names: ids by bytes, probed by the strings' own hash.
#[derive(Default)]
struct Names {
    /// Open addressing over `texts`: `id + 1`, or 0 for a free slot.
    table: Vec<u32>,
    texts: Vec<(i64, Box<[u8]>)>,
}

impl Names {
    fn probe(&self, hash: i64, bytes: &[u8]) -> Result<i64, usize> {
        let mask = self.table.len().wrapping_sub(1);
        if self.table.is_empty() {
            return Err(0);
        }
        let mut i = hash as usize & mask;
        loop {
            match self.table[i] {
                0 => return Err(i),
                id => {
                    let (h, ref t) = self.texts[id as usize - 1];
                    if h == hash && **t == *bytes {
                        return Ok(i64::from(id) - 1);
                    }
                }
            }
            i = (i + 1) & mask;
        }
    }

    fn intern(&mut self, hash: i64, bytes: &[u8]) -> i64 {
        if let Ok(id) = self.probe(hash, bytes) {
            return id;
        }
        if (self.texts.len() + 1) * 2 > self.table.len() {
            let cap = (self.table.len() * 2).max(64);
            self.table = vec![0; cap];
            for (id, (h, _)) in self.texts.iter().enumerate() {
                let mut i = *h as usize & (cap - 1);
                while self.table[i] != 0 {
                    i = (i + 1) & (cap - 1);
                }
                self.table[i] = id as u32 + 1;
            }
        }
        let at = self.probe(hash, bytes).expect_err("not interned yet");
        self.texts.push((hash, bytes.into()));
        self.table[at] = self.texts.len() as u32;
        self.texts.len() as i64 - 1
    }
}

struct Shapes {
    shapes: Vec<Shape>,
    next: IntMap<(i64, i64), i64>,
    names: Names,
    events: [i64; EVENTS],
}

impl Shapes {
    fn new() -> Shapes {
        let mut s = Shapes {
            shapes: vec![Shape {
                parent: EMPTY,
                name: -1,
                len: 0,
                index: None,
            }],
            next: IntMap::default(),
            names: Names::default(),
            events: [0; EVENTS],
        };
        for e in 0..EVENTS {
            let text = crate::meta::event_name(e as i64);
            s.events[e] = s.names.intern(crate::strings::hash(text), text);
        }
        debug_assert_eq!(s.events[0], INDEX_NAME);
        s
    }

    fn slot(&mut self, shape: i64, name: i64) -> i64 {
        let sh = &self.shapes[shape as usize];
        if sh.len > 8 {
            if sh.index.is_none() {
                let index = self.names_of(shape).into_iter().zip(0..).collect();
                self.shapes[shape as usize].index = Some(index);
            }
            let index = self.shapes[shape as usize].index.as_ref();
            return index.and_then(|m| m.get(&name)).map_or(-1, |&s| s as i64);
        }
        let mut at = shape;
        while at != EMPTY {
            let sh = &self.shapes[at as usize];
            if sh.name == name {
                return sh.len as i64 - 1;
            }
            at = sh.parent;
        }
        -1
    }

    /// The names of `shape`, by slot.
    fn names_of(&self, shape: i64) -> Vec<i64> {
        let mut names = vec![0; self.shapes[shape as usize].len];
        let mut at = shape;
        while at != EMPTY {
            let sh = &self.shapes[at as usize];
            names[sh.len - 1] = sh.name;
            at = sh.parent;
        }
        names
    }

    fn with_name(&mut self, shape: i64, name: i64) -> Option<i64> {
        if let Some(&s) = self.next.get(&(shape, name)) {
            return Some(s);
        }
        let len = self.shapes[shape as usize].len + 1;
        if len > LIMIT || self.shapes.len() >= BUDGET {
            return None;
        }
        self.shapes.push(Shape {
            parent: shape,
            name,
            len,
            index: None,
        });
        let s = self.shapes.len() as i64 - 1;
        self.next.insert((shape, name), s);
        Some(s)
    }
}

/// What a field instruction asks for and what it found last (an inline
/// cache for the plain interpreter; a memo, so [`field_slot`] stays a
/// function of its arguments).
#[derive(Clone, Copy)]
struct Site {
    name: i64,
    shape: i64,
    slot: i64,
    /// A shape without the name and that shape with it ([`field_next`]).
    from: i64,
    to: i64,
}

thread_local! {
    static SHAPES: RefCell<Shapes> = RefCell::new(Shapes::new());
    static SITES: RefCell<Vec<Site>> = const { RefCell::new(Vec::new()) };
    /// `SITES`' items and length as of the last `add_sites`, which
    /// [`field_slot`] reads.
    static SITE_ITEMS: Cell<(*mut Site, usize)> = const { Cell::new((std::ptr::null_mut(), 0)) };
}

/// The name of the string `bytes` (hash `hash`, as `strings::hash` gives
/// it), interning it.
pub fn intern(hash: i64, bytes: &[u8]) -> i64 {
    SHAPES.with(|s| s.borrow_mut().names.intern(hash, bytes))
}

/// The name of `bytes`, if it has one (a string with none is the key of
/// no shaped table).
pub fn find(hash: i64, bytes: &[u8]) -> Option<i64> {
    SHAPES.with(|s| s.borrow().names.probe(hash, bytes).ok())
}

/// The name of metamethod event `event` (`meta::event_name`).
pub fn event(event: i64) -> i64 {
    SHAPES.with(|s| s.borrow().events[event as usize])
}

/// The slot of `name` in `shape`, or -1 (elidable: a shape never
/// changes).
pub fn slot(shape: i64, name: i64) -> i64 {
    SHAPES.with(|s| s.borrow_mut().slot(shape, name))
}

/// The shape after adding `name` to `shape`; `None` past [`LIMIT`] keys or
/// the [`BUDGET`].
pub fn with_name(shape: i64, name: i64) -> Option<i64> {
    SHAPES.with(|s| s.borrow_mut().with_name(shape, name))
}

/// Records the names of the field instructions of code appended at
/// `entry` (`len` words): `(offset, name)` pairs.
pub fn add_sites(entry: usize, len: usize, names: &[(usize, i64)]) {
    SITES.with(|s| {
        let mut s = s.borrow_mut();
        let blank = Site {
            name: -1,
            shape: DICT,
            slot: -1,
            from: DICT,
            to: DICT,
        };
        s.resize(entry + len, blank);
        for &(at, name) in names {
            s[entry + at].name = name;
        }
        SITE_ITEMS.with(|i| i.set((s.as_mut_ptr(), s.len())));
    });
}

/// The site of the field instruction at `pc`.
///
/// # Safety
/// The reference must not outlive the caller's use, and nothing may call
/// `add_sites` meanwhile.
#[inline]
unsafe fn site(pc: i64) -> &'static mut Site {
    let (sites, len) = SITE_ITEMS.with(Cell::get);
    assert!((pc as u64) < len as u64, "no field instruction at {pc}");
    // SAFETY: `sites` points to `SITES`' buffer of `len` items, published
    // by `add_sites` after its last change; only `add_sites` moves it (the
    // caller's promise).
    unsafe { &mut *sites.add(pc as usize) }
}

/// The slot that the field instruction at `pc` (a `GETFIELD`, `SETFIELD`,
/// `SELF`, `GETTABUP` or `SETTABUP`) finds its key in, in a table of shape
/// `shape` (not [`DICT`]), or -1. Elidable: in a trace both arguments are
/// constants and the call folds; the plain interpreter hits the site's
/// cache.
#[inline]
pub fn field_slot(shape: i64, pc: i64) -> i64 {
    // SAFETY: used within this call, which adds no code.
    let site = unsafe { site(pc) };
    if site.shape != shape {
        site.slot = slot(shape, site.name);
        site.shape = shape;
    }
    site.slot
}

/// The shape after the store of the field instruction at `pc` (a
/// `SETFIELD` or `SETTABUP`) adds its key to a table of shape `shape`
/// (without that key), or [`DICT`] past [`LIMIT`] or the [`BUDGET`].
/// Elidable, as [`field_slot`].
#[inline]
pub fn field_next(shape: i64, pc: i64) -> i64 {
    // SAFETY: used within this call, which adds no code.
    let site = unsafe { site(pc) };
    if site.from != shape {
        site.to = with_name(shape, site.name).unwrap_or(DICT);
        site.from = shape;
    }
    site.to
}

/// The number of keys of `shape` (elidable).
pub fn len(shape: i64) -> i64 {
    SHAPES.with(|s| s.borrow().shapes[shape as usize].len as i64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strings::hash;

    fn name(text: &[u8]) -> i64 {
        intern(hash(text), text)
    }

    #[test]
    fn shapes_are_shared_by_key_order_and_give_slots() {
        let (x, y) = (name(b"x"), name(b"y"));
        assert_eq!(name(b"x"), x);
        assert_eq!(find(hash(b"y"), b"y"), Some(y));
        assert_eq!(find(hash(b"zzz"), b"zzz"), None);
        let xy = with_name(with_name(EMPTY, x).unwrap(), y).unwrap();
        assert_eq!(with_name(with_name(EMPTY, x).unwrap(), y), Some(xy));
        assert_eq!((slot(xy, x), slot(xy, y), slot(EMPTY, x)), (0, 1, -1));
        let yx = with_name(with_name(EMPTY, y).unwrap(), x).unwrap();
        assert_ne!(xy, yx);
        assert_eq!(slot(yx, x), 1);
    }

    #[test]
    fn long_shapes_are_indexed_and_end_at_the_limit() {
        let mut shape = EMPTY;
        let names: Vec<i64> = (0..LIMIT)
            .map(|i| name(format!("k{i}").as_bytes()))
            .collect();
        for &n in &names {
            shape = with_name(shape, n).unwrap();
        }
        assert_eq!(slot(shape, names[LIMIT - 1]), LIMIT as i64 - 1);
        assert_eq!(slot(shape, names[3]), 3);
        assert_eq!(with_name(shape, name(b"one too many")), None);
    }

    #[test]
    fn event_names_are_interned_first() {
        assert_eq!(event(0), INDEX_NAME);
        assert_eq!(find(hash(b"__index"), b"__index"), Some(INDEX_NAME));
        assert_eq!(event(1), name(b"__newindex"));
    }
}
