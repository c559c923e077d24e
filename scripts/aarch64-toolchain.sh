#!/usr/bin/env bash
# Installs (if missing) what building and running majit's tests for aarch64
# on an x86_64 Debian 12 host needs, then prints the environment to use.
#
#   bash scripts/aarch64-toolchain.sh          install if needed, print env lines
#   eval "$(bash scripts/aarch64-toolchain.sh)"
#
# The pieces, all Debian packages:
# - rustc-web/cargo-web (1.96, from the bookworm security suite) with the
#   std for both x86_64 (build scripts, proc macros such as dynasm!) and
#   aarch64; rustup's toolchain on these machines has no aarch64 std.
# - gcc-aarch64-linux-gnu + libc6-dev-arm64-cross: the linker.
# - libc6:arm64 + qemu-user: qemu-aarch64 runs the test binaries, JIT code
#   included.
# qemu must NOT get `-L /usr/aarch64-linux-gnu` or QEMU_LD_PREFIX: it would
# mix the cross sysroot's loader with the multiarch libc and every
# pthread_create (so every libtest run) would hang. The runner below unsets it.
set -euo pipefail

TARGET=aarch64-unknown-linux-gnu
PACKAGES=(rustc-web cargo-web libstd-rust-web-dev:amd64 libstd-rust-web-dev:arm64
          libc6:arm64 gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user)

say() { echo "[aarch64-toolchain] $*" >&2; }

installed() {
    [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" = "install ok installed" ]
}

complete() {
    local p
    for p in "${PACKAGES[@]}"; do installed "$p" || return 1; done
    command -v qemu-aarch64 >/dev/null && command -v aarch64-linux-gnu-gcc >/dev/null \
        && [ -d "$(/usr/bin/rustc --print sysroot)/lib/rustlib/$TARGET/lib" ]
}

if ! complete; then
    start=$SECONDS
    if ! dpkg --print-foreign-architectures | grep -qx arm64; then
        say "adding dpkg architecture arm64"
        dpkg --add-architecture arm64
    fi
    say "apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get -q update >&2
    say "installing ${PACKAGES[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get -q -y -o DPkg::Lock::Timeout=300 \
        --no-install-recommends install "${PACKAGES[@]}" >&2
    complete || { say "installation incomplete"; exit 1; }
    say "installed in $((SECONDS - start)) s"
fi

cat <<ENV
export RUSTC=/usr/bin/rustc
export RUSTDOC=/usr/bin/rustdoc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER='env -u QEMU_LD_PREFIX qemu-aarch64'
export A64_CARGO=/usr/bin/cargo
export A64_TARGET=$TARGET
ENV
