#!/bin/bash
# Stages the installed layout of stk into DESTDIR: the one definition of
# what the .deb and the .rpm contain (both package this tree as it is).
#   /usr/sbin/stk, /usr/sbin/stk-APPLET -> stk (relative symlinks)
#   /usr/share/man/man8/stk.8.gz, stk-APPLET.8.gz -> stk.8.gz
#   /usr/share/bash-completion/completions/stk, stk-APPLET -> stk
#   /usr/share/doc/stk/{README.md.gz,copyright,changelog.gz}
# Only stk-APPLET links, never bare applet names: "profile" and "info" would
# clash with other packages. The applets come from `stk --list`, so a new
# applet gets its links without touching this file.
#   /usr/lib/systemd/system/stk-record.service, stk-threadstate.service
#   (shipped disabled: no preset, no maintainer script enables them)
# usage: stage.sh STK_BINARY MAN_PAGE DESTDIR
set -euo pipefail
umask 022
root=$(cd "$(dirname "$0")/.." && pwd)
stk=$1 man=$2 dest=$3
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)}

rm -rf "$dest"
sbin=$dest/usr/sbin man8=$dest/usr/share/man/man8
comp=$dest/usr/share/bash-completion/completions doc=$dest/usr/share/doc/stk
install -d -m 0755 "$sbin" "$man8" "$comp" "$doc"

install -m 0755 "$stk" "$sbin/stk"
gzip -9n <"$man" >"$man8/stk.8.gz"
install -m 0644 "$root/packaging/completion/stk.bash" "$comp/stk"
for unit in stk-record.service stk-threadstate.service; do
    install -D -m 0644 "$root/packaging/systemd/$unit" "$dest/usr/lib/systemd/system/$unit"
done
# The applets come from the binary itself; one built for another
# architecture (make ARCH=arm64 on x86_64) runs under qemu-user.
run=()
if [ "$(readelf -h "$stk" | sed -n 's/^ *Machine: *//p')" = AArch64 ] && [ "$(uname -m)" != aarch64 ]; then
    run=(qemu-aarch64-static)
fi
for applet in $("${run[@]}" "$stk" --list); do
    ln -s stk "$sbin/stk-$applet"
    # `man stk-profile` and completion for stk-profile find the shared files.
    ln -s stk.8.gz "$man8/stk-$applet.8.gz"
    ln -s stk "$comp/stk-$applet"
done

# Debian policy 12.3: documentation over 4 kB is compressed (gzip -9n).
gzip -9n <"$root/README.md" >"$doc/README.md.gz"
install -m 0644 "$root/packaging/copyright" "$doc/copyright"
bash "$root/packaging/changelog.sh" deb | gzip -9n >"$doc/changelog.gz"
chmod 0644 "$doc"/*.gz "$man8/stk.8.gz"

# Reproducible: every file dated to the last commit.
find "$dest" -exec touch -h -d "@$epoch" {} +
