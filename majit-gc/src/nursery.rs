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
//! Invariant: the bytes in `[free, end)` are zero, so bump-allocated
//! objects need no clearing. A minor collection re-zeroes only the part
//! that was used. Forwarding (during a minor collection) writes the new
//! address over the first word of the old copy and sets the object's bit
//! in `forwarded` (one bit per 8-byte word): the collector never has to
//! read a header to know whether an object moved.

use crate::layout::TypeId;

/// The two words the JIT's inline allocation reads and writes.
#[repr(C)]
#[derive(Debug)]
pub struct RegionWords {
    /// Next free byte.
    pub free: usize,
    /// Limit of the inline fast path.
    pub top: usize,
}

/// One nursery region.
pub(crate) struct Region {
    /// Owned, from `Box::into_raw`; freed by `Drop for Region`.
    pub words: *mut RegionWords,
    pub start: usize,
    /// Real end of the region.
    pub end: usize,
    /// Headerless layout allocated here, `None` for the headered region.
    pub headerless: Option<TypeId>,
    /// One bit per 8-byte word: that word starts a forwarded object.
    pub forwarded: Vec<u64>,
}

impl Region {
    pub fn new(start: usize, capacity: usize, headerless: Option<TypeId>) -> Region {
        let words = Box::into_raw(Box::new(RegionWords {
            free: start,
            top: start + capacity,
        }));
        Region {
            words,
            start,
            end: start + capacity,
            headerless,
            forwarded: vec![0; (capacity / 8).div_ceil(64)],
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
            (*self.words).top = if stress { free } else { self.end };
        }
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
    /// and the used part of the forwarding bitmap.
    pub fn reset(&mut self, stress: bool) {
        let used = self.free() - self.start;
        // SAFETY: [start, start+used) lies inside this region's chunks, and
        // after a minor collection no live object remains in it.
        unsafe { std::ptr::write_bytes(self.start as *mut u8, 0, used) };
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
