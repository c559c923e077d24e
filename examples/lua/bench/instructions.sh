#!/usr/bin/env bash
# Instructions (valgrind --tool=callgrind) of ours --no-jit against lua5.4 on every benchmark (or those
# named) at check.sh's small N, each interpreter's start-up (a one-line script) subtracted: a repeatable
# measure of the plain interpreter on a loaded machine.
# Usage: bash examples/lua/bench/instructions.sh LUA [NAME...]
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 LUA [NAME...]" >&2; exit 2; }
ours=$(realpath "$1"); shift
names=" $* "
cd "$(dirname "$0")"
ir() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null | awk '/refs:/ { gsub(",", "", $4); print $4 }'; }
empty=$(mktemp --suffix=.lua); trap 'rm -f "$empty"' EXIT
echo 'print(1)' > "$empty"
ours0=$(ir "$ours" --no-jit "$empty"); ref0=$(ir lua5.4 "$empty")
sed -n '/^small=(/,/^)/p' check.sh | grep -E '^\s+[a-z_]+ [0-9]+' | while read -r p n; do
  [ "$names" != "  " ] && [[ "$names" != *" $p "* ]] && continue
  o=$(ir "$ours" --no-jit "$p.lua" "$n"); r=$(ir lua5.4 "$p.lua" "$n")
  awk -v p="$p.lua $n" -v o="$o" -v r="$r" -v o0="$ours0" -v r0="$ref0" 'BEGIN {
    printf "| `%s` | %.1fM | %.1fM | %.2f |\n", p, (r - r0) / 1e6, (o - o0) / 1e6, (o - o0) / (r - r0) }'
done
