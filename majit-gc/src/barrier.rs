//! The write barrier: recording old objects that may point to young ones.
//!
//! Before (or right after) a reference is stored into an object, the
//! mutator tests one byte:
//! - headered object: bit 0 of the byte at `obj + 4` (the header's
//!   [`crate::layout::FLAG_TRACK_YOUNG_PTRS`]). It is set exactly on old
//!   objects not yet in the remembered set; young objects have a zero flag
//!   word.
//! - headerless object: the card byte at
//!   `card_table_biased + (obj >> CARD_SHIFT)`, nonzero exactly for clean
//!   cards of old headerless chunks.
//!
//! Only if the tested bit is set it calls [`GcHeap::remember`] (for JIT
//! code: `majit_gc_write_barrier(heap, obj)`), which clears the bit and
//! records the object (remembered set) or its card (dirty-card list). The
//! next minor collection traces those, then sets the bits again. One
//! function serves both kinds: it tells them apart by the chunk the
//! address lies in, never by reading the object.

use crate::heap::GcHeap;
use crate::layout::FLAG_TRACK_YOUNG_PTRS;
use crate::space::{ChunkUse, CARD_SIZE};

impl GcHeap {
    /// The barrier's slow path: records `obj` (or its card) so the next
    /// minor collection treats its reference fields as roots. Does
    /// nothing for young objects and for objects already recorded.
    pub(crate) fn remember(&mut self, obj: usize) {
        match self.space.use_of(obj) {
            ChunkUse::OldHeadered | ChunkUse::LargeHead => {
                let header = obj as *mut u64;
                // SAFETY: obj is an old headered object in the heap.
                unsafe {
                    if *header & FLAG_TRACK_YOUNG_PTRS != 0 {
                        *header &= !FLAG_TRACK_YOUNG_PTRS;
                        self.remembered.push(obj);
                    }
                }
            }
            ChunkUse::OldHeaderless => {
                let card = self.space.card_ptr(obj);
                // SAFETY: obj lies in the heap range, so its card byte
                // lies in the card table.
                unsafe {
                    if *card != 0 {
                        *card = 0;
                        self.dirty_cards.push(obj & !(CARD_SIZE - 1));
                    }
                }
            }
            ChunkUse::Nursery(_) | ChunkUse::Free | ChunkUse::LargeTail => {}
        }
    }

    /// The inline test: whether a reference store into `obj` must call
    /// [`GcHeap::remember`].
    #[inline]
    pub(crate) fn needs_barrier(&self, obj: usize) -> bool {
        match self.space.use_of(obj) {
            ChunkUse::Nursery(_) => false,
            // SAFETY: obj is an old headered object in the heap.
            ChunkUse::OldHeadered | ChunkUse::LargeHead => unsafe {
                *(obj as *const u64) & FLAG_TRACK_YOUNG_PTRS != 0
            },
            // SAFETY: obj lies in the heap range.
            ChunkUse::OldHeaderless => unsafe { *self.space.card_ptr(obj) != 0 },
            ChunkUse::Free | ChunkUse::LargeTail => false,
        }
    }
}
