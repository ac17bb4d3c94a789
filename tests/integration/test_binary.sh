#!/bin/bash
# The static multi-call binary: linkage, dispatch, --install, errors.
SUITE=binary
. "$(dirname "$0")/../lib.sh"

# Static: no program interpreter, no needed libraries.
interp=$(readelf -l "$STK" | grep -c INTERP)
expect_eq static_no_interp "$interp" 0
needed=$(readelf -d "$STK" 2>/dev/null | grep -c NEEDED)
expect_eq static_no_needed "$needed" 0
run_capture ldd "$STK"
expect_contains ldd_not_dynamic "$OUT$ERR" "not a dynamic executable"
run_capture file "$STK"
expect_contains file_says_static "$OUT" "statically linked"
expect_contains file_says_stripped "$OUT" "stripped"

run_capture "$STK" --version
expect_contains version_names_stk "$OUT" "stk $(cat "$(dirname "$0")/../../VERSION")"
expect_contains version_names_libbpf "$OUT" "libbpf 1."
expect_contains version_names_libelf "$OUT" "libelf 0."
expect_contains version_names_machine "$OUT" " for $(uname -m) with "
expect_contains version_names_libcurl "$OUT" "debuginfod client: libcurl/7."
expect_contains version_names_ncurses "$OUT" "terminal (stk top): ncurses 6."

run_capture "$STK" --list
expect_eq list_applets "$(echo $OUT)" "profile stackcount offcputime resources threadstate top pmp record report info"

run_capture "$STK" --help
if [ $RC -eq 0 ]; then expect_contains help_lists_info "$OUT" "info"; else fail help_lists_info "rc=$RC"; fi

run_capture "$STK"
expect_eq no_args_exit_2 "$RC" 2

run_capture "$STK" frobnicate
expect_eq unknown_applet_exit_2 "$RC" 2
expect_eq unknown_applet_one_line "$(printf '%s\n' "$ERR" | wc -l)" 1
expect_contains unknown_applet_lists_applets "$ERR" "profile stackcount offcputime resources threadstate top pmp record report info"

run_capture "$STK" info --frobnicate
expect_eq unknown_option_exit_2 "$RC" 2
expect_contains unknown_option_named "$ERR" "--frobnicate"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# argv[0] dispatch through symlinks, bare and stk- prefixed.
for name in profile stk-profile; do
    ln -s "$(readlink -f "$STK")" "$tmp/$name"
    run_capture "$tmp/$name" --help
    if [ $RC -eq 0 ] && printf '%s' "$OUT" | grep -q "^usage: stk profile"; then
        pass "argv0_dispatch_$name"
    else
        fail "argv0_dispatch_$name" "rc=$RC out=$(printf '%s' "$OUT" | head -2) err=$ERR"
    fi
done
ln -s "$(readlink -f "$STK")" "$tmp/stk-info"
run_capture "$tmp/stk-info" --help
expect_contains argv0_dispatch_stk_info "$OUT" "usage: stk info"


# --install: symlinks, idempotent, refuses foreign files.
mkdir "$tmp/bin"
run_capture "$STK" --install -s "$tmp/bin"
expect_eq install_rc "$RC" 0
links=$(cd "$tmp/bin" && ls | tr '\n' ' ')
expect_eq install_links "$links" "offcputime pmp profile resources stackcount stk-info stk-offcputime stk-pmp stk-profile stk-record stk-report stk-resources stk-stackcount stk-threadstate stk-top threadstate "
target=$(readlink "$tmp/bin/stackcount")
expect_eq install_link_target "$target" "$(readlink -f "$STK")"
run_capture "$tmp/bin/stk-info" --help
expect_contains install_link_works "$OUT" "usage: stk info"
run_capture "$STK" --install -s "$tmp/bin"
expect_eq install_idempotent "$RC" 0
rm "$tmp/bin/profile" && echo "#!/bin/sh" > "$tmp/bin/profile"
run_capture "$STK" --install -s "$tmp/bin"
expect_eq install_refuses_foreign_rc "$RC" 2
expect_contains install_refuses_foreign_msg "$ERR" "profile exists and is not a link to stk"
expect_eq install_foreign_untouched "$(cat "$tmp/bin/profile")" "#!/bin/sh"
run_capture "$STK" --install
expect_eq install_usage_rc "$RC" 2

# The BPF object's stack budget: the verifier adds every frame of a call chain
# (program, subprograms, bpf_loop callbacks) against 512 bytes, rounding each
# frame up (to 32 bytes on older kernels). This host's kernel may give a program
# a private stack and accept what an older one refuses, so the budget is read
# from the code (bpf_stack_budget.py): each architecture's object, as the
# kernel matrix boots it. A chain through the CFI walk must be found (the
# reading is not vacuous) and none may pass 512.
budget_check() { # NAME OBJECT
    local out deepest
    if [ ! -f "$2" ]; then
        fail "bpf_stack_$1" "no BPF object $2 (make check builds it)"
        return
    fi
    out=$(python3 "$(dirname "$0")/bpf_stack_budget.py" "$2" 2>&1)
    expect_contains "bpf_stack_$1_walk_chain_read" "$out" "stk_profile_sample_cfi: stk_profile_sample_cfi("
    expect_contains "bpf_stack_$1_walk_chain_has_walk" "$(printf '%s\n' "$out" | grep ' stk_profile_sample_cfi:')" "> stk_unwind_walk("
    deepest=$(printf '%s\n' "$out" | awk 'NR == 1 { print $1 + 0 }')
    if [ "${deepest:-0}" -gt 0 ] && [ "$deepest" -le 512 ]; then
        pass "bpf_stack_$1_within_512"
    else
        fail "bpf_stack_$1_within_512" "deepest chain ${deepest:-?} bytes: $(printf '%s\n' "$out" | head -2 | tr '\n' ' ')"
    fi
}
budget_check "$(uname -m)" "$BUILD/bpf/stk.bpf.o"
[ "$(uname -m)" = x86_64 ] && budget_check arm64 "$BUILD/arm64/bpf/stk.bpf.o"
