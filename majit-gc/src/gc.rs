//! `Gc`: the public handle of one heap.
//!
//! `Gc` owns a [`GcHeap`] through a raw pointer, so moving the handle
//! never moves the heap: the address handed to JIT code
//! ([`JitGcInfo::heap`](crate::JitGcInfo)) and the region words stay valid
//! for the handle's whole life. One heap per interpreter thread; `Gc` is
//! neither `Send` nor `Sync`.
//!
//! Rules for the caller: every reference held across a call that may
//! allocate or collect (`alloc*`, `collect_*`, JIT code) must be in a root
//! (shadow stack, scope, registered JIT frame), and is read back from it
//! afterwards because the object may have moved. Field access takes byte
//! offsets inside the object (the header of headered objects is at 0, so
//! their first field is at 8); offsets are checked against the heap's
//! address range, not against the object's size.

use crate::config::GcConfig;
use crate::error::{GcError, Result};
use crate::heap::GcHeap;
use crate::layout::{ArrayLayout, Layout, TypeId, ARRAY_LENGTH_OFFSET};
use crate::nursery::RegionWords;
use crate::roots::{GcRef, JitFrameRoots, RootScope};
use crate::stats::GcStats;
use std::ptr::NonNull;

/// A garbage-collected heap.
///
/// ```
/// use majit_gc::{Gc, GcConfig, Layout};
/// let mut gc = Gc::new(GcConfig::default()).unwrap();
/// // A headerless list node {value: i64 at 0, next: ref at 8}.
/// let node = gc.register_layout(Layout::headerless("Node", 16, &[8])).unwrap();
/// let head = gc.push_root(majit_gc::GcRef::NULL);
/// for i in 0..1000 {
///     let n = gc.alloc(node).unwrap();
///     gc.write_word(n, 0, i);
///     let next = gc.root(head);
///     gc.write_ref(n, 8, next);
///     gc.set_root(head, n);
/// }
/// gc.collect_minor().unwrap();
/// let first = gc.root(head);
/// assert_eq!(gc.read_word(first, 0), 999);
/// ```
pub struct Gc {
    heap: NonNull<GcHeap>,
}

impl Drop for Gc {
    fn drop(&mut self) {
        // SAFETY: `heap` came from Box::into_raw in `Gc::new` and is freed
        // only here.
        drop(unsafe { Box::from_raw(self.heap.as_ptr()) });
    }
}

impl Gc {
    /// A new heap. Reserves `config.max_heap` bytes of address space.
    pub fn new(config: GcConfig) -> Result<Gc> {
        let heap = Box::new(GcHeap::new(config)?);
        Ok(Gc {
            heap: NonNull::from(Box::leak(heap)),
        })
    }

    #[inline]
    pub(crate) fn heap(&self) -> &GcHeap {
        // SAFETY: the heap lives as long as the handle; `&self` excludes
        // a concurrent `&mut` through this handle.
        unsafe { self.heap.as_ref() }
    }

    #[inline]
    pub(crate) fn heap_mut(&mut self) -> &mut GcHeap {
        // SAFETY: as in `heap`, with `&mut self` making the access unique.
        unsafe { self.heap.as_mut() }
    }

    /// The heap's address, for JIT code and the `extern "C"` entry points.
    pub fn heap_ptr(&self) -> *mut GcHeap {
        self.heap.as_ptr()
    }

    /// The configuration the heap runs with.
    pub fn config(&self) -> &GcConfig {
        &self.heap().config
    }

    /// Registers a fixed-size layout; headerless layouts get their own
    /// nursery region.
    pub fn register_layout(&mut self, layout: Layout) -> Result<TypeId> {
        self.heap_mut().register_layout(layout)
    }

    /// Registers a headered array layout.
    pub fn register_array(&mut self, layout: ArrayLayout) -> Result<TypeId> {
        self.heap_mut().register_array(layout)
    }

    /// The layout registered as `ty`.
    pub fn layout(&self, ty: TypeId) -> Result<&Layout> {
        match self.heap().type_info(ty)? {
            crate::layout::TypeInfo::Fixed(l) => Ok(l),
            crate::layout::TypeInfo::Array(a) => Err(GcError::WrongTypeKind {
                type_id: ty.0,
                name: a.name.clone(),
                expected: "a fixed-size",
            }),
        }
    }

    /// Allocates a zeroed object of fixed-size type `ty` (header set for
    /// headered types). May collect.
    #[inline]
    pub fn alloc(&mut self, ty: TypeId) -> Result<GcRef> {
        match self.bump(ty) {
            Some(obj) => Ok(obj),
            None => self.heap_mut().alloc_slow(ty).map(GcRef),
        }
    }

    /// The inline fast path: a bump of `ty`'s region up to its `top`
    /// (never taken in stress mode, where `top == free`).
    #[inline]
    fn bump(&mut self, ty: TypeId) -> Option<GcRef> {
        let fast = *self.heap().fast.get(ty.0 as usize)?;
        // SAFETY: region words stay allocated while the heap lives, and
        // `&mut self` excludes other accesses; sizes are ≥ 8.
        unsafe { RegionWords::bump(fast.words, fast.size, fast.header) }.map(GcRef)
    }

    /// Allocates a zeroed object of fixed-size type `ty` (header set for
    /// headered types) and **never collects**: for a mutator that holds
    /// references outside any root (temporaries in Rust locals), which
    /// collects only at safepoints of its own. When the nursery region
    /// is full the object comes from the old space, and
    /// [`Gc::collect_requested`] turns true; the mutator then collects
    /// at its next safepoint. Fails only when the heap's address space is
    /// exhausted (`OutOfMemory`).
    ///
    /// ```
    /// # use majit_gc::{Gc, GcConfig, Layout};
    /// let mut gc = Gc::new(GcConfig { nursery_size: 1024, ..GcConfig::default() }).unwrap();
    /// let node = gc.register_layout(Layout::headerless("Node", 16, &[8])).unwrap();
    /// let mut last = majit_gc::GcRef::NULL;
    /// for _ in 0..200 {
    ///     let n = gc.alloc_uncollected(node).unwrap(); // nothing moves
    ///     gc.write_ref(n, 8, last);
    ///     last = n;
    /// }
    /// assert!(gc.collect_requested());
    /// let mut roots = [last.addr()];
    /// gc.with_roots(&mut roots, |gc| gc.collect_minor()).unwrap();
    /// assert!(!gc.collect_requested());
    /// ```
    #[inline]
    pub fn alloc_uncollected(&mut self, ty: TypeId) -> Result<GcRef> {
        match self.bump(ty) {
            Some(obj) => Ok(obj),
            None => self.heap_mut().alloc_uncollected(ty).map(GcRef),
        }
    }

    /// [`Gc::alloc_uncollected`] for array type `ty`: `len` zeroed items,
    /// header and length set. Fails when the array is larger than
    /// `max_heap` or the address space is exhausted.
    pub fn alloc_array_uncollected(&mut self, ty: TypeId, len: usize) -> Result<GcRef> {
        self.heap_mut().alloc_array_uncollected(ty, len).map(GcRef)
    }

    /// The shared array of no items of array type `ty` (see
    /// [`Array::empty`](crate::Array::empty)). Never collects.
    pub fn empty_array(&mut self, ty: TypeId) -> Result<GcRef> {
        self.heap_mut().empty_array(ty).map(GcRef)
    }

    /// Whether an allocation that could not collect asked for a
    /// collection (see [`Gc::alloc_uncollected`]); cleared by every minor
    /// collection.
    #[inline]
    pub fn collect_requested(&self) -> bool {
        self.heap().collect_requested
    }

    /// The address of the flag [`Gc::collect_requested`] reads, for
    /// mutators that check it with a plain load (it stays valid while
    /// the heap lives; only the heap writes it).
    pub fn collect_requested_addr(&self) -> *const bool {
        // SAFETY: the heap lives as long as the handle; no reference is
        // created, only the field's address.
        unsafe { std::ptr::addr_of!((*self.heap_ptr()).collect_requested) }
    }

    /// The region words of fixed-size layout `ty`, its object size and
    /// the header word a bump must store (0 for headerless layouts), for
    /// an inline bump outside the heap (the contract of [`crate::jit`]);
    /// `None` for types that never bump (arrays, oversize objects).
    pub fn region_words(&self, ty: TypeId) -> Option<(NonNull<RegionWords>, usize, u64)> {
        let fast = self.heap().fast.get(ty.0 as usize)?;
        Some((NonNull::new(fast.words)?, fast.size, fast.header))
    }

    /// The words of the headered nursery region (where arrays go) and the
    /// largest object it takes, for an inline bump outside the heap (the
    /// contract of [`crate::jit`]).
    pub fn headered_region_words(&self) -> (NonNull<RegionWords>, usize) {
        let heap = self.heap();
        let words = NonNull::new(heap.regions[0].words).expect("a region owns its words");
        (words, heap.max_nursery_object)
    }

    /// Allocates an array of `len` zeroed items. May collect.
    pub fn alloc_array(&mut self, ty: TypeId, len: usize) -> Result<GcRef> {
        self.heap_mut().alloc_array(ty, len).map(GcRef)
    }

    /// `call_malloc_nursery(size)` for Rust callers (reference executor
    /// adapters): `size` zeroed bytes (a positive multiple of 8) for a
    /// headered object whose header the caller stores before anything
    /// else can collect. May collect.
    pub fn malloc_nursery_raw(&mut self, size: usize) -> Result<GcRef> {
        let heap = self.heap_ptr();
        // SAFETY: heap is this handle's live heap, borrowed uniquely via
        // `&mut self`; no frame is passed.
        let obj = unsafe { crate::jit::majit_gc_malloc_nursery(heap, size, std::ptr::null_mut()) };
        match obj {
            0 => Err(self
                .take_jit_error()
                .expect("a failed slow path leaves its error")),
            obj => Ok(GcRef(obj)),
        }
    }

    /// The write barrier's slow path, without the inline test: records
    /// `obj` if it is old and not recorded yet (what `cond_call_gc_wb`
    /// does when its test fires; calling it needlessly is harmless).
    pub fn write_barrier(&mut self, obj: GcRef) {
        self.heap_mut().remember(obj.0);
    }

    /// Runs `f` with every entry of `roots` rooted, then writes the
    /// (possibly moved) references back. Entries that are null or not
    /// heap addresses are left alone; a heap entry must be an object start.
    ///
    /// ```
    /// # use majit_gc::{Gc, GcConfig, Layout};
    /// # let mut gc = Gc::new(GcConfig { stress_every: Some(1), ..GcConfig::default() }).unwrap();
    /// # let ty = gc.register_layout(Layout::headerless("Node", 16, &[8])).unwrap();
    /// let mut held = [gc.alloc(ty).unwrap().addr(), 0, 0x1000];
    /// let fresh = gc.with_roots(&mut held, |gc| gc.alloc(ty)).unwrap();
    /// assert!(!gc.is_young(majit_gc::GcRef(held[0])));
    /// assert_eq!(held[1..], [0, 0x1000]);
    /// # let _ = fresh;
    /// ```
    pub fn with_roots<R>(&mut self, roots: &mut [usize], f: impl FnOnce(&mut Gc) -> R) -> R {
        let scope = self.enter_scope();
        for &r in roots.iter() {
            self.push_root(GcRef(r));
        }
        let result = f(self);
        for (k, r) in roots.iter_mut().enumerate() {
            *r = self.root(scope.index(k)).0;
        }
        self.leave_scope(scope);
        result
    }

    /// The length of array `obj`.
    #[inline]
    pub fn array_len(&self, obj: GcRef) -> usize {
        self.read_word(obj, ARRAY_LENGTH_OFFSET) as usize
    }

    /// The address of the 8-byte word at `obj + offset`, checked to lie
    /// inside the heap.
    #[inline]
    fn word_addr(&self, obj: GcRef, offset: u32) -> usize {
        let addr = obj.0.wrapping_add(offset as usize);
        let space = &self.heap().space;
        assert!(
            addr.wrapping_sub(space.base) <= space.len - 8 && !obj.is_null(),
            "GC access outside the heap: object {:#x} offset {offset}",
            obj.0
        );
        addr
    }

    /// Reads the 8-byte word at byte `offset` of `obj`.
    #[inline]
    pub fn read_word(&self, obj: GcRef, offset: u32) -> u64 {
        let addr = self.word_addr(obj, offset);
        // SAFETY: addr lies inside the heap mapping (checked).
        unsafe { (addr as *const u64).read_unaligned() }
    }

    /// Writes a non-reference 8-byte word (no barrier).
    #[inline]
    pub fn write_word(&mut self, obj: GcRef, offset: u32, value: u64) {
        let addr = self.word_addr(obj, offset);
        // SAFETY: addr lies inside the heap mapping (checked).
        unsafe { (addr as *mut u64).write_unaligned(value) }
    }

    /// Reads a reference field.
    #[inline]
    pub fn read_ref(&self, obj: GcRef, offset: u32) -> GcRef {
        GcRef(self.read_word(obj, offset) as usize)
    }

    /// Writes a reference field, with the write barrier.
    #[inline]
    pub fn write_ref(&mut self, obj: GcRef, offset: u32, value: GcRef) {
        self.write_word(obj, offset, value.0 as u64);
        let heap = self.heap_mut();
        if heap.needs_barrier(obj.0) {
            heap.remember(obj.0);
        }
    }

    /// The type of `obj` (from its region or chunk if headerless, from its
    /// header otherwise).
    pub fn type_of(&self, obj: GcRef) -> TypeId {
        self.word_addr(obj, 0);
        self.heap().type_of(obj.0)
    }

    /// Whether `obj` is in a nursery region.
    pub fn is_young(&self, obj: GcRef) -> bool {
        matches!(
            self.heap().space.use_of(obj.0),
            crate::space::ChunkUse::Nursery(_)
        )
    }

    // -- shadow stack --

    /// Pushes a root; returns its index.
    #[inline]
    pub fn push_root(&mut self, r: GcRef) -> usize {
        let shadow = &mut self.heap_mut().roots.shadow;
        shadow.push(r);
        shadow.len() - 1
    }

    /// Pushes `refs` (addresses) as roots, in order.
    #[inline]
    pub fn push_roots(&mut self, refs: &[usize]) {
        let shadow = &mut self.heap_mut().roots.shadow;
        shadow.extend(refs.iter().map(|&r| GcRef(r)));
    }

    /// Closes `scope` after writing its first `refs.len()` roots, as the
    /// collector left them, back to `refs`.
    #[inline]
    pub fn leave_scope_into(&mut self, scope: RootScope, refs: &mut [usize]) {
        let shadow = &mut self.heap_mut().roots.shadow;
        let rooted = &shadow[scope.depth()..scope.depth() + refs.len()];
        for (r, g) in refs.iter_mut().zip(rooted) {
            *r = g.0;
        }
        shadow.truncate(scope.depth());
    }

    /// Pops the top root.
    #[inline]
    pub fn pop_root(&mut self) -> Option<GcRef> {
        self.heap_mut().roots.shadow.pop()
    }

    /// The root at index `i` (panics if out of range).
    #[inline]
    pub fn root(&self, i: usize) -> GcRef {
        self.heap().roots.shadow[i]
    }

    /// Replaces the root at index `i`.
    #[inline]
    pub fn set_root(&mut self, i: usize, r: GcRef) {
        self.heap_mut().roots.shadow[i] = r;
    }

    /// Number of roots on the shadow stack.
    pub fn root_depth(&self) -> usize {
        self.heap().roots.shadow.len()
    }

    /// Drops roots down to `depth` (no-op if already lower).
    pub fn truncate_roots(&mut self, depth: usize) {
        self.heap_mut().roots.shadow.truncate(depth);
    }

    /// Opens a root scope: roots pushed from now on are dropped by
    /// [`Gc::leave_scope`]. Resume code uses a scope to keep rebuilt
    /// virtuals alive.
    ///
    /// ```
    /// # use majit_gc::{Gc, GcConfig, Layout};
    /// # let mut gc = Gc::new(GcConfig::default()).unwrap();
    /// # let ty = gc.register_layout(Layout::headered("Pair", 24, &[8, 16])).unwrap();
    /// let scope = gc.enter_scope();
    /// let a = gc.alloc(ty).unwrap();
    /// gc.push_root(a);
    /// let b = gc.alloc(ty).unwrap(); // may move `a`
    /// let a = gc.root(scope.index(0));
    /// gc.write_ref(a, 8, b);
    /// gc.leave_scope(scope);
    /// ```
    pub fn enter_scope(&mut self) -> RootScope {
        RootScope::new(self.root_depth())
    }

    /// Closes `scope`, dropping the roots pushed inside it.
    pub fn leave_scope(&mut self, scope: RootScope) {
        self.truncate_roots(scope.depth());
    }

    // -- JIT frames --

    /// Registers a JIT frame whose gcmap-marked slots are roots until the
    /// matching [`Gc::pop_jit_frame`].
    ///
    /// # Safety
    /// `frame` stays valid (and its gcmap, when not null, well-formed with
    /// every marked slot inside the frame) until it is popped.
    pub unsafe fn push_jit_frame(&mut self, frame: *mut JitFrameRoots) {
        self.heap_mut().roots.push_frame(frame);
    }

    /// Unregisters the most recently pushed JIT frame.
    pub fn pop_jit_frame(&mut self) {
        self.heap_mut().roots.pop_frame();
    }

    // -- collections --

    /// Runs a minor collection (and a major one if the old space passed
    /// its threshold).
    pub fn collect_minor(&mut self) -> Result<()> {
        self.heap_mut().collect_minor(std::ptr::null_mut())
    }

    /// Runs a minor and a major collection.
    pub fn collect_major(&mut self) -> Result<()> {
        self.heap_mut().collect_major(std::ptr::null_mut())
    }

    /// The heap's counters.
    pub fn stats(&self) -> GcStats {
        let heap = self.heap();
        GcStats {
            old_bytes: heap.old.bytes,
            heap_bytes: heap.space.chunks_in_use * crate::space::CHUNK_SIZE,
            next_major_at: heap.next_major,
            ..heap.stats.clone()
        }
    }

    /// The error of the last failed `extern "C"` entry point call (which
    /// returned 0), if any; clears it.
    pub fn take_jit_error(&mut self) -> Option<GcError> {
        self.heap_mut().last_error.take()
    }
}
