//! Test support (feature `testing`): heaps whose type ids match the
//! shared test namespace of every crate's tests
//! ([`majit_ir::fuzzing::test_namespace`]), so traces in that namespace
//! run on them unchanged, and the GC rewrite of such traces.
//!
//! The layouts are derived from the namespace itself, so the two cannot
//! drift apart: type id `n` is the layout or GC array with `type_id` `n`
//! there (ref fields and ref items traced), and an id the namespace does
//! not use is an empty 8-byte headered layout named `Unused`.

use crate::rewrite::{header_descr, rewrite, RewriteConfig, RewriteError};
use crate::{ArrayLayout, Gc, GcConfig, Layout, TypeId};
use majit_ir::fuzzing::test_namespace;
use majit_ir::{Descr, Kind, Namespace, Trace};

/// What the test namespace declares for one type id.
enum TestLayout {
    Object(Layout),
    Array(ArrayLayout),
}

/// The GC layout of `descr`, if it is a layout or GC array of type id `id`.
fn layout_of(ns: &Namespace, descr: &Descr, id: u32) -> Option<TestLayout> {
    match descr {
        Descr::Size(s) if s.type_id == id => {
            let fields = s.fields.iter().filter_map(|f| ns.descr(f)?.as_field());
            let refs: Vec<u32> = fields
                .filter(|f| f.kind == Kind::Ref)
                .map(|f| f.offset)
                .collect();
            let make = if s.headerless {
                Layout::headerless
            } else {
                Layout::headered
            };
            Some(TestLayout::Object(make(&s.name, s.size, &refs)))
        }
        Descr::Array(a) if a.type_id == id => Some(TestLayout::Array(ArrayLayout {
            name: a.name.clone(),
            item_size: u32::from(a.item_size),
            items_are_refs: a.kind == Kind::Ref,
        })),
        _ => None,
    }
}

/// Registers the layouts of the test namespace on `gc`, a fresh heap, so
/// that their type ids are the namespace's.
///
/// # Panics
/// When `gc` already has layouts or refuses one (a test setup bug).
pub fn register_test_layouts(gc: &mut Gc) {
    let ns = test_namespace();
    let ids = ns.descrs().filter_map(|d| match d {
        Descr::Size(s) => Some(s.type_id),
        Descr::Array(a) => Some(a.type_id),
        _ => None,
    });
    let max = ids.max().unwrap_or(0);
    for id in 1..=max {
        let layout = ns.descrs().find_map(|d| layout_of(&ns, d, id));
        let got = match layout {
            Some(TestLayout::Object(l)) => gc.register_layout(l),
            Some(TestLayout::Array(a)) => gc.register_array(a),
            None => gc.register_layout(Layout::headered("Unused", 8, &[])),
        };
        assert_eq!(
            got.expect("test layout"),
            TypeId(id),
            "type ids of the test namespace"
        );
    }
}

/// A heap with `config` and the test namespace's layouts.
///
/// ```
/// use majit_gc::testing::{stress_config, test_heap};
/// use majit_gc::TypeId;
/// let mut gc = test_heap(stress_config());
/// let stack = gc.alloc(TypeId(3)).unwrap(); // `Stack`, headered
/// assert_eq!(gc.type_of(stack), TypeId(3));
/// ```
pub fn test_heap(config: GcConfig) -> Gc {
    let mut gc = Gc::new(config).expect("test heap");
    register_test_layouts(&mut gc);
    gc
}

/// A small heap in stress mode: a minor collection at every allocation,
/// so every allocation moves every young object. The reservation is
/// small because qemu-user keeps per-page bookkeeping for every reserved
/// range (the 4 GB default cost ~25 MB of host memory per heap there).
pub fn stress_config() -> GcConfig {
    GcConfig {
        nursery_size: 1024,
        stress_every: Some(1),
        max_heap: 64 << 20,
        ..GcConfig::default()
    }
}

/// The test namespace plus the header and array length descrs
/// (`Gc.header`, `Gc.array_length`) the rewrite pass stores through, for
/// traces before and after the rewrite.
pub fn rewrite_namespace() -> Namespace {
    let mut ns = test_namespace();
    ns.add_descr(header_descr());
    ns.add_descr(crate::rewrite::array_length_descr());
    ns
}

/// `trace` (in [`rewrite_namespace`]) lowered by the GC rewrite pass.
pub fn rewrite_test_trace(trace: &Trace, config: &RewriteConfig) -> Result<Trace, RewriteError> {
    rewrite(trace, config)
}
