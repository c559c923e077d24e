//! The heap of the current thread, for GC objects handled as plain Rust
//! values (the structs of `#[jit_interp]`).
//!
//! Each thread has at most one current heap, shared as an
//! `Rc<RefCell<Gc>>` so the JIT (its `GcAllocator`, the native backend's
//! `JitGcInfo`) can allocate on the same heap. It is created on first use
//! with [`GcConfig::from_env`] (so `MAJIT_NURSERY_SIZE`, `MAJIT_GC_STRESS`
//! and `MAJIT_MAX_HEAP` apply), or set with [`install`].
//!
//! A struct type ([`StructType`], a `static` per struct) is registered in
//! the heap on first use; its type id is cached per heap.
//!
//! **Rooting.** A mutator written in plain Rust keeps references in
//! locals and temporaries the collector cannot see, so [`alloc`] never
//! collects ([`Gc::alloc_uncollected`]): when the nursery is full it
//! allocates in the old space and asks for a collection. The mutator
//! collects only at its **safepoints** ([`safepoint`]), where every live
//! reference is in the slice it passes. In stress mode
//! (`MAJIT_GC_STRESS=N`) every N-th allocation asks for a collection at
//! the next safepoint. Stores of references go through [`write_barrier`].
//!
//! Using the heap while it is borrowed (e.g. calling [`collect`] inside
//! `shared()?.borrow_mut()`) panics with "already borrowed".
//!
//! ```
//! use majit_gc::thread_heap::{self, StructType};
//! static NODE: StructType = StructType::new("Node", 16, &[8]);
//! let mut list = 0;
//! for i in 0..10_000u64 {
//!     let n = thread_heap::alloc(&NODE).unwrap();
//!     // SAFETY: `n` is a fresh 16-byte object; nothing collects here.
//!     unsafe { *(n as *mut u64) = i; *((n + 8) as *mut usize) = list };
//!     thread_heap::write_barrier(n);
//!     list = n;
//!     let mut roots = [list];
//!     thread_heap::safepoint(&mut roots).unwrap(); // may move the list
//!     list = roots[0];
//! }
//! // SAFETY: `list` is the (possibly moved) head node.
//! assert_eq!(unsafe { *(list as *const u64) }, 9_999);
//! ```

use crate::config::GcConfig;
use crate::error::Result;
use crate::gc::Gc;
use crate::heap::GcHeap;
use crate::jit::JitGcInfo;
use crate::layout::{ArrayLayout, Layout, TypeId};
use crate::nursery::RegionWords;
use crate::roots::{GcRef, JitFrameRoots};
use crate::GcError;
use std::cell::Cell;
use std::cell::RefCell;
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::rc::Rc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::thread::LocalKey;

/// A GC struct type known at compile time, headerless or headered.
/// Declare it as a `static` (its identity caches its type id).
pub struct StructType {
    /// For error messages.
    pub name: &'static str,
    /// Object size in bytes (a positive multiple of 8), header included.
    pub size: u32,
    /// Byte offsets of the reference fields.
    pub ref_offsets: &'static [u32],
    /// The object starts with a header word holding its type id, so its
    /// class can be tested ([`class_id`]).
    pub headered: bool,
    key: TypeKey,
    /// The type id in the heap with serial `cached >> 32`, in the low half
    /// (0: none): [`type_id`]'s fast path, so that a class test of plain
    /// code is two thread-local loads and a compare.
    cached: AtomicU64,
}

/// The process-wide index of a [`StructType`] or [`ArrayType`] in every
/// thread heap's id table, assigned on first use (0: not yet).
struct TypeKey(AtomicU32);

/// The next [`TypeKey`].
static NEXT_KEY: AtomicU32 = AtomicU32::new(1);

impl TypeKey {
    const fn new() -> TypeKey {
        TypeKey(AtomicU32::new(0))
    }

    fn get(&self) -> usize {
        let k = self.0.load(Ordering::Relaxed);
        if k != 0 {
            return k as usize;
        }
        let fresh = NEXT_KEY.fetch_add(1, Ordering::Relaxed);
        match self
            .0
            .compare_exchange(0, fresh, Ordering::Relaxed, Ordering::Relaxed)
        {
            Ok(_) => fresh as usize,
            Err(won) => won as usize,
        }
    }
}

impl StructType {
    /// A struct type; see [`Layout::headerless`] for the rules on `size`
    /// and `ref_offsets`.
    pub const fn new(name: &'static str, size: u32, ref_offsets: &'static [u32]) -> StructType {
        StructType {
            name,
            size,
            ref_offsets,
            headered: false,
            key: TypeKey::new(),
            cached: AtomicU64::new(0),
        }
    }

    /// A headered struct type; see [`Layout::headered`] (`size` and
    /// `ref_offsets` count the 8-byte header at offset 0).
    pub const fn headered(
        name: &'static str,
        size: u32,
        ref_offsets: &'static [u32],
    ) -> StructType {
        StructType {
            headered: true,
            ..StructType::new(name, size, ref_offsets)
        }
    }
}

/// A GC array type known at compile time (see [`ArrayLayout`]). Declare
/// it as a `static` (its identity caches its type id).
pub struct ArrayType {
    /// For error messages.
    pub name: &'static str,
    /// 1, 2, 4 or 8 bytes; 8 for references.
    pub item_size: u32,
    /// The items are references the collector traces.
    pub items_are_refs: bool,
    key: TypeKey,
    /// As [`StructType`]'s: the fast path of [`array_type_id`].
    cached: AtomicU64,
}

impl ArrayType {
    /// An array type of `item_size`-byte items.
    pub const fn new(name: &'static str, item_size: u32, items_are_refs: bool) -> ArrayType {
        ArrayType {
            name,
            item_size,
            items_are_refs,
            key: TypeKey::new(),
            cached: AtomicU64::new(0),
        }
    }
}

/// The current heap and the type ids of the struct types it registered.
struct ThreadHeap {
    gc: Rc<RefCell<Gc>>,
    /// By [`StructType`] key.
    ids: Vec<Option<TypeId>>,
}

impl ThreadHeap {
    fn type_id(&mut self, t: &StructType) -> Result<TypeId> {
        self.registered(&t.key, |gc| {
            gc.register_layout(if t.headered {
                Layout::headered(t.name, t.size, t.ref_offsets)
            } else {
                Layout::headerless(t.name, t.size, t.ref_offsets)
            })
        })
    }

    fn array_type_id(&mut self, t: &ArrayType) -> Result<TypeId> {
        self.registered(&t.key, |gc| {
            gc.register_array(ArrayLayout {
                name: t.name.into(),
                item_size: t.item_size,
                items_are_refs: t.items_are_refs,
            })
        })
    }

    /// The type id of the type with `key`, registered by `register` on
    /// first use.
    fn registered(
        &mut self,
        key: &TypeKey,
        register: impl FnOnce(&mut Gc) -> Result<TypeId>,
    ) -> Result<TypeId> {
        let key = key.get();
        if let Some(Some(ty)) = self.ids.get(key) {
            return Ok(*ty);
        }
        let ty = register(&mut self.gc.borrow_mut())?;
        if self.ids.len() <= key {
            self.ids.resize(key + 1, None);
        }
        self.ids[key] = Some(ty);
        Ok(ty)
    }
}

thread_local! {
    static CURRENT: RefCell<Option<ThreadHeap>> = const { RefCell::new(None) };
    /// The serial of the current heap (0: none); serials are unique in the
    /// process, so a cached type id names its heap.
    static SERIAL: Cell<u32> = const { Cell::new(0) };
    /// The class caches filled on this thread ([`is_class`]).
    static FILLED: RefCell<Vec<&'static LocalKey<Cell<u32>>>> = const { RefCell::new(Vec::new()) };
    /// The current heap's address (null: none), for the inline bumps of
    /// [`alloc`] and [`alloc_array`]: residual helpers allocate without
    /// going through `CURRENT`'s `RefCell`s.
    static HEAP: Cell<*mut GcHeap> = const { Cell::new(std::ptr::null_mut()) };
}

/// The next heap serial.
static NEXT_SERIAL: AtomicU32 = AtomicU32::new(1);

/// Makes `gc` the current heap under a fresh serial; returns the previous
/// heap.
fn set_current(c: &mut Option<ThreadHeap>, gc: Gc) -> Option<ThreadHeap> {
    SERIAL.with(|s| s.set(NEXT_SERIAL.fetch_add(1, Ordering::Relaxed)));
    HEAP.with(|h| h.set(gc.heap_ptr()));
    forget_classes();
    c.replace(ThreadHeap {
        gc: Rc::new(RefCell::new(gc)),
        ids: Vec::new(),
    })
}

/// Runs `f` on the current heap, creating it from the environment first
/// if there is none.
fn with_current<R>(f: impl FnOnce(&mut ThreadHeap) -> Result<R>) -> Result<R> {
    CURRENT.with(|c| {
        let mut c = c.borrow_mut();
        if c.is_none() {
            set_current(&mut c, Gc::new(GcConfig::from_env()?)?);
        }
        f(c.as_mut().expect("created above"))
    })
}

/// Makes `gc` the current heap; returns the previous one. Objects of the
/// previous heap must not be used with the new one.
pub fn install(gc: Gc) -> Option<Rc<RefCell<Gc>>> {
    CURRENT.with(|c| set_current(&mut c.borrow_mut(), gc).map(|h| h.gc))
}

/// Removes the current heap (the next use creates a fresh one); returns
/// it. It is freed when the last `Rc` goes.
pub fn take() -> Option<Rc<RefCell<Gc>>> {
    SERIAL.with(|s| s.set(0));
    HEAP.with(|h| h.set(std::ptr::null_mut()));
    forget_classes();
    CURRENT.with(|c| c.borrow_mut().take().map(|h| h.gc))
}

/// The current heap (created from the environment if there is none), for
/// a `GcAllocator` or to read statistics.
pub fn shared() -> Result<Rc<RefCell<Gc>>> {
    with_current(|h| Ok(h.gc.clone()))
}

/// The type id of `t` in the current heap, registering it on first use.
#[inline]
pub fn type_id(t: &StructType) -> Result<TypeId> {
    cached_id(&t.cached, || with_current(|h| h.type_id(t)))
}

/// Whether a headered object whose header holds type id `class` is a
/// `t`, through `cache`, a thread-local of the type's own
/// ([`crate::Headered::class_cache`]) holding its id in this thread's
/// heap (0: not known). The fast path is one thread-local load and a
/// compare, no atomic: a live object's id is never 0, and the caches a
/// thread filled are zeroed when its heap changes (`install`, `take`).
#[inline(always)]
pub fn is_class(t: &StructType, cache: &'static LocalKey<Cell<u32>>, class: u32) -> bool {
    let id = cache.with(Cell::get);
    if id == class {
        return true;
    }
    id == 0 && learn_class(t, cache, class)
}

/// [`is_class`]'s slow path: fills the cache.
#[cold]
#[inline(never)]
fn learn_class(t: &StructType, cache: &'static LocalKey<Cell<u32>>, class: u32) -> bool {
    // A type that cannot be registered has no objects.
    let Ok(ty) = type_id(t) else { return false };
    cache.with(|c| c.set(ty.0));
    FILLED.with(|f| f.borrow_mut().push(cache));
    ty.0 == class
}

/// Zeroes the class caches this thread filled: its heap changed.
fn forget_classes() {
    // (At thread exit `FILLED` may be gone, and so are the objects.)
    let _ = FILLED.try_with(|f| {
        for c in f.borrow_mut().drain(..) {
            c.with(|c| c.set(0));
        }
    });
}

/// The type id cached in `cache` for the current heap, else `register`'s
/// (then cached): a thread-local load, a load and a compare when cached.
#[inline(always)]
fn cached_id(cache: &AtomicU64, register: impl FnOnce() -> Result<TypeId>) -> Result<TypeId> {
    match cached(cache) {
        Some(ty) => Ok(ty),
        None => cache_id(cache, register),
    }
}

/// The type id `cache` holds for the current heap, if any.
#[inline(always)]
fn cached(cache: &AtomicU64) -> Option<TypeId> {
    let (serial, cached) = (SERIAL.with(Cell::get), cache.load(Ordering::Relaxed));
    (serial != 0 && (cached >> 32) as u32 == serial).then_some(TypeId(cached as u32))
}

/// [`cached_id`]'s slow path, out of line so that class tests stay small.
#[cold]
#[inline(never)]
fn cache_id(cache: &AtomicU64, register: impl FnOnce() -> Result<TypeId>) -> Result<TypeId> {
    let ty = register()?;
    let serial = SERIAL.with(Cell::get);
    cache.store(u64::from(serial) << 32 | u64::from(ty.0), Ordering::Relaxed);
    Ok(ty)
}

/// The type id in the header of `obj`, a live headered object of the
/// current heap (a struct of a [`StructType::headered`] type): what a
/// class test compares.
///
/// # Safety
/// `obj` must point to a live headered object (its first word is the
/// header).
#[inline]
pub unsafe fn class_id(obj: usize) -> u32 {
    // SAFETY: the caller's contract; the type id is the header's low half.
    (unsafe { *(obj as *const u64) } & 0xffff_ffff) as u32
}

/// The JIT contract of the current heap ([`Gc::jit_info`]).
pub fn jit_info() -> Result<JitGcInfo> {
    with_current(|h| Ok(h.gc.borrow().jit_info()))
}

/// A zeroed object of type `t`. Never collects (see the module docs);
/// fails only when the heap's address space is exhausted. The common
/// case is an inline bump of the type's nursery region.
#[inline]
pub fn alloc(t: &StructType) -> Result<usize> {
    match bump(t) {
        Some(obj) => Ok(obj),
        None => alloc_slow(t),
    }
}

/// [`alloc`] when the bump fails: no heap yet, the type not registered
/// in it, the region full, stress mode, or a type that never bumps.
#[cold]
#[inline(never)]
fn alloc_slow(t: &StructType) -> Result<usize> {
    with_current(|h| {
        let ty = h.type_id(t)?;
        let obj = h.gc.borrow_mut().alloc_uncollected(ty)?;
        Ok(obj.addr())
    })
}

/// [`alloc`]'s fast path: a bump of `t`'s nursery region in the current
/// heap, or `None`.
#[inline(always)]
fn bump(t: &StructType) -> Option<usize> {
    let ty = cached(&t.cached)?;
    let heap = HEAP.with(Cell::get);
    if heap.is_null() {
        return None;
    }
    // SAFETY: `heap` is the current heap (`HEAP` is set with it and
    // cleared when it goes), whose type table and region words live as
    // long as it; one thread, and nothing runs between these accesses.
    unsafe {
        let table: &[crate::heap::FastAlloc] = &(*heap).fast;
        let fast = *table.get(ty.0 as usize)?;
        RegionWords::bump(fast.words, fast.size, fast.header)
    }
}

/// An array of `len` zeroed items of type `ty` (item size `item_size`)
/// bumped from the headered region at `words`, which takes objects up to
/// `max` bytes; `None` when it does not fit.
///
/// # Safety
/// As [`RegionWords::bump`]'s.
#[inline(always)]
unsafe fn bump_array(
    words: *mut RegionWords,
    max: usize,
    ty: TypeId,
    item_size: u32,
    len: usize,
) -> Option<usize> {
    let bytes = crate::layout::array_bytes(item_size, len).filter(|&b| b <= max)?;
    // SAFETY: the caller's contract; an array is ≥ 16 bytes.
    unsafe {
        let obj = RegionWords::bump(words, bytes, ty.header())?;
        *((obj + crate::layout::ARRAY_LENGTH_OFFSET as usize) as *mut u64) = len as u64;
        Some(obj)
    }
}

/// An array of `len` zeroed items of type `t`. Never collects (see
/// [`alloc`]); fails when the array is larger than `MAJIT_MAX_HEAP` or
/// the heap's address space is exhausted. The common case is an inline
/// bump of the headered nursery region.
#[inline]
pub fn alloc_array(t: &ArrayType, len: usize) -> Result<usize> {
    let heap = HEAP.with(Cell::get);
    if let (Some(ty), false) = (cached(&t.cached), heap.is_null()) {
        // SAFETY: as in `bump`; region 0 is the headered nursery.
        let obj = unsafe {
            let regions: &[crate::nursery::Region] = &(*heap).regions;
            let words = regions[0].words;
            bump_array(words, (*heap).max_nursery_object, ty, t.item_size, len)
        };
        if let Some(obj) = obj {
            return Ok(obj);
        }
    }
    alloc_array_slow(t, len)
}

/// [`alloc_array`] when the bump fails.
#[cold]
#[inline(never)]
fn alloc_array_slow(t: &ArrayType, len: usize) -> Result<usize> {
    // Through the cache, which the fast paths read.
    let ty = array_type_id(t)?;
    with_current(|h| {
        let obj = h.gc.borrow_mut().alloc_array_uncollected(ty, len)?;
        Ok(obj.addr())
    })
}

/// The shared array of no items of type `t` in the current heap (see
/// [`Array::empty`](crate::Array::empty)). Never collects.
pub fn empty_array(t: &ArrayType) -> Result<usize> {
    let ty = array_type_id(t)?;
    with_current(|h| Ok(h.gc.borrow_mut().empty_array(ty)?.addr()))
}

/// [`alloc_array`] for callers that cannot return an error: on failure
/// prints why and exits the process with status 70 (as [`alloc_or_exit`]).
#[inline]
pub fn alloc_array_or_exit(t: &ArrayType, len: usize) -> usize {
    alloc_array(t, len).unwrap_or_else(|e| {
        exit_with(format!(
            "cannot allocate an array of {len} `{}`: {e} (raise MAJIT_MAX_HEAP, or keep less \
             alive)",
            t.name
        ))
    })
}

/// The type id of array type `t` in the current heap, registering it on
/// first use.
#[inline]
pub fn array_type_id(t: &ArrayType) -> Result<TypeId> {
    cached_id(&t.cached, || with_current(|h| h.array_type_id(t)))
}

/// [`alloc`] for callers that cannot return an error: on failure prints
/// what could not be allocated and why to stderr and exits the process
/// with status 70 (the heap is exhausted between two safepoints: nothing
/// can be freed without collecting, and collecting here would free or
/// move objects only Rust locals hold).
#[inline]
pub fn alloc_or_exit(t: &StructType) -> usize {
    alloc(t).unwrap_or_else(|e| {
        exit_with(format!(
            "cannot allocate a `{}`: {e} (raise MAJIT_MAX_HEAP, or keep less alive)",
            t.name
        ))
    })
}

/// The write barrier after storing a reference into `obj` (an object of
/// the current heap): records `obj` if it is old. Cheap for young objects.
#[inline]
pub fn write_barrier(obj: usize) {
    CURRENT.with(|c| {
        if let Some(h) = c.borrow().as_ref() {
            h.gc.borrow_mut().write_barrier(GcRef(obj));
        }
    })
}

/// [`write_barrier`] for a headered object (an array, a headered struct):
/// the header test first, which is exact (an old object not yet recorded
/// has its flag set, a young one never: `barrier.rs`), so the common store
/// costs a load and a test instead of a look-up of the heap.
#[inline]
pub fn write_barrier_headered(obj: usize) {
    // SAFETY: `obj` is a live headered object of the current heap (the
    // caller's handle type says so): its first word is the header.
    if unsafe { *(obj as *const u64) } & crate::layout::FLAG_TRACK_YOUNG_PTRS != 0 {
        write_barrier(obj);
    }
}

/// The current heap as the plain code of `#[jit_interp]` holds it for
/// one run: kept alive, with the addresses its hot paths read (stable
/// while the heap lives) looked up once. The safepoint check is a load
/// ([`RunHeap::collect_requested`]); an allocation is an inline bump of
/// the struct's region ([`Bump`]) whose failure (region full, or always
/// in stress mode, where `top == free`) takes [`alloc`]'s path, which
/// counts stress allocations and asks for collections. Replacing the
/// thread's heap during the run ([`install`], [`take`]) leaves this one
/// allocating on the old heap.
pub struct RunHeap {
    gc: Rc<RefCell<Gc>>,
    requested: *const bool,
    /// The headered region, where arrays are bumped ([`RunHeap::alloc_array`]).
    arrays: NonNull<RegionWords>,
    /// The largest array the region takes, in bytes.
    max_array: usize,
    /// The heap's list of registered frames ([`RunHeap::link`]).
    frames: *mut *mut JitFrameRoots,
}

impl RunHeap {
    /// The current heap (created from the environment if there is none).
    pub fn current() -> Result<RunHeap> {
        let gc = shared()?;
        let (requested, (arrays, max_array), frames) = {
            let g = gc.borrow();
            // SAFETY: the heap lives as long as `gc`; only the field's
            // address is taken (as for `JitGcInfo::frames_addr`).
            let frames = unsafe { std::ptr::addr_of_mut!((*g.heap_ptr()).roots.frames) };
            (
                g.collect_requested_addr(),
                g.headered_region_words(),
                frames,
            )
        };
        Ok(RunHeap {
            gc,
            requested,
            arrays,
            max_array,
            frames,
        })
    }

    /// [`RunHeap::current`] for callers that cannot return an error: on
    /// failure (a bad `MAJIT_*` setting) prints why and exits with
    /// status 70.
    pub fn current_or_exit() -> RunHeap {
        Self::current().unwrap_or_else(|e| exit_with(format!("cannot create the GC heap: {e}")))
    }

    /// The inline allocator of struct type `t` (registered on first use).
    pub fn bump(&self, t: &StructType) -> Result<Bump<'_>> {
        let ty = type_id(t)?;
        let (words, size, header) =
            self.gc
                .borrow()
                .region_words(ty)
                .ok_or_else(|| GcError::BadLayout {
                    name: t.name.into(),
                    reason: "not a fixed-size layout with a nursery region".into(),
                })?;
        Ok(Bump {
            words,
            size,
            header,
            _heap: PhantomData,
        })
    }

    /// The lazy inline allocator of struct type `t`: [`RunHeap::bump`]
    /// on its first allocation, so a run pays only for the types it
    /// allocates.
    pub fn lazy_bump(&self, t: &'static StructType) -> LazyBump<'_> {
        LazyBump {
            heap: self,
            t,
            bump: Cell::new(None),
        }
    }

    /// An array of `len` zeroed items of type `t` bumped inline in the
    /// nursery, or `None` when the caller must take [`alloc_array`] (the
    /// region is full, the array too large, stress mode, or the type not
    /// yet registered: its first array takes the slow path).
    #[inline(always)]
    pub fn alloc_array(&self, t: &ArrayType, len: usize) -> Option<usize> {
        let ty = cached(&t.cached)?;
        // SAFETY: the region words live while the heap does, which `self`
        // keeps alive; one thread, no call between the accesses.
        unsafe { bump_array(self.arrays.as_ptr(), self.max_array, ty, t.item_size, len) }
    }

    /// Whether an allocation asked for a collection since the last one.
    #[inline(always)]
    pub fn collect_requested(&self) -> bool {
        // SAFETY: `requested` points into the heap `self.gc` keeps alive;
        // only the heap writes it, and not during this read (one thread).
        unsafe { *self.requested }
    }

    /// [`collect`] on this heap; on failure (the live objects do not fit
    /// in `MAJIT_MAX_HEAP`) prints why to stderr and exits with status 70.
    #[cold]
    pub fn collect_or_exit(&self, roots: &mut [usize]) {
        let collected = self
            .gc
            .borrow_mut()
            .with_roots(roots, |gc| gc.collect_minor());
        if let Err(e) = collected {
            exit_with(format!(
                "collection failed: {e} (raise MAJIT_MAX_HEAP, or keep less alive)"
            ))
        }
    }
}

/// GC handles that code holds across a call which may collect (the
/// callers of a recursive `#[jit_interp]` interpreter): rooted on the
/// heap's shadow stack by [`RunHeap::root`] until [`Roots::release`] reads
/// them back, moved where the collector moved them. Dropped without a
/// release (an early return), they are only unrooted.
pub struct Roots<'a> {
    heap: &'a RunHeap,
    scope: Option<crate::roots::RootScope>,
}

impl RunHeap {
    /// Roots `handles` (addresses; null and non-heap entries are left
    /// alone) until the returned [`Roots`] is released or dropped. Roots
    /// nest: release them in the reverse order of rooting.
    pub fn root(&self, handles: &[usize]) -> Roots<'_> {
        let mut gc = self.gc.borrow_mut();
        let scope = gc.enter_scope();
        gc.push_roots(handles);
        Roots {
            heap: self,
            scope: Some(scope),
        }
    }
}

impl Roots<'_> {
    /// Writes the rooted handles, possibly moved, back to `handles` (the
    /// slice they were rooted from) and unroots them.
    pub fn release(mut self, handles: &mut [usize]) {
        if let Some(scope) = self.scope.take() {
            self.heap.gc.borrow_mut().leave_scope_into(scope, handles);
        }
    }
}

impl Drop for Roots<'_> {
    fn drop(&mut self) {
        if let Some(scope) = self.scope.take() {
            self.heap.gc.borrow_mut().leave_scope(scope);
        }
    }
}

/// The gcmap of a [`RootFrame`] of `N` handles (`W` words: the bitmap's
/// length, then `N` set bits), made at compile time: declare it as a
/// `static` and pass it to [`RootFrame::new`].
pub struct RootMap<const N: usize, const W: usize>([u64; W]);

impl<const N: usize, const W: usize> RootMap<N, W> {
    /// The map; a compile error unless `W` is `1 + N.div_ceil(64)`.
    pub const fn new() -> Self {
        assert!(
            W == 1 + N.div_ceil(64),
            "RootMap: W must be 1 + N.div_ceil(64)"
        );
        let mut words = [u64::MAX; W];
        words[0] = (W - 1) as u64;
        if !N.is_multiple_of(64) {
            words[W - 1] = (1u64 << (N % 64)) - 1;
        }
        RootMap(words)
    }
}

impl<const N: usize, const W: usize> Default for RootMap<N, W> {
    fn default() -> Self {
        Self::new()
    }
}

/// GC handles (addresses, null or tagged words) that code holds across a
/// call which may collect (the callers of a recursive `#[jit_interp]`
/// interpreter), kept in the caller's own stack frame. While
/// [`RunHeap::link`]ed into the heap's list of frames (the JIT frames'
/// mechanism, `roots.rs`) the collector updates [`RootFrame::slots`] in
/// place: rooting is a few stores, with no look-up of the heap.
#[repr(C)]
pub struct RootFrame<const N: usize> {
    link: JitFrameRoots,
    /// The handles, where the collector moved them.
    pub slots: [usize; N],
}

impl<const N: usize> RootFrame<N> {
    /// Unlinked frame of `slots`, described by `map`.
    #[inline(always)]
    pub fn new<const W: usize>(slots: [usize; N], map: &'static RootMap<N, W>) -> Self {
        RootFrame {
            link: JitFrameRoots {
                base: std::ptr::null_mut(),
                gcmap: map.0.as_ptr(),
                prev: std::ptr::null_mut(),
            },
            slots,
        }
    }
}

/// A [`RootFrame`] linked into its heap's list of frames until this is
/// released or dropped (frames unlink in the reverse order of linking).
pub struct Linked<'a> {
    frames: *mut *mut JitFrameRoots,
    link: *mut JitFrameRoots,
    _frame: PhantomData<&'a mut JitFrameRoots>,
}

impl RunHeap {
    /// Roots `frame`'s slots until the returned [`Linked`] is released.
    #[inline(always)]
    pub fn link<'a, const N: usize>(&'a self, frame: &'a mut RootFrame<N>) -> Linked<'a> {
        frame.link.base = frame.slots.as_mut_ptr();
        let link: *mut JitFrameRoots = &mut frame.link;
        // SAFETY: `frames` points into the heap `self.gc` keeps alive, and
        // nothing else accesses it meanwhile (one thread, no call). The
        // frame's `base` and `gcmap` describe exactly its `N` slots
        // (`RootMap`), and the borrow `Linked` holds keeps it in place
        // until unlinked.
        unsafe {
            frame.link.prev = *self.frames;
            *self.frames = link;
        }
        Linked {
            frames: self.frames,
            link,
            _frame: PhantomData,
        }
    }
}

impl Linked<'_> {
    /// Unlinks the frame: its slots hold the handles as moved.
    #[inline(always)]
    pub fn release(self) {
        drop(self);
    }
}

impl Drop for Linked<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        // SAFETY: as in `RunHeap::link`; the frame is still borrowed, so
        // `link` is valid.
        unsafe {
            assert!(
                *self.frames == self.link,
                "RootFrame: unlinked out of order"
            );
            *self.frames = (*self.link).prev;
        }
    }
}

/// The inline allocation of one struct type while its [`RunHeap`] lives:
/// `free += size` unless that passes `top` (see [`crate::jit`]), then the
/// header word of a headered type.
#[derive(Clone, Copy)]
pub struct Bump<'a> {
    words: NonNull<RegionWords>,
    size: usize,
    /// The header word to store, 0 for headerless types.
    header: u64,
    _heap: PhantomData<&'a RunHeap>,
}

impl Bump<'_> {
    /// A zeroed object, or `None` when the caller must take [`alloc`].
    /// The object is young, so stores into it need no write barrier.
    #[inline(always)]
    pub fn alloc(self) -> Option<usize> {
        // SAFETY: the region words live while the heap does, which the
        // borrowed `RunHeap` keeps alive; one thread, no call between.
        unsafe { RegionWords::bump(self.words.as_ptr(), self.size, self.header) }
    }
}

/// A struct type's [`Bump`], looked up on its first use by a run
/// ([`RunHeap::lazy_bump`]).
pub struct LazyBump<'a> {
    heap: &'a RunHeap,
    t: &'static StructType,
    bump: Cell<Option<Bump<'a>>>,
}

impl<'a> LazyBump<'a> {
    /// [`Bump::alloc`], looking the bump up first if needed; `None` when
    /// the caller must take [`alloc`] (also for a type without a nursery
    /// region, whose allocation then reports why).
    #[inline(always)]
    pub fn alloc(&self) -> Option<usize> {
        match self.bump.get() {
            Some(b) => b.alloc(),
            None => self.look_up()?.alloc(),
        }
    }

    #[cold]
    #[inline(never)]
    fn look_up(&self) -> Option<Bump<'a>> {
        let b = self.heap.bump(self.t).ok()?;
        self.bump.set(Some(b));
        Some(b)
    }
}

/// Whether an allocation asked for a collection since the last one.
#[inline]
pub fn collect_requested() -> bool {
    CURRENT.with(|c| {
        c.borrow()
            .as_ref()
            .is_some_and(|h| h.gc.borrow().collect_requested())
    })
}

/// A safepoint: if a collection was requested, collects with `roots` (every
/// reference the caller holds) rooted and writes the moved ones back.
/// Null and non-heap entries are left alone.
#[inline]
pub fn safepoint(roots: &mut [usize]) -> Result<()> {
    if !collect_requested() {
        return Ok(());
    }
    collect(roots)
}

/// A minor collection (and a major one when due) with `roots` rooted.
pub fn collect(roots: &mut [usize]) -> Result<()> {
    let gc = shared()?;
    let mut gc = gc.borrow_mut();
    gc.with_roots(roots, |gc| gc.collect_minor())
}

/// Prints what failed and why to stderr and exits with status 70.
#[cold]
pub(crate) fn exit_with(message: String) -> ! {
    eprintln!("majit-gc: {message}");
    std::process::exit(70)
}
