/*
 * stackcount's kinds of probe, one table for every applet that probes
 * (stk stackcount, stk record's pattern): per kind (a kernel function,
 * tracepoint, user function or USDT probe, core/probe/probe_pattern.h) its
 * ladder, what its targets are called, how a pattern's targets are found
 * (core/probe/) and how they are attached: in an object of their own, the
 * ladder climbed with every rung tried end to end (stk_probe_attach), or
 * into a caller's object that holds the chosen rung's program beside other
 * programs (stk_probe_program, _prepare_in, _attach_in).
 */
#ifndef STK_PROBE_KINDS_H
#define STK_PROBE_KINDS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/attach/attach_probe.h"
#include "core/ladder/ladder.h"
#include "core/probe/kernel_match.h"
#include "core/probe/name_match.h"
#include "core/probe/probe_pattern.h"
#include "core/probe/user_probe.h"

/* What a pattern names; owns every list and match (stk_probe_targets_free). */
struct stk_probe_targets {
	struct stk_probe_pattern pattern;
	struct stk_name_match match, category;
	bool match_ready, category_ready;
	struct stk_name_list names, untraceable; /* kernel functions, tracepoints, USDT probes ("provider:name") */
	struct stk_user_func_list funcs;         /* user functions */
	struct stk_user_file file;               /* user functions, USDT probes: the file searched */
};

/* How a pattern's targets are attached. */
struct stk_probe_request {
	pid_t pid;          /* user functions, USDT probes: only this process (0: every one) */
	const char *forced; /* --mechanism: the rung to use or fail, or NULL */
	bool kernel_btf;    /* the running kernel's BTF is there (fentry) */
	size_t fentry_max;  /* past this many kernel functions kprobe.multi goes before fentry */
};

/* The ladder a kind of probe climbs; what its targets are called ("functions", "USDT probes", ...). */
enum stk_attach_class stk_probe_kind_class(enum stk_probe_kind k);
const char *stk_probe_kind_noun(enum stk_probe_kind k);
/* The configuration and the maps its programs need besides the session's (NULL-terminated, static). */
const char *const *stk_probe_kind_maps(enum stk_probe_kind k);

/*
 * Finds what t->pattern (parsed already) names: its names matched as globs
 * or, with regex, regular expressions; LIB looked for in pid's view (0: this
 * host's). At least one target: 0, or -1 with a one-line err. A kernel
 * function pattern also fills t->untraceable (matching functions that
 * cannot be traced). Before any thread starts: tracefs may need a private
 * mount namespace.
 */
int stk_probe_targets_find(struct stk_probe_targets *t, bool regex, pid_t pid, char *err, size_t len);
size_t stk_probe_targets_count(const struct stk_probe_targets *t);
/* The i-th target's name (owned by t). */
const char *stk_probe_target_name(const struct stk_probe_targets *t, size_t i);
void stk_probe_targets_free(struct stk_probe_targets *t);
/* "a b c (+N more)" of the first shown names into buf. */
void stk_probe_list_names(char *buf, size_t len, char *const *names, size_t n, size_t shown);

/* Climbs the kind's ladder, each rung loaded with load and attached: 0 (s->mechanism set), or -1 with err. */
int stk_probe_attach(struct stk_probe_set *s, const struct stk_probe_load *load, const struct stk_probe_targets *t,
		     const struct stk_probe_request *req, char *err, size_t len);

/*
 * Into a caller's object (stk record): the program of the rung mechanism
 * (as stk_probe_attach chose it; without the --unwind suffix); before load,
 * that program made ready (fentry's target); after load, every target
 * attached to it in skel (the caller's, who keeps it; program with its
 * suffix). 0, or -1 with err and nothing attached.
 */
const char *stk_probe_program(const struct stk_probe_targets *t, const char *mechanism);
int stk_probe_prepare_in(struct bpf_program *prog, const struct stk_probe_targets *t, const char *mechanism,
			 char *err, size_t len);
int stk_probe_attach_in(struct stk_probe_set *s, struct stk_bpf *skel, const char *mechanism, const char *program,
			const struct stk_probe_targets *t, const struct stk_probe_request *req, char *err, size_t len);

#endif
