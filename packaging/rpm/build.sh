#!/bin/bash
# Builds the .rpm with rpmbuild from packaging/rpm/stk.spec and the staged
# tree (the same payload as the .deb). Everything rpmbuild writes stays
# under WORK_DIR (its _topdir); the host's ~/rpmbuild is not used.
# RPM_ARCH (make passes the target's: x86_64, aarch64) is the package's
# architecture (rpmbuild --target), else the build host's.
# usage: build.sh STAGED_TREE WORK_DIR OUT_DIR   (prints the .rpm's path)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
stage=$(cd "$1" && pwd) work=$2 outdir=$3
version=$(cat "$root/VERSION")

rm -rf "$work"
mkdir -p "$work/meta" "$outdir"
work=$(cd "$work" && pwd)
# Summary, description and changelog from the sources the .deb uses too.
# rpm summaries start with a capital letter (Debian's synopsis does not).
sed -n '1s/^./\U&/p' "$root/packaging/description" >"$work/meta/summary"
sed -n '3,$p' "$root/packaging/description" >"$work/meta/description"
bash "$root/packaging/changelog.sh" rpm >"$work/meta/changelog"

epoch=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)}
SOURCE_DATE_EPOCH=$epoch rpmbuild -bb --quiet ${RPM_ARCH:+--target "$RPM_ARCH"} \
    --define "_topdir $work" \
    --define "stk_version $version" \
    --define "stk_stage $stage" \
    --define "stk_meta $work/meta" \
    --define "packager $(cat "$root/packaging/maintainer")" \
    --define "_build_id_links none" \
    --define "use_source_date_epoch_as_buildtime 1" \
    --define "clamp_mtime_to_source_date_epoch 1" \
    "$root/packaging/rpm/stk.spec" >"$work/rpmbuild.log" 2>&1 ||
    { cat "$work/rpmbuild.log" >&2; exit 1; }
rpm=$(find "$work/RPMS" -name "stk-$version-1.*.rpm" | head -1)
cp "$rpm" "$outdir/"
echo "$outdir/$(basename "$rpm")"
