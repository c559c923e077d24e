//! A fast, deterministic hasher for maps keyed by words (trace references,
//! constants, green keys): one multiply and rotate per word. With SipHash,
//! hashing took about half of the optimizer's instructions on Aheui's logo.
//!
//! ```
//! use majit_ir::hash::FastMap;
//! let mut m: FastMap<u32, &str> = FastMap::default();
//! m.insert(7, "seven");
//! assert_eq!(m.get(&7), Some(&"seven"));
//! ```

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` with [`WordHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<WordHasher>>;
/// A `HashSet` with [`WordHasher`].
pub type FastSet<K> = HashSet<K, BuildHasherDefault<WordHasher>>;

/// The hasher of [`FastMap`] and [`FastSet`]: not DoS-resistant, which
/// keys made by the JIT itself do not need.
#[derive(Default)]
pub struct WordHasher(u64);

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(w));
        }
    }
    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_u8(&mut self, b: u8) {
        self.write_u64(u64::from(b));
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}
