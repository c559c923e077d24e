//! The write barrier: recording old objects that may point to young ones.
//!
//! Before a reference is stored into an object, the mutator tests one
//! byte and, if it is nonzero, calls the barrier's slow path
//! (`GcHeap::remember`; from JIT code `majit_gc_write_barrier(heap,
//! obj)`). Two tests exist:
//! - **card test**, valid for every object: the card byte at
//!   `card_table_biased + (obj >> CARD_SHIFT)`. The only test for
//!   headerless objects, and the one JIT code uses when it does not know
//!   whether the target is headered (`cond_call_gc_wb` carries no descr).
//! - **header test**, for objects known to be headered: bit 0 of the byte
//!   at `obj + 4` ([`FLAG_TRACK_YOUNG_PTRS`]). Exact: set on old objects
//!   not yet recorded, so it calls the slow path once per object per
//!   minor cycle. The Rust API (`Gc::write_ref`) uses it.
//!
//! Invariants (between collections):
//! 1. A young object has card byte 0 and a zero flag word.
//! 2. An old headered object whose flag is clear is in the remembered set.
//! 3. A card byte of an old chunk is 0 only if the card is in the
//!    dirty-card list, and then every headered object starting in it has
//!    its flag clear. So "flag set ⇒ card byte nonzero": the card test
//!    never misses an object the header test would catch.
//!
//! The slow path clears the object's flag and records it; if the card
//! byte is set it clears it, records the card, and (for headered chunks)
//! records every flagged object starting in the card, which keeps
//! invariant 3. A minor collection traces the remembered objects and the
//! objects of dirty headerless cards, then sets all flags and card bytes
//! again. One slow path serves both kinds: it tells them apart by the
//! chunk the address lies in, never by reading a headerless object.

use crate::heap::GcHeap;
use crate::layout::FLAG_TRACK_YOUNG_PTRS;
use crate::space::{ChunkUse, CARD_SIZE};

impl GcHeap {
    /// The barrier's slow path: records `obj` (and its card) so the next
    /// minor collection treats its reference fields as roots. Does
    /// nothing for young objects and for objects already recorded.
    pub(crate) fn remember(&mut self, obj: usize) {
        let chunk = self.space.use_of(obj);
        if matches!(chunk, ChunkUse::OldHeadered | ChunkUse::LargeHead) {
            self.remember_headered(obj);
        }
        if !matches!(
            chunk,
            ChunkUse::OldHeadered | ChunkUse::LargeHead | ChunkUse::OldHeaderless
        ) {
            return;
        }
        let card = self.space.card_ptr(obj);
        // SAFETY: obj lies in the heap range, so its card byte lies in the
        // card table.
        if unsafe { *card } == 0 {
            return;
        }
        // SAFETY: as above.
        unsafe { *card = 0 };
        let card_addr = obj & !(CARD_SIZE - 1);
        self.dirty_cards.push(card_addr);
        if chunk == ChunkUse::OldHeadered {
            // The collector's work list is empty outside collections.
            let mut flagged = std::mem::take(&mut self.scan);
            self.old
                .objects_in_card(&self.space, card_addr, |o| flagged.push(o));
            for &o in &flagged {
                self.remember_headered(o);
            }
            flagged.clear();
            self.scan = flagged;
        }
    }

    /// Clears the flag of old headered `obj` and records it, if flagged.
    fn remember_headered(&mut self, obj: usize) {
        let header = obj as *mut u64;
        // SAFETY: obj is an allocated old headered object.
        unsafe {
            if *header & FLAG_TRACK_YOUNG_PTRS != 0 {
                *header &= !FLAG_TRACK_YOUNG_PTRS;
                self.remembered.push(obj);
            }
        }
    }

    /// The header test for headered objects, the card test otherwise:
    /// whether a reference store into `obj` must call `GcHeap::remember`.
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
