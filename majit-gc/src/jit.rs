//! The contract with JIT code: stable addresses and `extern "C"` slow
//! paths.
//!
//! **Inline allocation** (both kinds): `r = [free_addr]; n = r + size;
//! if n > [top_addr] goto slow; [free_addr] = n`. Memory from either path
//! is zeroed. Headered objects then get their header word stored at
//! offset 0: `type_id` (no flags) as a 64-bit store. Headerless objects
//! get nothing. In stress mode `top == free`, so every allocation takes
//! the slow path.
//!
//! **Slow paths** (System V / AAPCS64 C calls, arguments in registers,
//! object address returned in the return register): `heap` is
//! [`JitGcInfo::heap`]; `frame` points at a [`JitFrameRoots`] whose gcmap
//! marks the frame slots holding references at this call (null: none).
//! The slow path may collect: it updates the marked slots, so the caller
//! reloads its references from them. It returns 0 only on failure (out
//! of memory, bad argument); `Gc::take_jit_error` then says why.
//! - `malloc_nursery(heap, size, frame)`: `size` bytes for a headered
//!   object (header not written: the caller stores it next, with no
//!   collection point in between).
//! - `malloc_nursery_headerless(heap, type_id, frame)`: one object of a
//!   headerless layout.
//! - `malloc_varsize(heap, type_id, length, frame)`: an array with header
//!   and length written.
//! - `write_barrier(heap, obj)`: the barrier's slow path. The inline test
//!   before a reference store into `obj`: the card byte at
//!   `card_table_biased + (obj >> card_shift)` is nonzero (any object), or
//!   for a known headered object bit `wb_flag_mask` of the byte at
//!   `obj + wb_flag_byte_offset`; see [`crate::barrier`].
//! - `collect(heap, frame)`: a minor collection.
//! - `push_frame(heap, frame)` / `pop_frame(heap)`: register a frame for
//!   collections triggered by calls out of JIT code.

use crate::error::GcError;
use crate::gc::Gc;
use crate::heap::GcHeap;
use crate::layout::{
    TypeId, TypeInfo, ARRAY_ITEMS_OFFSET, ARRAY_LENGTH_OFFSET, FLAG_TRACK_YOUNG_PTRS, HEADER_SIZE,
};
use crate::roots::JitFrameRoots;
use crate::space::CARD_SHIFT;

/// The allocation words of one headerless layout's region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderlessRegionInfo {
    pub type_id: u32,
    /// Object size in bytes.
    pub size: usize,
    pub free_addr: usize,
    pub top_addr: usize,
}

/// Everything a backend needs to emit allocation and barrier code.
/// Addresses stay valid while the `Gc` lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JitGcInfo {
    /// First argument of every slow path.
    pub heap: usize,
    /// Headered nursery words.
    pub nursery_free_addr: usize,
    pub nursery_top_addr: usize,
    /// Largest size `call_malloc_nursery` may request; larger objects must
    /// use the slow path directly (it allocates them in the old space).
    pub max_nursery_object: usize,
    /// Headerless regions, one per headerless layout registered so far.
    pub headerless: Vec<HeaderlessRegionInfo>,
    /// `extern "C" fn(heap, size, frame) -> usize`
    pub malloc_nursery_fn: usize,
    /// `extern "C" fn(heap, type_id, frame) -> usize`
    pub malloc_nursery_headerless_fn: usize,
    /// `extern "C" fn(heap, type_id, length, frame) -> usize`
    pub malloc_varsize_fn: usize,
    /// `extern "C" fn(heap, obj)`
    pub write_barrier_fn: usize,
    /// `extern "C" fn(heap, frame) -> usize` (1 on success, 0 on failure)
    pub collect_fn: usize,
    /// The address of the byte that is nonzero while the heap asks for a
    /// collection ([`Gc::collect_requested`]): helpers that
    /// allocate without collecting set it, and `cond_call_gc_collect`
    /// calls `collect_fn` when it is set.
    pub collect_requested_addr: usize,
    /// `extern "C" fn(heap, frame)`
    pub push_frame_fn: usize,
    /// `extern "C" fn(heap)`
    pub pop_frame_fn: usize,
    /// The address of the word naming the innermost registered frame (a
    /// `*mut JitFrameRoots`, null for none): compiled code registers a
    /// frame itself with `frame.prev = *frames; *frames = frame` and
    /// unregisters it with `*frames = frame.prev`.
    pub frames_addr: usize,
    /// Header size; the header word holds the type id in its low 32 bits.
    pub header_size: u32,
    /// Header test, for objects known to be headered:
    /// `byte [obj + wb_flag_byte_offset] & wb_flag_mask != 0` → call
    /// `write_barrier_fn`.
    pub wb_flag_byte_offset: u32,
    pub wb_flag_mask: u8,
    /// Card test, valid for every object (the only one for headerless
    /// objects): `byte [card_table_biased + (obj >> card_shift)] != 0` →
    /// call `write_barrier_fn`.
    pub card_table_biased: usize,
    pub card_shift: u32,
    pub array_length_offset: u32,
    pub array_items_offset: u32,
}

impl JitGcInfo {
    /// The region of headerless layout `ty`.
    pub fn headerless_region(&self, ty: TypeId) -> Option<&HeaderlessRegionInfo> {
        self.headerless.iter().find(|r| r.type_id == ty.0)
    }

    /// Re-reads [`JitGcInfo::headerless`] from the heap, so it also lists
    /// the layouts registered after this snapshot was taken (every other
    /// field never changes while the heap lives).
    ///
    /// # Safety
    /// `self.heap` is the heap of a live `Gc`, and no `&mut` access to
    /// that heap (an allocation, a collection, a registration) runs during
    /// the call.
    pub unsafe fn refresh_headerless(&mut self) {
        self.headerless = headerless_regions(&*(self.heap as *const GcHeap));
    }
}

/// The regions of every headerless layout `heap` has registered.
fn headerless_regions(heap: &GcHeap) -> Vec<HeaderlessRegionInfo> {
    heap.regions
        .iter()
        .filter_map(|r| {
            let ty = r.headerless?;
            Some(HeaderlessRegionInfo {
                type_id: ty.0,
                size: heap.shapes[ty.0 as usize].size as usize,
                free_addr: r.words as usize,
                top_addr: r.words as usize + 8,
            })
        })
        .collect()
}

impl Gc {
    /// The JIT contract of this heap. Regions of headerless layouts
    /// registered later are not listed until
    /// [`JitGcInfo::refresh_headerless`].
    pub fn jit_info(&self) -> JitGcInfo {
        let heap = self.heap();
        let words = heap.regions[0].words as usize;
        let headerless = headerless_regions(heap);
        JitGcInfo {
            heap: self.heap_ptr() as usize,
            nursery_free_addr: words,
            nursery_top_addr: words + 8,
            max_nursery_object: heap.max_nursery_object,
            headerless,
            malloc_nursery_fn: majit_gc_malloc_nursery as *const () as usize,
            malloc_nursery_headerless_fn: majit_gc_malloc_nursery_headerless as *const () as usize,
            malloc_varsize_fn: majit_gc_malloc_varsize as *const () as usize,
            write_barrier_fn: majit_gc_write_barrier as *const () as usize,
            collect_fn: majit_gc_collect as *const () as usize,
            collect_requested_addr: self.collect_requested_addr() as usize,
            push_frame_fn: majit_gc_push_frame as *const () as usize,
            pop_frame_fn: majit_gc_pop_frame as *const () as usize,
            frames_addr: std::ptr::addr_of!(heap.roots.frames) as usize,
            header_size: HEADER_SIZE,
            wb_flag_byte_offset: 4,
            wb_flag_mask: (FLAG_TRACK_YOUNG_PTRS >> 32) as u8,
            card_table_biased: heap.space.card_table_biased(),
            card_shift: CARD_SHIFT,
            array_length_offset: ARRAY_LENGTH_OFFSET,
            array_items_offset: ARRAY_ITEMS_OFFSET,
        }
    }
}

/// Stores the error for `take_jit_error` and returns 0.
fn fail(heap: &mut GcHeap, e: GcError) -> usize {
    heap.last_error = Some(e);
    0
}

/// Slow path of `call_malloc_nursery`: `size` zeroed bytes for a headered
/// object whose header the caller writes.
///
/// # Safety
/// `heap` is [`JitGcInfo::heap`] of a live `Gc` not borrowed elsewhere for
/// the call; `frame` is null or valid as for `Gc::push_jit_frame`.
pub unsafe extern "C" fn majit_gc_malloc_nursery(
    heap: *mut GcHeap,
    size: usize,
    frame: *mut JitFrameRoots,
) -> usize {
    let heap = &mut *heap;
    if size < 8 || !size.is_multiple_of(8) || size > heap.config.max_heap {
        let e = GcError::BadLayout {
            name: "<call_malloc_nursery>".into(),
            reason: format!("size {size} is not a positive multiple of 8 within the heap"),
        };
        return fail(heap, e);
    }
    with_frame(heap, frame, |heap| {
        if size <= heap.max_nursery_object {
            heap.alloc_nursery(0, size, 0)
        } else {
            // Old and unheadered until the caller stores the header (which
            // clears the flags): remember it so the next minor collection
            // traces it and then sets its barrier flag.
            let obj = heap.alloc_old(None, size, 0)?;
            heap.remembered.push(obj);
            Ok(obj)
        }
    })
}

/// Slow path of `call_malloc_nursery_headerless`: one zeroed object of
/// headerless layout `type_id`.
///
/// # Safety
/// As for [`majit_gc_malloc_nursery`].
pub unsafe extern "C" fn majit_gc_malloc_nursery_headerless(
    heap: *mut GcHeap,
    type_id: u32,
    frame: *mut JitFrameRoots,
) -> usize {
    let heap = &mut *heap;
    let ty = TypeId(type_id);
    match heap.type_info(ty) {
        Ok(TypeInfo::Fixed(l)) if l.headerless => {}
        Ok(info) => {
            let e = GcError::WrongTypeKind {
                type_id,
                name: info.name().to_string(),
                expected: "a headerless",
            };
            return fail(heap, e);
        }
        Err(e) => return fail(heap, e),
    }
    with_frame(heap, frame, |heap| heap.alloc_slow(ty))
}

/// Slow path of `call_malloc_nursery_varsize`: an array of `length` zeroed
/// items with header and length written.
///
/// # Safety
/// As for [`majit_gc_malloc_nursery`].
pub unsafe extern "C" fn majit_gc_malloc_varsize(
    heap: *mut GcHeap,
    type_id: u32,
    length: usize,
    frame: *mut JitFrameRoots,
) -> usize {
    with_frame(&mut *heap, frame, |heap| {
        heap.alloc_array(TypeId(type_id), length)
    })
}

/// The write barrier's slow path (see [`crate::barrier`]).
///
/// # Safety
/// `heap` as for [`majit_gc_malloc_nursery`]; `obj` a reference of it.
pub unsafe extern "C" fn majit_gc_write_barrier(heap: *mut GcHeap, obj: usize) {
    (*heap).remember(obj);
}

/// A minor collection; returns 1, or 0 on failure.
///
/// # Safety
/// As for [`majit_gc_malloc_nursery`].
pub unsafe extern "C" fn majit_gc_collect(heap: *mut GcHeap, frame: *mut JitFrameRoots) -> usize {
    let heap = &mut *heap;
    match heap.collect_minor(frame) {
        Ok(()) => 1,
        Err(e) => fail(heap, e),
    }
}

/// Registers a JIT frame (see `Gc::push_jit_frame`).
///
/// # Safety
/// As for `Gc::push_jit_frame`.
pub unsafe extern "C" fn majit_gc_push_frame(heap: *mut GcHeap, frame: *mut JitFrameRoots) {
    (*heap).roots.push_frame(frame);
}

/// Unregisters the most recently pushed JIT frame.
///
/// # Safety
/// `heap` as for [`majit_gc_malloc_nursery`].
pub unsafe extern "C" fn majit_gc_pop_frame(heap: *mut GcHeap) {
    (*heap).roots.pop_frame();
}

/// Runs `f` with `frame` registered as a root frame; maps errors to 0.
fn with_frame(
    heap: &mut GcHeap,
    frame: *mut JitFrameRoots,
    f: impl FnOnce(&mut GcHeap) -> crate::Result<usize>,
) -> usize {
    // SAFETY: compiled code passes its own frame, valid during the call.
    let result = unsafe { crate::roots::Roots::with_frame(heap, frame, f) };
    result.unwrap_or_else(|e| fail(heap, e))
}
