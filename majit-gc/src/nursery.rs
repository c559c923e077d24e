//! Nursery regions: bump allocation of young objects.
//!
//! Region 0 holds headered objects; each headerless layout has a region of
//! its own, so every object in it has that layout. A region's `free` and
//! `top` words live in a separately allocated [`RegionWords`] whose
//! address never changes, which is what JIT code loads and stores. The
//! fast path is `new = free + size; if new > top { slow path } free = new`.
//! In stress mode `top` is kept equal to `free`, so every allocation takes
//! the slow path and can be counted; the real end of the region is `end`.
//!
//! Invariant: the bytes in `[free, zeroed)` are zero, so bump-allocated
//! objects need no clearing, and `top` (outside stress mode) is `zeroed`.
//! The slow path zeroes the next [`ZERO_AHEAD`] bytes when a bump passes
//! `zeroed`, so the memory is cleared just before it is handed out, while
//! it is in cache (RPython's nursery cleanup works the same way); a minor
//! collection re-zeroes at most the first `ZERO_AHEAD` used bytes (all of
//! a small nursery's) and moves `zeroed` back to their end. Clearing a whole
//! used nursery at once instead cost Lua's fib 23% of its run: the region
//! is larger than the L2 cache, so every byte went to memory twice.
//! Forwarding (during a minor collection) writes the new
//! address over the first word of the old copy and sets the object's bit
//! in `forwarded` (one bit per 8-byte word): the collector never has to
//! read a header to know whether an object moved.

use crate::layout::TypeId;

/// Bytes the slow path zeroes ahead of the bump pointer at a time: the
/// slow path runs once per this many allocated bytes, and the cleared
/// bytes stay in the L1/L2 cache until they are allocated.
pub const ZERO_AHEAD: usize = 32 << 10;

/// The two words the JIT's inline allocation reads and writes.
#[repr(C)]
#[derive(Debug)]
pub struct RegionWords {
    /// Next free byte.
    pub free: usize,
    /// Limit of the inline fast path.
    pub top: usize,
}

impl RegionWords {
    /// The inline fast path every Rust caller shares (compiled code emits
    /// the same sequence): `size` zeroed bytes bumped from the region whose
    /// words are at `words` (null: a type that never bumps), with `header`
    /// stored in the first word unless it is 0; `None` when the region is
    /// full (always in stress mode, where `top == free`).
    ///
    /// # Safety
    /// `words` is null or the live words of a region of the current
    /// thread's heap, not accessed elsewhere during the call; `size` ≥ 8.
    #[inline(always)]
    pub unsafe fn bump(words: *mut RegionWords, size: usize, header: u64) -> Option<usize> {
        if words.is_null() {
            return None;
        }
        // SAFETY: the caller's contract. The bytes from `free` to `top` are
        // zero (the module's invariant).
        unsafe {
            let obj = (*words).free;
            let next = obj + size;
            if next > (*words).top {
                return None;
            }
            (*words).free = next;
            if header != 0 {
                *(obj as *mut u64) = header;
            }
            Some(obj)
        }
    }
}

/// One nursery region.
pub(crate) struct Region {
    /// Owned, from `Box::into_raw`; freed by `Drop for Region`.
    pub words: *mut RegionWords,
    pub start: usize,
    /// Real end of the region.
    pub end: usize,
    /// End of the zeroed bytes from `free` on: `free <= zeroed <= end`.
    zeroed: usize,
    /// Headerless layout allocated here, `None` for the headered region.
    pub headerless: Option<TypeId>,
    /// One bit per 8-byte word: that word starts a forwarded object.
    pub forwarded: Vec<u64>,
}

impl Region {
    /// A region over `[start, start + capacity)`, whose bytes need not be
    /// zero: they are zeroed ahead of the first allocations.
    pub fn new(start: usize, capacity: usize, headerless: Option<TypeId>) -> Region {
        let words = Box::into_raw(Box::new(RegionWords {
            free: start,
            top: start,
        }));
        let mut region = Region {
            words,
            start,
            end: start + capacity,
            zeroed: start,
            headerless,
            forwarded: vec![0; (capacity / 8).div_ceil(64)],
        };
        region.zero_to((start + ZERO_AHEAD).min(region.end));
        region
    }

    /// Zeroes from `zeroed` up to `upto` (at most `end`), if that is more.
    fn zero_to(&mut self, upto: usize) {
        if upto > self.zeroed {
            // SAFETY: zeroed < upto <= end, so the bytes lie inside this
            // region's chunks; no live object lies there (the bytes are past
            // `free`, or the region was just emptied by a collection).
            unsafe { std::ptr::write_bytes(self.zeroed as *mut u8, 0, upto - self.zeroed) };
            self.zeroed = upto;
        }
    }

    #[inline]
    pub fn free(&self) -> usize {
        // SAFETY: `words` is a live allocation owned by this region.
        unsafe { (*self.words).free }
    }

    #[inline]
    pub fn set_free(&mut self, free: usize, stress: bool) {
        // SAFETY: as in `free`.
        unsafe {
            (*self.words).free = free;
            (*self.words).top = if stress { free } else { self.zeroed };
        }
    }

    /// Bumps `size` zeroed bytes if the region has room for them, zeroing
    /// the next [`ZERO_AHEAD`] bytes (at least up to the new `free`) first
    /// when they pass `zeroed`; `None` when the region is full.
    pub fn bump(&mut self, size: usize, stress: bool) -> Option<usize> {
        let obj = self.free();
        let next = obj + size;
        if next > self.end {
            return None;
        }
        if next > self.zeroed {
            self.zero_to(next.max(self.zeroed + ZERO_AHEAD).min(self.end));
        }
        self.set_free(next, stress);
        Some(obj)
    }

    /// Whether `addr` is a forwarded object; its new address if so.
    #[inline]
    pub fn forwarded_to(&self, addr: usize) -> Option<usize> {
        let bit = (addr - self.start) >> 3;
        if self.forwarded[bit / 64] & (1 << (bit % 64)) != 0 {
            // SAFETY: a forwarded object's first word holds its new address.
            Some(unsafe { *(addr as *const usize) })
        } else {
            None
        }
    }

    /// Records that the object at `addr` now lives at `new`.
    #[inline]
    pub fn forward(&mut self, addr: usize, new: usize) {
        let bit = (addr - self.start) >> 3;
        self.forwarded[bit / 64] |= 1 << (bit % 64);
        // SAFETY: the object is at least 8 bytes and its content was copied
        // away; the collector owns it now.
        unsafe { *(addr as *mut usize) = new };
    }

    /// Empties the region after a minor collection: zeroes the used bytes
    /// up to [`ZERO_AHEAD`] (the rest is zeroed as it is allocated again)
    /// and clears the used part of the forwarding bitmap.
    pub fn reset(&mut self, stress: bool) {
        let used = self.free() - self.start;
        let (dirty_end, zeroed) = (self.free(), self.zeroed);
        let upto = (self.start + ZERO_AHEAD).min(self.end);
        self.zeroed = self.start;
        // [dirty_end, zeroed) is still zero: a small nursery stays wholly
        // zeroed, as its inline path expects.
        self.zero_to(dirty_end.min(upto));
        if dirty_end <= upto {
            self.zeroed = zeroed;
        }
        let words = (used / 8).div_ceil(64).min(self.forwarded.len());
        self.forwarded[..words].fill(0);
        self.set_free(self.start, stress);
    }

    /// Bytes currently allocated in the region.
    pub fn used(&self) -> usize {
        self.free() - self.start
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: `words` came from Box::into_raw in `Region::new` and is
        // freed only here.
        drop(unsafe { Box::from_raw(self.words) });
    }
}

impl Region {
    /// Major-collection mark of a young object (in the forwarding bitmap,
    /// which is unused outside minor collections); true if newly marked.
    pub fn mark(&mut self, addr: usize) -> bool {
        let bit = (addr - self.start) >> 3;
        let (w, b) = (bit / 64, 1u64 << (bit % 64));
        let fresh = self.forwarded[w] & b == 0;
        self.forwarded[w] |= b;
        fresh
    }

    /// Clears the marks `mark` set.
    pub fn clear_marks(&mut self) {
        let words = (self.used() / 8).div_ceil(64).min(self.forwarded.len());
        self.forwarded[..words].fill(0);
    }
}
