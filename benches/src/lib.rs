//! Benchmarks for majit live in `benches/benches/`; this library holds
//! helpers they share.
