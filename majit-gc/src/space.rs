//! The heap's address space: one reserved range cut into chunks, plus the
//! card table that covers it.
//!
//! The heap reserves `max_heap` bytes of address space once (anonymous,
//! `MAP_NORESERVE`, so pages cost memory only when touched) and hands it
//! out in aligned chunks of [`CHUNK_SIZE`] bytes. The chunk table records
//! what each chunk is used for; since every object lies in exactly one
//! chunk run, `(addr - base) >> CHUNK_SHIFT` tells the collector in O(1)
//! whether an address is young, old headered or old headerless, and (with
//! the per-chunk metadata of the old space) the layout of a headerless
//! object. A released chunk keeps its pages while the released chunks that
//! do stay under the retained budget (see `GcHeap::retain_budget`: about
//! what the old space refills between two major collections); beyond it a
//! chunk is returned to the OS with `MADV_DONTNEED`, so the resident size
//! follows the live heap. Returning every chunk cost Lua's sieve, which
//! frees and reallocates large arrays, 27% of its CPU time in page faults.
//! Reused chunks are not zero: every allocation zeroes what it hands out.
//!
//! The card table has one byte per [`CARD_SIZE`] bytes of the range. A
//! byte is 0 for nursery and free chunks and for dirty cards (recorded
//! since the last minor collection), 1 for the clean cards of old chunks.
//! An object's card is the card of its first byte. See `barrier.rs` for
//! the invariants that make the card byte a valid barrier test for every
//! object, headered or not.

use crate::error::{GcError, Result};

/// log2 of the chunk size.
pub const CHUNK_SHIFT: u32 = 18;
/// Bytes per chunk (256 KiB).
pub const CHUNK_SIZE: usize = 1 << CHUNK_SHIFT;
/// log2 of the card size.
pub const CARD_SHIFT: u32 = 7;
/// Bytes covered by one card-table byte.
pub const CARD_SIZE: usize = 1 << CARD_SHIFT;

/// What a chunk currently holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum ChunkUse {
    Free,
    /// Part of nursery region number `.0`.
    Nursery(u32),
    /// Old-space slots of one size class of headered objects.
    OldHeadered,
    /// Old-space slots of one headerless layout.
    OldHeaderless,
    /// First chunk of a large (headered) object.
    LargeHead,
    /// Following chunk of a large object.
    LargeTail,
}

/// An anonymous private mapping, unmapped on drop.
struct Mapping {
    ptr: *mut u8,
    len: usize,
}

impl Mapping {
    fn new(len: usize, what: &'static str) -> Result<Mapping> {
        // SAFETY: an anonymous mapping at an address the kernel chooses has
        // no preconditions; failure is reported as MAP_FAILED.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            let errno = std::io::Error::last_os_error().raw_os_error().unwrap_or(0);
            return Err(GcError::Os { what, errno });
        }
        Ok(Mapping {
            ptr: ptr as *mut u8,
            len,
        })
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: ptr/len describe a mapping this value created and owns.
        unsafe { libc::munmap(self.ptr as *mut libc::c_void, self.len) };
    }
}

/// The reserved range, its chunk table and its card table.
pub(crate) struct Space {
    _heap_map: Mapping,
    _card_map: Mapping,
    /// First chunk-aligned address of the range.
    pub base: usize,
    /// Usable bytes from `base`.
    pub len: usize,
    pub chunks: Vec<ChunkUse>,
    card_table: *mut u8,
    /// Lowest chunk index that may be free.
    hint: usize,
    pub chunks_in_use: usize,
    /// Free chunks that kept their pages (released within the budget).
    resident: Vec<bool>,
    resident_free: usize,
    /// At most this many free chunks keep their pages.
    retain_chunks: usize,
}

impl Space {
    /// A space of `max_heap` bytes whose released chunks keep their pages
    /// up to `retain` bytes in all.
    pub fn new(max_heap: usize, retain: usize) -> Result<Space> {
        let nchunks = max_heap.div_ceil(CHUNK_SIZE);
        let len = nchunks * CHUNK_SIZE;
        let heap_map = Mapping::new(len + CHUNK_SIZE, "reserving the heap's address space")?;
        let base = (heap_map.ptr as usize + CHUNK_SIZE - 1) & !(CHUNK_SIZE - 1);
        let card_map = Mapping::new(len >> CARD_SHIFT, "reserving the card table")?;
        Ok(Space {
            card_table: card_map.ptr,
            _heap_map: heap_map,
            _card_map: card_map,
            base,
            len,
            chunks: vec![ChunkUse::Free; nchunks],
            hint: 0,
            chunks_in_use: 0,
            resident: vec![false; nchunks],
            resident_free: 0,
            retain_chunks: retain / CHUNK_SIZE,
        })
    }

    /// Whether `addr` lies in the reserved range.
    #[inline]
    pub fn contains(&self, addr: usize) -> bool {
        addr.wrapping_sub(self.base) < self.len
    }

    /// The chunk index of an address inside the range.
    #[inline]
    pub fn chunk_index(&self, addr: usize) -> usize {
        (addr - self.base) >> CHUNK_SHIFT
    }

    /// What the chunk holding `addr` is used for (`Free` outside the range).
    #[inline]
    pub fn use_of(&self, addr: usize) -> ChunkUse {
        let i = addr.wrapping_sub(self.base) >> CHUNK_SHIFT;
        self.chunks.get(i).copied().unwrap_or(ChunkUse::Free)
    }

    /// The start address of chunk `i`.
    pub fn chunk_addr(&self, i: usize) -> usize {
        self.base + (i << CHUNK_SHIFT)
    }

    /// Takes `n` contiguous free chunks (first fit) and marks them `used`
    /// (the first) and `tail` (the rest). `None` when the range is full.
    pub fn acquire(&mut self, n: usize, used: ChunkUse, tail: ChunkUse) -> Option<usize> {
        let mut run = 0;
        let mut i = self.hint;
        while i < self.chunks.len() {
            if self.chunks[i] == ChunkUse::Free {
                run += 1;
                if run == n {
                    let first = i + 1 - n;
                    for r in &mut self.resident[first..=i] {
                        self.resident_free -= usize::from(std::mem::take(r));
                    }
                    self.chunks[first] = used;
                    for c in &mut self.chunks[first + 1..=i] {
                        *c = tail;
                    }
                    if n == 1 && first == self.hint {
                        self.hint += 1;
                    }
                    self.chunks_in_use += n;
                    return Some(first);
                }
            } else {
                run = 0;
            }
            i += 1;
        }
        None
    }

    /// Lets released chunks keep their pages up to `bytes` in all (chunks
    /// already kept stay so).
    pub fn set_retained(&mut self, bytes: usize) {
        self.retain_chunks = bytes / CHUNK_SIZE;
    }

    /// Returns `n` chunks from `first` to the free pool, clears their
    /// cards, and gives their pages back to the OS unless the retained
    /// budget still holds them.
    pub fn release(&mut self, first: usize, n: usize) {
        let addr = self.chunk_addr(first);
        if self.resident_free + n <= self.retain_chunks {
            self.resident[first..first + n].fill(true);
            self.resident_free += n;
        } else {
            // SAFETY: the chunks lie inside the mapping owned by `self`, and
            // no live object remains in them (the caller freed them).
            unsafe {
                libc::madvise(
                    addr as *mut libc::c_void,
                    n * CHUNK_SIZE,
                    libc::MADV_DONTNEED,
                );
            }
        }
        self.set_cards(addr, n * CHUNK_SIZE, 0);
        for c in &mut self.chunks[first..first + n] {
            *c = ChunkUse::Free;
        }
        self.hint = self.hint.min(first);
        self.chunks_in_use -= n;
    }

    /// Number of free chunks.
    pub fn free_chunks(&self) -> usize {
        self.chunks.len() - self.chunks_in_use
    }

    /// The card-table byte address for `addr` (inside the range).
    #[inline]
    pub fn card_ptr(&self, addr: usize) -> *mut u8 {
        debug_assert!(self.contains(addr));
        // SAFETY: addr is inside the range, so the index is inside the
        // card table, which has one byte per card of the range.
        unsafe { self.card_table.add((addr - self.base) >> CARD_SHIFT) }
    }

    /// Sets every card byte covering `[addr, addr + len)`.
    pub fn set_cards(&mut self, addr: usize, len: usize, value: u8) {
        let first = self.card_ptr(addr);
        // SAFETY: [addr, addr+len) lies inside the range, so its cards lie
        // inside the card table.
        unsafe { std::ptr::write_bytes(first, value, len >> CARD_SHIFT) };
    }

    /// `card_table - (base >> CARD_SHIFT)`: the card byte of `addr` is at
    /// `biased + (addr >> CARD_SHIFT)` (wrapping arithmetic).
    pub fn card_table_biased(&self) -> usize {
        (self.card_table as usize).wrapping_sub(self.base >> CARD_SHIFT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fill(space: &Space, chunk: usize, byte: u8) {
        // SAFETY: the chunk lies in the space's mapping and is acquired.
        unsafe { std::ptr::write_bytes(space.chunk_addr(chunk) as *mut u8, byte, CHUNK_SIZE) };
    }

    fn first_byte(space: &Space, chunk: usize) -> u8 {
        // SAFETY: the chunk lies in the space's mapping (readable even when
        // its pages were given back: they read as zero).
        unsafe { *(space.chunk_addr(chunk) as *const u8) }
    }

    /// Released chunks keep their pages (and so their bytes) while the
    /// budget holds them, are given back (reading zero) beyond it, and a
    /// kept chunk that is acquired again leaves the budget room for another.
    #[test]
    fn released_chunks_keep_their_pages_within_the_budget() {
        let mut s = Space::new(8 * CHUNK_SIZE, 2 * CHUNK_SIZE).unwrap();
        let old = ChunkUse::OldHeadered;
        let c: Vec<usize> = (0..3).map(|_| s.acquire(1, old, old).unwrap()).collect();
        for &k in &c {
            fill(&s, k, 0xab);
        }
        for &k in &c {
            s.release(k, 1);
        }
        assert_eq!(first_byte(&s, c[0]), 0xab);
        assert_eq!(first_byte(&s, c[1]), 0xab);
        assert_eq!(first_byte(&s, c[2]), 0, "beyond the budget: given back");
        assert_eq!(s.acquire(1, old, old), Some(c[0]), "first fit");
        fill(&s, c[0], 0xcd);
        s.release(c[0], 1);
        assert_eq!(
            first_byte(&s, c[0]),
            0xcd,
            "kept again: the budget had room"
        );
        assert_eq!(s.chunks_in_use, 0);
    }
}
