//! Collections: Cheney-style minor collection and mark-sweep major
//! collection.
//!
//! **Minor.** Every reference into a nursery region found in a root slot
//! (shadow stack, registered JIT frames), in an old object recorded by the
//! write barrier (remembered headered objects, objects starting in dirty
//! cards of headerless chunks), or in an object already promoted, is
//! replaced by the address of the object's old-space copy. Promotion copies
//! the object into a slot of its size class (headerless objects into their
//! layout's class), leaves a forwarding address behind, and queues the
//! copy so its own fields are fixed later (breadth-first, with the queue
//! in a vector because old-space copies are not contiguous). Copies get
//! the barrier flag (headered objects), and every dirty card is clean
//! again afterwards, so every old object is "unrecorded" after a minor
//! collection (see `barrier.rs`). Finally each region is
//! zeroed and emptied.
//!
//! **Major.** Marks from the roots through old and young objects (young
//! ones are marked in their region's forwarding bitmap, then unmarked),
//! drops dead objects from the remembered set, and sweeps the old space.
//! It does not move anything, so it can also run with a populated nursery:
//! a minor collection that may not find room for its promotions runs a
//! major one first to free chunks, and fails cleanly (before touching
//! anything) if that does not help.
//!
//! If promotion still runs out of chunks halfway (the reserve estimate is
//! conservative but not a proof), the heap is poisoned: every later
//! allocation reports the same `OutOfMemory`. It never becomes unsafe.

use crate::error::{GcError, Result};
use crate::heap::GcHeap;
use crate::layout::{ARRAY_ITEMS_OFFSET, ARRAY_LENGTH_OFFSET, FLAG_TRACK_YOUNG_PTRS};
use crate::roots::JitFrameRoots;
use crate::space::{ChunkUse, CHUNK_SIZE};

/// A function applied to each reference slot while tracing: a type
/// parameter, not a `fn` pointer, so the per-slot call is inlined (a
/// minor collection visits every slot of every remembered array).
trait SlotVisitor: Fn(&mut GcHeap, *mut usize, &mut Vec<usize>) -> Result<()> {}

impl<F: Fn(&mut GcHeap, *mut usize, &mut Vec<usize>) -> Result<()>> SlotVisitor for F {}

impl GcHeap {
    /// Runs a minor collection (with `frame`, if not null, as an extra
    /// root frame), then a major one if the old space grew past its
    /// threshold.
    pub(crate) fn collect_minor(&mut self, frame: *mut JitFrameRoots) -> Result<()> {
        self.with_frame(frame, |heap| {
            heap.minor()?;
            if heap.old.bytes > heap.next_major {
                heap.mark_sweep()?;
            }
            Ok(())
        })
    }

    /// Runs a minor and then a major collection.
    pub(crate) fn collect_major(&mut self, frame: *mut JitFrameRoots) -> Result<()> {
        self.with_frame(frame, |heap| {
            heap.minor()?;
            heap.mark_sweep()
        })
    }

    fn with_frame(
        &mut self,
        frame: *mut JitFrameRoots,
        f: impl FnOnce(&mut GcHeap) -> Result<()>,
    ) -> Result<()> {
        if let Some(e) = &self.poisoned {
            return Err(e.clone());
        }
        // SAFETY: the frame comes from compiled code or a test and stays
        // valid during the collection (the callers' contract).
        unsafe { crate::roots::Roots::with_frame(self, frame, f) }
    }

    fn minor(&mut self) -> Result<()> {
        self.ensure_promotion_reserve()?;
        let mut scan = std::mem::take(&mut self.scan);
        let result = self.minor_copy(&mut scan);
        scan.clear();
        self.scan = scan;
        if let Err(e) = &result {
            self.poisoned = Some(e.clone());
            return result;
        }
        let stress = self.config.stress_every.is_some();
        for region in &mut self.regions {
            self.stats.nursery_bytes_allocated += region.used() as u64;
            region.reset(stress);
        }
        self.stats.minor_collections += 1;
        self.collect_requested = false;
        self.stats.old_bytes_peak = self.stats.old_bytes_peak.max(self.old.bytes);
        Ok(())
    }

    /// Frees old chunks first if the free address space might not hold
    /// every nursery object.
    fn ensure_promotion_reserve(&mut self) -> Result<()> {
        // Each region's bytes (a third more for slot rounding and chunk
        // tails), plus one partly used chunk per class they may land in:
        // the region's own class if headerless, the headered classes that
        // registered types can reach otherwise.
        // Stress mode runs this at every allocation: keep it a plain loop.
        let mut used = 0;
        let mut need = self
            .promotion_class_count
            .min(self.regions[0].used() / 8 + 1);
        for region in &self.regions {
            let bytes = region.used();
            used += bytes;
            need += (bytes + bytes / 3) / CHUNK_SIZE + 2;
        }
        if self.space.free_chunks() >= need {
            return Ok(());
        }
        self.mark_sweep()?;
        if self.space.free_chunks() >= need {
            return Ok(());
        }
        Err(GcError::OutOfMemory {
            requested: used,
            max_heap: self.config.max_heap,
        })
    }

    fn minor_copy(&mut self, scan: &mut Vec<usize>) -> Result<()> {
        let mut roots = std::mem::take(&mut self.roots);
        let mut result = Ok(());
        roots.for_each_slot(|slot| {
            if result.is_ok() {
                result = self.forward_slot(slot, scan);
            }
        });
        self.roots = roots;
        result?;
        let remembered = std::mem::take(&mut self.remembered);
        for &obj in &remembered {
            self.trace(obj, scan, Self::forward_slot)?;
            // SAFETY: remembered objects are live old headered objects.
            unsafe { *(obj as *mut u64) |= FLAG_TRACK_YOUNG_PTRS };
        }
        self.remembered = remembered;
        self.remembered.clear();
        let cards = std::mem::take(&mut self.dirty_cards);
        for &card in &cards {
            let chunk = self.space.use_of(card);
            if chunk == ChunkUse::OldHeaderless {
                self.old
                    .objects_in_card(&self.space, card, |obj| scan.push(obj));
            }
            if matches!(
                chunk,
                ChunkUse::OldHeaderless | ChunkUse::OldHeadered | ChunkUse::LargeHead
            ) {
                // SAFETY: card lies in the heap range.
                unsafe { *self.space.card_ptr(card) = 1 };
            }
        }
        self.dirty_cards = cards;
        self.dirty_cards.clear();
        while let Some(obj) = scan.pop() {
            self.trace(obj, scan, Self::forward_slot)?;
        }
        Ok(())
    }

    /// Applies `visit` to every reference slot of object `obj`.
    fn trace(&mut self, obj: usize, work: &mut Vec<usize>, visit: impl SlotVisitor) -> Result<()> {
        let ty = self.type_of(obj);
        let shape = self.shapes[ty.0 as usize];
        if shape.item_size == 0 {
            for k in shape.refs_start..shape.refs_start + shape.refs_len {
                let off = self.ref_pool[k as usize] as usize;
                visit(self, (obj + off) as *mut usize, work)?;
            }
        } else if shape.item_refs {
            // SAFETY: obj is an array; its length word is at offset 8.
            let len = unsafe { *((obj + ARRAY_LENGTH_OFFSET as usize) as *const u64) } as usize;
            for i in 0..len {
                visit(
                    self,
                    (obj + ARRAY_ITEMS_OFFSET as usize + 8 * i) as *mut usize,
                    work,
                )?;
            }
        }
        Ok(())
    }

    /// Minor-collection visitor: moves a young referent out of the nursery.
    #[inline(always)]
    fn forward_slot(&mut self, slot: *mut usize, scan: &mut Vec<usize>) -> Result<()> {
        // SAFETY: slot is a reference slot of a live object or a root.
        let v = unsafe { *slot };
        if is_tagged_value(v) {
            return Ok(());
        }
        if let ChunkUse::Nursery(r) = self.space.use_of(v) {
            let new = self.promote(r as usize, v, scan)?;
            // SAFETY: as above.
            unsafe { *slot = new };
        }
        Ok(())
    }

    fn promote(&mut self, region: usize, obj: usize, scan: &mut Vec<usize>) -> Result<usize> {
        if let Some(new) = self.regions[region].forwarded_to(obj) {
            return Ok(new);
        }
        let ty = self.type_of(obj);
        let size = self.size_of(obj, ty);
        let headerless = self.regions[region].headerless;
        let new = self
            .try_alloc_old(headerless, size)
            .ok_or(GcError::OutOfMemory {
                requested: size,
                max_heap: self.config.max_heap,
            })?;
        // SAFETY: obj is a young object of `size` bytes, new a fresh old
        // slot of at least `size` bytes; they do not overlap.
        unsafe {
            std::ptr::copy_nonoverlapping(obj as *const u8, new as *mut u8, size);
            if headerless.is_none() {
                *(new as *mut u64) |= FLAG_TRACK_YOUNG_PTRS;
            }
        }
        self.regions[region].forward(obj, new);
        scan.push(new);
        self.stats.promoted_objects += 1;
        self.stats.promoted_bytes += size as u64;
        Ok(new)
    }

    /// Marks everything reachable from the roots and sweeps the old space.
    fn mark_sweep(&mut self) -> Result<()> {
        let mut stack = std::mem::take(&mut self.scan);
        let mut roots = std::mem::take(&mut self.roots);
        roots.for_each_slot(|slot| {
            let _ = self.mark_slot(slot, &mut stack);
        });
        self.roots = roots;
        // Shared empty arrays hold no references: marking them is enough.
        for &(_, obj) in &self.empty_arrays {
            self.old.mark(&self.space, obj);
        }
        let mut result = Ok(());
        while let Some(obj) = stack.pop() {
            result = self.trace(obj, &mut stack, Self::mark_slot);
            if result.is_err() {
                break;
            }
        }
        stack.clear();
        self.scan = stack;
        let (old, space) = (&self.old, &self.space);
        self.remembered.retain(|&obj| old.is_marked(space, obj));
        for region in &mut self.regions {
            region.clear_marks();
        }
        result?;
        self.old.sweep(&mut self.space);
        self.next_major = self.config.major_threshold.max(2 * self.old.bytes);
        let retained = crate::heap::retain_budget(&self.config, self.next_major);
        self.space.set_retained(retained);
        self.stats.major_collections += 1;
        Ok(())
    }

    /// Major-collection visitor: marks the referent, queueing it if new.
    fn mark_slot(&mut self, slot: *mut usize, stack: &mut Vec<usize>) -> Result<()> {
        // SAFETY: slot is a reference slot of a live object or a root.
        let v = unsafe { *slot };
        if is_tagged_value(v) {
            return Ok(());
        }
        let fresh = match self.space.use_of(v) {
            ChunkUse::Nursery(r) => self.regions[r as usize].mark(v),
            ChunkUse::OldHeadered | ChunkUse::OldHeaderless | ChunkUse::LargeHead => {
                self.old.mark(&self.space, v)
            }
            ChunkUse::Free | ChunkUse::LargeTail => false,
        };
        if fresh {
            stack.push(v);
        }
        Ok(())
    }
}

/// A reference slot holding no reference: a small integer
/// (`Obj::small_int`, low bit 1) or a small float (`Obj::small_float`, low
/// bits `10`), where objects are 8-byte aligned.
#[inline]
fn is_tagged_value(v: usize) -> bool {
    v & 3 != 0
}
