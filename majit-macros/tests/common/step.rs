//! Running one handler of a test interpreter twice, natively and in the
//! blackhole from the merge point, from the same seeded random state (the
//! equivalence tests: jitcode = Rust).

use majit::ir::fuzzing::SplitMix64;
use majit::ir::Value;
use majit::metainterp::blackhole::{BhFrame, Blackhole, Outcome};
use majit::metainterp::jitcode::{FuncId, JOp, JitCodeSet};
use majit::metainterp::runtime::MallocAllocator;

/// A seeded PRNG with generators of edge-heavy values.
pub struct Rng(SplitMix64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(SplitMix64::new(seed))
    }

    pub fn next(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// An integer: an edge, a small one or any.
    pub fn int(&mut self) -> i64 {
        const EDGES: [i64; 10] = [0, 1, -1, 2, 7, -7, 255, 256, i64::MAX, i64::MIN];
        match self.next() % 3 {
            0 => EDGES[(self.next() % 10) as usize],
            1 => (self.next() % 64) as i64 - 32,
            _ => self.next() as i64,
        }
    }

    /// A float: an edge (zeros, infinities, NaN, the bounds of the integer
    /// casts), a small one with a fraction, or any bit pattern.
    #[allow(dead_code)]
    pub fn float(&mut self) -> f64 {
        const EDGES: [f64; 18] = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            -2.5,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            f64::MAX,
            9.223_372_036_854_775e18,
            -9.223_372_036_854_775e18,
            1.844_674_407_370_955_2e19,
            4_294_967_296.5,
            -2_147_483_648.9,
            255.9,
            -128.5,
        ];
        match self.next() % 3 {
            0 => EDGES[(self.next() % EDGES.len() as u64) as usize],
            1 => (self.next() % 2001) as f64 / 8.0 - 125.0,
            _ => f64::from_bits(self.next()),
        }
    }
}

/// Runs the handler of the portal `(codes, portal)` from its merge point
/// with these greens and reds (in register order) in the blackhole.
pub fn blackhole_step(
    (codes, portal): &(JitCodeSet, FuncId),
    greens: &[Value],
    reds: &[Value],
) -> Outcome {
    let jc = codes.get(*portal).unwrap().clone();
    let mp = jc.merge_point_pc().unwrap();
    let insn = jc.decode(mp);
    assert_eq!(insn.op, JOp::MergePoint);
    let mut frame = BhFrame::new(jc.clone(), insn.next);
    assert_eq!(insn.list(0).len(), greens.len(), "the greens' registers");
    assert_eq!(insn.list(1).len(), reds.len(), "the reds' registers");
    for (r, v) in insn.list(0).iter().zip(greens) {
        frame.set(*r, *v);
    }
    for (r, v) in insn.list(1).iter().zip(reds) {
        frame.set(*r, *v);
    }
    let mut alloc = MallocAllocator::default();
    Blackhole::new(codes, &mut alloc, vec![frame])
        .run()
        .unwrap()
}
