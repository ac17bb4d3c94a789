# ci/build-cache.sh (sourced by ci/build-deps.sh and ci/build-ncurses.sh): the
# static libraries built from Debian's sources, kept outside the tree so a new
# clone (CI clones afresh) unpacks them instead of building them again.
#
# An entry is named by a key over everything its build reads: the build
# script and these helpers, the source packages' exact versions (their .dsc
# names), the compilers' and the host's toolchain packages' versions, and
# the target; any change builds anew. A clone elsewhere gets the entry with
# the paths of the tree it was built in rewritten to its own in the text
# files that hold them (pkg-config files, the musl-gcc wrapper and specs).
# STK_BUILD_CACHE: the directory (default /var/cache/stk-build; "off": none).
# Each kind keeps its newest 4 entries.

build_cache_dir() {
    local d=${STK_BUILD_CACHE:-/var/cache/stk-build}
    [ "$d" != off ] || return 1
    mkdir -p "$d" 2>/dev/null && [ -w "$d" ] || return 1
    echo "$d"
}

# build_cache_key LINE...: a key over the lines given, the ci/ scripts and the toolchain
build_cache_key() {
    local root
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    {
        printf '%s\n' "$@"
        sha256sum "$root"/ci/build-cache.sh "$root"/ci/apt-source.sh "$root"/ci/build-deps.sh \
            "$root"/ci/build-ncurses.sh "$root"/ci/libdw-disasm-stubs.c | cut -d' ' -f1
        dpkg-query -W -f='${Package}=${Version}\n' gcc binutils musl-tools musl-dev linux-libc-dev \
            gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu linux-libc-dev-arm64-cross 2>/dev/null || true
    } | sha256sum | cut -c1-24
}

# build_cache_restore KIND KEY DIR: DIR from the cache (0), or nothing there (1)
build_cache_restore() {
    local cache entry from
    cache=$(build_cache_dir) || return 1
    entry=$cache/$1-$2.tar.gz
    [ -f "$entry" ] || return 1
    rm -rf "$3" && mkdir -p "$3"
    if ! tar -xzf "$entry" -C "$3" 2>/dev/null || [ ! -f "$3/.built-in" ]; then
        rm -rf "$3" "$entry"
        return 1
    fi
    from=$(cat "$3/.built-in")
    if [ "$from" != "$3" ]; then
        grep -rlIF -- "$from" "$3" 2>/dev/null | while IFS= read -r f; do
            sed -i "s|$from|$3|g" "$f"
        done
        echo "$3" > "$3/.built-in"
    fi
    touch "$entry" # the newest used survive the pruning
    return 0
}

# build_cache_store KIND KEY DIR: DIR into the cache (written aside, then renamed: a
# build killed halfway leaves no entry); the kind's older entries past 4 removed
build_cache_store() {
    local cache tmp
    cache=$(build_cache_dir) || return 0
    echo "$3" > "$3/.built-in"
    tmp=$(mktemp "$cache/.$1-XXXXXX")
    if tar -czf "$tmp" -C "$3" . 2>/dev/null; then
        mv -f "$tmp" "$cache/$1-$2.tar.gz"
    else
        rm -f "$tmp"
    fi
    ls -t "$cache/$1-"*.tar.gz 2>/dev/null | tail -n +5 | xargs -r rm -f
}
