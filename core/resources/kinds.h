/*
 * stk resources' kinds: what each weighs a stack by, in which unit, from
 * which source of events (a ladder of mechanisms each, core/ladder/ladder.c),
 * and the parsing of -e KIND[:N][,...] and --mechanism KIND=RUNG[,...].
 */
#ifndef STK_RES_KINDS_H
#define STK_RES_KINDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "bpf/resources_types.h"
#include "core/ladder/ladder.h"

/* The sources of events; the kinds of one source share its programs. */
enum stk_res_source {
	STK_RES_SRC_MEMORY,  /* rss */
	STK_RES_SRC_FAULTS,  /* faults */
	STK_RES_SRC_BLOCK,   /* block, block-time, iorq */
	STK_RES_SRC_FILES,   /* read, write */
	STK_RES_SRC_SOCKETS, /* send, recv */
	STK_RES_SRC_SYSCALLS, /* syscall */
	STK_RES_SRC_COUNT,
};

/* What a kind's stk_stack_ref.detail says. */
enum stk_res_detail {
	STK_RES_DETAIL_NONE,
	STK_RES_DETAIL_SYSCALL,   /* the system call's number + 1 that moved it */
	STK_RES_DETAIL_DIRECTION, /* STK_RES_BLOCK_READ or _WRITE */
};

struct stk_res_kind_info {
	const char *name;       /* as -e takes it: "block-time" */
	const char *type;       /* pprof's sample type: "block_time" */
	const char *unit;       /* "bytes", "count", "microseconds" */
	const char *what;       /* for --help and the man page */
	enum stk_res_source source;
	uint32_t divisor;       /* counted weights over this are the unit's (block-time: nanoseconds, 1000) */
	const char *weight_unit; /* what is counted, an event's weight: "bytes", "count", "nanoseconds" */
	enum stk_res_detail detail; /* what ref.detail says */
};

const struct stk_res_kind_info *stk_res_kind(enum stk_res_kind k);
/* The ladder of a source of events. */
enum stk_attach_class stk_res_source_class(enum stk_res_source s);
/* "rss, faults, block, block-time, read, write, send, recv, syscall or iorq" */
void stk_res_kind_names(char *buf, size_t len);

/* --min-latency's help line (stk resources, stk record). */
#define STK_RES_MIN_LATENCY_HELP \
	"      --min-latency US        syscall, iorq: only those that took at least US microseconds\n"

/* Every Nth event of a kind at most this: a weight of N must not overflow a sum. */
#define STK_RES_EVERY_MAX 1000000000u
/* How KIND:N chooses its one event in N (a per-CPU count: the file's stk.sampled says it). */
#define STK_RES_EVERY_TAKEN "every Nth on each CPU"

/* What -e, --mechanism and --min-latency asked for. */
struct stk_res_request {
	bool on[STK_RES_KIND_COUNT];
	uint32_t every[STK_RES_KIND_COUNT];   /* 1: every event */
	const char *forced[STK_RES_SRC_COUNT]; /* --mechanism: the rung of a source (NULL: the first that works) */
	uint64_t min_latency_ns;               /* syscall, iorq: shorter ones are left out */
};

void stk_res_request_init(struct stk_res_request *r);
/* Adds -e SPEC. 0, or -1 with msg (an unknown kind, a bad N, a kind twice). */
int stk_res_request_parse_kinds(struct stk_res_request *r, const char *spec, char *msg, size_t len);
/* Adds --mechanism SPEC (KIND=RUNG, comma separated; the rung of the kind's source). 0, or -1 with msg. */
int stk_res_request_parse_mechanisms(struct stk_res_request *r, const char *spec, char *msg, size_t len);
/* After parsing: at least one kind, block, block-time and iorq sampled alike, no rung forced for a
 * source no kind asked for. 0, or -1 with msg. */
int stk_res_request_check(const struct stk_res_request *r, char *msg, size_t len);
/* Whether any kind of source s was asked for. */
bool stk_res_request_wants(const struct stk_res_request *r, enum stk_res_source s);
/* "rss, write" of the kinds of source s asked for (all kinds of it when all is set). */
void stk_res_source_kinds(const struct stk_res_request *r, enum stk_res_source s, bool all, char *buf, size_t len);

#endif
