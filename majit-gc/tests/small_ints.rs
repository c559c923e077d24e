//! Small integers in reference slots (`Obj::small_int`): the collector
//! leaves them alone in fields, arrays, shadow roots and `with_roots`
//! slices, in minor and major collections, young and old.

use majit_gc::{ArrayLayout, Gc, GcConfig, GcRef, Layout, Obj};

fn stress(every: u32) -> GcConfig {
    GcConfig {
        nursery_size: 1024,
        stress_every: Some(every),
        ..GcConfig::default()
    }
}

/// An odd word in a slot that would be a nursery address if it were even:
/// the case a collector that did not test the tag would move.
fn small_int_inside_the_nursery(gc: &mut Gc, ty: majit_gc::TypeId) -> Obj {
    let young = gc.alloc(ty).unwrap();
    Obj::from_raw(young.addr() + 1)
}

#[test]
fn small_ints_in_fields_and_arrays_survive_collections() {
    let mut gc = Gc::new(stress(2)).unwrap();
    let pair = gc
        .register_layout(Layout::headered("Pair", 24, &[8, 16]))
        .unwrap();
    let arr = gc
        .register_array(ArrayLayout {
            name: "Refs".into(),
            item_size: 8,
            items_are_refs: true,
        })
        .unwrap();
    let tricky = small_int_inside_the_nursery(&mut gc, pair);
    let head = gc.push_root(GcRef::NULL);
    let items = gc.push_root(GcRef::NULL);
    let a = gc.alloc_array(arr, 64).unwrap();
    gc.set_root(items, a);
    for i in 0..2000i64 {
        let p = gc.alloc(pair).unwrap();
        gc.write_ref(p, 8, GcRef(Obj::small_int(i - 1000).to_raw()));
        let next = gc.root(head);
        gc.write_ref(p, 16, next);
        gc.set_root(head, p);
        let a = gc.root(items);
        let slot = 16 + 8 * (i as u32 % 64);
        let v = if i % 2 == 0 {
            p.addr()
        } else {
            tricky.to_raw()
        };
        gc.write_ref(a, slot, GcRef(v));
        if i % 500 == 0 {
            gc.collect_major().unwrap();
        }
    }
    gc.collect_minor().unwrap();
    let mut cur = gc.root(head);
    for i in (0..2000i64).rev() {
        let v = Obj::from_raw(gc.read_ref(cur, 8).addr());
        assert_eq!(v.to_small_int(), i - 1000);
        cur = gc.read_ref(cur, 16);
    }
    assert!(cur.is_null());
    let a = gc.root(items);
    for k in (1..64).step_by(2) {
        assert_eq!(gc.read_ref(a, 16 + 8 * k).addr(), tricky.to_raw());
    }
    assert!(gc.stats().minor_collections > 100 && gc.stats().major_collections >= 4);
}

#[test]
fn small_ints_in_roots_are_left_alone() {
    let mut gc = Gc::new(stress(1)).unwrap();
    let node = gc
        .register_layout(Layout::headered("Node", 16, &[8]))
        .unwrap();
    let tricky = small_int_inside_the_nursery(&mut gc, node);
    let r = gc.push_root(GcRef(tricky.to_raw()));
    let mut held = [tricky.to_raw(), Obj::small_int(7).to_raw()];
    gc.with_roots(&mut held, |gc| {
        gc.collect_minor().unwrap();
        gc.collect_major().unwrap();
    });
    assert_eq!(held, [tricky.to_raw(), Obj::small_int(7).to_raw()]);
    assert_eq!(gc.root(r).addr(), tricky.to_raw());
}

#[test]
fn small_int_range_and_class_tests() {
    assert!(Obj::fits_small_int(Obj::SMALL_INT_MAX));
    assert!(Obj::fits_small_int(Obj::SMALL_INT_MIN));
    assert!(!Obj::fits_small_int(Obj::SMALL_INT_MAX + 1));
    assert!(!Obj::fits_small_int(Obj::SMALL_INT_MIN - 1));
    for v in [0, 1, -1, Obj::SMALL_INT_MAX, Obj::SMALL_INT_MIN] {
        let o = Obj::small_int(v);
        assert!(o.is_small_int() && !o.is_null());
        assert_eq!(o.to_small_int(), v);
    }
    assert!(!Obj::null().is_small_int());
    let r = std::panic::catch_unwind(|| Obj::small_int(i64::MIN));
    assert!(r.is_err(), "a value that does not fit panics");
    let r = std::panic::catch_unwind(|| Obj::null().to_small_int());
    assert!(r.is_err(), "a handle without an integer panics");
}
