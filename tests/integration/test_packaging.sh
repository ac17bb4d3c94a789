#!/bin/bash
# needs: root (dpkg --root and rpm --root install the packages into a scratch root)
# Packaging: `make deb rpm` from this tree, then the payload, links,
# install and removal in a scratch root, lintian and rpmlint, the man page
# against every implemented applet's --help, and the bash completion.
SUITE=packaging
. "$(dirname "$0")/../lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PKG=$BUILD/packaging
W=$BUILD/tests/workloads
VERSION=$(cat "$ROOT/VERSION")
tmp=$(mktemp -d)
wpid=""
cleanup() {
    [ -n "$wpid" ] && kill -9 "$wpid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

# check the build rule itself too: `make check` does not build packages.
if make -C "$ROOT" BUILD="$BUILD" deb rpm >"$tmp/make.log" 2>&1; then
    pass make_deb_rpm
else
    fail make_deb_rpm "$(tail -5 "$tmp/make.log" | tr '\n' ' ')"
    exit 1
fi
deb=$PKG/stk_${VERSION}_$(dpkg --print-architecture).deb
rpm=$(ls "$PKG"/stk-"$VERSION"-1.*.rpm 2>/dev/null | head -1)
[ -f "$deb" ] && pass deb_built || fail deb_built "no $deb"
[ -n "$rpm" ] && pass rpm_built || fail rpm_built "no stk-$VERSION-1.*.rpm in $PKG"

applets=$("$STK" --list)

# --- the .deb's payload: exactly these files and links ---
{
    echo /usr/sbin/stk
    echo /usr/share/bash-completion/completions/stk
    echo /usr/share/doc/stk/README.md.gz
    echo /usr/share/doc/stk/changelog.gz
    echo /usr/share/doc/stk/copyright
    echo /usr/share/lintian/overrides/stk
    echo /usr/share/man/man8/stk.8.gz
    echo /usr/lib/systemd/system/stk-record.service
    echo /usr/lib/systemd/system/stk-threadstate.service
    for a in $applets; do
        echo "/usr/sbin/stk-$a -> stk"
        echo "/usr/share/man/man8/stk-$a.8.gz -> stk.8.gz"
        echo "/usr/share/bash-completion/completions/stk-$a -> stk"
    done
} | sort >"$tmp/want"
# dpkg-deb -c: "perms owner size date time ./path[ -> target]"; directories dropped.
dpkg-deb -c "$deb" | grep -v '^d' | sed -E 's/^([^ ]+ +){5}\.//' | sort >"$tmp/deb.list"
if cmp -s "$tmp/want" "$tmp/deb.list"; then
    pass deb_payload_and_links
else
    fail deb_payload_and_links "$(diff "$tmp/want" "$tmp/deb.list" | grep '^[<>]' | tr '\n' ' ')"
fi
expect_eq deb_owned_by_root "$(dpkg-deb -c "$deb" | awk '$2 != "root/root"' | wc -l)" 0
expect_eq deb_version "$(dpkg-deb -f "$deb" Version)" "$VERSION"
expect_eq deb_no_depends "$(dpkg-deb -f "$deb" Depends Pre-Depends Recommends)" ""

mkdir "$tmp/x"
dpkg-deb -x "$deb" "$tmp/x"
# The package ships the binary `make` built, byte for byte.
cmp -s "$tmp/x/usr/sbin/stk" "$BUILD/stk" && pass deb_binary_is_build_stk ||
    fail deb_binary_is_build_stk "differs from $BUILD/stk"
expect_eq deb_binary_mode "$(stat -c %a "$tmp/x/usr/sbin/stk")" 755

# unit_command NAME UNIT FROM TO: the unit's ExecStart arguments (FROM, its
# directory, replaced by TO) into UNIT_ARGS and its capability bounding set
# in setpriv's form into UNIT_CAPS; checks it runs /usr/sbin/stk.
unit_command() {
    local exec_args
    UNIT_CAPS=$(sed -n 's/^CapabilityBoundingSet=//p' "$2" | tr 'A-Z ' 'a-z,' | sed 's/cap_/+/g')
    read -r -a exec_args <<<"$(sed -n 's/^ExecStart=//p' "$2")"
    expect_eq "${1}_execstart_binary" "${exec_args[0]}" /usr/sbin/stk
    UNIT_ARGS=("${exec_args[@]:1}")
    UNIT_ARGS=("${UNIT_ARGS[@]//"$3"/$4}")
}
# start_spinner: tests/workloads/threads, whose thread "spin" is always on CPU, so
# samples have an active thread whatever else the host is doing (an idle host has
# none); its pid in wpid, the spinner's tid in spin.
start_spinner() {
    "$W/threads" known >"$tmp/tids" 2>&1 &
    wpid=$!
    for _ in $(seq 100); do grep -q '^ready$' "$tmp/tids" && break; sleep 0.05; done
    spin=$(awk '$1 == "spin" { print $2 }' "$tmp/tids")
}

# The shipped systemd unit's command line, run with only the unit's
# capability bounding set (as systemd would): it records through BPF (not
# the /proc fallback) into the directory it names.
unit=$tmp/x/usr/lib/systemd/system/stk-threadstate.service
unit_command unit "$unit" /var/log/stk "$tmp/unitrec"
caps=$UNIT_CAPS unit_args=("${UNIT_ARGS[@]}")
start_spinner
run_capture setpriv --bounding-set "-all,$caps" "$STK" "${unit_args[@]}" -v -n 2
kill -9 "$wpid" 2>/dev/null
wait "$wpid" 2>/dev/null
wpid=""
expect_eq unit_command_rc "$RC" 0
expect_contains unit_command_uses_bpf "$ERR" "threadstate: source task_iter"
samples=$(cat "$tmp"/unitrec/samples-*.csv 2>/dev/null)
expect_eq unit_command_samples_header "$(printf '%s\n' "$samples" | head -1 | cut -d, -f1-4)" "time,tid,pid,state"
spin_rows=$(printf '%s\n' "$samples" | awk -F, -v t="$spin" '$2 == t' | wc -l)
if [ -n "$spin" ] && [ "$spin_rows" -eq 2 ]; then pass unit_command_records_spinner
else fail unit_command_records_spinner "spinner tid '$spin' in $spin_rows of 2 samples: $ERR"; fi
# The recorder's unit: systemd reads every key of it, and its command line,
# run with only its capability bounding set and its umask into a directory
# in place of /var/lib/stk for 3 s, leaves one complete file of CPU samples,
# off-CPU time and thread states there, 0600 in a 0700 directory, that stk report reads.
rec_unit=$tmp/x/usr/lib/systemd/system/stk-record.service
if need_command systemd-analyze systemd; then
    bad_keys=$(systemd-analyze verify --man=no "$rec_unit" 2>&1 | grep -iE 'unknown|invalid|failed to parse|ignoring')
    expect_eq record_unit_keys_known "$bad_keys" ""
else
    fail record_unit_keys_known "apt could not install systemd (for systemd-analyze)"
fi
expect_eq record_unit_state_dir "$(sed -n 's/^StateDirectory=//p; s/^StateDirectoryMode=//p' "$rec_unit" | paste -sd' ')" "stk 0700"
unit_command record_unit "$rec_unit" /var/lib/stk/ "$tmp/unitseries/"
rec_caps=$UNIT_CAPS rec_args=("${UNIT_ARGS[@]}")
start_spinner
run_capture bash -c 'umask "$1"; shift; exec setpriv --bounding-set "-all,$1" "${@:2}"' _ \
    "$(sed -n 's/^UMask=//p' "$rec_unit")" "$rec_caps" "$STK" "${rec_args[@]}" 3
kill -9 "$wpid" 2>/dev/null
wait "$wpid" 2>/dev/null
wpid=""
expect_eq record_unit_command_rc "$RC" 0
expect_eq record_unit_no_warning "$(printf '%s\n' "$ERR" | grep -ciE 'warning|refused|failed')" 0
expect_eq record_unit_dir_mode "$(stat -c %a "$tmp/unitseries" 2>&1)" 700
rec_files=$(ls "$tmp"/unitseries/stk-*.parquet 2>/dev/null)
expect_eq record_unit_one_file "$(printf '%s\n' "$rec_files" | grep -c parquet)" 1
expect_eq record_unit_file_mode "$(stat -c %a $rec_files 2>&1)" 600
run_capture "$STK" report "$tmp/unitseries/" --format folded
expect_eq record_unit_report_rc "$RC" 0
# (folded: the kind's value type, the thread, then its stack root first; states have none)
for want in "cpu:^samples;spin;__clone3;start_thread;spin;spin_forever [0-9]" "state:^state;spin [0-9]"; do
    if printf '%s\n' "$OUT" | grep -Eq "${want#*:}"; then pass "record_unit_${want%%:*}_of_spinner"
    else fail "record_unit_${want%%:*}_of_spinner" "no ${want#*:} in: $(printf '%s' "$OUT$ERR" | grep spin | head -c 500)"; fi
done

expect_eq unit_disabled_no_maintscripts "$(dpkg-deb -I "$deb" | grep -cE 'postinst|prerm|postrm')" 0

# --- install into a scratch root, run the links, remove, purge ---
sr=$tmp/root
mkdir -p "$sr/var/lib/dpkg/info" "$sr/var/lib/dpkg/updates"
touch "$sr/var/lib/dpkg/status" "$sr/var/lib/dpkg/available"
dpkgr() { dpkg --root="$sr" --log=/dev/null "$@"; }
run_capture dpkgr -i "$deb"
expect_eq dpkg_install_rc "$RC" 0
expect_eq dpkg_status "$(dpkg-query --root="$sr" -W -f='${Status} ${Version}' stk 2>&1)" \
    "install ok installed $VERSION"
run_capture "$sr/usr/sbin/stk-profile" --help
if [ "$RC" -eq 0 ] && printf '%s\n' "$OUT" | grep -q '^usage: stk profile'; then
    pass installed_stk_profile_help
else
    fail installed_stk_profile_help "rc=$RC out=$(printf '%s' "$OUT" | head -1) err=$ERR"
fi
run_capture "$sr/usr/sbin/stk-info" --help
expect_contains installed_stk_info_help "$OUT" "usage: stk info"
run_capture "$sr/usr/sbin/stk" --version
expect_contains installed_version "$OUT" "stk $VERSION"
run_capture env LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$sr/usr/share/man/man8/stk-profile.8.gz"
expect_contains installed_man_link_renders "$OUT" "stk - portable eBPF stack analysis"

# Completion, from the installed file, for a link name and for "stk APPLET".
complete_words() { # WORD... : prints COMPREPLY for the last word
    PATH=$sr/usr/sbin:$PATH bash -c '. "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _stk
        echo "${COMPREPLY[*]}"' "$sr/usr/share/bash-completion/completions/stk" "$@"
}
expect_eq completion_link_options "$(complete_words stk-profile --freq)" "--frequency"
expect_eq completion_applets "$(complete_words stk "")" "$(echo $applets) --list --help --version --install"
# --format's values come from the applet's --help (the format table): each applet its own
expect_eq completion_format_values "$(complete_words stk profile --format p)" "pmp pprof parquet"
expect_eq completion_format_values_pmp "$(complete_words stk pmp --format p)" "pmp pprof"
expect_eq completion_format_values_report "$(complete_words stk-report --format "")" \
    "text folded pmp pprof svg speedscope trace"
# resources' comma-separated kinds: the one after the last comma, from --list-kinds
expect_eq completion_resources_kinds "$(complete_words stk resources -e rss,b)" "rss,block rss,block-time"
expect_eq completion_record_kinds "$(complete_words stk record -e cpu,s)" "cpu,send cpu,syscall cpu,state"
# bash-completion loads the file for a name only if the file registers it
# (the names come from the installed stk's --list).
registered=$(PATH=$sr/usr/sbin:$PATH bash -c '. "$0"; complete -p' "$sr/usr/share/bash-completion/completions/stk" |
    sed -n 's/^complete -F _stk //p' | tr '\n' ' ')
missing=""
for a in $applets; do
    case " $registered " in *" stk-$a "*) ;; *) missing="$missing stk-$a" ;; esac
done
expect_eq completion_registers_all_links "$missing" ""

run_capture dpkgr -r stk
expect_eq dpkg_remove_rc "$RC" 0
run_capture dpkgr -P stk
expect_eq dpkg_purge_rc "$RC" 0
left=$(find "$sr" -name '*stk*'; find "$sr/usr" -mindepth 1 2>/dev/null)
expect_eq dpkg_purge_leaves_nothing "$(echo $left)" ""
expect_eq dpkg_purge_not_known "$(dpkg-query --root="$sr" -W stk 2>/dev/null)" ""

# --- the .rpm: same payload and links as the .deb, minus lintian's file ---
rpm -qp --qf '[%{FILENAMES}\t%{FILELINKTOS}\t%{FILEMODES:perms}\n]' "$rpm" 2>/dev/null |
    awk -F'\t' '$3 !~ /^d/ { print $2 == "" ? $1 : $1 " -> " $2 }' | sort >"$tmp/rpm.list"
grep -v '^/usr/share/lintian/' "$tmp/deb.list" >"$tmp/deb.nolintian"
if cmp -s "$tmp/deb.nolintian" "$tmp/rpm.list"; then
    pass rpm_payload_equals_deb
else
    fail rpm_payload_equals_deb "$(diff "$tmp/deb.nolintian" "$tmp/rpm.list" | grep '^[<>]' | tr '\n' ' ')"
fi
# rpm -qlp lists the same paths (plus the doc directory it owns).
rpm -qlp "$rpm" 2>/dev/null | grep -vx /usr/share/doc/stk | sort >"$tmp/rpm.qlp"
sed 's/ -> .*//' "$tmp/deb.nolintian" | sort >"$tmp/deb.paths"
expect_eq rpm_qlp_equals_deb "$(diff "$tmp/deb.paths" "$tmp/rpm.qlp" | grep '^[<>]' | tr '\n' ' ')" ""
expect_eq rpm_version "$(rpm -qp --qf '%{VERSION}' "$rpm" 2>/dev/null)" "$VERSION"
expect_eq rpm_no_requires "$(rpm -qp --requires "$rpm" 2>/dev/null | grep -v '^rpmlib(')" ""
mkdir "$tmp/rx"
(cd "$tmp/rx" && rpm2cpio "$rpm" | cpio -id --quiet)
cmp -s "$tmp/rx/usr/sbin/stk" "$BUILD/stk" && pass rpm_binary_is_build_stk ||
    fail rpm_binary_is_build_stk "differs from $BUILD/stk"
rr=$tmp/rpmroot
mkdir "$rr"
rpm --root "$rr" --initdb 2>/dev/null
run_capture rpm --root "$rr" -i --nodeps "$rpm"
expect_eq rpm_install_rc "$RC" 0
run_capture "$rr/usr/sbin/stk-profile" --help
expect_contains rpm_installed_stk_profile_help "$OUT" "usage: stk profile"
run_capture rpm --root "$rr" -e stk
expect_eq rpm_erase_rc "$RC" 0
expect_eq rpm_erase_leaves_nothing "$(find "$rr/usr" -name '*stk*' | tr '\n' ' ')" ""

# --- linters ---
# lintian: no errors and no warnings. Two errors are overridden, with the
# reasons, in packaging/deb/lintian-overrides (stk is static on purpose).
lintian --no-tag-display-limit "$deb" >"$tmp/lintian" 2>/dev/null
expect_eq lintian_no_errors "$(grep '^E:' "$tmp/lintian" | tr '\n' ' ')" ""
expect_eq lintian_no_warnings "$(grep '^W:' "$tmp/lintian" | tr '\n' ' ')" ""
# rpmlint with packaging/rpm/rpmlint.toml (filters explained there). Only the
# two warnings explained there may remain; a new one fails until explained.
rpmlint -c "$ROOT/packaging/rpm/rpmlint.toml" "$rpm" >"$tmp/rpmlint" 2>&1
expect_eq rpmlint_no_errors "$(grep ': E: ' "$tmp/rpmlint" | tr '\n' ' ')" ""
expect_eq rpmlint_only_explained_warnings \
    "$(grep ': W: ' "$tmp/rpmlint" | grep -v -e position-independent-executable-suggested -e no-url-tag | tr '\n' ' ')" ""

# --- man page ---
man_src=$PKG/stk.8
run_capture env LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$man_src"
expect_eq man_groff_no_warnings "$ERR" ""
run_capture env LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$man_src"
expect_eq man_l_no_warnings "$ERR" ""
expect_contains man_has_version "$(head -20 "$man_src")" "\"stk $VERSION\""

# The man source as plain text: "\-" is "-", font changes dropped.
plain() { sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$man_src"; }
# man_section NAME: the ".SS NAME" section up to the next .SS or .SH.
man_section() { plain | awk -v s=".SS $1" '$0 == s { on = 1; next } /^\.S[SH]/ { on = 0 } on'; }
# help_options CMD...: every option (-x, --long) in CMD's --help: the usage
# line's bracketed ones and those opening an indented line.
help_options() {
    local help
    help=$("$@" --help 2>/dev/null)
    {
        printf '%s\n' "$help" | sed -n -E 's/^ +(-[^ ].*)$/\1/p' | sed -E 's/  +.*//'
        printf '%s\n' "$help" | grep '^usage:' | grep -oE '\[--?[A-Za-z][A-Za-z0-9-]*' | tr -d '['
    } | grep -oE '(^|[ ,|])--?[A-Za-z0-9][A-Za-z0-9-]*' | tr -d ' ,|' | sort -u
}
# documents TEXT OPT: OPT appears in TEXT as a whole word.
documents() { printf '%s\n' "$1" | grep -qE -- "(^|[^A-Za-z0-9-])$2([^A-Za-z0-9-]|$)"; }

# Global options: stk --help's usage lines against the whole page.
undocumented=""
for o in $("$STK" --help | grep -E '^(usage:|  +stk)' | grep -oE -- '(^| )--?[a-z][a-z-]*' | tr -d ' '); do
    documents "$(plain)" "$o" || undocumented="$undocumented $o"
done
expect_eq man_documents_global_options "$undocumented" ""

# Every applet has a section; an implemented one (--help exits 0) documents
# all its options there, a pending one says it is not implemented yet.
for a in $applets; do
    section=$(man_section "$a")
    if [ -z "$section" ]; then
        fail "man_section_$a" "no '.SS $a' in packaging/man/stk.8.in"
        continue
    fi
    if "$STK" "$a" --help >/dev/null 2>&1; then
        undocumented=""
        for o in $(help_options "$STK" "$a"); do
            documents "$section" "$o" || undocumented="$undocumented $o"
        done
        n=$(help_options "$STK" "$a" | wc -l)
        if [ "$n" -lt 2 ]; then
            fail "man_documents_${a}_options" "parsed only $n options from '$a --help'"
        else
            expect_eq "man_documents_${a}_options" "$undocumented" ""
        fi
    else
        expect_contains "man_${a}_marked_pending" "$section" "Not implemented yet"
    fi
done

# Every format an applet's --help offers is named in its section, and each
# -o suffix it lists in OUTPUT FORMATS: a new row of the format table fails
# here until the page says what it is.
formats_section=$(plain | awk '$0 == ".SH OUTPUT FORMATS" { on = 1; next } /^\.SH/ { on = 0 } on')
for a in $applets; do
    help=$("$STK" "$a" --help 2>/dev/null) || continue
    # the --format line and the lines continuing it: "pmp (default), text, ... or svg"
    # (continuation lines are indented to the descriptions' column; "(-o DIR/)" is a line of its own)
    names=$(printf '%s\n' "$help" | awk '/^ +--format / { on = 1; sub(/^ +--format +[^ ]+ +/, ""); print; next }
                                         on && /^                    +[^ -]/ { print; next } { on = 0 }' |
        tr ',' ' ' | sed -E 's/\(default\)//g; s/(^| )or( |$)/ /g')
    [ -z "$names" ] && continue
    # the -o lines' "(.txt .folded ...)"
    suffixes=$(printf '%s\n' "$help" | awk '/^ +-o, --output FILE/ { on = 1; print; next }
                                            on && /^                    +[^ -]/ { print; next } { on = 0 }' |
        tr '\n' ' ' | sed -E 's/.*\(([^)]*)\).*/\1/')
    undocumented=""
    for f in $names; do documents "$(man_section "$a")" "$f" || undocumented="$undocumented $f"; done
    for x in $suffixes; do documents "$formats_section" "${x//./\\.}" || undocumented="$undocumented $x"; done
    if [ "$(echo $names | wc -w)" -lt 5 ] || [ "$(echo $suffixes | wc -w)" -lt 5 ]; then
        fail "man_documents_${a}_formats" "parsed formats '$(echo $names)' and suffixes '$(echo $suffixes)' from '$a --help'"
    else
        expect_eq "man_documents_${a}_formats" "$undocumented" ""
    fi
done
