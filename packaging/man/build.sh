#!/bin/bash
# Fills the version (from VERSION) and date (last commit, or SOURCE_DATE_EPOCH)
# into the hand-written stk.8.in. usage: build.sh OUT
# OUT is rewritten only when its content changes (make runs this every time,
# since the date follows the last commit), so packages rebuild only then.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$1
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)}
mkdir -p "$(dirname "$out")"
sed -e "s/@VERSION@/$(cat "$root/VERSION")/g" \
    -e "s/@DATE@/$(date -u -d "@$epoch" +%Y-%m-%d)/g" \
    "$root/packaging/man/stk.8.in" >"$out.tmp"
if cmp -s "$out.tmp" "$out"; then rm "$out.tmp"; else mv "$out.tmp" "$out"; fi
