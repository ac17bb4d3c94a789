/* stk record's kinds and -e parsing: see kinds.h. */
#include "core/record/kinds.h"

#include <stdio.h>
#include <string.h>

#include "core/base/options.h"

/* cpu's and state's default rates: profile's 49 Hz; threadstate's 1 Hz when it records. */
#define CPU_HZ 49
#define STATE_HZ 1

static const struct stk_rec_kind_info fixed[] = {
	[STK_REC_KIND_CPU] = {
		.name = "cpu", .source = STK_REC_CPU, .ladder = STK_ATTACH_CPU_SAMPLING, .rate = STK_REC_RATE_HZ,
		.rate_default = CPU_HZ, .rate_max = 100000, .what = "on-CPU samples, :HZ a second per CPU (default 49)",
		.event = { .event = "cpu", .unit = "count", .value = { "samples", "count" }, .divisor = 1 },
	},
	[STK_REC_KIND_OFFCPU] = {
		.name = "offcpu", .source = STK_REC_OFFCPU, .ladder = STK_ATTACH_SCHED_SWITCH, .rate = STK_REC_RATE_EVERY,
		.rate_default = 1, .rate_max = STK_REC_OFFCPU_EVERY_MAX, .taken = "at random gaps on each CPU (N/2 to 3N/2)",
		.what = "off-CPU time, each block from switch-out to switch-in; :N takes one switch-out in N\n"
			"                     at random, its time N times over",
		.event = { .event = "offcpu", .unit = "nanoseconds", .value = { "offcpu", "microseconds" },
			   .divisor = 1000 },
	},
};

static const struct stk_rec_kind_info probe = {
	/* the ladder is the pattern's kind's (core/attach/probe_kinds.c): a tracepoint's stands for the four */
	.name = "PATTERN", .source = STK_REC_PROBE, .ladder = STK_ATTACH_TRACEPOINT, .rate = STK_REC_RATE_NONE,
	.what = "hits of a probe as stackcount takes it (t:CATEGORY:EVENT, p:FUNC for a kernel function,\n"
		"                     LIB:FUNC or p:LIB:FUNC, u:LIB:PROBE for USDT; * wildcards): one pattern a recording",
	.event = { .unit = "count", .value = { "count", "count" }, .divisor = 1 },
};

static const struct stk_rec_kind_info state = {
	.name = "state", .source = STK_REC_STATE, .ladder = STK_ATTACH_THREAD_SAMPLING, .rate = STK_REC_RATE_HZ,
	.rate_default = STATE_HZ, .rate_max = 1000,
	.what = "every selected thread's state, system call, wchan and file, :HZ passes a second (default 1)",
	.event = { .event = "state", .unit = "count", .value = { "state", "count" }, .divisor = 1 },
};

struct stk_event_desc stk_res_event_desc(enum stk_res_kind k)
{
	const struct stk_res_kind_info *i = stk_res_kind(k);
	unsigned columns = i->detail == STK_RES_DETAIL_SYSCALL ? STK_EV_FILLS_SYSCALL
			   : i->detail == STK_RES_DETAIL_DIRECTION ? STK_EV_FILLS_BLOCK : 0;

	return (struct stk_event_desc){ .event = i->name, .unit = i->weight_unit, .value = { i->type, i->unit },
					.divisor = i->divisor, .columns = columns };
}

/* A resources kind's row, made from its own table (core/resources/kinds.c is the one place they are said). */
static struct stk_rec_kind_info resources_row(enum stk_res_kind k)
{
	const struct stk_res_kind_info *i = stk_res_kind(k);

	return (struct stk_rec_kind_info){
		.name = i->name, .source = STK_REC_RESOURCES, .res_kind = k, .ladder = stk_res_source_class(i->source),
		.rate = STK_REC_RATE_EVERY, .rate_default = 1, .rate_max = STK_RES_EVERY_MAX, .what = i->what,
		.taken = STK_RES_EVERY_TAKEN,
		.event = stk_res_event_desc(k),
	};
}

struct stk_rec_kind_info stk_rec_kind(enum stk_rec_kind k)
{
	if (k < STK_REC_KIND_RES_FIRST)
		return fixed[k];
	if (k == STK_REC_KIND_STATE)
		return state;
	if (k == STK_REC_KIND_PROBE)
		return probe;
	return resources_row((enum stk_res_kind)(k - STK_REC_KIND_RES_FIRST));
}

enum stk_rec_kind stk_rec_kind_of_res(enum stk_res_kind k)
{
	return (enum stk_rec_kind)(STK_REC_KIND_RES_FIRST + (int)k);
}

void stk_rec_kind_names(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int k = 0; k < STK_REC_KIND_PROBE && used < len; k++) {
		int w = snprintf(buf + used, len - used, "%s%s", k == 0 ? "" : k + 1 == STK_REC_KIND_PROBE ? " or " : ", ",
				 stk_rec_kind((enum stk_rec_kind)k).name);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

static int kind_by_name(const char *name, size_t n)
{
	for (int k = 0; k < STK_REC_KIND_PROBE; k++) {
		const char *kn = stk_rec_kind((enum stk_rec_kind)k).name;

		if (strlen(kn) == n && strncmp(kn, name, n) == 0)
			return k;
	}
	return -1;
}

void stk_rec_request_init(struct stk_rec_request *r)
{
	memset(r, 0, sizeof(*r));
	for (int k = 0; k < STK_REC_KIND_COUNT; k++) {
		const struct stk_rec_kind_info i = stk_rec_kind((enum stk_rec_kind)k);

		r->rate[k] = i.rate == STK_REC_RATE_HZ ? i.rate_default : 1;
	}
}

/*
 * A probe (item of n bytes, no kind's name before its ':'): stackcount's
 * pattern (parsed when the options are done), one a recording. 0, or -1 with msg.
 */
static int parse_probe(struct stk_rec_request *r, const char *item, size_t n, char *msg, size_t len)
{
	if (n >= sizeof(r->probe)) {
		snprintf(msg, len, "-e %.40s...: a probe pattern of %zu bytes (at most %zu)", item, n, sizeof(r->probe) - 1);
		return -1;
	}
	if (r->on[STK_REC_KIND_PROBE] && (strlen(r->probe) != n || strncmp(r->probe, item, n) != 0)) {
		snprintf(msg, len, "-e %.*s: one probe pattern a recording (%s given already; wildcards take many)",
			 (int)n, item, r->probe);
		return -1;
	}
	snprintf(r->probe, sizeof(r->probe), "%.*s", (int)n, item);
	r->on[STK_REC_KIND_PROBE] = true;
	return 0;
}

/* "KIND" or "KIND:N" (item of n bytes) into the request ctx. 0, or -1 with msg. */
static int parse_kind(void *ctx, const char *item, size_t n, char *msg, size_t len)
{
	struct stk_rec_request *r = ctx;
	char names[256];
	uint64_t n_given = 0, v;
	size_t name_len;
	bool given;
	/* the name is checked first, N after: an unknown kind is said as one */
	int bad_n = stk_kind_item(item, n, &name_len, &given, UINT64_MAX, &n_given), k;

	k = kind_by_name(item, name_len);
	if (k < 0 && name_len < n)
		return parse_probe(r, item, n, msg, len);
	if (k < 0) {
		stk_rec_kind_names(names, sizeof(names));
		snprintf(msg, len, "-e: unknown kind '%.*s' (expected %s, or a probe: t:CATEGORY:EVENT, p:FUNC, "
			 "LIB:FUNC, u:LIB:PROBE)", (int)name_len, item, names);
		return -1;
	}
	const struct stk_rec_kind_info kind = stk_rec_kind((enum stk_rec_kind)k), *i = &kind;

	v = given ? n_given : r->rate[k];
	if (given) {
		if (i->rate == STK_REC_RATE_NONE) {
			snprintf(msg, len, "-e %.*s: %s takes no :N", (int)n, item, i->name);
			return -1;
		}
		if (bad_n || v > i->rate_max) {
			snprintf(msg, len, "-e %s: expected %s:N with N from 1 to %llu (%s)", i->name, i->name,
				 (unsigned long long)i->rate_max,
				 i->rate == STK_REC_RATE_HZ ? "times a second" : "one event in N, its weight N times");
			return -1;
		}
	}
	if (r->on[k] && (given || r->rate_given[k]) && v != r->rate[k]) {
		snprintf(msg, len, "-e: %s given twice with different rates (%llu and %llu)", i->name,
			 (unsigned long long)r->rate[k], (unsigned long long)v);
		return -1;
	}
	r->on[k] = true;
	r->rate[k] = v;
	r->rate_given[k] |= given;
	return 0;
}

int stk_rec_request_parse(struct stk_rec_request *r, const char *spec, char *msg, size_t len)
{
	return stk_each_kind(spec, parse_kind, r, msg, len);
}

bool stk_rec_request_empty(const struct stk_rec_request *r)
{
	for (int k = 0; k < STK_REC_KIND_COUNT; k++)
		if (r->on[k])
			return false;
	return true;
}

void stk_rec_event_sampling(struct stk_event_desc *d, enum stk_rec_kind k, uint64_t rate)
{
	const struct stk_rec_kind_info i = stk_rec_kind(k);

	if (i.rate == STK_REC_RATE_EVERY && rate > 1) {
		d->every = rate;
		d->taken = i.taken;
	}
}

void stk_rec_request_resources(const struct stk_rec_request *r, struct stk_res_request *want)
{
	for (int k = 0; k < STK_RES_KIND_COUNT; k++) {
		enum stk_rec_kind rk = stk_rec_kind_of_res((enum stk_res_kind)k);

		want->on[k] = r->on[rk];
		want->every[k] = (uint32_t)r->rate[rk];
	}
}

int stk_rec_request_check(const struct stk_rec_request *r, char *msg, size_t len)
{
	struct stk_res_request want;
	char names[256];
	bool any = false, any_res = false;

	for (int k = 0; k < STK_REC_KIND_COUNT; k++)
		any |= r->on[k];
	if (!any) {
		stk_rec_kind_names(names, sizeof(names));
		snprintf(msg, len, "missing -e KIND[:N][,KIND[:N]...]: what to record (%s)", names);
		return -1;
	}
	stk_res_request_init(&want);
	stk_rec_request_resources(r, &want);
	for (int k = 0; k < STK_RES_KIND_COUNT; k++)
		any_res |= want.on[k];
	return any_res ? stk_res_request_check(&want, msg, len) : 0;
}
