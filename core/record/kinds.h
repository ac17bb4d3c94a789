/*
 * The kinds of event stk record takes (-e KIND[:N],...), in one table:
 * each kind's -e name, where its events come from (the programs and ladder
 * of profile, offcputime, a stk resources kind, threadstate's thread
 * sampling), what :N means for it, and its events as the event log writes
 * them (event name, unit, how its totals are reported, the columns it
 * fills). A resources kind's events are described here for stk resources
 * too, so both write them alike.
 */
#ifndef STK_RECORD_KINDS_H
#define STK_RECORD_KINDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ladder/ladder.h"
#include "core/resources/kinds.h"
#include "core/session/event_sink.h"

/* Where a kind's events come from. */
enum stk_rec_source {
	STK_REC_CPU,       /* profile's timed sampling (perf_event) */
	STK_REC_OFFCPU,    /* offcputime's sched_switch programs */
	STK_REC_RESOURCES, /* a stk resources kind (res_kind) through its source's programs */
	STK_REC_STATE,     /* threadstate's thread sampling: a row per thread per pass, made in user space */
	STK_REC_PROBE,     /* stackcount's probe programs: a hit of a kernel function, tracepoint, user function or USDT probe */
};

/* What KIND:N means. */
enum stk_rec_rate {
	STK_REC_RATE_NONE,  /* no :N */
	STK_REC_RATE_HZ,    /* N times a second (cpu, state) */
	STK_REC_RATE_EVERY, /* one event in N, its weight times N (offcpu at random, resources kinds every Nth) */
};

/* offcpu:N's bound: one switch-out in N taken. */
#define STK_REC_OFFCPU_EVERY_MAX 1000
/*
 * What stk record takes with no -e: the flight recorder's set, sized to run
 * always at about 1% of a host (docs/record.md has the measurements): CPU
 * samples, one switch-out in 512 with its off-CPU time weighted 512 times, and
 * every thread's state once a second.
 */
#define STK_REC_DEFAULT_KINDS "cpu:19,offcpu:512,state:1"

struct stk_rec_kind_info {
	const char *name;            /* -e NAME */
	enum stk_rec_source source;
	enum stk_res_kind res_kind;  /* STK_REC_RESOURCES */
	enum stk_attach_class ladder; /* the attach point's ladder (core/ladder/ladder.c) */
	enum stk_rec_rate rate;
	uint64_t rate_default, rate_max; /* :N when not given (HZ kinds), and its bound */
	const char *taken;           /* RATE_EVERY: how the one event in N is chosen (the file's stk.sampled) */
	const char *what;            /* for --help and the man page */
	struct stk_event_desc event; /* its events (sample_ns is the run's: from the rate) */
};

enum stk_rec_kind {
	STK_REC_KIND_CPU,
	STK_REC_KIND_OFFCPU,
	STK_REC_KIND_RES_FIRST, /* then one per stk resources kind, in its order */
	STK_REC_KIND_STATE = STK_REC_KIND_RES_FIRST + STK_RES_KIND_COUNT,
	STK_REC_KIND_PROBE, /* one probe pattern (stackcount's), its events named as given */
	STK_REC_KIND_COUNT,
};

/* Kind k's row (by value: the resources kinds' are made from their own table). */
struct stk_rec_kind_info stk_rec_kind(enum stk_rec_kind k);
/* The record kind of a stk resources kind. */
enum stk_rec_kind stk_rec_kind_of_res(enum stk_res_kind k);
/* A stk resources kind's events, as stk resources and stk record write them. */
struct stk_event_desc stk_res_event_desc(enum stk_res_kind k);
/* "cpu, offcpu, rss, ... or state" (the probe is no name of its own: stackcount's pattern) */
void stk_rec_kind_names(char *buf, size_t len);

/* What -e asked for. */
struct stk_rec_request {
	bool on[STK_REC_KIND_COUNT];
	uint64_t rate[STK_REC_KIND_COUNT]; /* HZ, or every Nth (1: all); a kind's default when not given */
	bool rate_given[STK_REC_KIND_COUNT];
	char probe[512];                   /* on[STK_REC_KIND_PROBE]: the probe pattern as given */
};

void stk_rec_request_init(struct stk_rec_request *r);
/*
 * Adds -e SPEC (KIND[:N],..., and one probe pattern as stackcount takes it
 * among them). 0, or -1 with a one-line msg: an unknown kind, a probe too long,
 * a second pattern, a bad N, a :N on a kind that takes
 * none, a kind twice with different rates (twice alike is once).
 */
int stk_rec_request_parse(struct stk_rec_request *r, const char *spec, char *msg, size_t len);
/* No kind asked for yet (stk record then takes STK_REC_DEFAULT_KINDS). */
bool stk_rec_request_empty(const struct stk_rec_request *r);
/* Kind k's events at rate (its :N): when it takes one in N, d says so (the file's stk.sampled). */
void stk_rec_event_sampling(struct stk_event_desc *d, enum stk_rec_kind k, uint64_t rate);
/* At least one kind, and the rules resources' kinds share (block, block-time and iorq alike). 0, or -1 with msg. */
int stk_rec_request_check(const struct stk_rec_request *r, char *msg, size_t len);
/* The resources part of r (its kinds and every Nth) into want, which keeps its --mechanism and --min-latency. */
void stk_rec_request_resources(const struct stk_rec_request *r, struct stk_res_request *want);

#endif
