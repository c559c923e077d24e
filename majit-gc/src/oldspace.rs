//! The old space: non-moving, segregated by size class, mark-sweep.
//!
//! Small objects (up to [`MAX_SMALL`] bytes) live in chunks of equal-size
//! slots. Headered objects share classes by size (exact up to 512 bytes,
//! then eight classes per power of two); each headerless layout has a class
//! of its own, so the chunk an old headerless object
//! lies in names its layout. Each chunk keeps two side bitmaps, "slot
//! allocated" and "slot marked"; mark bits never live in objects, so
//! marking reads no header of a headerless object and a free slot can
//! hold the free-list link in its first word. Larger headered objects get
//! a run of whole chunks of their own.
//!
//! A class allocates from its free list, then from the untouched rest of
//! its newest chunk, then from a fresh chunk. Sweeping turns unmarked
//! slots into free slots, rebuilds the free lists, and releases chunks
//! that hold nothing, so memory use follows the live data.

use crate::layout::TypeId;
use crate::space::{ChunkUse, Space, CARD_SIZE, CHUNK_SIZE};

/// Largest object kept in a slot chunk.
pub const MAX_SMALL: usize = CHUNK_SIZE / 8;
/// Headered sizes up to this get exact (8-byte granular) classes.
const EXACT_CLASSES_UP_TO: usize = 512;
/// Number of headered size classes.
pub const HEADERED_CLASSES: usize = 112;

/// The class key and slot size for a headered object of `size` bytes
/// (`8 ≤ size ≤ MAX_SMALL`): exact up to 512 bytes, then eight classes per
/// power of two, so a slot wastes at most 12.5% and the number of classes
/// (each of which holds at least one chunk) stays small.
pub(crate) fn size_class(size: usize) -> (usize, usize) {
    debug_assert!((8..=MAX_SMALL).contains(&size));
    if size <= EXACT_CLASSES_UP_TO {
        let slot = (size + 7) & !7;
        return (slot / 8 - 1, slot);
    }
    let k = usize::BITS - 1 - (size - 1).leading_zeros(); // 2^k < size ≤ 2^(k+1)
    let step = 1usize << (k - 3);
    let slot = (size + step - 1) & !(step - 1);
    let j = (slot - (1 << k)) / step; // 1..=8
    ((k as usize - 9) * 8 + j + 63, slot)
}

/// Metadata of one slot chunk.
pub(crate) struct OldChunk {
    pub class: u32,
    pub slot_size: usize,
    pub nslots: usize,
    alloc: Vec<u64>,
    mark: Vec<u64>,
}

impl OldChunk {
    #[inline]
    fn bit(bits: &[u64], i: usize) -> bool {
        bits[i / 64] & (1 << (i % 64)) != 0
    }
    pub fn is_allocated(&self, slot: usize) -> bool {
        Self::bit(&self.alloc, slot)
    }
}

/// One size class.
pub(crate) struct SizeClass {
    pub slot_size: usize,
    /// The headerless layout of this class, if any.
    pub headerless: Option<TypeId>,
    chunks: Vec<usize>,
    free_head: usize,
    bump: usize,
    bump_end: usize,
}

/// A large object: a run of chunks.
pub(crate) struct LargeObj {
    nchunks: usize,
    bytes: usize,
    marked: bool,
}

/// The whole old space.
#[derive(Default)]
pub(crate) struct OldSpace {
    pub classes: Vec<SizeClass>,
    /// Size / 8 → class index + 1 (0: not created yet).
    headered_class: Vec<u32>,
    /// Type id → class index + 1 for headerless layouts.
    headerless_class: Vec<u32>,
    /// Chunk index → metadata of a slot chunk.
    pub meta: Vec<Option<Box<OldChunk>>>,
    large: Vec<Option<LargeObj>>,
    large_heads: Vec<usize>,
    /// Bytes in allocated slots and large objects.
    pub bytes: usize,
}

impl OldSpace {
    pub fn new(nchunks: usize) -> OldSpace {
        OldSpace {
            meta: (0..nchunks).map(|_| None).collect(),
            large: (0..nchunks).map(|_| None).collect(),
            ..OldSpace::default()
        }
    }

    /// The class for headered objects of `size` bytes (≤ MAX_SMALL).
    pub fn headered_class(&mut self, size: usize) -> u32 {
        let (key, slot_size) = size_class(size);
        if self.headered_class.len() <= key {
            self.headered_class.resize(key + 1, 0);
        }
        if self.headered_class[key] == 0 {
            self.headered_class[key] = self.new_class(slot_size, None) + 1;
        }
        self.headered_class[key] - 1
    }

    /// The class of headerless layout `ty` with objects of `size` bytes.
    pub fn headerless_class(&mut self, ty: TypeId, size: usize) -> u32 {
        let key = ty.0 as usize;
        if self.headerless_class.len() <= key {
            self.headerless_class.resize(key + 1, 0);
        }
        if self.headerless_class[key] == 0 {
            self.headerless_class[key] = self.new_class(size, Some(ty)) + 1;
        }
        self.headerless_class[key] - 1
    }

    fn new_class(&mut self, slot_size: usize, headerless: Option<TypeId>) -> u32 {
        self.classes.push(SizeClass {
            slot_size,
            headerless,
            chunks: Vec::new(),
            free_head: 0,
            bump: 0,
            bump_end: 0,
        });
        (self.classes.len() - 1) as u32
    }

    /// A slot of class `class` (contents unspecified), or `None` when the
    /// address space has no free chunk left.
    pub fn alloc_slot(&mut self, space: &mut Space, class: u32) -> Option<usize> {
        let c = &mut self.classes[class as usize];
        let slot_size = c.slot_size;
        let addr = if c.free_head != 0 {
            let addr = c.free_head;
            // SAFETY: a free-list entry is a free slot whose first word is
            // the next entry (or 0).
            c.free_head = unsafe { *(addr as *const usize) };
            addr
        } else if c.bump + slot_size <= c.bump_end {
            c.bump += slot_size;
            c.bump - slot_size
        } else {
            let chunk = self.new_chunk(space, class)?;
            let c = &mut self.classes[class as usize];
            let start = space.chunk_addr(chunk);
            c.bump = start + slot_size;
            c.bump_end = start + (CHUNK_SIZE / slot_size) * slot_size;
            start
        };
        let i = space.chunk_index(addr);
        let meta = self.meta[i].as_mut().expect("slot chunk has metadata");
        let slot = (addr - space.chunk_addr(i)) / slot_size;
        meta.alloc[slot / 64] |= 1 << (slot % 64);
        self.bytes += slot_size;
        Some(addr)
    }

    fn new_chunk(&mut self, space: &mut Space, class: u32) -> Option<usize> {
        let c = &self.classes[class as usize];
        let kind = if c.headerless.is_some() {
            ChunkUse::OldHeaderless
        } else {
            ChunkUse::OldHeadered
        };
        let chunk = space.acquire(1, kind, kind)?;
        space.set_cards(space.chunk_addr(chunk), CHUNK_SIZE, 1);
        let nslots = CHUNK_SIZE / c.slot_size;
        self.meta[chunk] = Some(Box::new(OldChunk {
            class,
            slot_size: c.slot_size,
            nslots,
            alloc: vec![0; nslots.div_ceil(64)],
            mark: vec![0; nslots.div_ceil(64)],
        }));
        self.classes[class as usize].chunks.push(chunk);
        Some(chunk)
    }

    /// A run of chunks for a large object of `bytes` bytes (not zeroed:
    /// the caller zeroes the object).
    pub fn alloc_large(&mut self, space: &mut Space, bytes: usize) -> Option<usize> {
        let n = bytes.div_ceil(CHUNK_SIZE);
        let chunk = space.acquire(n, ChunkUse::LargeHead, ChunkUse::LargeTail)?;
        space.set_cards(space.chunk_addr(chunk), CARD_SIZE, 1);
        self.large[chunk] = Some(LargeObj {
            nchunks: n,
            bytes,
            marked: false,
        });
        self.large_heads.push(chunk);
        self.bytes += bytes;
        Some(space.chunk_addr(chunk))
    }

    /// Sets the mark of the old object at `addr`; true if it was unmarked.
    pub fn mark(&mut self, space: &Space, addr: usize) -> bool {
        let i = space.chunk_index(addr);
        match space.chunks[i] {
            ChunkUse::OldHeadered | ChunkUse::OldHeaderless => {
                let meta = self.meta[i].as_mut().expect("slot chunk has metadata");
                let slot = (addr - space.chunk_addr(i)) / meta.slot_size;
                let (w, b) = (slot / 64, 1u64 << (slot % 64));
                let fresh = meta.mark[w] & b == 0;
                meta.mark[w] |= b;
                fresh
            }
            ChunkUse::LargeHead => {
                let large = self.large[i].as_mut().expect("large object metadata");
                !std::mem::replace(&mut large.marked, true)
            }
            _ => false,
        }
    }

    /// Whether the old object at `addr` is marked.
    pub fn is_marked(&self, space: &Space, addr: usize) -> bool {
        let i = space.chunk_index(addr);
        match space.chunks[i] {
            ChunkUse::OldHeadered | ChunkUse::OldHeaderless => {
                let meta = self.meta[i].as_ref().expect("slot chunk has metadata");
                OldChunk::bit(&meta.mark, (addr - space.chunk_addr(i)) / meta.slot_size)
            }
            ChunkUse::LargeHead => self.large[i].as_ref().is_some_and(|l| l.marked),
            _ => false,
        }
    }

    /// The headerless layout of old object `addr`, if it is headerless.
    #[inline]
    pub fn headerless_type(&self, space: &Space, addr: usize) -> Option<TypeId> {
        let meta = self.meta[space.chunk_index(addr)].as_ref()?;
        self.classes[meta.class as usize].headerless
    }

    /// Calls `visit` with every allocated object that starts inside the
    /// card at `card_addr` of a slot chunk.
    pub fn objects_in_card(&self, space: &Space, card_addr: usize, mut visit: impl FnMut(usize)) {
        let i = space.chunk_index(card_addr);
        let Some(meta) = self.meta[i].as_ref() else {
            return;
        };
        let start = space.chunk_addr(i);
        let mut slot = (card_addr - start).div_ceil(meta.slot_size);
        while slot < meta.nslots && start + slot * meta.slot_size < card_addr + CARD_SIZE {
            if meta.is_allocated(slot) {
                visit(start + slot * meta.slot_size);
            }
            slot += 1;
        }
    }

    /// Frees every unmarked object, clears the marks, rebuilds the free
    /// lists and releases empty chunks.
    pub fn sweep(&mut self, space: &mut Space) {
        self.bytes = 0;
        for class in 0..self.classes.len() {
            self.sweep_class(space, class);
        }
        let heads = std::mem::take(&mut self.large_heads);
        for head in heads {
            let large = self.large[head].as_mut().expect("large object metadata");
            if std::mem::replace(&mut large.marked, false) {
                self.bytes += large.bytes;
                self.large_heads.push(head);
            } else {
                space.release(head, large.nchunks);
                self.large[head] = None;
            }
        }
    }

    fn sweep_class(&mut self, space: &mut Space, class: usize) {
        let chunks = std::mem::take(&mut self.classes[class].chunks);
        let mut free_head = 0;
        let mut kept = Vec::with_capacity(chunks.len());
        for chunk in chunks {
            let meta = self.meta[chunk].as_mut().expect("slot chunk has metadata");
            let mut live = 0;
            for (a, m) in meta.alloc.iter_mut().zip(meta.mark.iter_mut()) {
                *a &= *m;
                *m = 0;
                live += a.count_ones() as usize;
            }
            if live == 0 {
                space.release(chunk, 1);
                self.meta[chunk] = None;
                continue;
            }
            let start = space.chunk_addr(chunk);
            for slot in (0..meta.nslots).rev() {
                if !meta.is_allocated(slot) {
                    let addr = start + slot * meta.slot_size;
                    // SAFETY: the slot is free and inside a chunk this space
                    // owns; its first word becomes the free-list link.
                    unsafe { *(addr as *mut usize) = free_head };
                    free_head = addr;
                }
            }
            self.bytes += live * meta.slot_size;
            kept.push(chunk);
        }
        let c = &mut self.classes[class];
        c.chunks = kept;
        c.free_head = free_head;
        c.bump = 0;
        c.bump_end = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_classes_are_dense_monotonic_and_tight() {
        let mut last = (0, 0);
        for size in 8..=MAX_SMALL {
            let (key, slot) = size_class(size);
            assert!(slot >= size && slot % 8 == 0, "size {size}: slot {slot}");
            assert!(
                slot - size <= size / 8 + 7,
                "size {size}: slot {slot} wastes too much"
            );
            assert!(key < HEADERED_CLASSES, "size {size}: key {key}");
            assert!(key == last.0 && slot == last.1 || key == last.0 + 1 || size == 8);
            last = (key, slot);
        }
        assert_eq!(last.0, HEADERED_CLASSES - 1);
    }
}
