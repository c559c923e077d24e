//! Long runs: a million-node list under stress, and memory that stays
//! bounded while garbage is promoted and collected for a long time.

use majit_gc::{Gc, GcConfig, GcRef, Layout};

#[test]
fn million_node_list_under_stress_keeps_every_value() {
    let mut gc = Gc::new(GcConfig {
        nursery_size: 1024,
        stress_every: Some(1),
        ..GcConfig::default()
    })
    .unwrap();
    let node = gc
        .register_layout(Layout::headerless("Node", 16, &[8]))
        .unwrap();
    let head = gc.push_root(GcRef::NULL);
    const N: u64 = 1_000_000;
    for i in 0..N {
        let obj = gc.alloc(node).unwrap();
        gc.write_word(obj, 0, i.wrapping_mul(0x9e37_79b9));
        let next = gc.root(head);
        gc.write_ref(obj, 8, next);
        gc.set_root(head, obj);
    }
    let mut cur = gc.root(head);
    for i in (0..N).rev() {
        assert_eq!(
            gc.read_word(cur, 0),
            i.wrapping_mul(0x9e37_79b9),
            "node {i}"
        );
        cur = gc.read_ref(cur, 8);
    }
    assert!(cur.is_null());
    let stats = gc.stats();
    assert!(stats.minor_collections >= N, "{stats:?}");
    assert!(stats.old_bytes >= 16 * (N as usize - 1), "{stats:?}");
}

#[test]
fn memory_stays_bounded_over_a_long_allocation_loop() {
    let threshold = 1 << 20;
    let mut gc = Gc::new(GcConfig {
        nursery_size: 8192,
        major_threshold: threshold,
        ..GcConfig::default()
    })
    .unwrap();
    let node = gc
        .register_layout(Layout::headerless("Node", 16, &[8]))
        .unwrap();
    let cell = gc
        .register_layout(Layout::headered("Cell", 48, &[8, 16]))
        .unwrap();
    // A ring of 1000 roots, each replaced over and over: objects live long
    // enough to be promoted, then die in the old space.
    const RING: usize = 1000;
    for _ in 0..RING {
        gc.push_root(GcRef::NULL);
    }
    for i in 0..3_000_000usize {
        let slot = i % RING;
        let obj = if i.is_multiple_of(3) {
            gc.alloc(cell).unwrap()
        } else {
            gc.alloc(node).unwrap()
        };
        gc.write_word(obj, if i.is_multiple_of(3) { 24 } else { 0 }, i as u64);
        gc.set_root(slot, obj);
    }
    let stats = gc.stats();
    assert!(stats.major_collections >= 5, "{stats:?}");
    // Live data is ~1000 objects; the old space never exceeds the major
    // threshold by more than one nursery's worth of promotions.
    assert!(
        stats.old_bytes_peak <= threshold + 3 * 8192 + 64 * 1024,
        "{stats:?}"
    );
    assert!(stats.heap_bytes <= 16 << 20, "{stats:?}");
    for slot in 0..RING {
        let obj = gc.root(slot);
        let i = 3_000_000 - RING + slot;
        let off = if i.is_multiple_of(3) { 24 } else { 0 };
        assert_eq!(gc.read_word(obj, off), i as u64);
    }
}

#[test]
fn arrays_of_many_sizes_do_not_scatter_over_chunks() {
    let mut gc = Gc::new(GcConfig {
        nursery_size: 64 << 10,
        ..GcConfig::default()
    })
    .unwrap();
    let words = gc
        .register_array(majit_gc::ArrayLayout {
            name: "Words".into(),
            item_size: 8,
            items_are_refs: false,
        })
        .unwrap();
    // One surviving array of every length up to 4000 items (32 KiB).
    let mut total = 0;
    for len in 0..4000usize {
        let a = gc.alloc_array(words, len).unwrap();
        gc.write_word(a, 8 + 8 * len as u32, len as u64);
        gc.push_root(a);
        total += 16 + 8 * len;
    }
    gc.collect_major().unwrap();
    let stats = gc.stats();
    // Size classes waste at most 12.5% per slot plus one partly filled
    // chunk per class (about a hundred classes).
    assert!(stats.old_bytes <= total + total / 8 + 4000 * 8, "{stats:?}");
    assert!(
        stats.heap_bytes <= total * 2 + (112 + 8) * (256 << 10),
        "{stats:?}"
    );
    for len in 0..4000usize {
        let a = gc.root(len);
        assert_eq!(gc.array_len(a), len);
        assert_eq!(gc.read_word(a, 8 + 8 * len as u32), len as u64);
    }
}

/// No major threshold and a 4 MiB heap: every full collection is forced
/// by a minor collection that lacks chunks for its promotions, so it marks
/// through a populated nursery (young objects reached from roots and from
/// each other) before sweeping.
#[test]
fn full_collections_with_a_populated_nursery_keep_the_graph() {
    let mut gc = Gc::new(GcConfig {
        nursery_size: 4096,
        stress_every: Some(3),
        major_threshold: usize::MAX / 2,
        max_heap: 4 << 20,
    })
    .unwrap();
    let node = gc
        .register_layout(Layout::headerless("Node", 16, &[8]))
        .unwrap();
    let cell = gc
        .register_layout(Layout::headered("Cell", 24, &[8]))
        .unwrap();
    const SLOTS: usize = 64;
    for _ in 0..SLOTS {
        gc.push_root(GcRef::NULL);
    }
    // Each slot holds a Cell whose field is a list of 8 nodes; slots are
    // replaced round-robin, so old lists turn into garbage.
    for round in 0..40_000u64 {
        let slot = (round as usize * 7) % SLOTS;
        let c = gc.alloc(cell).unwrap();
        gc.write_word(c, 16, round);
        gc.set_root(slot, c);
        for k in 0..8u64 {
            let n = gc.alloc(node).unwrap();
            gc.write_word(n, 0, round * 8 + k);
            let c = gc.root(slot);
            let head = gc.read_ref(c, 8);
            gc.write_ref(n, 8, head);
            gc.write_ref(c, 8, n);
        }
        if round % 16 == 15 {
            check_cells(&gc, SLOTS);
        }
    }
    let stats = gc.stats();
    assert!(stats.major_collections > 0, "{stats:?}");
    check_cells(&gc, SLOTS);
}

/// Every slot's cell holds its round and a list of 8 nodes with the values
/// `round * 8 + 7` down to `round * 8`.
fn check_cells(gc: &Gc, slots: usize) {
    for slot in 0..slots {
        let c = gc.root(slot);
        if c.is_null() {
            continue;
        }
        let round = gc.read_word(c, 16);
        let mut n = gc.read_ref(c, 8);
        for k in (0..8u64).rev() {
            assert_eq!(gc.read_word(n, 0), round * 8 + k, "slot {slot}");
            n = gc.read_ref(n, 8);
        }
        assert!(n.is_null());
    }
}
