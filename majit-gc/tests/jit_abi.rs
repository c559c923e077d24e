//! The JIT contract: inline bump through the published free/top
//! addresses, `extern "C"` slow paths called through their published
//! addresses with a fake frame and gcmap, and the inline barrier tests.

use majit_gc::{ArrayLayout, Gc, GcConfig, GcHeap, GcRef, JitFrameRoots, JitGcInfo, Layout};

type MallocFn = unsafe extern "C" fn(*mut GcHeap, usize, *mut JitFrameRoots) -> usize;
type MallocHeaderlessFn = unsafe extern "C" fn(*mut GcHeap, u32, *mut JitFrameRoots) -> usize;
type MallocVarsizeFn = unsafe extern "C" fn(*mut GcHeap, u32, usize, *mut JitFrameRoots) -> usize;
type BarrierFn = unsafe extern "C" fn(*mut GcHeap, usize);
type CollectFn = unsafe extern "C" fn(*mut GcHeap, *mut JitFrameRoots) -> usize;
type PushFrameFn = unsafe extern "C" fn(*mut GcHeap, *mut JitFrameRoots);
type PopFrameFn = unsafe extern "C" fn(*mut GcHeap);

/// Casts a published entry-point address to its function type.
///
/// # Safety
/// `addr` is the address of a function of type `F`.
unsafe fn entry<F: Copy>(addr: usize) -> F {
    assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<usize>());
    std::mem::transmute_copy(&addr)
}

/// A gcmap marking `slots`: word 0 is the number of bitmap words.
fn gcmap(nslots: usize, slots: &[usize]) -> Vec<u64> {
    let words = nslots.div_ceil(64);
    let mut map = vec![0u64; 1 + words];
    map[0] = words as u64;
    for &s in slots {
        map[1 + s / 64] |= 1 << (s % 64);
    }
    map
}

/// The inline fast path, as JIT code performs it: `None` means "call the
/// slow path".
fn inline_bump(free_addr: usize, top_addr: usize, size: usize) -> Option<usize> {
    // SAFETY: the addresses come from JitGcInfo of a live heap.
    unsafe {
        let free = *(free_addr as *const usize);
        let new = free + size;
        if new > *(top_addr as *const usize) {
            return None;
        }
        *(free_addr as *mut usize) = new;
        Some(free)
    }
}

struct Fixture {
    gc: Gc,
    info: JitGcInfo,
    node: u32,
    cell: u32,
    refs: u32,
}

fn fixture(config: GcConfig) -> Fixture {
    let mut gc = Gc::new(config).unwrap();
    let node = gc
        .register_layout(Layout::headerless("Node", 16, &[8]))
        .unwrap();
    let cell = gc
        .register_layout(Layout::headered("Cell", 24, &[8]))
        .unwrap();
    let refs = gc
        .register_array(ArrayLayout {
            name: "Refs".into(),
            item_size: 8,
            items_are_refs: true,
        })
        .unwrap();
    let info = gc.jit_info();
    Fixture {
        gc,
        info,
        node: node.0,
        cell: cell.0,
        refs: refs.0,
    }
}

#[test]
fn slow_paths_update_gcmap_slots_and_nothing_else() {
    let mut f = fixture(GcConfig {
        nursery_size: 1024,
        stress_every: Some(1),
        ..GcConfig::default()
    });
    let heap = f.info.heap as *mut GcHeap;
    // SAFETY: the addresses are the published entry points of these types.
    let (malloc, malloc_hl, malloc_var): (MallocFn, MallocHeaderlessFn, MallocVarsizeFn) = unsafe {
        (
            entry(f.info.malloc_nursery_fn),
            entry(f.info.malloc_nursery_headerless_fn),
            entry(f.info.malloc_varsize_fn),
        )
    };
    let marked = [0usize, 5, 70, 129];
    let map = gcmap(130, &marked);
    let mut slots = [0usize; 130];
    let mut frame = JitFrameRoots {
        base: slots.as_mut_ptr(),
        gcmap: map.as_ptr(),
        prev: std::ptr::null_mut(),
    };
    for (i, &s) in marked.iter().enumerate() {
        // SAFETY: heap is live, frame valid for the call.
        let obj = unsafe { malloc_hl(heap, f.node, &mut frame) };
        assert_ne!(obj, 0);
        f.gc.write_word(GcRef(obj), 0, 1000 + i as u64);
        slots[s] = obj;
    }
    // An unmarked slot holding a young address must not be touched.
    slots[1] = slots[129];
    let decoy = slots[1];
    for round in 0..20 {
        // SAFETY: as above; stress mode collects on every call.
        let cell = unsafe { malloc(heap, 24, &mut frame) };
        assert_ne!(cell, 0);
        // The JIT stores the header itself.
        f.gc.write_word(GcRef(cell), 0, f.cell as u64);
        let arr = unsafe { malloc_var(heap, f.refs, 3, &mut frame) };
        assert_ne!(arr, 0);
        assert_eq!(f.gc.array_len(GcRef(arr)), 3);
        for (i, &s) in marked.iter().enumerate() {
            assert_eq!(
                f.gc.read_word(GcRef(slots[s]), 0),
                1000 + i as u64,
                "round {round}"
            );
        }
    }
    assert_eq!(slots[1], decoy);
    assert_ne!(slots[129], decoy, "the marked copy moved");
    assert!(f.gc.stats().minor_collections >= 40);
}

#[test]
fn inline_bump_until_full_then_slow_path() {
    let mut f = fixture(GcConfig {
        nursery_size: 4096,
        ..GcConfig::default()
    });
    let heap = f.info.heap as *mut GcHeap;
    let region = f
        .info
        .headerless_region(majit_gc::TypeId(f.node))
        .unwrap()
        .clone();
    assert_eq!(region.size, 16);
    // SAFETY: published entry point.
    let malloc_hl: MallocHeaderlessFn = unsafe { entry(f.info.malloc_nursery_headerless_fn) };
    let map = gcmap(1, &[0]);
    let mut slots = [0usize; 1];
    let mut frame = JitFrameRoots {
        base: slots.as_mut_ptr(),
        gcmap: map.as_ptr(),
        prev: std::ptr::null_mut(),
    };
    let mut slow_calls = 0;
    for i in 0..2000u64 {
        let obj = match inline_bump(region.free_addr, region.top_addr, 16) {
            Some(obj) => obj,
            None => {
                slow_calls += 1;
                // SAFETY: heap live, frame valid.
                unsafe { malloc_hl(heap, f.node, &mut frame) }
            }
        };
        f.gc.write_word(GcRef(obj), 0, i);
        f.gc.write_ref(GcRef(obj), 8, GcRef(slots[0]));
        slots[0] = obj;
    }
    assert!(slow_calls >= 2000 * 16 / 4096 - 1, "{slow_calls}");
    let mut cur = GcRef(slots[0]);
    for i in (0..2000u64).rev() {
        assert_eq!(f.gc.read_word(cur, 0), i);
        cur = f.gc.read_ref(cur, 8);
    }
    assert!(cur.is_null());
}

#[test]
fn inline_barrier_tests_and_barrier_entry_point() {
    let mut f = fixture(GcConfig {
        nursery_size: 4096,
        ..GcConfig::default()
    });
    let heap = f.info.heap as *mut GcHeap;
    // SAFETY: published entry points.
    let (barrier, collect, push, pop): (BarrierFn, CollectFn, PushFrameFn, PopFrameFn) = unsafe {
        (
            entry(f.info.write_barrier_fn),
            entry(f.info.collect_fn),
            entry(f.info.push_frame_fn),
            entry(f.info.pop_frame_fn),
        )
    };
    let node = majit_gc::TypeId(f.node);
    let cell = majit_gc::TypeId(f.cell);
    let info = f.info.clone();
    let header_flag = |obj: usize| {
        // SAFETY: obj is a headered object of the live heap.
        unsafe {
            *((obj + info.wb_flag_byte_offset as usize) as *const u8) & info.wb_flag_mask != 0
        }
    };
    let card_flag = |obj: usize| {
        let card = info.card_table_biased.wrapping_add(obj >> info.card_shift);
        // SAFETY: the card table covers every heap address.
        unsafe { *(card as *const u8) != 0 }
    };
    let map = gcmap(2, &[0, 1]);
    let mut slots = [
        f.gc.alloc(cell).unwrap().addr(),
        f.gc.alloc(node).unwrap().addr(),
    ];
    let mut frame = JitFrameRoots {
        base: slots.as_mut_ptr(),
        gcmap: map.as_ptr(),
        prev: std::ptr::null_mut(),
    };
    // Young objects: no barrier needed.
    assert!(!header_flag(slots[0]) && !card_flag(slots[1]));
    // SAFETY: heap live, frame valid until popped.
    unsafe { push(heap, &mut frame) };
    assert_eq!(unsafe { collect(heap, std::ptr::null_mut()) }, 1);
    // Old now: both tests say "call the barrier".
    assert!(!f.gc.is_young(GcRef(slots[0])));
    assert!(header_flag(slots[0]) && card_flag(slots[1]));
    for round in 0..5u64 {
        let y1 = f.gc.alloc(node).unwrap();
        f.gc.write_word(y1, 0, 10 + round);
        let y2 = f.gc.alloc(node).unwrap();
        f.gc.write_word(y2, 0, 20 + round);
        // What JIT code does: raw stores guarded by the inline tests.
        for (target, value) in [(slots[0], y1), (slots[1], y2)] {
            let is_cell = f.gc.type_of(GcRef(target)) == cell;
            let needs = if is_cell {
                header_flag(target)
            } else {
                card_flag(target)
            };
            assert!(needs, "round {round}");
            // SAFETY: published barrier on a live object.
            unsafe { barrier(heap, target) };
            let off = 8;
            // SAFETY: the field lies inside the object.
            unsafe { *((target + off) as *mut usize) = value.addr() };
        }
        assert!(!header_flag(slots[0]) && !card_flag(slots[1]), "recorded");
        // SAFETY: heap live.
        assert_eq!(unsafe { collect(heap, std::ptr::null_mut()) }, 1);
        assert_eq!(
            f.gc.read_word(f.gc.read_ref(GcRef(slots[0]), 8), 0),
            10 + round
        );
        assert_eq!(
            f.gc.read_word(f.gc.read_ref(GcRef(slots[1]), 8), 0),
            20 + round
        );
    }
    // SAFETY: pops the frame pushed above.
    unsafe { pop(heap) };
}

#[test]
fn slow_path_errors_return_zero_with_a_reason() {
    let mut f = fixture(GcConfig::default());
    let heap = f.info.heap as *mut GcHeap;
    // SAFETY: published entry points; bad arguments must be rejected.
    unsafe {
        let malloc_hl: MallocHeaderlessFn = entry(f.info.malloc_nursery_headerless_fn);
        assert_eq!(malloc_hl(heap, 999, std::ptr::null_mut()), 0);
        assert!(matches!(
            f.gc.take_jit_error(),
            Some(majit_gc::GcError::UnknownType { type_id: 999 })
        ));
        assert_eq!(malloc_hl(heap, f.cell, std::ptr::null_mut()), 0);
        assert!(f.gc.take_jit_error().is_some());
        let malloc: MallocFn = entry(f.info.malloc_nursery_fn);
        assert_eq!(malloc(heap, 12, std::ptr::null_mut()), 0);
        assert!(f.gc.take_jit_error().is_some());
        let malloc_var: MallocVarsizeFn = entry(f.info.malloc_varsize_fn);
        assert_eq!(malloc_var(heap, f.node, 3, std::ptr::null_mut()), 0);
        assert!(f.gc.take_jit_error().is_some());
    }
}

#[test]
fn region_words_do_not_move_with_the_handle() {
    let f = fixture(GcConfig::default());
    let before = f.info.clone();
    let moved = Box::new(f.gc);
    assert_eq!(moved.jit_info(), before);
}
