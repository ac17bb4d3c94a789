/*
 * What every stackcount attach path shares: the loaded skeleton with one
 * program and the applet's maps, the links (or raw fds for cloned fentry
 * programs) it holds, why other mechanisms were passed over, and a
 * progress line on stderr when attaching takes more than a second.
 * core/attach/attach_kfunc.c, attach_tracepoint.c and attach_uprobe.c fill it.
 */
#ifndef STK_ATTACH_PROBE_H
#define STK_ATTACH_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stk_bpf;
struct bpf_link;
struct bpf_program;
struct stk_rung;

/* How the applet's side of a load looks, whatever the mechanism. */
struct stk_probe_load {
	const char *const *maps; /* NULL-terminated */
	const char *const *extra_programs, *const *extra_maps; /* NULL, or more (the kernel unwinder's) */
	const char *btf_custom_path;
	/* Size maps before load, fill configuration maps after. 0 or -1. */
	int (*before_load)(struct stk_bpf *skel, void *ctx);
	int (*after_load)(struct stk_bpf *skel, void *ctx);
	void *ctx;
	bool progress;    /* print a progress line when attaching takes more than a second */
	const char *program_suffix; /* NULL, or appended to every program name ("_dwarf", "_cfi": the --unwind twins) */
};

struct stk_probe_set {
	struct stk_bpf *skel;
	bool owns_skel; /* it loaded skel (stackcount), or attached into the caller's (stk record) */
	struct bpf_program *prog;
	struct bpf_link **links;
	size_t n_links, cap_links;
	int *fds; /* cloned fentry programs and their links */
	size_t n_fds, cap_fds;
	const char *mechanism; /* the one that worked, e.g. "fentry" */
	char tried[768];       /* "mech: why; ..." of those passed over */
	size_t n_targets;      /* functions, tracepoints or probes attached */
	int64_t attach_start_ns;
	bool progress, progress_shown;
	bool guarded; /* guard_fd keeps a core/base/probe_guard.c child waiting (legacy tracefs probes) */
	int guard_fd;
};

/*
 * Opens the skeleton with program (and load->maps), sets an fentry target
 * when given, loads it and writes the configuration. 0, or -1 with why set
 * and nothing left loaded.
 */
int stk_probe_set_load(struct stk_probe_set *s, const struct stk_probe_load *load, const char *program,
		       const char *fentry_target, char *why, size_t len);
/*
 * The caller's loaded object, kept by the caller (stk record's one object):
 * s attaches its program by that name. 0, or -1 with err.
 */
int stk_probe_set_use(struct stk_probe_set *s, struct stk_bpf *skel, const char *program, char *err, size_t len);
/* Takes ownership of link; NULL (a failed attach) returns -1 with errno kept. */
int stk_probe_set_add_link(struct stk_probe_set *s, struct bpf_link *link);
/* Takes ownership of fd. 0 or -1 (fd closed). */
int stk_probe_set_add_fd(struct stk_probe_set *s, int fd);
/* After each attach: a "\rattached N/M ..." line on stderr once past one second. */
void stk_probe_set_progress(struct stk_probe_set *s, size_t done, size_t total);
/* Before creating legacy tracefs probes: have them removed even if stk is killed. 0 or -1. */
int stk_probe_set_guard(struct stk_probe_set *s);
/*
 * Tries the rungs of class cls in order (core/ladder/climb.h) with attempt,
 * releasing what a failed rung left; forced (--mechanism) tries only that one.
 * 0 with s->mechanism and s->tried set, or -1 with err.
 */
int stk_probe_set_climb(struct stk_probe_set *s, int cls, const struct stk_rung *const *order, size_t n,
			const char *forced, int (*attempt)(void *ctx, const struct stk_rung *r, char *why, size_t len),
			void *ctx, const char *none_msg, char *err, size_t len);
/* Stops tracing: links and cloned programs go, the maps stay readable. */
void stk_probe_set_detach(struct stk_probe_set *s);
/* Detaches and unloads everything it owns (keeps mechanism and tried). */
void stk_probe_set_release(struct stk_probe_set *s);

#endif
