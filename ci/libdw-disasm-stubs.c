/*
 * libebl's backends reference libcpu's disassemblers, which need obstack
 * (glibc only). stk never disassembles, so these stand in for them in the
 * static musl libdw (ci/build-deps.sh) and always report failure.
 */
int i386_disasm(void);
int x86_64_disasm(void);
int riscv_disasm(void);
int bpf_disasm(void);

int i386_disasm(void) { return -1; }
int x86_64_disasm(void) { return -1; }
int riscv_disasm(void) { return -1; }
int bpf_disasm(void) { return -1; }
