//! Test and fuzzing support: the shared test [`Namespace`](crate::Namespace), a generator of
//! valid random traces, a text mutator and the round-trip check.
//!
//! [`random_trace`] builds a trace op by op from a seeded [`SplitMix64`],
//! keeping pools of the values defined so far (by kind) and of the objects
//! it allocated (with their layout), so every op it emits is valid by
//! construction: arguments are defined earlier and of the right kind,
//! loads and stores only touch objects of the matching layout at in-bounds
//! constant indices, every fresh object is fully initialised right after
//! its allocation, `*_ovf` ops are followed by their guard, calls that can
//! raise by `guard_no_exception` (or `guard_exception` and
//! `save_exception_i`), and the trace ends with `finish` or with
//! a `jump` back to its `label`. The verifier is the oracle:
//! [`check_seed`] generates, verifies, round-trips through text and panics
//! with the seed and the trace text on any failure.
//!
//! Everything here is deterministic in the seed; only `seeds.rs` reads the
//! environment.
//!
//! Files: `namespace.rs` (the shared descriptors), `generate.rs` (the
//! generator), `check.rs` (the checks and the text mutator / trace
//! corrupter), `seeds.rs` ([`fuzz_seeds`]: `MAJIT_FUZZ_SEED=n` replays one
//! seed, `MAJIT_FUZZ_CASES=n` runs n).

mod check;
mod generate;
mod namespace;
mod seeds;

pub use check::{
    check_corruption, check_mutation, check_roundtrip, check_seed, corrupt_trace, mutate_text,
};
pub use generate::random_trace;
pub use namespace::{test_namespace, CALL_DESCRS, CALL_TARGET_BASE, STACK_VTABLE};
pub use seeds::{fuzz_seeds, replaying};

/// A tiny seeded PRNG (SplitMix64): deterministic, no dependencies.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`; the tiny modulo bias does not matter here).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent as usize
    }
    /// A uniformly chosen element of a non-empty slice.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// What [`random_trace`] may generate.
#[derive(Clone, Debug)]
pub struct Knobs {
    /// Upper bound on the number of ops (the trace gets 1..=max_ops plus
    /// the closing ops).
    pub max_ops: usize,
    /// Upper bound on the number of inputs.
    pub max_inputs: usize,
    /// Float arithmetic, comparisons, casts and float constants.
    pub floats: bool,
    /// Allocations, field/array/raw loads and stores.
    pub memory: bool,
    /// Calls (to the fake addresses of [`CALL_TARGET_BASE`]).
    pub calls: bool,
    /// Start with `label(inputs, descr=Loop)` and end with a `jump` back
    /// (otherwise end with `finish`). Such loops run until a guard fails.
    pub loops: bool,
    /// The lowered GC forms (`call_malloc_nursery*`, `nursery_ptr_increment`,
    /// `cond_call_gc_wb*`, `cond_call_gc_collect`), which a trace normally has only after the GC
    /// rewrite.
    pub lowered: bool,
}

impl Default for Knobs {
    fn default() -> Knobs {
        Knobs {
            max_ops: 40,
            max_inputs: 4,
            floats: true,
            memory: true,
            calls: true,
            loops: true,
            lowered: false,
        }
    }
}

impl Knobs {
    /// Everything on, including the lowered GC forms.
    pub fn all() -> Knobs {
        Knobs {
            lowered: true,
            ..Knobs::default()
        }
    }
}
