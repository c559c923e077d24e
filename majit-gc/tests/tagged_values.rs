//! Small integers (`Obj::small_int`, low bit 1) and small floats
//! (`Obj::small_float`, low bits `10`) in reference slots: the collector
//! leaves them alone in fields, arrays, shadow roots and `with_roots`
//! slices, in minor and major collections, young and old; the handle API
//! keeps the three kinds of word apart.

use majit_gc::{ArrayLayout, Gc, GcConfig, GcRef, Layout, Obj, TypeId};

fn stress(every: u32) -> GcConfig {
    GcConfig {
        nursery_size: 1024,
        stress_every: Some(every),
        ..GcConfig::default()
    }
}

/// A tagged word (the low bits `tag`) in a slot that would be a nursery
/// address if its low bits were clear: the case a collector that did not
/// test the tag would move (or read a header at).
fn tagged_inside_the_nursery(gc: &mut Gc, ty: TypeId, tag: usize) -> Obj {
    let young = gc.alloc(ty).unwrap();
    Obj::from_raw(young.addr() + tag)
}

/// The `i`-th small integer of the field test.
fn int_value(i: i64) -> Obj {
    Obj::small_int(i - 1000)
}

/// The `i`-th small float of the field test: both signs and exponents
/// over most of the encodable range (zeros are boxed).
fn float_value(i: i64) -> Obj {
    let v = (i as f64 - 1000.5) * 1.25e-3 * 2f64.powi((i % 400 - 200) as i32);
    Obj::small_float(v)
}

/// Fills a list of `Pair`s with `value(i)` and an array with objects and a
/// tagged word inside the nursery, collecting all along; every word reads
/// back unchanged.
fn tagged_fields_and_arrays_survive_collections(value: fn(i64) -> Obj, tag: usize) {
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
    let tricky = tagged_inside_the_nursery(&mut gc, pair, tag);
    let head = gc.push_root(GcRef::NULL);
    let items = gc.push_root(GcRef::NULL);
    let a = gc.alloc_array(arr, 64).unwrap();
    gc.set_root(items, a);
    for i in 0..2000i64 {
        let p = gc.alloc(pair).unwrap();
        gc.write_ref(p, 8, GcRef(value(i).to_raw()));
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
        assert_eq!(gc.read_ref(cur, 8).addr(), value(i).to_raw());
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
fn small_ints_in_fields_and_arrays_survive_collections() {
    tagged_fields_and_arrays_survive_collections(int_value, 1);
}

#[test]
fn small_floats_in_fields_and_arrays_survive_collections() {
    tagged_fields_and_arrays_survive_collections(float_value, 2);
}

#[test]
fn tagged_words_in_roots_are_left_alone() {
    for (tag, other) in [(1, Obj::small_int(7)), (2, Obj::small_float(0.5))] {
        let mut gc = Gc::new(stress(1)).unwrap();
        let node = gc
            .register_layout(Layout::headered("Node", 16, &[8]))
            .unwrap();
        let tricky = tagged_inside_the_nursery(&mut gc, node, tag);
        let r = gc.push_root(GcRef(tricky.to_raw()));
        let mut held = [tricky.to_raw(), other.to_raw()];
        gc.with_roots(&mut held, |gc| {
            gc.collect_minor().unwrap();
            gc.collect_major().unwrap();
        });
        assert_eq!(held, [tricky.to_raw(), other.to_raw()]);
        assert_eq!(gc.root(r).addr(), tricky.to_raw());
    }
}

#[test]
fn small_int_range_and_class_tests() {
    assert!(Obj::fits_small_int(Obj::SMALL_INT_MAX));
    assert!(Obj::fits_small_int(Obj::SMALL_INT_MIN));
    assert!(!Obj::fits_small_int(Obj::SMALL_INT_MAX + 1));
    assert!(!Obj::fits_small_int(Obj::SMALL_INT_MIN - 1));
    for v in [0, 1, -1, Obj::SMALL_INT_MAX, Obj::SMALL_INT_MIN] {
        let o = Obj::small_int(v);
        assert!(o.is_small_int() && !o.is_small_float() && !o.is_null());
        assert_eq!(o.to_small_int(), v);
    }
    assert!(!Obj::null().is_small_int());
    let r = std::panic::catch_unwind(|| Obj::small_int(i64::MIN));
    assert!(r.is_err(), "a value that does not fit panics");
    let r = std::panic::catch_unwind(|| Obj::null().to_small_int());
    assert!(r.is_err(), "a handle without an integer panics");
}

#[test]
fn small_float_range_and_class_tests() {
    for f in [1.0, -2.5, 1e-76, -1e-76, 2.3e77, -2.3e77, 1.0 / 3.0] {
        assert!(Obj::fits_small_float(f), "{f}");
        let o = Obj::small_float(f);
        assert!(o.is_small_float() && !o.is_small_int() && !o.is_null());
        assert_eq!(o.to_small_float().to_bits(), f.to_bits());
    }
    for f in [0.0, -0.0, f64::NAN, f64::INFINITY, 1e-77, 2.4e77, 5e-324] {
        assert!(!Obj::fits_small_float(f), "{f}");
    }
    assert!(!Obj::null().is_small_float());
    let r = std::panic::catch_unwind(|| Obj::small_float(-0.0));
    assert!(r.is_err(), "a value that does not fit panics");
    let r = std::panic::catch_unwind(|| Obj::null().to_small_float());
    assert!(r.is_err(), "a handle without a float panics");
    let r = std::panic::catch_unwind(|| Obj::small_int(3).to_small_float());
    assert!(r.is_err(), "a small integer is no float");
}
