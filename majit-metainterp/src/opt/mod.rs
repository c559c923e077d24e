//! The optimizer: passes over traces, one file each, run in the order
//! given by `enable_opts`.
