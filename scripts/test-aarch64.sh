#!/usr/bin/env bash
# Builds and runs the workspace's tests for aarch64 under qemu-user.
#   bash scripts/test-aarch64.sh                 all tests, qemu's default (max) CPU
#   QEMU_CPU=cortex-a53 bash scripts/test-aarch64.sh   baseline ARMv8.0 only
#   bash scripts/test-aarch64.sh -p majit-ir     extra cargo test arguments
# aarch64 artifacts go to target/aarch64-unknown-linux-gnu; native builds
# are unaffected.
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(bash scripts/aarch64-toolchain.sh)"
unset QEMU_LD_PREFIX || true
# Tests that spawn a binary of the workspace run it through the same emulator.
export MAJIT_TEST_RUNNER=qemu-aarch64
if [ $# -eq 0 ]; then set -- --workspace; fi
exec "$A64_CARGO" test --target "$A64_TARGET" "$@"
