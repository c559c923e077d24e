//! A seeded random mutator checked against a shadow model of the object
//! graph, with collections forced at random points.
//!
//! The model keeps every object ever allocated (it never frees) with its
//! word and reference fields. The real heap is reached only through the
//! shadow-stack roots, which mirror the model's roots. After random
//! operations, a walk from every root pairs real objects with model
//! objects: values must match and identity must be preserved (one real
//! address per model object and back).

use majit_gc::{ArrayLayout, Gc, GcConfig, GcHeap, GcRef, JitGcInfo, Layout, TypeId};
use std::collections::HashMap;

/// splitmix64.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[derive(Clone)]
enum Shape {
    Fixed { words: Vec<u32>, refs: Vec<u32> },
    RefArray,
    WordArray,
}

struct Type {
    ty: TypeId,
    shape: Shape,
}

struct Obj {
    ty: usize,
    words: Vec<u64>,
    refs: Vec<Option<usize>>,
}

impl Obj {
    fn word_offset(&self, types: &[Type], k: usize) -> u32 {
        match &types[self.ty].shape {
            Shape::Fixed { words, .. } => words[k],
            _ => 16 + 8 * k as u32,
        }
    }
    fn ref_offset(&self, types: &[Type], k: usize) -> u32 {
        match &types[self.ty].shape {
            Shape::Fixed { refs, .. } => refs[k],
            _ => 16 + 8 * k as u32,
        }
    }
}

struct World {
    gc: Gc,
    types: Vec<Type>,
    objs: Vec<Obj>,
    /// Model roots, parallel to shadow-stack slots 0..N.
    roots: Vec<Option<usize>>,
    rng: Rng,
    /// Half of the reference stores go the way JIT code does them: the
    /// card test (valid for every object), the `extern "C"` barrier, a
    /// raw store.
    jit: Option<JitGcInfo>,
}

const ROOTS: usize = 12;

impl World {
    fn new(config: GcConfig, seed: u64) -> World {
        let mut gc = Gc::new(config).unwrap();
        let mut types = Vec::new();
        let fixed = |gc: &mut Gc, layout: Layout, words: &[u32]| {
            let refs = layout.ref_offsets.clone();
            let ty = gc.register_layout(layout).unwrap();
            Type {
                ty,
                shape: Shape::Fixed {
                    words: words.to_vec(),
                    refs,
                },
            }
        };
        types.push(fixed(&mut gc, Layout::headered("A", 32, &[16, 24]), &[8]));
        types.push(fixed(&mut gc, Layout::headered("B", 16, &[]), &[8]));
        types.push(fixed(
            &mut gc,
            Layout::headered("Big", 40_000, &[8, 39_992]),
            &[16],
        ));
        types.push(fixed(&mut gc, Layout::headerless("Node", 16, &[8]), &[0]));
        types.push(fixed(
            &mut gc,
            Layout::headerless("Triple", 24, &[0, 16]),
            &[8],
        ));
        types.push(fixed(&mut gc, Layout::headerless("Leaf", 8, &[]), &[0]));
        for (name, refs, shape) in [
            ("RefArray", true, Shape::RefArray),
            ("WordArray", false, Shape::WordArray),
        ] {
            let ty = gc
                .register_array(ArrayLayout {
                    name: name.into(),
                    item_size: 8,
                    items_are_refs: refs,
                })
                .unwrap();
            types.push(Type { ty, shape });
        }
        for _ in 0..ROOTS {
            gc.push_root(GcRef::NULL);
        }
        World {
            gc,
            types,
            objs: Vec::new(),
            roots: vec![None; ROOTS],
            rng: Rng(seed),
            jit: None,
        }
    }

    /// A reference store, through `Gc::write_ref` or as JIT code does it:
    /// the card test (any object) or, for headered objects, sometimes the
    /// header test, then the barrier entry point and a raw store.
    fn store_ref(&mut self, obj: GcRef, offset: u32, value: GcRef, headered: bool) {
        let Some(info) = self.jit.as_ref().filter(|_| self.rng.below(2) == 0) else {
            return self.gc.write_ref(obj, offset, value);
        };
        let flag_byte = if headered && self.rng.below(2) == 0 {
            (
                obj.addr() + info.wb_flag_byte_offset as usize,
                info.wb_flag_mask,
            )
        } else {
            let card = info
                .card_table_biased
                .wrapping_add(obj.addr() >> info.card_shift);
            (card, 0xff)
        };
        // SAFETY: the card table covers every heap address and a headered
        // object's flag byte lies in its header; the barrier is the
        // published entry point, called on a live object.
        unsafe {
            if *(flag_byte.0 as *const u8) & flag_byte.1 != 0 {
                let barrier: unsafe extern "C" fn(*mut GcHeap, usize) =
                    std::mem::transmute(info.write_barrier_fn as *const ());
                barrier(info.heap as *mut GcHeap, obj.addr());
            }
        }
        self.gc.write_word(obj, offset, value.addr() as u64);
    }

    fn alloc(&mut self, slot: usize) {
        let t = self.rng.below(self.types.len());
        // Rarely big objects and long arrays: they go to the old space.
        let rare = self.rng.below(50) == 0;
        let t = if t == 2 && !rare { 0 } else { t };
        let len = if rare { 5000 } else { self.rng.below(20) };
        let (ty, shape) = (self.types[t].ty, self.types[t].shape.clone());
        let (real, nwords, nrefs) = match shape {
            Shape::Fixed { words, refs } => (self.gc.alloc(ty).unwrap(), words.len(), refs.len()),
            Shape::RefArray => (self.gc.alloc_array(ty, len).unwrap(), 0, len),
            Shape::WordArray => (self.gc.alloc_array(ty, len).unwrap(), len, 0),
        };
        let mut obj = Obj {
            ty: t,
            words: vec![0; nwords],
            refs: vec![None; nrefs],
        };
        for k in 0..nwords {
            let v = self.rng.next();
            self.gc.write_word(real, obj.word_offset(&self.types, k), v);
            obj.words[k] = v;
        }
        self.objs.push(obj);
        self.roots[slot] = Some(self.objs.len() - 1);
        self.gc.set_root(slot, real);
    }

    fn step(&mut self) {
        let slot = self.rng.below(ROOTS);
        let Some(id) = self.roots[slot] else {
            return self.alloc(slot);
        };
        let real = self.gc.root(slot);
        let obj = &self.objs[id];
        match self.rng.below(10) {
            0..=2 => self.alloc(slot),
            3 | 4 if !obj.refs.is_empty() => {
                // Store another root's object (or null) into a ref field.
                let k = self.rng.below(obj.refs.len());
                let src = self.rng.below(ROOTS);
                let value = if self.rng.below(8) == 0 {
                    None
                } else {
                    self.roots[src]
                };
                let real_value = value.map_or(GcRef::NULL, |_| self.gc.root(src));
                let off = obj.ref_offset(&self.types, k);
                let headered = self
                    .gc
                    .layout(self.types[obj.ty].ty)
                    .map_or(true, |l| !l.headerless);
                self.store_ref(real, off, real_value, headered);
                self.objs[id].refs[k] = value;
            }
            5 if !obj.words.is_empty() => {
                let k = self.rng.below(obj.words.len());
                let v = self.rng.next();
                self.gc.write_word(real, obj.word_offset(&self.types, k), v);
                self.objs[id].words[k] = v;
            }
            6 | 7 if !obj.refs.is_empty() => {
                // Descend: the root now holds a field of its object.
                let k = self.rng.below(obj.refs.len());
                let off = obj.ref_offset(&self.types, k);
                self.roots[slot] = obj.refs[k];
                let next = self.gc.read_ref(real, off);
                self.gc.set_root(slot, next);
            }
            8 => {
                let src = self.rng.below(ROOTS);
                self.roots[slot] = self.roots[src];
                let r = self.gc.root(src);
                self.gc.set_root(slot, r);
            }
            _ => match self.rng.below(40) {
                0 => self.gc.collect_major().unwrap(),
                1..=4 => self.gc.collect_minor().unwrap(),
                5 => {
                    self.roots[slot] = None;
                    self.gc.set_root(slot, GcRef::NULL);
                }
                _ => {}
            },
        }
    }

    /// Walks everything reachable from the roots in model and heap.
    fn check(&self) {
        let mut pairs: HashMap<usize, usize> = HashMap::new();
        let mut seen_model: HashMap<usize, usize> = HashMap::new();
        let mut stack = Vec::new();
        for slot in 0..ROOTS {
            stack.push((self.gc.root(slot), self.roots[slot]));
        }
        while let Some((real, model)) = stack.pop() {
            let Some(id) = model else {
                assert!(real.is_null(), "model null, heap {real:?}");
                continue;
            };
            assert!(!real.is_null(), "model object {id}, heap null");
            if let Some(&prev) = pairs.get(&real.addr()) {
                assert_eq!(prev, id, "one address for two model objects");
                continue;
            }
            assert_eq!(
                seen_model.insert(id, real.addr()),
                None,
                "object {id} at two addresses"
            );
            pairs.insert(real.addr(), id);
            let obj = &self.objs[id];
            assert_eq!(self.gc.type_of(real), self.types[obj.ty].ty, "object {id}");
            if !matches!(self.types[obj.ty].shape, Shape::Fixed { .. }) {
                assert_eq!(self.gc.array_len(real), obj.words.len() + obj.refs.len());
            }
            for (k, &w) in obj.words.iter().enumerate() {
                assert_eq!(self.gc.read_word(real, obj.word_offset(&self.types, k)), w);
            }
            for (k, &r) in obj.refs.iter().enumerate() {
                stack.push((self.gc.read_ref(real, obj.ref_offset(&self.types, k)), r));
            }
        }
    }
}

fn run(config: GcConfig, seed: u64, steps: usize) {
    run_with(config, seed, steps, false);
    run_with(jit_config(seed), seed, steps, true);
}

/// Runs the mutator and returns the heap's final counters.
fn run_stats(config: GcConfig, seed: u64, steps: usize) -> majit_gc::GcStats {
    run_with(config, seed, steps, false)
}

fn jit_config(seed: u64) -> GcConfig {
    GcConfig {
        nursery_size: 1024 << (seed % 4),
        stress_every: seed.is_multiple_of(2).then_some(2),
        major_threshold: 256 << 10,
        ..GcConfig::default()
    }
}

fn run_with(config: GcConfig, seed: u64, steps: usize, jit: bool) -> majit_gc::GcStats {
    let mut world = World::new(config, seed);
    if jit {
        world.jit = Some(world.gc.jit_info());
    }
    for i in 0..steps {
        world.step();
        if i % 500 == 0 {
            world.check();
        }
    }
    world.check();
    world.gc.collect_major().unwrap();
    world.check();
    world.gc.stats()
}

#[test]
fn random_mutator_with_small_nursery() {
    for seed in 1..=3 {
        let config = GcConfig {
            nursery_size: 2048,
            major_threshold: 256 << 10,
            ..GcConfig::default()
        };
        run(config, seed, 12_000);
    }
}

#[test]
fn random_mutator_under_stress() {
    for seed in 11..=13 {
        let config = GcConfig {
            nursery_size: 1024,
            stress_every: Some(1 + seed as u32 % 3),
            major_threshold: 128 << 10,
            ..GcConfig::default()
        };
        run(config, seed, 8_000);
    }
}

/// The default configuration, or what `MAJIT_NURSERY_SIZE` /
/// `MAJIT_GC_STRESS` say (`MAJIT_GC_STRESS=1 cargo test` runs it under
/// stress).
#[test]
fn random_mutator_with_environment_config() {
    run(GcConfig::from_env().unwrap(), 99, 15_000);
}

/// A small heap and no major threshold: full collections happen only when
/// a minor collection finds too few free chunks for its promotions, so it
/// marks and sweeps with the nursery still full of objects first.
#[test]
fn random_mutator_on_a_nearly_full_heap() {
    for seed in 21..=22 {
        let config = GcConfig {
            nursery_size: 1024,
            stress_every: Some(1 + seed as u32 % 2),
            major_threshold: usize::MAX / 2,
            max_heap: 24 << 20,
        };
        let stats = run_stats(config, seed, 8_000);
        assert!(stats.major_collections > 1, "{stats:?}");
    }
}
