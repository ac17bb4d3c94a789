#!/bin/bash
# Prints stk's changelog in Debian (deb) or rpm %changelog (rpm) format:
# one entry for the version in VERSION, listing the commit subjects since
# the last v* tag (all commits when there is none). Generated, so the
# version lives only in VERSION and the history only in git.
# usage: changelog.sh deb|rpm
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
version=$(cat "$root/VERSION")
maintainer=$(cat "$root/packaging/maintainer")
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)}

subjects() {
    local since
    if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
        since=$(git -C "$root" describe --tags --abbrev=0 --match 'v*' 2>/dev/null || true)
        git -C "$root" log --reverse --format=%s ${since:+"$since"..HEAD}
    fi | grep . || echo "Release $version."
}

case "${1:-}" in
deb)
    echo "stk ($version) unstable; urgency=medium"
    echo
    # Debian wants lines under 80 columns: wrap each subject under its bullet.
    subjects | while IFS= read -r s; do
        printf '%s\n' "$s" | fold -s -w 72 | sed -e '1s/^/  * /' -e '2,$s/^/    /' -e 's/ *$//'
    done
    echo
    echo " -- $maintainer  $(LC_ALL=C date -u -R -d "@$epoch")"
    ;;
rpm)
    echo "* $(LC_ALL=C date -u -d "@$epoch" '+%a %b %d %Y') $maintainer - $version-1"
    # rpm expands macros in %changelog: a literal % must be doubled.
    subjects | sed -e 's/%/%%/g' -e 's/^/- /'
    ;;
*)
    echo "usage: $0 deb|rpm" >&2
    exit 2
    ;;
esac
