//! The thread heap: allocation that never collects (objects held only in
//! Rust locals stay put and intact), collections at safepoints with the
//! given roots, old-space fallback when the nursery is full, bounded
//! memory over many allocations, stress mode.

use majit_gc::thread_heap::{self, ArrayType, RunHeap, StructType};
use majit_gc::{Gc, GcConfig, Headered, Obj, TypeId};
use std::cell::Cell;
use std::thread::LocalKey;

/// `Node { value: i64, next: Node }`.
static NODE: StructType = StructType::new("Node", 16, &[8]);

fn node(value: u64, next: usize) -> usize {
    let n = thread_heap::alloc(&NODE).expect("allocation");
    // SAFETY: `n` is a fresh 16-byte object of the current heap, and
    // nothing collects before the stores.
    unsafe {
        *(n as *mut u64) = value;
        *((n + 8) as *mut usize) = next;
    }
    thread_heap::write_barrier(n);
    n
}

/// The values of the list starting at `head`.
fn values(mut head: usize) -> Vec<u64> {
    let mut out = Vec::new();
    while head != 0 {
        // SAFETY: `head` is a live node (the list is rooted or no
        // collection ran since it was built).
        unsafe {
            out.push(*(head as *const u64));
            head = *((head + 8) as *const usize);
        }
    }
    out
}

fn small_heap(stress_every: Option<u32>) -> Gc {
    Gc::new(GcConfig {
        nursery_size: 1024,
        stress_every,
        max_heap: 64 << 20,
        ..GcConfig::default()
    })
    .expect("heap")
}

#[test]
fn allocation_never_collects_and_falls_back_to_the_old_space() {
    thread_heap::install(small_heap(None));
    // 5000 nodes (80 KB) through a 1 KiB nursery, held only here.
    let mut nodes = Vec::new();
    let mut head = 0;
    for i in 0..5000 {
        head = node(i, head);
        nodes.push(head);
    }
    assert!(thread_heap::collect_requested());
    let gc = thread_heap::shared().unwrap();
    assert_eq!(gc.borrow().stats().minor_collections, 0);
    for (i, &n) in nodes.iter().enumerate() {
        assert_eq!(values(n).len(), i + 1, "node {i} was moved or overwritten");
    }
    let mut roots = [head];
    thread_heap::safepoint(&mut roots).unwrap();
    assert!(!thread_heap::collect_requested());
    assert_eq!(gc.borrow().stats().minor_collections, 1);
    assert_eq!(values(roots[0]), (0..5000).rev().collect::<Vec<_>>());
}

#[test]
fn safepoints_keep_the_roots_and_free_the_rest() {
    thread_heap::install(small_heap(None));
    let gc = thread_heap::shared().unwrap();
    let mut peak = 0;
    // Two million nodes: a kept list of the last 1000 plus garbage.
    let mut kept = 0;
    for round in 0..2000u64 {
        let mut list = 0;
        for i in 0..1000 {
            list = node(round * 1000 + i, list);
            let _garbage = node(0, list);
        }
        kept = list;
        let mut roots = [kept];
        thread_heap::safepoint(&mut roots).unwrap();
        kept = roots[0];
        peak = peak.max(gc.borrow().stats().heap_bytes);
    }
    let want: Vec<u64> = (1_999_000..2_000_000).rev().collect();
    assert_eq!(values(kept), want);
    let stats = gc.borrow().stats();
    assert!(stats.minor_collections >= 1000, "{stats:?}");
    assert!(stats.major_collections >= 1, "{stats:?}");
    assert!(peak < 48 << 20, "heap grew to {peak} bytes: {stats:?}");
}

#[test]
fn stress_mode_requests_a_collection_at_every_allocation() {
    thread_heap::install(small_heap(Some(1)));
    let mut head = 0;
    for i in 0..3000 {
        head = node(i, head);
        assert!(thread_heap::collect_requested());
        let mut roots = [head];
        thread_heap::safepoint(&mut roots).unwrap();
        head = roots[0];
    }
    assert_eq!(values(head), (0..3000).rev().collect::<Vec<_>>());
    let gc = thread_heap::shared().unwrap();
    assert_eq!(gc.borrow().stats().minor_collections, 3000);
}

#[test]
fn struct_types_are_registered_once_per_heap() {
    static LEAF: StructType = StructType::new("Leaf", 8, &[]);
    thread_heap::install(small_heap(None));
    let a = thread_heap::type_id(&LEAF).unwrap();
    assert_eq!(thread_heap::type_id(&LEAF).unwrap(), a);
    let info = thread_heap::jit_info().unwrap();
    assert!(info.headerless_region(a).is_some());
    let old = thread_heap::install(small_heap(None)).expect("the first heap");
    let b = thread_heap::type_id(&LEAF).unwrap();
    assert_eq!(old.borrow().layout(a).unwrap().name, "Leaf");
    assert_eq!(
        thread_heap::shared()
            .unwrap()
            .borrow()
            .layout(b)
            .unwrap()
            .name,
        "Leaf"
    );
    assert!(thread_heap::take().is_some());
    assert!(!thread_heap::collect_requested());
}

#[test]
fn exhausting_the_heap_between_safepoints_is_an_error() {
    thread_heap::install(
        Gc::new(GcConfig {
            nursery_size: 1024,
            max_heap: 4 << 20,
            ..GcConfig::default()
        })
        .unwrap(),
    );
    let mut failed = None;
    for _ in 0..1_000_000 {
        if let Err(e) = thread_heap::alloc(&NODE) {
            failed = Some(e);
            break;
        }
    }
    let e = failed.expect("4 MiB hold fewer than a million 16-byte nodes");
    assert!(matches!(e, majit_gc::GcError::OutOfMemory { .. }), "{e}");
}

/// The inline path of `RunHeap`: bumps share the region with `alloc`,
/// fail when the nursery is full (the caller then takes `alloc`, which
/// asks for a collection the cached flag shows), and always fail in
/// stress mode so that `alloc` counts every allocation.
#[test]
fn run_heap_bumps_the_region_and_sees_collection_requests() {
    thread_heap::install(small_heap(None));
    let heap = RunHeap::current().unwrap();
    let bump = heap.bump(&NODE).unwrap();
    let (a, b) = (bump.alloc().unwrap(), bump.alloc().unwrap());
    assert_eq!(b, a + 16);
    assert_eq!(node(0, 0), b + 16, "alloc continues where the bump stopped");
    let mut bumped = 3;
    while bump.alloc().is_some() {
        bumped += 1;
    }
    assert_eq!(bumped * 16, 1024, "the whole 1 KiB nursery, no more");
    assert!(!heap.collect_requested());
    let mut head = node(7, 0);
    assert!(heap.collect_requested());
    heap.collect_or_exit(std::slice::from_mut(&mut head));
    assert!(!heap.collect_requested());
    assert_eq!(values(head), [7]);
    assert!(bump.alloc().is_some(), "the nursery is empty again");

    thread_heap::install(small_heap(Some(2)));
    let heap = RunHeap::current().unwrap();
    assert!(heap.bump(&NODE).unwrap().alloc().is_none());
    node(1, 0);
    assert!(!heap.collect_requested());
    node(2, 0);
    assert!(heap.collect_requested());
}

/// `#[headered] Cell { value: i64, next: Cell }`: header at 0.
static CELL: StructType = StructType::headered("Cell", 24, &[16]);
static TAG: StructType = StructType::headered("Tag", 16, &[]);

#[test]
fn headered_objects_carry_their_type_id_through_bumps_and_collections() {
    thread_heap::install(small_heap(None));
    let (cell, tag) = (
        thread_heap::type_id(&CELL).unwrap().0,
        thread_heap::type_id(&TAG).unwrap().0,
    );
    assert_ne!(cell, tag);
    let heap = RunHeap::current().unwrap();
    let bump = heap.bump(&CELL).unwrap();
    let mut head = 0;
    // 2000 cells (48 KB) through a 1 KiB nursery: bumps, then the slow path.
    for i in 0..2000u64 {
        let c = bump
            .alloc()
            .unwrap_or_else(|| thread_heap::alloc(&CELL).unwrap());
        // SAFETY: `c` is a fresh 24-byte headered object; nothing collects.
        unsafe {
            *((c + 8) as *mut u64) = i;
            *((c + 16) as *mut usize) = head;
        }
        thread_heap::write_barrier(c);
        head = c;
        let mut roots = [head];
        thread_heap::safepoint(&mut roots).unwrap();
        head = roots[0];
    }
    let t = thread_heap::alloc(&TAG).unwrap();
    // SAFETY: `head` and `t` are live headered objects (rooted above).
    unsafe {
        assert_eq!(thread_heap::class_id(head), cell);
        assert_eq!(thread_heap::class_id(t), tag);
    }
    let (mut n, mut p) = (0u64, head);
    while p != 0 {
        // SAFETY: every cell of the rooted list is live.
        unsafe {
            assert_eq!(thread_heap::class_id(p), cell);
            assert_eq!(*((p + 8) as *const u64), 1999 - n);
            p = *((p + 16) as *const usize);
        }
        n += 1;
    }
    assert_eq!(n, 2000);
    drop(heap);
    thread_heap::take();
}

#[test]
fn arrays_index_with_bounds_checks_and_keep_their_items_through_collections() {
    use majit_gc::Array;
    thread_heap::install(small_heap(Some(1)));
    let mut a: Array<i64> = Array::new(300);
    let mut b: Array<u8> = Array::new(5);
    for i in 0..300 {
        a[i] = i as i64 * 7;
    }
    b[4] = 255;
    let mut roots = [a.to_raw(), b.to_raw()];
    thread_heap::safepoint(&mut roots).unwrap();
    (a, b) = (Array::from_raw(roots[0]), Array::from_raw(roots[1]));
    assert_eq!((a.len(), b.len()), (300, 5));
    assert_eq!(a[299], 299 * 7);
    assert_eq!((b[3], b[4]), (0, 255));
    let oob = std::panic::catch_unwind(|| b[5]).unwrap_err();
    assert_eq!(
        oob.downcast_ref::<String>().unwrap(),
        "index out of bounds: the len is 5 but the index is 5"
    );
    thread_heap::take();
}

#[test]
fn the_empty_array_is_one_object_that_outlives_collections_without_roots() {
    use majit_gc::Array;
    thread_heap::install(small_heap(Some(1)));
    let a = Array::<i64>::empty();
    let gc = thread_heap::shared().unwrap();
    for _ in 0..3 {
        // Garbage, then collections with no root at all: the heap keeps
        // the empty array itself, and it never moves (it is old).
        let mut head = 0;
        for i in 0..2000 {
            head = node(i, head);
        }
        assert!(head != 0);
        thread_heap::safepoint(&mut []).unwrap();
        gc.borrow_mut().collect_major().unwrap();
        let b = Array::<i64>::empty();
        assert_eq!((b.to_raw(), b.len()), (a.to_raw(), 0));
    }
    assert!(gc.borrow().stats().major_collections >= 3);
    // Another item type, another array; another heap, another array.
    assert_ne!(Array::<u8>::empty().to_raw(), a.to_raw());
    drop(gc);
    thread_heap::install(small_heap(None));
    assert_eq!(Array::<i64>::empty().len(), 0);
    thread_heap::take();
}

#[test]
fn cached_type_ids_follow_the_current_heap() {
    static FIRST: StructType = StructType::headered("First", 16, &[]);
    static SECOND: StructType = StructType::headered("Second", 16, &[]);
    thread_heap::install(small_heap(None));
    let (f1, s1) = (
        thread_heap::type_id(&FIRST).unwrap(),
        thread_heap::type_id(&SECOND).unwrap(),
    );
    // The other order in a new heap: each type gets the other's id.
    thread_heap::install(small_heap(None));
    let (s2, f2) = (
        thread_heap::type_id(&SECOND).unwrap(),
        thread_heap::type_id(&FIRST).unwrap(),
    );
    assert_eq!((f2, s2), (s1, f1));
    assert_eq!(thread_heap::type_id(&FIRST).unwrap(), f2);
    let o = thread_heap::alloc(&FIRST).unwrap();
    // SAFETY: `o` is a fresh headered object.
    assert_eq!(unsafe { thread_heap::class_id(o) }, f2.0);
    // After `take`, the next use makes a heap of its own.
    thread_heap::take();
    let f3 = thread_heap::type_id(&FIRST).unwrap();
    let gc = thread_heap::shared().unwrap();
    assert_eq!(gc.borrow().layout(f3).unwrap().name, "First");
    drop(gc);
    thread_heap::take();
}

#[test]
fn allocations_bump_the_nursery_of_the_heap_installed_last() {
    static BYTES: ArrayType = ArrayType::new("Bytes", 1, false);
    /// Where the next struct of `ty` and the next array go in `gc`.
    fn frees(gc: &Gc, ty: TypeId) -> (usize, usize) {
        // SAFETY: region words live while the heap does.
        unsafe {
            (
                gc.region_words(ty).expect("a bumped type").0.as_ref().free,
                gc.headered_region_words().0.as_ref().free,
            )
        }
    }
    thread_heap::install(small_heap(None));
    let ty = thread_heap::type_id(&NODE).unwrap();
    thread_heap::alloc_array(&BYTES, 3).unwrap();
    let first = thread_heap::install(small_heap(None)).expect("the first heap");
    let before = frees(&first.borrow(), ty);
    for len in 0..5 {
        let (n, a) = (
            node(len as u64, 0),
            thread_heap::alloc_array(&BYTES, len).unwrap(),
        );
        let second = thread_heap::shared().unwrap();
        let second = second.borrow();
        let bytes = 16 + len.next_multiple_of(8);
        assert_eq!(frees(&second, ty), (n + 16, a + bytes), "len {len}");
        assert_eq!(second.array_len(majit_gc::GcRef(a)), len);
    }
    assert_eq!(
        frees(&first.borrow(), ty),
        before,
        "the old heap was bumped"
    );
    thread_heap::take();
}

/// A headered struct handle as `#[jit_interp]` makes one, with its own
/// thread-local class cache.
macro_rules! headered_handle {
    ($name:ident, $ty:ident) => {
        static $ty: StructType = StructType::headered(stringify!($name), 16, &[]);
        #[derive(Clone, Copy)]
        struct $name(usize);
        impl Headered for $name {
            fn struct_type() -> &'static StructType {
                &$ty
            }
            fn class_cache() -> &'static LocalKey<Cell<u32>> {
                thread_local! {
                    static CACHE: Cell<u32> = const { Cell::new(0) };
                }
                &CACHE
            }
            fn from_raw(p: usize) -> Self {
                $name(p)
            }
            fn to_raw(self) -> usize {
                self.0
            }
        }
    };
}

#[test]
fn class_tests_follow_the_current_heap() {
    headered_handle!(Apple, APPLE);
    headered_handle!(Pear, PEAR);
    fn new(t: &StructType) -> Obj {
        Obj::from_raw(thread_heap::alloc(t).unwrap())
    }
    thread_heap::install(small_heap(None));
    let (a, p) = (new(&APPLE), new(&PEAR));
    assert!(a.is::<Apple>() && !a.is::<Pear>() && p.is::<Pear>() && !p.is::<Apple>());
    // The other order in a new heap: each type has the other's id, and
    // the cached ids of the first heap must not answer.
    thread_heap::install(small_heap(None));
    let (p, a) = (new(&PEAR), new(&APPLE));
    assert!(a.is::<Apple>() && !a.is::<Pear>() && p.is::<Pear>() && !p.is::<Apple>());
    // Another thread has caches of its own.
    std::thread::spawn(|| {
        thread_heap::install(small_heap(None));
        let (p, a) = (new(&PEAR), new(&APPLE));
        assert!(a.is::<Apple>() && !p.is::<Apple>() && p.is::<Pear>());
        thread_heap::take();
    })
    .join()
    .unwrap();
    assert!(a.is::<Apple>() && !a.is::<Pear>() && p.is::<Pear>() && !p.is::<Apple>());
    thread_heap::take();
    let (a, p) = (new(&APPLE), new(&PEAR));
    assert!(a.is::<Apple>() && !a.is::<Pear>() && p.is::<Pear>() && !p.is::<Apple>());
    thread_heap::take();
}
