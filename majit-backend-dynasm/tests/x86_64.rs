//! The shared backend suite and differential fuzzer on x86_64.
#![cfg(target_arch = "x86_64")]

mod support;

backend_suite!(x86_64);
