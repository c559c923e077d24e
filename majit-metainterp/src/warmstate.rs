//! Warm state: per green key, a hotness counter, the compiled loop entry
//! and the "don't trace here" flag.
//!
//! `can_enter_jit` ticks the counter of its green key; when it reaches the
//! threshold the next iteration is traced. Each time a trace starts, every
//! other counter decays by `decay` percent, so keys that were warm long ago
//! do not all become hot together. A key whose tracing aborted
//! `max_aborts` times is never traced again. Keys are compared exactly
//! (kind and bit pattern of every green), so distinct positions never share
//! compiled code.
//!
//! `can_enter_jit` runs at every back edge the interpreter takes, so a
//! visit is one hash of the greens (a multiply-rotate hash, not SipHash:
//! the keys are the interpreter's own positions, not hostile input) and one
//! probe, allocating only when a key is seen for the first time.

use majit_ir::hash::FastMap;
use majit_ir::{Kind, Value};

/// How many traces of one loop may leave it before such attempts count
/// toward `max_aborts` (a loop whose iterations mostly end it, e.g. an
/// escape-time loop leaving by `break` after a few iterations, may take a
/// few attempts to catch an iteration that loops).
pub const LOOP_LEFT_RETRIES: u32 = 8;

/// What a back edge at a key should do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visit {
    /// Run compiled loop `i`.
    Loop(usize),
    /// The key just became hot: trace from it.
    Trace,
    /// Keep interpreting.
    Interpret,
}

/// The greens of one merge point, as an exact map key (inline up to four
/// greens: building one for a visit allocates nothing).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GreenKey(smallvec::SmallVec<[(Kind, u64); 4]>);

impl GreenKey {
    /// The key of `greens`.
    pub fn new(greens: &[Value]) -> GreenKey {
        GreenKey(greens.iter().map(|v| (v.kind(), v.to_bits())).collect())
    }
    /// The green values back.
    pub fn values(&self) -> Vec<Value> {
        self.0
            .iter()
            .map(|&(k, bits)| Value::from_bits(k, bits))
            .collect()
    }
}

/// What the warm state knows about one green key.
#[derive(Clone, Debug, Default)]
pub struct WarmEntry {
    /// Back-edge passes, decayed.
    pub counter: u32,
    /// Index of the compiled loop entered at this key, if any.
    pub loop_index: Option<usize>,
    /// Tracing from here aborted this many times.
    pub aborts: u32,
    /// Traces from here left their loop this many times
    /// (`AbortReason::LoopLeft`).
    pub left: u32,
    /// Never trace from this key again.
    pub dont_trace: bool,
    /// A call of the interpreted program whose callee starts at this key
    /// is not inlined into traces (its inlining made a trace too long).
    pub dont_inline: bool,
}

/// The warm state of one driver.
#[derive(Debug, Default)]
pub struct WarmState {
    entries: FastMap<GreenKey, WarmEntry>,
}

impl WarmState {
    /// An empty warm state.
    pub fn new() -> WarmState {
        WarmState::default()
    }

    /// The entry of `key`, if one exists.
    pub fn get(&self, key: &GreenKey) -> Option<&WarmEntry> {
        self.entries.get(key)
    }

    /// The compiled loop entered at `key`.
    pub fn loop_at(&self, key: &GreenKey) -> Option<usize> {
        self.entries.get(key).and_then(|e| e.loop_index)
    }

    /// Counts one pass at `key`; true when the key just became hot (and
    /// may be traced). The counter restarts from zero then.
    pub fn tick(&mut self, key: &GreenKey, threshold: u32) -> bool {
        self.visit(key, threshold) == Visit::Trace
    }

    /// One back edge at `key`: its compiled loop, or a tick of its counter
    /// (see [`WarmState::tick`]).
    pub fn visit(&mut self, key: &GreenKey, threshold: u32) -> Visit {
        let e = match self.entries.get_mut(key) {
            Some(e) => e,
            None => self.entries.entry(key.clone()).or_default(),
        };
        if let Some(i) = e.loop_index {
            return Visit::Loop(i);
        }
        if e.dont_trace {
            return Visit::Interpret;
        }
        e.counter = e.counter.saturating_add(1);
        if e.counter >= threshold {
            e.counter = 0;
            return Visit::Trace;
        }
        Visit::Interpret
    }

    /// Decays every counter by `percent` (a trace is starting).
    pub fn decay_all(&mut self, percent: u32) {
        let keep = 100 - percent.min(100);
        for e in self.entries.values_mut() {
            e.counter = (u64::from(e.counter) * u64::from(keep) / 100) as u32;
        }
    }

    /// Records the loop compiled for `key`.
    pub fn set_loop(&mut self, key: &GreenKey, loop_index: usize) {
        self.entries.entry(key.clone()).or_default().loop_index = Some(loop_index);
    }

    /// Loop `loop_index` at `key` was invalidated: the key has no loop
    /// and counts from zero again (it is traced again when hot).
    pub fn forget_loop(&mut self, key: &GreenKey, loop_index: usize) {
        if let Some(e) = self.entries.get_mut(key) {
            if e.loop_index == Some(loop_index) {
                e.loop_index = None;
                e.counter = 0;
            }
        }
    }

    /// Counts an abort at `key`; after `max_aborts` the key is never
    /// traced again.
    pub fn abort(&mut self, key: &GreenKey, max_aborts: u32) {
        let e = self.entries.entry(key.clone()).or_default();
        e.aborts += 1;
        if e.aborts >= max_aborts {
            e.dont_trace = true;
        }
    }

    /// Counts a trace from `key` that left its loop: the first
    /// [`LOOP_LEFT_RETRIES`] are no aborts, and the key traces again at its
    /// next back edge (the loop's next run starts, which usually loops
    /// more than once: an attempt waiting for the threshold again could
    /// meet the same last iteration of a loop with a fixed trip count);
    /// later ones are aborts.
    pub fn loop_left(&mut self, key: &GreenKey, threshold: u32, max_aborts: u32) {
        let e = self.entries.entry(key.clone()).or_default();
        e.left += 1;
        if e.left > LOOP_LEFT_RETRIES {
            self.abort(key, max_aborts);
        } else {
            self.trace_soon(key, threshold);
        }
    }

    /// Marks the callee starting at `key` as not to be inlined.
    pub fn dont_inline(&mut self, key: &GreenKey) {
        self.entries.entry(key.clone()).or_default().dont_inline = true;
    }

    /// Makes the next back edge at `key` trace (an abort that blamed an
    /// inlined function: the next trace calls it instead).
    pub fn trace_soon(&mut self, key: &GreenKey, threshold: u32) {
        self.entries.entry(key.clone()).or_default().counter = threshold.saturating_sub(1);
    }

    /// Marks `key` as never to be traced (its loop cannot be compiled).
    pub fn dont_trace(&mut self, key: &GreenKey) {
        self.entries.entry(key.clone()).or_default().dont_trace = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_reach_the_threshold_and_decay() {
        let mut w = WarmState::new();
        let (a, b) = (
            GreenKey::new(&[Value::Int(1)]),
            GreenKey::new(&[Value::Int(2)]),
        );
        assert!(!w.tick(&a, 3));
        assert!(!w.tick(&a, 3));
        for _ in 0..2 {
            w.tick(&b, 3);
        }
        w.decay_all(50);
        assert_eq!(w.get(&a).unwrap().counter, 1);
        assert!(!w.tick(&a, 3));
        assert!(w.tick(&a, 3));
        w.set_loop(&a, 0);
        assert!(!w.tick(&a, 1), "a compiled key is not traced again");
    }

    #[test]
    fn aborts_stop_tracing_after_the_limit() {
        let mut w = WarmState::new();
        let k = GreenKey::new(&[Value::Int(1), Value::Ref(0x10)]);
        w.abort(&k, 2);
        assert!(w.tick(&k, 1));
        w.abort(&k, 2);
        assert!(!w.tick(&k, 1));
        assert_eq!(k.values(), vec![Value::Int(1), Value::Ref(0x10)]);
    }
}
