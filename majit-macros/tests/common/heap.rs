//! The thread heap of the GC tests: a small nursery where every safepoint
//! after an allocation collects (as `MAJIT_GC_STRESS=1`).

use majit::gc::{thread_heap, Gc, GcConfig};

/// Installs a fresh stress-mode thread heap.
pub fn stress_heap() {
    let config = GcConfig {
        nursery_size: 1024,
        stress_every: Some(1),
        max_heap: 64 << 20,
        ..GcConfig::default()
    };
    thread_heap::install(Gc::new(config).unwrap());
}
