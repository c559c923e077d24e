//! The 28 storages (LANGUAGE.md §6): 26 stacks, the queue ㅇ and the
//! channel ㅎ, as linked lists of GC nodes. This is the only file that
//! touches the GC heap.
//!
//! A node is a 16-byte headerless majit-gc object `{value: i64 at 0, next:
//! ref at 8}`. A stack is its head node (top first). The queue is a head
//! (front) and a tail (back) node: push links a new node after the tail,
//! pop unlinks the head, ㅃ links a copy in front of the head. ㅍ swaps two
//! values in place, and a binary command on a stack whose `i64` fast path
//! holds unlinks the top node and overwrites the second node's value
//! ([`Storages::combine_top_two`]): no allocation.
//!
//! GC contract, done the way JIT code will do it:
//! * Roots: the 28 heads and the queue's tail sit in a `RootBlock`
//!   registered with the heap as a root frame (a gcmap marking every
//!   slot), so a collection updates them in place; every head is read from
//!   its slot after an allocation, never kept across one.
//! * Allocation bumps the node region's `free` word inline and calls
//!   `Gc::alloc` (which may collect) only when the region is full — always
//!   under `MAJIT_GC_STRESS`, where `top == free`.
//! * Barriers: node values never hold refs; a fresh node is in the nursery,
//!   so linking it to the old head needs no barrier; linking the queue's
//!   old tail to a new node goes through `Gc::write_ref`.
//! * Invariant: `lens[s] > 0` exactly when slot `s` holds a live node, so
//!   node fields are read directly once the length is checked.
//!
//! Node values are plain `i64`s; the marker [`BIG`] says "the value is in
//! this storage's side list" (see `int.rs`). Each storage keeps its big
//! values in a `VecDeque<BigInt>` in the same order as its marked nodes:
//! for a stack the back of the deque is the top-most big, for the queue the
//! front of the deque is the front-most big. Every operation that moves a
//! marked node moves its big the same way (pop ↔ pop, dup clones, swap of
//! two marked nodes swaps the two bigs; a swap with one marked node does
//! not change the order of bigs). Big values live outside the GC heap,
//! within their own budget ([`MAX_BIG_BYTES`]).
//!
//! The channel ㅎ is a stack that remembers the last value pushed to it by
//! ㅂ, ㅆ or ㅃ, and its ㅃ pushes that value (the reference interpreter's
//! rule; results of binary commands do not count as pushes there).

use crate::decode::{CHANNEL, QUEUE, STORAGES};
use crate::int::{Int, BIG};
use majit_gc::{Gc, GcConfig, GcRef, GcStats, JitFrameRoots, Layout, TypeId};
use num_bigint::BigInt;
use std::collections::VecDeque;
use std::ptr::{addr_of_mut, NonNull};

/// Byte offset of a node's value.
pub const VALUE_OFFSET: u32 = 0;
/// Byte offset of a node's next reference.
pub const NEXT_OFFSET: u32 = 8;
/// Size of a node.
pub const NODE_SIZE: u32 = 16;

/// Most bytes the big values of all storages may hold together; past it
/// a push of a big value fails like an exhausted heap (big values live
/// outside the GC heap, whose own limit is `MAJIT_MAX_HEAP`).
pub const MAX_BIG_BYTES: usize = 1 << 30;

/// Approximate memory of one big value in a side list.
fn big_size(b: &BigInt) -> usize {
    (b.bits() / 8) as usize + 32
}

/// Root slot of the queue's tail (slots `0..28` are the heads).
const TAIL: usize = STORAGES;
/// Number of root slots.
const SLOTS: usize = STORAGES + 1;

/// Failure to create the heap or grow a storage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StorageError(pub String);

impl From<majit_gc::GcError> for StorageError {
    fn from(e: majit_gc::GcError) -> Self {
        StorageError(e.to_string())
    }
}

/// Result of storage operations that allocate.
pub type Result<T> = std::result::Result<T, StorageError>;

/// The root slots, registered with the heap as a frame whose gcmap marks
/// all of them. Lives at a fixed address (leaked box) from registration
/// until `Storages` drops, and is accessed only through raw pointers
/// because the collector writes to it too.
#[repr(C)]
struct RootBlock {
    frame: JitFrameRoots,
    slots: [usize; SLOTS],
    /// Word 0: number of bitmap words (1); word 1: one bit per slot.
    gcmap: [u64; 2],
}

/// All storages of one running program.
pub struct Storages {
    gc: Gc,
    node: TypeId,
    block: NonNull<RootBlock>,
    slots: *mut usize,
    /// The node region's bump words (stable while `gc` lives).
    free: *mut usize,
    top: *const usize,
    lens: [usize; STORAGES],
    bigs: Vec<VecDeque<BigInt>>,
    /// Approximate bytes held by all side lists, and their limit
    /// ([`MAX_BIG_BYTES`]).
    big_bytes: usize,
    big_budget: usize,
    channel_last: Int,
}

impl Drop for Storages {
    fn drop(&mut self) {
        self.gc.pop_jit_frame();
        // SAFETY: `block` came from Box::into_raw in `new` and the heap no
        // longer refers to it.
        drop(unsafe { Box::from_raw(self.block.as_ptr()) });
    }
}

impl Storages {
    /// Empty storages on a new heap configured by `config`.
    pub fn new(config: GcConfig) -> Result<Storages> {
        let mut gc = Gc::new(config)?;
        let layout = Layout::headerless("AheuiNode", NODE_SIZE, &[NEXT_OFFSET]);
        let node = gc.register_layout(layout)?;
        let region = gc
            .jit_info()
            .headerless_region(node)
            .cloned()
            .ok_or_else(|| StorageError("the node layout got no nursery region".into()))?;
        let block = Box::into_raw(Box::new(RootBlock {
            frame: JitFrameRoots {
                base: std::ptr::null_mut(),
                gcmap: std::ptr::null(),
            },
            slots: [0; SLOTS],
            gcmap: [1, (1u64 << SLOTS) - 1],
        }));
        // SAFETY: `block` is a fresh, leaked allocation; the pointers into
        // it stay valid until `drop` pops the frame and frees it, and the
        // gcmap marks exactly the SLOTS slots at `base`.
        let slots = unsafe {
            let slots = addr_of_mut!((*block).slots) as *mut usize;
            (*block).frame.base = slots;
            (*block).frame.gcmap = addr_of_mut!((*block).gcmap) as *const u64;
            gc.push_jit_frame(addr_of_mut!((*block).frame));
            slots
        };
        Ok(Storages {
            gc,
            node,
            // SAFETY: Box::into_raw never returns null.
            block: unsafe { NonNull::new_unchecked(block) },
            slots,
            free: region.free_addr as *mut usize,
            top: region.top_addr as *const usize,
            lens: [0; STORAGES],
            bigs: (0..STORAGES).map(|_| VecDeque::new()).collect(),
            big_bytes: 0,
            big_budget: MAX_BIG_BYTES,
            channel_last: Int::Small(0),
        })
    }

    /// The heap's counters, for `--stats`.
    pub fn gc_stats(&self) -> GcStats {
        self.gc.stats()
    }

    /// Number of values in storage `s`.
    #[inline(always)]
    pub fn len(&self, s: u8) -> usize {
        self.lens[s as usize]
    }

    /// The node in root slot `slot` (a head, or the queue's tail).
    #[inline(always)]
    fn slot(&self, slot: usize) -> usize {
        assert!(slot < SLOTS);
        // SAFETY: slot < SLOTS and the block lives as long as `self`.
        unsafe { self.slots.add(slot).read() }
    }

    #[inline(always)]
    fn set_slot(&mut self, slot: usize, node: usize) {
        assert!(slot < SLOTS);
        // SAFETY: as in `slot`.
        unsafe { self.slots.add(slot).write(node) }
    }

    /// A fresh, young node (may collect, moving every other node).
    #[inline(always)]
    fn alloc(&mut self) -> Result<usize> {
        // SAFETY: the region words stay valid while `gc` lives.
        unsafe {
            let free = self.free.read();
            let end = free + NODE_SIZE as usize;
            if end <= self.top.read() {
                self.free.write(end);
                return Ok(free);
            }
        }
        Ok(self.gc.alloc(self.node)?.0)
    }

    /// Pops the top (stack) or front (queue) node value; may be [`BIG`], in
    /// which case the caller must call [`Storages::take_big`] next.
    ///
    /// # Panics
    /// If storage `s` is empty (callers check [`Storages::len`] first).
    #[inline(always)]
    pub fn pop_raw(&mut self, s: u8) -> i64 {
        let s = s as usize;
        assert!(self.lens[s] > 0, "pop from empty storage {s}");
        let head = self.slot(s);
        // SAFETY: a non-empty storage's slot holds a live node.
        let (value, next) = unsafe { node_fields(head) };
        self.set_slot(s, next);
        self.lens[s] -= 1;
        if next == 0 && s == QUEUE as usize {
            self.set_slot(TAIL, 0);
        }
        value
    }

    /// The fast path of a binary command on a stack: if `f(b, a)` (a the
    /// top value, b the one below) gives a result, the top node is
    /// unlinked and the result written over b's value in place — the same
    /// as popping both and pushing the result, without an allocation.
    /// Returns false, leaving the storage untouched, when `f` declines or
    /// `s` is the queue (whose result goes to the back).
    ///
    /// # Panics
    /// If storage `s` holds fewer than two values.
    #[inline(always)]
    pub fn combine_top_two(&mut self, s: u8, f: impl FnOnce(i64, i64) -> Option<i64>) -> bool {
        let i = s as usize;
        assert!(
            self.lens[i] >= 2,
            "binary command on storage {s} with fewer than two values"
        );
        if s == QUEUE {
            return false;
        }
        let top = self.slot(i);
        // SAFETY: the storage holds at least two live nodes; values are
        // not refs, so overwriting one needs no barrier.
        unsafe {
            let (a, second) = node_fields(top);
            let (b, _) = node_fields(second);
            let Some(r) = f(b, a) else {
                return false;
            };
            debug_assert_ne!(r, BIG);
            (second as *mut i64).write(r);
            self.set_slot(i, second);
        }
        self.lens[i] -= 1;
        true
    }

    /// The big value of the marked node just popped from `s`.
    #[cold]
    pub fn take_big(&mut self, s: u8) -> BigInt {
        let bigs = &mut self.bigs[s as usize];
        let b = if s == QUEUE {
            bigs.pop_front()
        } else {
            bigs.pop_back()
        };
        let b = b.unwrap_or_default();
        self.big_bytes -= big_size(&b).min(self.big_bytes);
        b
    }

    /// Accounts for one more big value, or fails past [`MAX_BIG_BYTES`].
    fn charge(&mut self, b: &BigInt) -> Result<()> {
        self.big_bytes += big_size(b);
        if self.big_bytes > self.big_budget {
            return Err(StorageError(format!(
                "out of memory: big integers in the storages exceed {} bytes",
                self.big_budget
            )));
        }
        Ok(())
    }

    /// Pops a value of any size. Requires `len(s) >= 1`.
    pub fn pop(&mut self, s: u8) -> Int {
        match self.pop_raw(s) {
            BIG => Int::Big(self.take_big(s)),
            v => Int::Small(v),
        }
    }

    /// Pushes node value `v` (possibly the marker; the caller keeps the side
    /// list in step): on top of a stack, at the back of the queue.
    #[inline(always)]
    fn push_node(&mut self, s: u8, v: i64) -> Result<()> {
        if s == QUEUE {
            return self.enqueue(v);
        }
        self.push_front(s as usize, v)
    }

    /// Links a new node holding `v` in front of slot `s`'s head.
    #[inline(always)]
    fn push_front(&mut self, s: usize, v: i64) -> Result<()> {
        let n = self.alloc()?;
        // Read after the allocation, which may have moved the head.
        let head = self.slot(s);
        // SAFETY: `n` is a fresh node: 16 writable bytes, young, so storing
        // a ref into it needs no barrier.
        unsafe { init_node(n, v, head) };
        self.set_slot(s, n);
        self.lens[s] += 1;
        if self.lens[s] == 1 && s == QUEUE as usize {
            self.set_slot(TAIL, n);
        }
        Ok(())
    }

    fn enqueue(&mut self, v: i64) -> Result<()> {
        let n = self.alloc()?;
        // SAFETY: as in `push_front`; the new node is the last one.
        unsafe { init_node(n, v, 0) };
        let tail = self.slot(TAIL);
        if tail == 0 {
            self.set_slot(QUEUE as usize, n);
        } else {
            // The tail may be old: store through the barrier.
            self.gc.write_ref(GcRef(tail), NEXT_OFFSET, GcRef(n));
        }
        self.set_slot(TAIL, n);
        self.lens[QUEUE as usize] += 1;
        Ok(())
    }

    /// Pushes the result of a binary command, of any size.
    pub fn push_result(&mut self, s: u8, value: Int) -> Result<()> {
        match value {
            Int::Small(v) => self.push_node(s, v),
            Int::Big(b) => {
                self.charge(&b)?;
                self.push_node(s, BIG)?;
                self.bigs[s as usize].push_back(b);
                Ok(())
            }
        }
    }

    /// Pushes a small value by ㅂ (not the marker; the channel remembers it).
    #[inline(always)]
    pub fn push_small(&mut self, s: u8, v: i64) -> Result<()> {
        debug_assert_ne!(v, BIG);
        if s == CHANNEL {
            self.channel_last = Int::Small(v);
        }
        self.push_node(s, v)
    }

    /// Pushes a value by ㅂ or ㅆ, of any size (the channel remembers it).
    pub fn push(&mut self, s: u8, value: Int) -> Result<()> {
        if s == CHANNEL {
            self.channel_last = value.clone();
        }
        self.push_result(s, value)
    }

    /// ㅃ: a copy of the top on top (stack), of the front at the front
    /// (queue), or the channel's last pushed value.
    ///
    /// # Panics
    /// If storage `s` is empty.
    pub fn dup(&mut self, s: u8) -> Result<()> {
        if s == CHANNEL {
            return self.push(s, self.channel_last.clone());
        }
        let i = s as usize;
        assert!(self.lens[i] > 0, "dup of empty storage {s}");
        // SAFETY: a non-empty storage's slot holds a live node.
        let (v, _) = unsafe { node_fields(self.slot(i)) };
        if v == BIG {
            let bigs = &self.bigs[i];
            let copy = if s == QUEUE {
                bigs.front()
            } else {
                bigs.back()
            };
            let copy = copy.cloned().unwrap_or_default();
            self.charge(&copy)?;
            if s == QUEUE {
                self.bigs[i].push_front(copy);
            } else {
                self.bigs[i].push_back(copy);
            }
        }
        // Stack and queue alike put the copy in front of the head.
        self.push_front(i, v)
    }

    /// ㅍ: exchange the top two (stack) or front two (queue) values, in
    /// place.
    ///
    /// # Panics
    /// If storage `s` holds fewer than two values.
    pub fn swap(&mut self, s: u8) {
        let i = s as usize;
        assert!(
            self.lens[i] >= 2,
            "swap in storage {s} with fewer than two values"
        );
        let first = self.slot(i);
        // SAFETY: the storage holds at least two live nodes; values are
        // not refs, so writing them needs no barrier.
        let (a, b) = unsafe {
            let (a, second) = node_fields(first);
            let (b, _) = node_fields(second);
            (first as *mut i64).write(b);
            (second as *mut i64).write(a);
            (a, b)
        };
        if a == BIG && b == BIG {
            let bigs = &mut self.bigs[i];
            let m = bigs.len();
            if s == QUEUE {
                bigs.swap(0, 1);
            } else {
                bigs.swap(m - 1, m - 2);
            }
        }
    }
}

/// The value and next fields of node `node`.
///
/// # Safety
/// `node` is a live node of this heap (non-null, 8-aligned, 16 bytes).
#[inline(always)]
unsafe fn node_fields(node: usize) -> (i64, usize) {
    let p = node as *const u64;
    (
        p.add(VALUE_OFFSET as usize / 8).read() as i64,
        p.add(NEXT_OFFSET as usize / 8).read() as usize,
    )
}

/// Writes both fields of a fresh node.
///
/// # Safety
/// `node` was just allocated (16 writable bytes in the nursery).
#[inline(always)]
unsafe fn init_node(node: usize, value: i64, next: usize) {
    let p = node as *mut u64;
    p.add(VALUE_OFFSET as usize / 8).write(value as u64);
    p.add(NEXT_OFFSET as usize / 8).write(next as u64);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big(text: &str) -> Int {
        Int::from_big(text.parse().unwrap())
    }

    /// A seeded xorshift64 generator.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// The storages as plain deques (stacks: back = top; queue: front =
    /// front), plus the channel's last pushed value.
    struct Model {
        values: Vec<VecDeque<Int>>,
        channel_last: Int,
    }

    impl Model {
        fn pop(&mut self, s: u8) -> Int {
            let v = &mut self.values[s as usize];
            if s == QUEUE {
                v.pop_front()
            } else {
                v.pop_back()
            }
            .unwrap()
        }
        fn push(&mut self, s: u8, x: Int) {
            if s == CHANNEL {
                self.channel_last = x.clone();
            }
            self.values[s as usize].push_back(x);
        }
    }

    /// Random operations on random storages against the model, on a heap
    /// that collects at every allocation and runs major collections often.
    #[test]
    fn random_operations_match_a_model_under_gc_stress() {
        let config = GcConfig {
            nursery_size: majit_gc::MIN_NURSERY_SIZE,
            stress_every: Some(1),
            major_threshold: 4096,
            ..GcConfig::default()
        };
        let mut st = Storages::new(config).unwrap();
        let mut model = Model {
            values: (0..STORAGES).map(|_| VecDeque::new()).collect(),
            channel_last: Int::Small(0),
        };
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let hot = [0u8, 1, QUEUE, CHANNEL];
        for _ in 0..20_000 {
            let s = hot[rng.below(4) as usize];
            let len = model.values[s as usize].len();
            assert_eq!(st.len(s), len);
            match rng.below(7) {
                0 | 1 => {
                    let x = match rng.below(4) {
                        0 => big(&format!("{}00000000000000000000", rng.below(100))),
                        _ => Int::Small(rng.below(1000) as i64 - 500),
                    };
                    st.push(s, x.clone()).unwrap();
                    model.push(s, x);
                }
                2 if len > 0 => assert_eq!(st.pop(s), model.pop(s)),
                3 if len > 0 => {
                    st.dup(s).unwrap();
                    let x = match s {
                        CHANNEL => model.channel_last.clone(),
                        QUEUE => model.values[s as usize][0].clone(),
                        _ => model.values[s as usize][len - 1].clone(),
                    };
                    model.push(s, x.clone());
                    if s == QUEUE {
                        let moved = model.values[s as usize].pop_back().unwrap();
                        model.values[s as usize].push_front(moved);
                    }
                }
                4 if len > 1 => {
                    st.swap(s);
                    let v = &mut model.values[s as usize];
                    let (i, j) = if s == QUEUE {
                        (0, 1)
                    } else {
                        (len - 1, len - 2)
                    };
                    v.swap(i, j);
                }
                5 if len > 1 => {
                    let combined = st
                        .combine_top_two(s, |b, a| crate::int::fast(crate::int::BinOp::Add, b, a));
                    let v = &model.values[s as usize];
                    let expect = match (s, &v[len - 2], &v[len - 1]) {
                        (QUEUE, _, _) => None,
                        (_, Int::Small(b), Int::Small(a)) => {
                            crate::int::fast(crate::int::BinOp::Add, *b, *a)
                        }
                        _ => None,
                    };
                    assert_eq!(combined, expect.is_some());
                    if let Some(r) = expect {
                        model.values[s as usize].truncate(len - 2);
                        model.values[s as usize].push_back(Int::Small(r));
                    }
                }
                6 if len > 0 => {
                    let t = hot[rng.below(4) as usize];
                    let x = st.pop(s);
                    assert_eq!(x, model.pop(s));
                    st.push(t, x.clone()).unwrap();
                    model.push(t, x);
                }
                _ => {}
            }
        }
        for s in hot {
            while !model.values[s as usize].is_empty() {
                assert_eq!(st.pop(s), model.pop(s));
            }
        }
        let stats = st.gc_stats();
        assert!(
            stats.minor_collections > 1000 && stats.major_collections > 0,
            "{stats:?}"
        );
    }

    #[test]
    fn big_values_have_a_memory_budget() {
        let mut st = Storages::new(GcConfig::default()).unwrap();
        st.big_budget = 900;
        let b = big("1".repeat(300).as_str()); // ~1000 bits, ~157 bytes
        for _ in 0..5 {
            st.push(0, b.clone()).unwrap();
        }
        let err = st.dup(0).unwrap_err();
        assert!(err.0.contains("exceed 900 bytes"), "{err:?}");
        // Popping releases the budget.
        for _ in 0..5 {
            st.pop(0);
        }
        st.push(QUEUE, b.clone()).unwrap();
        st.dup(QUEUE).unwrap();
    }

    #[test]
    fn stack_keeps_bigs_in_node_order() {
        let mut st = Storages::new(GcConfig::default()).unwrap();
        let (b1, b2) = (big("100000000000000000000"), big("-200000000000000000000"));
        st.push(0, b1.clone()).unwrap();
        st.push(0, Int::Small(5)).unwrap();
        st.push(0, b2.clone()).unwrap();
        st.swap(0); // [b1, b2, 5]
        st.dup(0).unwrap(); // [b1, b2, 5, 5]
        assert_eq!(st.pop(0), Int::Small(5));
        assert_eq!(st.pop(0), Int::Small(5));
        st.dup(0).unwrap(); // [b1, b2, b2]
        st.swap(0);
        assert_eq!(st.pop(0), b2);
        assert_eq!(st.pop(0), b2);
        assert_eq!(st.pop(0), b1);
        assert_eq!(st.len(0), 0);
    }

    #[test]
    fn queue_pops_front_and_dups_at_front() {
        let mut st = Storages::new(GcConfig::default()).unwrap();
        let b = big("-100000000000000000000");
        st.push(QUEUE, Int::Small(1)).unwrap();
        st.push(QUEUE, b.clone()).unwrap();
        st.push(QUEUE, Int::Small(3)).unwrap();
        st.swap(QUEUE); // [b, 1, 3]
        st.dup(QUEUE).unwrap(); // [b, b, 1, 3]
        let got: Vec<Int> = (0..4).map(|_| st.pop(QUEUE)).collect();
        assert_eq!(got, vec![b.clone(), b, Int::Small(1), Int::Small(3)]);
    }

    #[test]
    fn channel_dup_pushes_the_last_pushed_value() {
        let mut st = Storages::new(GcConfig::default()).unwrap();
        st.push(CHANNEL, Int::Small(7)).unwrap();
        st.push(CHANNEL, Int::Small(9)).unwrap();
        assert_eq!(st.pop(CHANNEL), Int::Small(9));
        st.dup(CHANNEL).unwrap();
        assert_eq!(st.pop(CHANNEL), Int::Small(9));
        st.push_result(CHANNEL, Int::Small(1)).unwrap();
        st.dup(CHANNEL).unwrap();
        assert_eq!(st.pop(CHANNEL), Int::Small(9));
    }
}
