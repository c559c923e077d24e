#!/usr/bin/env bash
# Runs every check majit has: formatting, clippy, rustdoc, the native test
# suite (doctests included), the shell commands the docs show, then the
# suites that run machine code again for aarch64 under qemu (installing the
# cross toolchain on first use), and the aarch64 backend once more on a
# baseline ARMv8.0 CPU.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n=== %s\n' "$*"; }

step "the Lua oracles (lua5.4, luajit: installed on first use)"
bash scripts/lua-oracles.sh

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
# The crates whose tests run machine code (the backend, the facade, the
# macros, the examples) and the GC they run on. majit-ir and
# majit-metainterp (IR, optimizer, tracer, reference executor) are
# target-independent Rust: the native pass covers them (under qemu their
# fuzzers and differential-mode forks took 20 minutes). vable_frames' two
# differential-mode tests are left out here too: every checked slice of
# their long entries forks the emulator (2 s natively, 18 min under qemu).
bash scripts/test-aarch64.sh --workspace --exclude majit-ir --exclude majit-metainterp -- \
    --skip diff_mode_native --skip diff_mode_refexec
step "aarch64 backend tests on a baseline ARMv8.0 CPU (cortex-a53)"
QEMU_CPU=cortex-a53 bash scripts/test-aarch64.sh -p majit-backend-dynasm
