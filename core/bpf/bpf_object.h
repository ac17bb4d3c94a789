/*
 * Opening the one linked BPF object (embedded as the stk_bpf skeleton) with
 * only the programs and maps an applet asks for. Everything else is neither
 * loaded nor created, so one applet's needs never break another's load on
 * an older kernel.
 */
#ifndef STK_BPF_OBJECT_H
#define STK_BPF_OBJECT_H

#include <stddef.h>

struct stk_bpf;

struct stk_bpf_selection {
	const char *const *programs; /* NULL-terminated program names */
	const char *const *maps;     /* NULL-terminated map names */
	/* more, NULL or NULL-terminated: what a shared part needs (the kernel unwinder's) */
	const char *const *extra_programs;
	const char *const *extra_maps;
	const char *btf_custom_path; /* NULL: let libbpf find the kernel's BTF */
};

/*
 * For kernels without any BTF source: writes an empty BTF into a memfd and
 * puts its /proc/self/fd path in path, so libbpf still loads the programs
 * that need no CO-RE (it otherwise refuses the whole object). Returns the
 * fd, which the caller owns and closes after load; -1 on failure.
 */
int stk_bpf_empty_btf(char *path, size_t len);

/*
 * Before loading an object that only tries a mechanism (load, attach,
 * release): every map it creates as small as it can be (its maps must
 * exist, not hold anything). 0, or -1 (errno).
 */
int stk_bpf_size_for_trial(struct stk_bpf *s);

/* Opens (does not load) the skeleton. NULL with err set on failure. */
struct stk_bpf *stk_bpf_open_selected(const struct stk_bpf_selection *sel, char *err, size_t errlen);

#endif
