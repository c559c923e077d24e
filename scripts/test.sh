#!/usr/bin/env bash
# Runs every check majit has: formatting, clippy, rustdoc, the native test
# suite (doctests included), the shell commands the docs show, then the whole
# suite again for aarch64 under qemu (installing the cross toolchain on first
# use), and the aarch64 backend once more on a baseline ARMv8.0 CPU.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n=== %s\n' "$*"; }

step "cargo fmt --check"
cargo fmt --all -- --check
step "cargo clippy (deny warnings)"
cargo clippy --workspace --all-targets -- -D warnings
step "rustdoc (deny warnings)"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace --quiet
step "native tests ($(uname -m))"
cargo test --workspace
step "the docs' shell commands (scripts/doc-commands.sh)"
bash scripts/doc-commands.sh
# The native test and example executables (no extension) are done with: free
# their disk for the aarch64 build, keeping the host's proc macros and rlibs.
find target/debug -maxdepth 2 -type f ! -name '*.*' -perm -u+x -delete
step "aarch64 tests under qemu"
# Left out under qemu, run natively above: differential-mode tests whose
# long entries are checked in thousands of slices, each forking the
# emulator (natively 1 s, under qemu 28 min); meta_diff's other tests check
# differential mode on aarch64.
bash scripts/test-aarch64.sh --workspace -- \
    --skip diff_mode_native --skip diff_mode_refexec \
    --skip a_ten_million_iteration_entry_is_checked_in_bounded_slices \
    --skip a_long_entry_reading_past_the_pipe_buffer_is_checked \
    --skip a_long_entry_with_collections_mid_entry_is_checked
step "aarch64 backend tests on a baseline ARMv8.0 CPU (cortex-a53)"
QEMU_CPU=cortex-a53 bash scripts/test-aarch64.sh -p majit-backend-dynasm
