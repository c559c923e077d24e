//! Counters a heap keeps about itself.

/// A snapshot of the heap's counters; see [`crate::Gc::stats`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GcStats {
    pub minor_collections: u64,
    pub major_collections: u64,
    /// Objects and bytes copied out of the nursery.
    pub promoted_objects: u64,
    pub promoted_bytes: u64,
    /// Bytes bump-allocated in nursery regions, counted at each minor
    /// collection (the current contents of the nursery are not included).
    pub nursery_bytes_allocated: u64,
    /// Bytes of old-space slots and large objects in use now (live after
    /// the last major collection plus everything allocated since).
    pub old_bytes: usize,
    /// The largest `old_bytes` seen.
    pub old_bytes_peak: usize,
    /// Bytes of address space in use by old-space chunks and nurseries.
    pub heap_bytes: usize,
    /// Old-space size that triggers the next major collection.
    pub next_major_at: usize,
}
