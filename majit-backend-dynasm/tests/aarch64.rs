//! The shared backend suite and differential fuzzer on aarch64 (under
//! qemu-user on x86_64 hosts: `scripts/test-aarch64.sh`).
#![cfg(target_arch = "aarch64")]

mod support;

backend_suite!(aarch64);
