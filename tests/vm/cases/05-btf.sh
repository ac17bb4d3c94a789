# Sourced by the VM's /init: the embedded BTF archive (btf/). /init wrote
# /etc/os-release for the kernel's Debian suite (stk.osrel=), as on that
# release. With BTF hidden, stk must find this kernel in its archive and use
# it for CO-RE; with an os-release the archive does not know, whatever needs
# BTF must fail with one clear line, and the rest keep working.
echo "@@CASE btf_version"
/stk --version 2>&1
echo "@@RC $?"
echo "@@CASE btf_os_release"
cat /etc/os-release 2>&1
echo "@@RC $?"
if [ "$STK_BTF" = hidden ]; then
    /offcpu_static 0 20 300 > /tmp/btf-offcpu.out &
    sleep 0.5
    bpid=$(sed -n 's/^ready //p' /tmp/btf-offcpu.out)
    # Task state through CO-RE (embedded types) on raw_tp.
    echo "@@CASE btf_state_raw_tp"
    /stk offcputime --mechanism raw_tp --state S -v -f -p "$bpid" 2 2>&1
    echo "@@RC $?"
    cp /etc/os-release /tmp/os-release.saved
    printf 'ID=stknomatch\nVERSION_ID="1.0"\n' > /etc/os-release
    echo "@@CASE btf_nomatch_state"
    /stk offcputime --mechanism raw_tp --state S -p "$bpid" 1 2>&1
    echo "@@RC $?"
    echo "@@CASE btf_nomatch_default"
    /stk offcputime -v -f -p "$bpid" 1 2>&1
    echo "@@RC $?"
    cp /tmp/os-release.saved /etc/os-release
    kill "$bpid"
fi
