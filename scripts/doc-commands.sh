#!/usr/bin/env bash
# Runs every command of the fenced ```sh blocks in README.md, docs/*.md and
# examples/*/README.md (or of the files given), so a doc cannot show a
# command that does not work.
#
# - A block right after a line `<!-- not-run: REASON -->` is skipped.
# - Each line is one command (a trailing `\` continues it); `#` lines are
#   comments. It must exit 0, or with N if it ends in `# status N`; if it
#   ends in `# prints TEXT`, its stdout must be TEXT.
# - Commands run from the repository root on small inputs: `--release` is
#   dropped (the debug builds of `cargo test --workspace` are reused), the
#   logo harness (`--bin logo` without arguments) runs one round of a small
#   corpus program, and a relative `> FILE` redirect writes into a
#   temporary directory.
#
# Before the docs, the script checks itself on a doc with a failing command
# and one with a false `# prints` claim: both must be reported.
set -euo pipefail
cd "$(dirname "$0")/.."

small=examples/aheui/tests/programs/storage_all_distinct
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Prints `FILE:LINE<TAB>COMMAND` for every command to run in FILE.
commands() {
    awk '
        /^<!-- not-run:/ { skip = 1; next }
        /^```sh[[:space:]]*$/ && !inblock { inblock = 1; run = !skip; skip = 0; next }
        /^```/ && inblock { inblock = 0; next }
        !inblock { if ($0 !~ /^[[:space:]]*$/) skip = 0; next }
        !run { next }
        {
            line = $0
            if (cont != "") { cmd = cont " " line; cont = "" } else { cmd = line; at = FNR }
            if (cmd ~ /\\$/) { cont = substr(cmd, 1, length(cmd) - 1); next }
            if (cmd ~ /^[[:space:]]*(#.*)?$/) next
            printf "%s:%d\t%s\n", FILENAME, at, cmd
        }
    ' "$1"
}

# The command as run: small inputs, debug builds, redirects into $tmp.
shrink() {
    sed -E \
        -e 's/ --release( |$)/\1/g' \
        -e "s#(--bin logo)[[:space:]]*\$#\\1 -- --runs 1 $small.aheui $small.out#" \
        -e "s#>[[:space:]]*([A-Za-z0-9_.-]+)#> $tmp/\\1#g" <<<"$1"
}

# Runs one `FILE:LINE<TAB>COMMAND`; returns 1 (after saying why) if it fails.
check() {
    local at=${1%%$'\t'*} written=${1#*$'\t'} cmd want=0 prints= status=0
    cmd=$written
    if [[ $cmd =~ ^(.*[^[:space:]])[[:space:]]+#[[:space:]]*status[[:space:]]+([0-9]+)[[:space:]]*$ ]]; then
        cmd=${BASH_REMATCH[1]} want=${BASH_REMATCH[2]}
    elif [[ $cmd =~ ^(.*[^[:space:]])[[:space:]]+#[[:space:]]*prints[[:space:]]+(.*[^[:space:]])[[:space:]]*$ ]]; then
        cmd=${BASH_REMATCH[1]} prints=${BASH_REMATCH[2]}
    fi
    cmd=$(shrink "${cmd%%[[:space:]]#*}")
    printf '%s: %s\n' "$at" "$cmd"
    timeout 300 bash -o pipefail -c "$cmd" >"$tmp/out" 2>"$tmp/err" </dev/null || status=$?
    local why=
    if [[ $status != "$want" ]]; then
        why="exit status $status, the doc expects $want"
    elif [[ -n $prints && $(<"$tmp/out") != "$prints" ]]; then
        why="printed '$(head -c 200 "$tmp/out")', the doc says '$prints'"
    fi
    [[ -z $why ]] && return 0
    printf '  FAILED (%s)\n  as written: %s\n' "$why" "$written"
    tail -n 20 "$tmp/err" | sed 's/^/  stderr: /'
    return 1
}

# Runs every command of the given files; the number that failed.
check_files() {
    local failed=0 entry
    while IFS= read -r entry; do
        check "$entry" || failed=$((failed + 1))
    done < <(for f in "$@"; do commands "$f"; done)
    return "$failed"
}

self_test() {
    printf '```sh\ntrue\nfalse\n```\n' >"$tmp/fails.md"
    printf '```sh\necho 4   # prints 5\n```\n' >"$tmp/claims.md"
    printf '<!-- not-run: never -->\n```sh\nfalse\n```\n```sh\necho 5 \\\n  | tr 5 6   # prints 6\n```\n' >"$tmp/skips.md"
    for bad in fails claims; do
        if check_files "$tmp/$bad.md" >/dev/null; then
            echo "doc-commands: the self-test's $bad.md passed" >&2
            exit 1
        fi
    done
    check_files "$tmp/skips.md" >/dev/null || {
        echo "doc-commands: the self-test's skips.md failed" >&2
        exit 1
    }
}

self_test
if [[ $# -eq 0 ]]; then
    set -- README.md docs/*.md examples/*/README.md
fi
if check_files "$@"; then
    echo "doc-commands: all commands ran as documented"
else
    echo "doc-commands: $? command(s) failed" >&2
    exit 1
fi
