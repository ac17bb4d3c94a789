/*
 * Attaching stk resources: each source of events asked for (core/resources/
 * kinds.h) climbs its own ladder (core/ladder/ladder.c). A rung is tried end
 * to end with the frame-pointer twin of its programs, in an object of its
 * own with tiny maps (load, attach, release): what fails there is passed
 * over with its reason. A source whose every rung fails is left out and
 * said so; the others still run. Then the chosen programs, in the --unwind
 * twin the run takes, are loaded together in one object and attached.
 */
#ifndef STK_ATTACH_RESOURCES_H
#define STK_ATTACH_RESOURCES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ladder/precondition.h"
#include "core/resources/kinds.h"

struct stk_bpf;
struct bpf_link;
struct stk_perf_attachment;
struct stk_res_attachment;

struct stk_res_attach_request {
	const struct stk_res_request *want; /* the kinds, every Nth, forced rungs */
	const char *program_suffix;         /* "_cfi", "_dwarf", or NULL (frame pointers) */
	const char *const *maps;            /* the applet's maps, NULL-terminated */
	const char *const *extra_maps, *const *extra_programs; /* the session's shared maps and programs */
	const char *btf_custom_path;
	struct stk_precondition_env env;    /* what the rungs' preconditions look at */
	const int *cpus;                    /* perf_event: the CPUs to open page-fault events on */
	size_t n_cpus;
	/* Size maps before load (probe: a rung's trial, make them tiny); fill them after. 0 or -1. */
	int (*before_load)(struct stk_bpf *skel, bool probe, void *ctx);
	int (*after_load)(struct stk_bpf *skel, const struct stk_res_attachment *a, void *ctx);
	void *ctx;
};

#define STK_RES_MAX_LINKS 12

struct stk_res_attachment {
	struct stk_bpf *skel;
	bool owns_skel; /* it loaded skel (stk resources), or attached into the caller's (stk record) */
	const struct stk_rung *chosen[STK_RES_SRC_COUNT]; /* NULL: not asked for, or no rung works */
	char tried[STK_RES_SRC_COUNT][768];               /* rungs passed over (or all, when none works): why */
	struct stk_res_offsets offsets;                   /* the chosen classic tracepoints' record layouts */
	struct bpf_link *links[STK_RES_MAX_LINKS];
	size_t n_links;
	struct stk_perf_attachment *faults;
};

/*
 * 0 with a->chosen set (a wanted source without one has its reasons in
 * a->tried); -1 with err: no wanted source can run, a --mechanism rung
 * failed, or loading or attaching the chosen programs together failed.
 * Release a either way.
 */
int stk_res_attach(struct stk_res_attachment *a, const struct stk_res_attach_request *r, char *err, size_t len);

/*
 * The same in steps, for a capture that loads these programs with others'
 * in one object (stk record): each wanted source's ladder climbed (its
 * trials in objects of their own, r->before_load with probe set), a->chosen
 * as above (0, or -1 with err); the chosen programs in r->program_suffix's
 * twin, to select in that object; attached into it once loaded and
 * configured (by the caller, who keeps it). 0, or -1 with err.
 */
int stk_res_choose(struct stk_res_attachment *a, const struct stk_res_attach_request *r, char *err, size_t len);
#define STK_RES_MAX_PROGRAMS 16
struct stk_res_programs {
	char names[STK_RES_MAX_PROGRAMS][64];
	const char *ptrs[STK_RES_MAX_PROGRAMS + 1]; /* NULL-terminated */
	size_t n;
};
void stk_res_programs(const struct stk_res_attachment *a, const char *suffix, struct stk_res_programs *l);
int stk_res_attach_in(struct stk_res_attachment *a, const struct stk_res_attach_request *r, struct stk_bpf *skel,
		      char *err, size_t len);
/* Stops the events (links, perf events); the maps stay readable. */
void stk_res_detach(struct stk_res_attachment *a);
void stk_res_attachment_release(struct stk_res_attachment *a);

#endif
