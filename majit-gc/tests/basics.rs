//! Allocation, roots, barriers and errors of the public `Gc` API.

use majit_gc::{ArrayLayout, Gc, GcConfig, GcError, GcRef, Layout, TypeId};

fn stress(every: u32) -> GcConfig {
    GcConfig {
        nursery_size: 1024,
        stress_every: Some(every),
        ..GcConfig::default()
    }
}

/// Builds a list of `n` headerless nodes rooted at shadow slot `head`.
fn build_list(gc: &mut Gc, node: TypeId, head: usize, n: u64) {
    for i in 0..n {
        let obj = gc.alloc(node).unwrap();
        gc.write_word(obj, 0, i);
        let next = gc.root(head);
        gc.write_ref(obj, 8, next);
        gc.set_root(head, obj);
    }
}

/// Walks the list and checks values n-1, n-2, ..., 0.
fn check_list(gc: &Gc, head: usize, n: u64) {
    let mut cur = gc.root(head);
    for i in (0..n).rev() {
        assert!(!cur.is_null(), "list ends early at {i}");
        assert_eq!(gc.read_word(cur, 0), i);
        cur = gc.read_ref(cur, 8);
    }
    assert!(cur.is_null());
}

#[test]
fn headerless_list_survives_collection_at_every_allocation() {
    let mut gc = Gc::new(stress(1)).unwrap();
    let node = gc
        .register_layout(Layout::headerless("Node", 16, &[8]))
        .unwrap();
    let head = gc.push_root(GcRef::NULL);
    build_list(&mut gc, node, head, 200_000);
    check_list(&gc, head, 200_000);
    assert!(gc.stats().minor_collections >= 200_000);
}

#[test]
fn two_headerless_layouts_and_a_headered_one_coexist() {
    let mut gc = Gc::new(stress(3)).unwrap();
    let node = gc
        .register_layout(Layout::headerless("Node", 16, &[8]))
        .unwrap();
    let triple = gc
        .register_layout(Layout::headerless("Triple", 24, &[0, 16]))
        .unwrap();
    let boxed = gc
        .register_layout(Layout::headered("Box", 24, &[16]))
        .unwrap();
    let head = gc.push_root(GcRef::NULL);
    for i in 0..5000u64 {
        let t = gc.alloc(triple).unwrap();
        gc.push_root(t);
        let n = gc.alloc(node).unwrap();
        gc.write_word(n, 0, i);
        let t = gc.pop_root().unwrap();
        gc.write_ref(t, 16, n);
        gc.write_word(t, 8, i * 3);
        gc.push_root(t);
        let b = gc.alloc(boxed).unwrap();
        let t = gc.pop_root().unwrap();
        gc.write_word(b, 8, i * 7);
        gc.write_ref(b, 16, t);
        let prev = gc.root(head);
        gc.write_ref(t, 0, prev);
        gc.set_root(head, b);
    }
    gc.collect_major().unwrap();
    let mut cur = gc.root(head);
    for i in (0..5000u64).rev() {
        assert_eq!(gc.type_of(cur), boxed);
        assert_eq!(gc.read_word(cur, 8), i * 7);
        let t = gc.read_ref(cur, 16);
        assert_eq!(gc.type_of(t), triple);
        assert_eq!(gc.read_word(t, 8), i * 3);
        let n = gc.read_ref(t, 16);
        assert_eq!(gc.type_of(n), node);
        assert_eq!(gc.read_word(n, 0), i);
        cur = gc.read_ref(t, 0);
    }
    assert!(cur.is_null());
}

#[test]
fn old_to_young_stores_survive_minor_collections() {
    let mut gc = Gc::new(GcConfig {
        nursery_size: 4096,
        ..GcConfig::default()
    })
    .unwrap();
    let node = gc
        .register_layout(Layout::headerless("Node", 16, &[8]))
        .unwrap();
    let cell = gc
        .register_layout(Layout::headered("Cell", 16, &[8]))
        .unwrap();
    let c = gc.alloc(cell).unwrap();
    let cr = gc.push_root(c);
    let n = gc.alloc(node).unwrap();
    let nr = gc.push_root(n);
    gc.collect_minor().unwrap();
    let (c, n) = (gc.root(cr), gc.root(nr));
    assert!(!gc.is_young(c) && !gc.is_young(n));
    for round in 0..50u64 {
        // A young headerless node stored into the old headered cell (header
        // flag path) and into the old headerless node (card path).
        let y1 = gc.alloc(node).unwrap();
        gc.write_word(y1, 0, 100 + round);
        gc.write_ref(c, 8, y1);
        let y2 = gc.alloc(node).unwrap();
        gc.write_word(y2, 0, 200 + round);
        gc.write_ref(n, 8, y2);
        gc.collect_minor().unwrap();
        assert_eq!(gc.read_word(gc.read_ref(c, 8), 0), 100 + round);
        assert_eq!(gc.read_word(gc.read_ref(n, 8), 0), 200 + round);
        assert!(!gc.is_young(gc.read_ref(c, 8)));
    }
}

#[test]
fn arrays_of_refs_and_words() {
    let mut gc = Gc::new(stress(2)).unwrap();
    let refs = gc
        .register_array(ArrayLayout {
            name: "RefArray".into(),
            item_size: 8,
            items_are_refs: true,
        })
        .unwrap();
    let node = gc
        .register_layout(Layout::headerless("Node", 16, &[8]))
        .unwrap();
    let a = gc.alloc_array(refs, 40).unwrap();
    assert_eq!(gc.array_len(a), 40);
    let ar = gc.push_root(a);
    for i in 0..40u32 {
        let n = gc.alloc(node).unwrap();
        gc.write_word(n, 0, i as u64 * 11);
        let a = gc.root(ar);
        gc.write_ref(a, 16 + 8 * i, n);
    }
    // A large array goes straight to the old space.
    let big = gc.alloc_array(refs, 100_000).unwrap();
    assert!(!gc.is_young(big));
    let br = gc.push_root(big);
    let n = gc.alloc(node).unwrap();
    gc.write_word(n, 0, 4242);
    let big = gc.root(br);
    gc.write_ref(big, 16 + 8 * 99_999, n);
    gc.collect_major().unwrap();
    let a = gc.root(ar);
    for i in 0..40u32 {
        assert_eq!(gc.read_word(gc.read_ref(a, 16 + 8 * i), 0), i as u64 * 11);
    }
    let big = gc.root(br);
    assert_eq!(gc.read_word(gc.read_ref(big, 16 + 8 * 99_999), 0), 4242);
}

#[test]
fn root_scopes_truncate_and_index() {
    let mut gc = Gc::new(stress(1)).unwrap();
    let ty = gc
        .register_layout(Layout::headered("Pair", 24, &[8, 16]))
        .unwrap();
    gc.push_root(GcRef::NULL);
    let scope = gc.enter_scope();
    for i in 0..10u64 {
        let o = gc.alloc(ty).unwrap();
        gc.write_word(o, 16, i);
        gc.push_root(o);
    }
    for i in 0..10 {
        assert_eq!(gc.read_word(gc.root(scope.index(i)), 16), i as u64);
    }
    gc.leave_scope(scope);
    assert_eq!(gc.root_depth(), 1);
}

#[test]
fn bad_input_is_a_clear_error() {
    let mut gc = Gc::new(GcConfig::default()).unwrap();
    assert_eq!(
        gc.alloc(TypeId(77)),
        Err(GcError::UnknownType { type_id: 77 })
    );
    assert_eq!(
        gc.alloc(TypeId(0)),
        Err(GcError::UnknownType { type_id: 0 })
    );
    let bad = gc.register_layout(Layout::headered("H", 16, &[0]));
    assert!(matches!(bad, Err(GcError::BadLayout { .. })), "{bad:?}");
    let bad = gc.register_layout(Layout::headerless("N", 16, &[12]));
    assert!(matches!(bad, Err(GcError::BadLayout { .. })), "{bad:?}");
    let bad = gc.register_layout(Layout::headerless("Huge", 1 << 20, &[]));
    assert!(matches!(bad, Err(GcError::BadLayout { .. })), "{bad:?}");
    let arr = gc
        .register_array(ArrayLayout {
            name: "Bytes".into(),
            item_size: 1,
            items_are_refs: false,
        })
        .unwrap();
    assert!(matches!(gc.alloc(arr), Err(GcError::WrongTypeKind { .. })));
    let err = gc.alloc_array(arr, usize::MAX).unwrap_err();
    assert!(matches!(err, GcError::TooLarge { .. }), "{err}");
    let fixed = gc.register_layout(Layout::headered("F", 16, &[])).unwrap();
    assert!(matches!(
        gc.alloc_array(fixed, 3),
        Err(GcError::WrongTypeKind { .. })
    ));
    // An oversize headered object goes to the old space.
    let big = gc
        .register_layout(Layout::headered("Big", 1 << 22, &[8]))
        .unwrap();
    let o = gc.alloc(big).unwrap();
    assert!(!gc.is_young(o));
    assert_eq!(gc.type_of(o), big);
}

#[test]
fn out_of_memory_is_an_error() {
    let mut gc = Gc::new(GcConfig {
        nursery_size: 4096,
        max_heap: 8 << 20,
        ..GcConfig::default()
    })
    .unwrap();
    let cell = gc
        .register_layout(Layout::headered("Cell", 64, &[8]))
        .unwrap();
    let head = gc.push_root(GcRef::NULL);
    let mut result = Ok(());
    for _ in 0..1_000_000 {
        match gc.alloc(cell) {
            Ok(o) => {
                let prev = gc.root(head);
                gc.write_ref(o, 8, prev);
                gc.set_root(head, o);
            }
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    let err = result.unwrap_err();
    assert!(matches!(err, GcError::OutOfMemory { .. }), "{err}");
    assert!(err.to_string().contains("out of memory"));
    // The failure left the heap consistent: dropping the list frees it.
    let depth = gc.stats().old_bytes;
    gc.set_root(head, GcRef::NULL);
    gc.collect_major().unwrap();
    assert!(gc.stats().old_bytes < depth / 10, "{:?}", gc.stats());
    for _ in 0..10_000 {
        gc.alloc(cell).unwrap();
    }
}

#[test]
fn config_from_environment_values() {
    let env = |pairs: &'static [(&'static str, &'static str)]| {
        move |k: &str| pairs.iter().find(|p| p.0 == k).map(|p| p.1.to_string())
    };
    let c = GcConfig::from_lookup(env(&[("MAJIT_NURSERY_SIZE", "64k")])).unwrap();
    assert_eq!(c.nursery_size, 65536);
    assert_eq!(c.stress_every, None);
    let c = GcConfig::from_lookup(env(&[("MAJIT_GC_STRESS", "1")])).unwrap();
    assert_eq!(c.stress_every, Some(1));
    assert_eq!(c.nursery_size, majit_gc::STRESS_NURSERY_SIZE);
    let c = GcConfig::from_lookup(env(&[
        ("MAJIT_GC_STRESS", "7"),
        ("MAJIT_NURSERY_SIZE", "4096"),
    ]))
    .unwrap();
    assert_eq!((c.stress_every, c.nursery_size), (Some(7), 4096));
    let c = GcConfig::from_lookup(env(&[("MAJIT_GC_STRESS", "0")])).unwrap();
    assert_eq!(c, GcConfig::default());
    for (var, value) in [
        ("MAJIT_NURSERY_SIZE", "lots"),
        ("MAJIT_NURSERY_SIZE", "12"),
        ("MAJIT_NURSERY_SIZE", "-5"),
        ("MAJIT_GC_STRESS", "yes"),
        ("MAJIT_GC_STRESS", "99999999999"),
        ("MAJIT_MAX_HEAP", "1k"),
    ] {
        let lookup = |k: &str| (k == var).then(|| value.to_string());
        let err = GcConfig::from_lookup(lookup).unwrap_err();
        match &err {
            GcError::BadEnv { var: v, .. } => assert_eq!(*v, var, "{err}"),
            other => panic!("{var}={value}: {other}"),
        }
        assert!(err.to_string().contains(var), "{err}");
    }
    // The heap-size error names the real minimum for the nursery in use:
    // 16 MiB for the default 4 MiB nursery, 4 MiB below a 1 MiB one.
    let err = GcConfig::from_lookup(env(&[("MAJIT_MAX_HEAP", "8m")])).unwrap_err();
    assert!(
        err.to_string().contains("at least 16777216 bytes (16 MiB"),
        "{err}"
    );
    assert!(GcConfig::from_lookup(env(&[("MAJIT_MAX_HEAP", "16m")])).is_ok());
    let small = env(&[("MAJIT_MAX_HEAP", "3m"), ("MAJIT_NURSERY_SIZE", "64k")]);
    let err = GcConfig::from_lookup(small).unwrap_err();
    assert!(
        err.to_string().contains("at least 4194304 bytes (4 MiB"),
        "{err}"
    );
}

#[test]
fn raw_nursery_allocation_and_explicit_barrier() {
    let mut gc = Gc::new(stress(1)).unwrap();
    let cell = gc
        .register_layout(Layout::headered("Cell", 24, &[8]))
        .unwrap();
    let node = gc
        .register_layout(Layout::headerless("Node", 16, &[8]))
        .unwrap();
    let c = gc.malloc_nursery_raw(24).unwrap();
    gc.write_word(c, 0, cell.header());
    let mut held = [c.addr()];
    let n = gc.with_roots(&mut held, |gc| gc.alloc(node)).unwrap();
    let c = GcRef(held[0]);
    assert!(!gc.is_young(c), "stress mode collected and promoted it");
    gc.write_word(n, 0, 77);
    // As JIT code after `cond_call_gc_wb`: barrier, then a raw store.
    gc.write_barrier(c);
    gc.write_word(c, 8, n.addr() as u64);
    gc.push_root(c);
    gc.collect_minor().unwrap();
    let c = gc.pop_root().unwrap();
    assert_eq!(gc.type_of(c), cell);
    assert_eq!(gc.read_word(gc.read_ref(c, 8), 0), 77);
    let err = gc.malloc_nursery_raw(12).unwrap_err();
    assert!(err.to_string().contains("multiple of 8"), "{err}");
}
