//! `GcHeap`: the state behind a [`crate::Gc`] handle, and its allocation
//! paths.
//!
//! The heap lives in its own allocation (the `Gc` handle holds a raw
//! pointer to it), so its address, the addresses of the regions' free/top
//! words and the card table stay fixed while the handle moves; JIT code
//! and the `extern "C"` slow paths use that address. Allocation: the
//! inline fast path (in `Gc::alloc`) bumps a region; everything else comes
//! here: stress counting, collecting when a region is full, objects too
//! large for the nursery (allocated old, zeroed, with the barrier flag set
//! so a later store of a young reference is recorded), and arrays.

use crate::config::GcConfig;
use crate::error::{GcError, Result};
use crate::layout::{
    array_bytes, check_array_layout, check_layout, ArrayLayout, Layout, TypeId, TypeInfo,
    ARRAY_LENGTH_OFFSET, FLAG_TRACK_YOUNG_PTRS,
};
use crate::nursery::{Region, RegionWords};
use crate::oldspace::{size_class, OldSpace, HEADERED_CLASSES, MAX_SMALL};
use crate::roots::Roots;
use crate::space::{ChunkUse, Space, CHUNK_SIZE};
use crate::stats::GcStats;

/// What the inline fast path needs per type id.
#[derive(Copy, Clone)]
pub(crate) struct FastAlloc {
    /// Region words, null when the type never bump-allocates (arrays,
    /// oversize objects, id 0).
    pub words: *mut RegionWords,
    pub size: usize,
    /// Header word to store, 0 for headerless layouts.
    pub header: u64,
    pub region: u32,
}

/// What tracing needs per type id.
#[derive(Copy, Clone)]
pub(crate) struct Shape {
    /// Fixed size in bytes; 0 for arrays.
    pub size: u32,
    pub refs_start: u32,
    pub refs_len: u32,
    /// Item size of arrays, 0 for fixed layouts.
    pub item_size: u32,
    pub item_refs: bool,
}

/// The heap. Opaque outside the crate; JIT code holds a `*mut GcHeap`.
pub struct GcHeap {
    pub(crate) config: GcConfig,
    pub(crate) space: Space,
    /// Region 0 is the headered nursery.
    pub(crate) regions: Vec<Region>,
    pub(crate) types: Vec<TypeInfo>,
    pub(crate) fast: Vec<FastAlloc>,
    pub(crate) shapes: Vec<Shape>,
    /// Reference offsets of all fixed layouts, sliced by `Shape`.
    pub(crate) ref_pool: Vec<u32>,
    pub(crate) old: OldSpace,
    pub(crate) roots: Roots,
    /// Old headered objects whose barrier fired since the last minor.
    pub(crate) remembered: Vec<usize>,
    /// Start addresses of dirty cards of headerless chunks.
    pub(crate) dirty_cards: Vec<usize>,
    /// Work list of collections (kept to reuse its buffer).
    pub(crate) scan: Vec<usize>,
    pub(crate) stats: GcStats,
    pub(crate) stress_count: u32,
    pub(crate) next_major: usize,
    /// Largest headered object bump-allocated in the nursery.
    pub(crate) max_nursery_object: usize,
    /// Headered size classes young objects can be promoted into (by key),
    /// for the promotion reserve estimate.
    pub(crate) promotion_classes: Vec<bool>,
    /// Number of `true` entries of `promotion_classes`.
    pub(crate) promotion_class_count: usize,
    /// An allocation that may not collect ([`GcHeap::alloc_uncollected`])
    /// found the nursery full, the old space past its threshold, or the
    /// stress period reached: collect at the next safepoint.
    pub(crate) collect_requested: bool,
    /// Set when a collection failed halfway; every later allocation fails.
    pub(crate) poisoned: Option<GcError>,
    /// The error of the last failed `extern "C"` call.
    pub(crate) last_error: Option<GcError>,
    /// The shared empty array of each array type that asked for one
    /// ([`GcHeap::empty_array`]): old, so it never moves, and a root.
    pub(crate) empty_arrays: Vec<(TypeId, usize)>,
}

impl GcHeap {
    pub(crate) fn new(config: GcConfig) -> Result<GcHeap> {
        config.validate()?;
        let space = Space::new(config.max_heap, retain_budget(&config, 0))?;
        let mut heap = GcHeap {
            max_nursery_object: (config.nursery_size / 2).min(MAX_SMALL) & !7,
            promotion_classes: vec![false; HEADERED_CLASSES],
            promotion_class_count: 0,
            next_major: config.major_threshold,
            old: OldSpace::new(space.chunks.len()),
            regions: Vec::new(),
            types: vec![TypeInfo::Fixed(Layout::headered("<no type>", 8, &[]))],
            fast: vec![FastAlloc {
                words: std::ptr::null_mut(),
                size: 0,
                header: 0,
                region: 0,
            }],
            shapes: vec![Shape {
                size: 8,
                refs_start: 0,
                refs_len: 0,
                item_size: 0,
                item_refs: false,
            }],
            ref_pool: Vec::new(),
            roots: Roots::default(),
            empty_arrays: Vec::new(),
            remembered: Vec::new(),
            dirty_cards: Vec::new(),
            scan: Vec::new(),
            stats: GcStats::default(),
            stress_count: 0,
            collect_requested: false,
            poisoned: None,
            last_error: None,
            space,
            config,
        };
        heap.add_region(heap.config.nursery_size, None)?;
        Ok(heap)
    }

    fn stress(&self) -> bool {
        self.config.stress_every.is_some()
    }

    fn add_region(&mut self, capacity: usize, headerless: Option<TypeId>) -> Result<u32> {
        let index = self.regions.len() as u32;
        let n = capacity.div_ceil(CHUNK_SIZE);
        let used = ChunkUse::Nursery(index);
        let first = self
            .space
            .acquire(n, used, used)
            .ok_or(GcError::OutOfMemory {
                requested: capacity,
                max_heap: self.config.max_heap,
            })?;
        let start = self.space.chunk_addr(first);
        let mut region = Region::new(start, capacity, headerless);
        region.set_free(start, self.stress());
        self.regions.push(region);
        Ok(index)
    }

    /// Registers a fixed-size layout.
    pub(crate) fn register_layout(&mut self, layout: Layout) -> Result<TypeId> {
        let layout = check_layout(layout)?;
        let ty = TypeId(self.types.len() as u32);
        let size = layout.size as usize;
        let fast = if layout.headerless {
            let capacity = self.config.nursery_size.max(4 * size);
            let region = self.add_region(capacity, Some(ty))?;
            FastAlloc {
                words: self.regions[region as usize].words,
                size,
                header: 0,
                region,
            }
        } else {
            let nursery = size <= self.max_nursery_object;
            if nursery {
                self.promotion_classes[size_class(size).0] = true;
                self.count_promotion_classes();
            }
            FastAlloc {
                words: if nursery {
                    self.regions[0].words
                } else {
                    std::ptr::null_mut()
                },
                size,
                header: ty.header(),
                region: 0,
            }
        };
        self.shapes.push(Shape {
            size: layout.size,
            refs_start: self.ref_pool.len() as u32,
            refs_len: layout.ref_offsets.len() as u32,
            item_size: 0,
            item_refs: false,
        });
        self.ref_pool.extend_from_slice(&layout.ref_offsets);
        self.fast.push(fast);
        self.types.push(TypeInfo::Fixed(layout));
        Ok(ty)
    }

    /// Registers an array layout.
    pub(crate) fn register_array(&mut self, layout: ArrayLayout) -> Result<TypeId> {
        check_array_layout(&layout)?;
        let ty = TypeId(self.types.len() as u32);
        // Young arrays come in every size up to the largest nursery object.
        let largest = size_class(self.max_nursery_object.max(16)).0;
        self.promotion_classes[..=largest].fill(true);
        self.count_promotion_classes();
        self.shapes.push(Shape {
            size: 0,
            refs_start: 0,
            refs_len: 0,
            item_size: layout.item_size,
            item_refs: layout.items_are_refs,
        });
        self.fast.push(FastAlloc {
            words: std::ptr::null_mut(),
            size: 0,
            header: ty.header(),
            region: 0,
        });
        self.types.push(TypeInfo::Array(layout));
        Ok(ty)
    }

    fn count_promotion_classes(&mut self) {
        self.promotion_class_count = self.promotion_classes.iter().filter(|&&c| c).count();
    }

    pub(crate) fn type_info(&self, ty: TypeId) -> Result<&TypeInfo> {
        match self.types.get(ty.0 as usize) {
            Some(info) if ty.0 != 0 => Ok(info),
            _ => Err(GcError::UnknownType { type_id: ty.0 }),
        }
    }

    /// The size and headerless-ness of fixed-size type `ty`.
    fn fixed(&self, ty: TypeId) -> Result<(usize, bool)> {
        match self.type_info(ty)? {
            TypeInfo::Fixed(l) => Ok((l.size as usize, l.headerless)),
            TypeInfo::Array(a) => Err(GcError::WrongTypeKind {
                type_id: ty.0,
                name: a.name.clone(),
                expected: "a fixed-size",
            }),
        }
    }

    /// Everything `Gc::alloc`'s inline path does not handle.
    pub(crate) fn alloc_slow(&mut self, ty: TypeId) -> Result<usize> {
        let (size, _) = self.fixed(ty)?;
        let fast = self.fast[ty.0 as usize];
        if fast.words.is_null() {
            self.alloc_old(None, size, fast.header)
        } else {
            self.alloc_nursery(fast.region, size, fast.header)
        }
    }

    /// Allocates a zeroed object of fixed-size type `ty` without ever
    /// collecting, for mutators that cannot root every reference they
    /// hold: bumps the type's nursery region while it has room, else
    /// takes a slot in the old space (a new old object gets its barrier
    /// flag or card like any other, so stores of young references into
    /// it are recorded). Sets `collect_requested` when the region is
    /// full, the old space passed its major threshold or the stress
    /// period is reached. Fails only when the address space is exhausted.
    pub(crate) fn alloc_uncollected(&mut self, ty: TypeId) -> Result<usize> {
        let (size, headerless) = self.fixed(ty)?;
        let fast = self.fast[ty.0 as usize];
        let region = (!fast.words.is_null()).then_some(fast.region);
        self.place_uncollected(region, headerless.then_some(ty), size, fast.header)
    }

    /// [`Self::alloc_uncollected`] for array type `ty`: `len` zeroed
    /// items, header and length set; in nursery region 0 when it fits.
    pub(crate) fn alloc_array_uncollected(&mut self, ty: TypeId, len: usize) -> Result<usize> {
        let bytes = self.array_bytes_of(ty, len)?;
        let region = (bytes <= self.max_nursery_object).then_some(0);
        let obj = self.place_uncollected(region, None, bytes, ty.header())?;
        // SAFETY: obj is a fresh object of `bytes` ≥ 16 bytes.
        unsafe { *((obj + ARRAY_LENGTH_OFFSET as usize) as *mut u64) = len as u64 };
        Ok(obj)
    }

    /// The one array of no items of array type `ty`, allocated in the old
    /// space at the first call and kept alive by the heap: an array of
    /// length 0 has nothing to write, so every empty array of `ty` can be
    /// this one. Never collects.
    pub(crate) fn empty_array(&mut self, ty: TypeId) -> Result<usize> {
        if let Some(&(_, obj)) = self.empty_arrays.iter().find(|(t, _)| *t == ty) {
            return Ok(obj);
        }
        let bytes = self.array_bytes_of(ty, 0)?;
        let obj = self.place_uncollected(None, None, bytes, ty.header())?;
        self.empty_arrays.push((ty, obj));
        Ok(obj)
    }

    /// The placement of an uncollected allocation of `size` bytes: a bump
    /// of nursery `region` while it has room, else the old space; counts
    /// stress allocations and asks for collections instead of running
    /// them.
    fn place_uncollected(
        &mut self,
        region: Option<u32>,
        headerless: Option<TypeId>,
        size: usize,
        header: u64,
    ) -> Result<usize> {
        if let Some(e) = &self.poisoned {
            return Err(e.clone());
        }
        if let Some(every) = self.config.stress_every {
            self.stress_count += 1;
            if self.stress_count >= every {
                self.stress_count = 0;
                self.collect_requested = true;
            }
        }
        if let Some(region) = region {
            let stress = self.stress();
            if let Some(obj) = self.regions[region as usize].bump(size, stress) {
                if header != 0 {
                    // SAFETY: obj starts `size` ≥ 8 fresh zeroed bytes.
                    unsafe { *(obj as *mut u64) = header };
                }
                return Ok(obj);
            }
            self.collect_requested = true;
        }
        let obj = self
            .try_alloc_old(headerless, size)
            .ok_or(GcError::OutOfMemory {
                requested: size,
                max_heap: self.config.max_heap,
            })?;
        let obj = self.init_old(obj, headerless, size, header);
        // The caller initialises the object with plain stores, which may
        // be young references: record it as the barrier would.
        self.remember(obj);
        Ok(obj)
    }

    /// Allocates an array of `len` items: header and length set, items 0.
    pub(crate) fn alloc_array(&mut self, ty: TypeId, len: usize) -> Result<usize> {
        let bytes = self.array_bytes_of(ty, len)?;
        let obj = if bytes <= self.max_nursery_object {
            self.alloc_nursery(0, bytes, ty.header())?
        } else {
            self.alloc_old(None, bytes, ty.header())?
        };
        // SAFETY: obj is a fresh object of `bytes` ≥ 16 bytes.
        unsafe { *((obj + ARRAY_LENGTH_OFFSET as usize) as *mut u64) = len as u64 };
        Ok(obj)
    }

    /// The size in bytes of an array of type `ty` with `len` items.
    fn array_bytes_of(&self, ty: TypeId, len: usize) -> Result<usize> {
        let (item_size, name) = match self.type_info(ty)? {
            TypeInfo::Array(a) => (a.item_size, &a.name),
            TypeInfo::Fixed(l) => {
                return Err(GcError::WrongTypeKind {
                    type_id: ty.0,
                    name: l.name.clone(),
                    expected: "an array",
                })
            }
        };
        let bytes = array_bytes(item_size, len)
            .filter(|&b| b <= self.config.max_heap)
            .ok_or_else(|| GcError::TooLarge {
                name: name.clone(),
                bytes: len as u128 * item_size as u128 + 16,
            })?;
        Ok(bytes)
    }

    /// Counts an allocation for stress mode; collects when it is due.
    fn stress_tick(&mut self) -> Result<()> {
        if let Some(every) = self.config.stress_every {
            self.stress_count += 1;
            if self.stress_count >= every {
                self.stress_count = 0;
                self.collect_minor(std::ptr::null_mut())?;
            }
        }
        Ok(())
    }

    /// Bump-allocates `size` zeroed bytes in `region`, collecting first if
    /// stress mode says so or the region is full, and stores `header`
    /// (unless 0). `size` never exceeds the region's capacity.
    pub(crate) fn alloc_nursery(&mut self, region: u32, size: usize, header: u64) -> Result<usize> {
        if let Some(e) = &self.poisoned {
            return Err(e.clone());
        }
        self.stress_tick()?;
        let stress = self.stress();
        let obj = match self.regions[region as usize].bump(size, stress) {
            Some(obj) => obj,
            None => {
                self.collect_minor(std::ptr::null_mut())?;
                let r = &mut self.regions[region as usize];
                r.bump(size, stress)
                    .expect("an emptied region holds any nursery object")
            }
        };
        if header != 0 {
            // SAFETY: obj starts `size` ≥ 8 fresh bytes of the region.
            unsafe { *(obj as *mut u64) = header };
        }
        Ok(obj)
    }

    /// Allocates `size` zeroed bytes directly in the old space: in the
    /// class of headerless layout `headerless`, else headered (small class
    /// or large object) with `header` stored. May run a major collection
    /// first. A new headered object gets its barrier flag, unless its card
    /// is dirty: then it goes to the remembered set instead (barrier.rs,
    /// invariants 2 and 3).
    pub(crate) fn alloc_old(
        &mut self,
        headerless: Option<TypeId>,
        size: usize,
        header: u64,
    ) -> Result<usize> {
        if let Some(e) = &self.poisoned {
            return Err(e.clone());
        }
        self.stress_tick()?;
        if self.old.bytes + size > self.next_major {
            self.collect_major(std::ptr::null_mut())?;
        }
        let obj = match self.try_alloc_old(headerless, size) {
            Some(obj) => obj,
            None => {
                self.collect_major(std::ptr::null_mut())?;
                self.try_alloc_old(headerless, size)
                    .ok_or(GcError::OutOfMemory {
                        requested: size,
                        max_heap: self.config.max_heap,
                    })?
            }
        };
        Ok(self.init_old(obj, headerless, size, header))
    }

    /// Zeroes the fresh old object `obj` and, if headered, stores its
    /// header with the barrier flag (or records it: see `alloc_old`).
    fn init_old(
        &mut self,
        obj: usize,
        headerless: Option<TypeId>,
        size: usize,
        header: u64,
    ) -> usize {
        // SAFETY: obj is a fresh slot or large object of at least `size`
        // bytes that nothing references yet.
        unsafe {
            std::ptr::write_bytes(obj as *mut u8, 0, size);
        }
        if headerless.is_none() {
            // SAFETY: obj lies in the heap range; its first word is ours.
            let clean = unsafe { *self.space.card_ptr(obj) } != 0;
            let flag = if clean { FLAG_TRACK_YOUNG_PTRS } else { 0 };
            // SAFETY: as above.
            unsafe { *(obj as *mut u64) = header | flag };
            if !clean {
                self.remembered.push(obj);
            }
        }
        self.stats.old_bytes_peak = self.stats.old_bytes_peak.max(self.old.bytes);
        if self.old.bytes > self.next_major {
            self.collect_requested = true;
        }
        obj
    }

    pub(crate) fn try_alloc_old(
        &mut self,
        headerless: Option<TypeId>,
        size: usize,
    ) -> Option<usize> {
        match headerless {
            Some(ty) => {
                let class = self.old.headerless_class(ty, size);
                self.old.alloc_slot(&mut self.space, class)
            }
            None if size <= MAX_SMALL => {
                let class = self.old.headered_class(size);
                self.old.alloc_slot(&mut self.space, class)
            }
            None => self.old.alloc_large(&mut self.space, size),
        }
    }

    /// The type of the object at `obj`, from its region or chunk for
    /// headerless objects and from its header otherwise.
    pub(crate) fn type_of(&self, obj: usize) -> TypeId {
        let headerless = match self.space.use_of(obj) {
            ChunkUse::Nursery(r) => self.regions[r as usize].headerless,
            ChunkUse::OldHeaderless => self.old.headerless_type(&self.space, obj),
            ChunkUse::OldHeadered | ChunkUse::LargeHead => None,
            other => panic!("{obj:#x} is not a GC object (chunk is {other:?})"),
        };
        headerless.unwrap_or_else(|| {
            // SAFETY: obj is a headered object inside the heap.
            let id = unsafe { *(obj as *const u64) } as u32;
            assert!(
                id != 0 && (id as usize) < self.shapes.len(),
                "object {obj:#x} has a corrupt header (type id {id})"
            );
            TypeId(id)
        })
    }

    /// The size in bytes of object `obj` of type `ty`.
    pub(crate) fn size_of(&self, obj: usize, ty: TypeId) -> usize {
        let shape = self.shapes[ty.0 as usize];
        if shape.item_size == 0 {
            shape.size as usize
        } else {
            // SAFETY: obj is an array, whose length word is at offset 8.
            let len = unsafe { *((obj + ARRAY_LENGTH_OFFSET as usize) as *const u64) };
            array_bytes(shape.item_size, len as usize).expect("array size was checked")
        }
    }
}

/// How many bytes of freed chunks keep their pages (`space.rs`): twice the
/// major-collection threshold, or the next major's trigger if that is more.
/// The old space fills that much with objects that die before a major
/// collection frees them, and reusing their pages saves a page fault per
/// 4 KiB (Lua's sieve, which frees and reallocates large arrays: 80k page
/// faults with every chunk returned, 15k with this budget).
pub(crate) fn retain_budget(config: &GcConfig, next_major: usize) -> usize {
    (2 * config.major_threshold).max(next_major)
}
