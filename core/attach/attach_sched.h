/*
 * Choosing and attaching offcputime's sched_switch mechanism. Core owns the
 * fallback order (tp_btf -> raw_tp -> tracepoint -> kprobe finish_task_switch):
 * each candidate is opened, loaded and attached for real, and the first that
 * works is kept, so the choice reflects what the running kernel accepts.
 */
#ifndef STK_ATTACH_SCHED_H
#define STK_ATTACH_SCHED_H

#include <stdbool.h>
#include <stddef.h>

#include "core/ladder/ladder.h"

struct stk_bpf;

struct stk_sched_request {
	const char *programs[STK_SCHED_MECH_COUNT]; /* the applet's program for each mechanism */
	const char *program_suffix; /* NULL, or appended to each program's name ("_dwarf", "_cfi": the --unwind twins) */
	const char *free_program;  /* raw_tp sched_process_free cleanup for task-pointer keys, or NULL */
	const char *const *maps;   /* NULL-terminated */
	const char *const *extra_programs, *const *extra_maps; /* NULL, or more (the kernel unwinder's) */
	const char *btf_custom_path;
	bool kernel_btf;           /* libbpf finds the running kernel's own BTF (tp_btf attach target) */
	bool core_btf;             /* some BTF for CO-RE: the kernel's, --btf FILE or embedded */
	const char *no_btf_why;    /* when !core_btf: why, naming the key looked up and --btf */
	bool needs_task_state;     /* the programs must read task state (rules out raw_tp without BTF) */
	const char *forced;        /* --mechanism: the rung to use or fail, or NULL for the first that works */
	/* Called on each candidate: size maps before load, fill config maps after. 0 or -1. */
	int (*before_load)(struct stk_bpf *skel, void *ctx);
	int (*after_load)(struct stk_bpf *skel, void *ctx);
	void *ctx;
};

struct stk_sched_attachment;

/* NULL with err set when no mechanism works (or the forced one does not). */
struct stk_sched_attachment *stk_sched_attach(const struct stk_sched_request *req, char *err, size_t errlen);
/*
 * For a capture that loads its programs with others' in one object (stk
 * record): the mechanism that works here, each rung tried end to end in an
 * object of its own (req's before_load sizes it; after_load may leave it
 * be) and released. The attachment keeps the choice (mechanism, kprobe
 * target, what was passed over) and no skeleton. NULL with err.
 */
struct stk_sched_attachment *stk_sched_choose(const struct stk_sched_request *req, char *err, size_t errlen);
/* The chosen mechanism's programs, req's suffix on, to select in that object. */
struct stk_sched_programs {
	char name[128];
	const char *list[3]; /* NULL-terminated: the mechanism's program, the cleanup on free when it has one */
};
void stk_sched_programs(const struct stk_sched_attachment *a, const struct stk_sched_request *req,
			struct stk_sched_programs *p);
/* Attaches those programs of skel (loaded and configured by the caller, who keeps it). 0, or -1 with err. */
int stk_sched_attach_in(struct stk_sched_attachment *a, const struct stk_sched_request *req, struct stk_bpf *skel,
			char *err, size_t len);

/* The loaded skeleton (owned by the attachment, or the caller's after stk_sched_attach_in) and the chosen mechanism. */
struct stk_bpf *stk_sched_skeleton(const struct stk_sched_attachment *a);
enum stk_sched_mech stk_sched_mechanism(const struct stk_sched_attachment *a);
/* Why earlier candidates were passed over ("" when the first worked); kprobe target. */
const char *stk_sched_tried(const struct stk_sched_attachment *a);
const char *stk_sched_target(const struct stk_sched_attachment *a);
/* Stops tracing; the maps stay readable. */
void stk_sched_detach(struct stk_sched_attachment *a);
/* Detaches and frees everything, skeleton included. NULL is fine. */
void stk_sched_attachment_free(struct stk_sched_attachment *a);

#endif
