#!/usr/bin/env bash
# Times every benchmark at its default size: lua5.4, luajit, ours with the JIT and ours --no-jit.
# Each cell is the minimum of 3 runs of `/usr/bin/time -f %e`; a run over 60 s is stopped (`timeout 60`)
# and the cell is "> 60 s" (no further runs of it).  Usage: time.sh [OURS] [PROGRAM...]
# (OURS defaults to the release binary, target/release/lua).
set -u
here=$(cd "$(dirname "$0")" && pwd)
ours=${1:-$here/../../../target/release/lua}
shift || true
progs=("$@")
[ ${#progs[@]} -eq 0 ] && progs=(fib loops nbody spectral fannkuch mandelbrot binary_trees richards deltablue
                                  sieve queens towers permute list strbuild json hash)

tmp=$(mktemp); trap 'rm -f "$tmp"' EXIT
best() { # best-of-3 seconds of "$@", or "> 60 s"
  local min="" t
  for _ in 1 2 3; do
    /usr/bin/time -o "$tmp" -f %e timeout 60 "$@" >/dev/null 2>&1
    t=$(tail -1 "$tmp")
    case "$t" in ""|*[!0-9.]*) echo "> 60 s"; return;; esac
    if [ "${t%.*}" -ge 60 ] 2>/dev/null; then echo "> 60 s"; return; fi
    if [ -z "$min" ] || awk "BEGIN{exit !($t < $min)}"; then min=$t; fi
  done
  echo "$min"
}
ratio() { case "$1$2" in *'>'*) echo "-";; *) awk "BEGIN{printf \"%.1f\", $1 / $2}";; esac; }

echo "| program | lua5.4 | luajit | ours JIT | ours --no-jit | plain/lua5.4 | JIT/lua5.4 |"
echo "|---|---|---|---|---|---|---|"
for p in "${progs[@]}"; do
  f=$here/$p.lua
  a=$(best lua5.4 "$f"); b=$(best luajit "$f"); c=$(best "$ours" "$f"); d=$(best "$ours" --no-jit "$f")
  pr=$(ratio "$d" "$a"); jr=$(ratio "$c" "$a")
  [ "$d" = "> 60 s" ] && pr="> $(awk "BEGIN{printf \"%.0f\", 60 / $a}")"
  [ "$c" = "> 60 s" ] && jr="> $(awk "BEGIN{printf \"%.0f\", 60 / $a}")"
  fmt() { case "$1" in *'>'*) echo "$1";; *) echo "$1 s";; esac; }
  echo "| $p | $(fmt "$a") | $(fmt "$b") | $(fmt "$c") | $(fmt "$d") | $pr | $jr |"
done
