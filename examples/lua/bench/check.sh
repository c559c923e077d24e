#!/usr/bin/env bash
# Runs every benchmark at a small size (under 1 s each with lua5.4) through lua5.4 and each given
# interpreter, and fails if any output (stdout and exit status) differs from lua5.4's.
# Usage: check.sh [LUA...]   e.g. check.sh luajit "target/release/lua --no-jit" target/release/lua
# (each LUA is split on spaces, so it can carry options).
set -u
here=$(cd "$(dirname "$0")" && pwd)

# program and its small N (also the list of programs and the --quick sizes of the harness
# benches/src/bin/lua-bench.rs, which reads this table: keep it one `NAME N` a line)
small=(
  fib 20
  loops 300
  nbody 2000
  spectral 60
  fannkuch 7
  mandelbrot 120
  binary_trees 8
  richards 5
  deltablue 5
  sieve 5
  queens 8
  towers 12
  permute 7
  list 20
  strbuild 20000
  json 30
  hash 20000
)

fail=0
for ((k = 0; k < ${#small[@]}; k += 2)); do
  p=${small[k]} n=${small[k + 1]}
  want=$(lua5.4 "$here/$p.lua" "$n" 2>&1; echo "exit $?")
  for lua in "$@"; do
    got=$(timeout 120 $lua "$here/$p.lua" "$n" 2>&1; echo "exit $?")
    if [ "$got" != "$want" ]; then
      echo "FAIL $p $n under $lua"
      diff <(echo "$want") <(echo "$got") | head -10
      fail=1
    else
      echo "ok   $p $n under $lua"
    fi
  done
done
exit $fail
