#!/usr/bin/env bash
# Regenerate every NAME.expected in this directory from the real PUC-Rio lua5.4.
#
# Each program NAME.lua (helper modules mod_*.lua excepted) is run from inside this
# directory as `lua5.4 NAME.lua [ARGS...]`, where ARGS are the lines of NAME.args
# (one argument per line) and stdin is NAME.stdin (or empty), with LC_ALL=C and
# the LUA_INIT/LUA_PATH/LUA_CPATH variables removed. NAME.expected then holds:
#
#   <stdout, verbatim>
#   \ no newline at end of stdout        (only if stdout is non-empty and lacks a final newline)
#   --- stderr:
#   <first line of stderr, "lua5.4: " at its start replaced by "lua: ">   (only if stderr is non-empty)
#   --- exit: <status>
#
# tests/corpus.rs produces the same format and compares it against these files.
set -euo pipefail

cd "$(dirname "$0")"

if ! command -v lua5.4 >/dev/null 2>&1; then
  echo "bless.sh: lua5.4 not found: install Debian's lua5.4 (apt-get install lua5.4)" >&2
  exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

failed=0
count=0
for lua in *.lua; do
  name=${lua%.lua}
  case $name in mod_*) continue ;; esac
  args=()
  if [[ -f $name.args ]]; then mapfile -t args < "$name.args"; fi
  stdin=/dev/null
  if [[ -f $name.stdin ]]; then stdin=$name.stdin; fi
  status=0
  env -u LUA_INIT -u LUA_INIT_5_4 -u LUA_PATH -u LUA_PATH_5_4 -u LUA_CPATH -u LUA_CPATH_5_4 \
    LC_ALL=C timeout 20 lua5.4 "$lua" ${args[@]+"${args[@]}"} <"$stdin" >"$tmp/out" 2>"$tmp/err" || status=$?
  if [[ $status -eq 124 ]]; then
    echo "bless.sh: $name timed out after 20 s" >&2
    failed=1
    continue
  fi
  {
    cat "$tmp/out"
    if [[ -s $tmp/out && $(tail -c1 "$tmp/out" | wc -l) -eq 0 ]]; then
      printf '\n\\ no newline at end of stdout\n'
    fi
    echo "--- stderr:"
    if [[ -s $tmp/err ]]; then
      first=$(head -n1 "$tmp/err")
      printf '%s\n' "${first/#lua5.4: /lua: }"
    fi
    echo "--- exit: $status"
  } >"$name.expected"
  count=$((count + 1))
done

# Drop expectations whose program no longer exists.
for exp in *.expected; do
  if [[ ! -f ${exp%.expected}.lua ]]; then
    echo "bless.sh: removing stale $exp" >&2
    rm -f "$exp"
  fi
done

echo "bless.sh: wrote $count expectation files"
exit $failed
