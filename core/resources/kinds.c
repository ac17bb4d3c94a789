/* The kinds of stk resources and its -e / --mechanism parsing: see kinds.h. */
#include "core/resources/kinds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/options.h"

#define BYTES "bytes"
#define NS "nanoseconds"
static const struct stk_res_kind_info kinds[STK_RES_KIND_COUNT] = {
	[STK_RES_RSS] = { "rss", "rss", "bytes", "resident memory growth, pages faulted in", STK_RES_SRC_MEMORY, 1, BYTES,
			  STK_RES_DETAIL_NONE },
	[STK_RES_FAULTS] = { "faults", "faults", "count", "page faults", STK_RES_SRC_FAULTS, 1, "count",
			     STK_RES_DETAIL_NONE },
	[STK_RES_BLOCK] = { "block", "block", "bytes", "block I/O by the stack that asked for it, reads and writes apart",
			    STK_RES_SRC_BLOCK, 1, BYTES, STK_RES_DETAIL_DIRECTION },
	[STK_RES_BLOCK_TIME] = { "block-time", "block_time", "microseconds",
				 "block I/O from issue to completion, by the same stack", STK_RES_SRC_BLOCK, 1000, NS,
				 STK_RES_DETAIL_DIRECTION },
	[STK_RES_READ] = { "read", "read", "bytes", "read(2) and its kin, sockets aside", STK_RES_SRC_FILES, 1, BYTES,
			   STK_RES_DETAIL_SYSCALL },
	[STK_RES_WRITE] = { "write", "write", "bytes", "write(2) and its kin, sockets aside", STK_RES_SRC_FILES, 1, BYTES,
			    STK_RES_DETAIL_SYSCALL },
	[STK_RES_SEND] = { "send", "send", "bytes", "sent on TCP and UDP sockets", STK_RES_SRC_SOCKETS, 1, BYTES,
			   STK_RES_DETAIL_SYSCALL },
	[STK_RES_RECV] = { "recv", "recv", "bytes", "received on TCP and UDP sockets", STK_RES_SRC_SOCKETS, 1, BYTES,
			   STK_RES_DETAIL_SYSCALL },
	[STK_RES_SYSCALL] = { "syscall", "syscall", "microseconds",
			      "system calls from entry to exit, each one event (--min-latency)", STK_RES_SRC_SYSCALLS,
			      1000, NS, STK_RES_DETAIL_SYSCALL },
	[STK_RES_IORQ] = { "iorq", "iorq", "microseconds",
			   "block requests from issue to completion, each one event with device and bytes",
			   STK_RES_SRC_BLOCK, 1000, NS, STK_RES_DETAIL_DIRECTION },
};
#undef BYTES
#undef NS

static const enum stk_attach_class source_classes[STK_RES_SRC_COUNT] = {
	[STK_RES_SRC_MEMORY] = STK_ATTACH_RES_MEMORY, [STK_RES_SRC_FAULTS] = STK_ATTACH_RES_FAULTS,
	[STK_RES_SRC_BLOCK] = STK_ATTACH_RES_BLOCK,   [STK_RES_SRC_FILES] = STK_ATTACH_RES_FILE,
	[STK_RES_SRC_SOCKETS] = STK_ATTACH_RES_SOCKET, [STK_RES_SRC_SYSCALLS] = STK_ATTACH_RES_SYSCALL,
};

const struct stk_res_kind_info *stk_res_kind(enum stk_res_kind k)
{
	return &kinds[k];
}

enum stk_attach_class stk_res_source_class(enum stk_res_source s)
{
	return source_classes[s];
}

void stk_res_kind_names(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int k = 0; k < STK_RES_KIND_COUNT && used < len; k++) {
		int w = snprintf(buf + used, len - used, "%s%s", k == 0 ? "" : k + 1 == STK_RES_KIND_COUNT ? " or " : ", ",
				 kinds[k].name);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

static int kind_by_name(const char *name, size_t n)
{
	for (int k = 0; k < STK_RES_KIND_COUNT; k++)
		if (strlen(kinds[k].name) == n && strncmp(kinds[k].name, name, n) == 0)
			return k;
	return -1;
}

void stk_res_request_init(struct stk_res_request *r)
{
	memset(r, 0, sizeof(*r));
	for (int k = 0; k < STK_RES_KIND_COUNT; k++)
		r->every[k] = 1;
}

/* "KIND" or "KIND:N" (item of n bytes) into the request ctx. 0, or -1 with msg. */
static int parse_kind(void *ctx, const char *item, size_t n, char *msg, size_t len)
{
	struct stk_res_request *r = ctx;
	size_t name_len;
	bool has_n;
	uint64_t v = 1;
	int bad_n = stk_kind_item(item, n, &name_len, &has_n, STK_RES_EVERY_MAX, &v);
	int k = kind_by_name(item, name_len);
	char names[160];

	if (k < 0) {
		stk_res_kind_names(names, sizeof(names));
		snprintf(msg, len, "-e: unknown kind '%.*s' (expected %s)", (int)name_len, item, names);
		return -1;
	}
	if (r->on[k]) {
		snprintf(msg, len, "-e: %s given twice", kinds[k].name);
		return -1;
	}
	if (bad_n) {
		snprintf(msg, len, "-e %s: expected KIND:N with N from 1 to %u (every Nth event)", kinds[k].name,
			 STK_RES_EVERY_MAX);
		return -1;
	}
	r->on[k] = true;
	r->every[k] = (uint32_t)v;
	return 0;
}

/* What parsing one --mechanism item needs besides it. */
struct parse_ctx {
	struct stk_res_request *r;
	char *msg;
	size_t len;
};

int stk_res_request_parse_kinds(struct stk_res_request *r, const char *spec, char *msg, size_t len)
{
	return stk_each_kind(spec, parse_kind, r, msg, len);
}

/* "KIND=RUNG" (item of n bytes): the rung of the kind's source. 0, or -1 with msg. */
static int mechanism_item(void *ctx, const char *p, size_t n)
{
	struct parse_ctx *c = ctx;
	struct stk_res_request *r = c->r;
	char *msg = c->msg;
	size_t len = c->len;
	const char *eq = memchr(p, '=', n);
	int k = eq ? kind_by_name(p, (size_t)(eq - p)) : -1;
	char rung[32], names[128];

	if (k < 0) {
		snprintf(msg, len, "--mechanism %.*s: expected KIND=MECHANISM (e.g. block=tracepoint)", (int)n, p);
		return -1;
	}
	enum stk_attach_class cls = source_classes[kinds[k].source];
	size_t m = n - (size_t)(eq - p) - 1;
	snprintf(rung, sizeof(rung), "%.*s", (int)(m < sizeof(rung) ? m : sizeof(rung) - 1), eq + 1);
	const struct stk_rung *found = m < sizeof(rung) ? stk_rung_by_name(cls, rung) : NULL;
	if (!found) {
		stk_ladder_names(cls, names, sizeof(names));
		snprintf(msg, len, "--mechanism %s=%.*s: %s takes %s", kinds[k].name, (int)m, eq + 1, kinds[k].name,
			 names);
		return -1;
	}
	const char **forced = &r->forced[kinds[k].source];
	if (*forced && strcmp(*forced, found->name) != 0) {
		snprintf(msg, len, "--mechanism: %s and %s share their events; one mechanism for both", *forced,
			 found->name);
		return -1;
	}
	*forced = found->name;
	return 0;
}

int stk_res_request_parse_mechanisms(struct stk_res_request *r, const char *spec, char *msg, size_t len)
{
	struct parse_ctx c = { r, msg, len };

	return stk_each_item(spec, mechanism_item, &c);
}

bool stk_res_request_wants(const struct stk_res_request *r, enum stk_res_source s)
{
	for (int k = 0; k < STK_RES_KIND_COUNT; k++)
		if (r->on[k] && kinds[k].source == s)
			return true;
	return false;
}

int stk_res_request_check(const struct stk_res_request *r, char *msg, size_t len)
{
	char names[160];
	bool any = false;

	for (int k = 0; k < STK_RES_KIND_COUNT; k++)
		any |= r->on[k];
	if (!any) {
		stk_res_kind_names(names, sizeof(names));
		snprintf(msg, len, "missing -e KIND[,KIND...]: what to weigh stacks by (%s)", names);
		return -1;
	}
	const enum stk_res_kind block_kinds[] = { STK_RES_BLOCK, STK_RES_BLOCK_TIME, STK_RES_IORQ };
	int first = -1;

	for (size_t i = 0; i < sizeof(block_kinds) / sizeof(block_kinds[0]); i++) {
		enum stk_res_kind k = block_kinds[i];

		if (!r->on[k])
			continue;
		if (first >= 0 && r->every[k] != r->every[first]) {
			snprintf(msg, len, "-e: %s and %s are taken from the same requests: give them the same N",
				 kinds[first].name, kinds[k].name);
			return -1;
		}
		if (first < 0)
			first = (int)k;
	}
	for (int s = 0; s < STK_RES_SRC_COUNT; s++) {
		if (r->forced[s] && !stk_res_request_wants(r, (enum stk_res_source)s)) {
			stk_res_source_kinds(r, (enum stk_res_source)s, true, names, sizeof(names));
			snprintf(msg, len, "--mechanism for %s, which -e does not ask for", names);
			return -1;
		}
	}
	return 0;
}

void stk_res_source_kinds(const struct stk_res_request *r, enum stk_res_source s, bool all, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int k = 0; k < STK_RES_KIND_COUNT && used < len; k++) {
		if (kinds[k].source != s || (!all && !r->on[k]))
			continue;
		int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", kinds[k].name);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}
