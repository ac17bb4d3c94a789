#include "core/ladder/precondition.h"

#include "core/base/kernel_release.h"
#include "core/ladder/ladder.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static bool exists(const struct stk_precondition_env *env, const char *path)
{
	char full[4096];

	snprintf(full, sizeof(full), "%s%s", env->root ? env->root : "", path);
	return access(full, F_OK) == 0;
}

const char *stk_precondition(enum stk_feature f, const struct stk_precondition_env *env, char *why, size_t len)
{
	switch (f) {
	case STK_FEATURE_FENTRY:
	case STK_FEATURE_TP_BTF:
	case STK_FEATURE_TASK_ITER:
	case STK_FEATURE_TASK_ITER_COPY:
		/* Their attach points are type ids in the running kernel's own BTF. */
		if (!env->kernel_btf)
			return "needs the running kernel's own BTF (/sys/kernel/btf/vmlinux or a vmlinux) for its "
			       "attach target, none found (--btf and embedded BTF serve CO-RE only)";
		return NULL;
	case STK_FEATURE_KPROBE_PMU:
		if (!exists(env, "/sys/bus/event_source/devices/kprobe/type"))
			return "no kprobe PMU (/sys/bus/event_source/devices/kprobe)";
		return NULL;
	case STK_FEATURE_KPROBE_LEGACY:
		if (env->tracefs_error) {
			snprintf(why, len, "%s", env->tracefs_error);
			return why;
		}
		if (!exists(env, "/sys/kernel/tracing/kprobe_events") &&
		    !exists(env, "/sys/kernel/debug/tracing/kprobe_events"))
			return "no kprobe_events in tracefs";
		return NULL;
	case STK_FEATURE_TRACEPOINT:
		if (env->tracefs_error) {
			snprintf(why, len, "%s", env->tracefs_error);
			return why;
		}
		return NULL;
	default:
		return NULL;
	}
}

int stk_precondition_check(enum stk_feature f, const struct stk_precondition_env *env, char *why, size_t len)
{
	const char *pre = stk_precondition(f, env, why, len);

	if (!pre)
		return 0;
	if (pre != why)
		snprintf(why, len, "%s", pre);
	return -1;
}

/* The tracepoint "category/name" in tracefs (mounted where libbpf looks). */
static bool event_exists(const struct stk_precondition_env *env, const char *event)
{
	char path[512];

	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s", event);
	if (exists(env, path))
		return true;
	snprintf(path, sizeof(path), "/sys/kernel/debug/tracing/events/%s", event);
	return exists(env, path);
}

const char *stk_rung_precondition(const struct stk_rung *r, const struct stk_precondition_env *env, char *why,
				  size_t len)
{
	const char *pre = stk_precondition((enum stk_feature)r->feature, env, why, len);
	struct stk_kernel_version v;

	if (pre)
		return pre;
	if (r->event && !env->tracefs_error && !event_exists(env, r->event)) {
		snprintf(why, len, "no tracepoint %s in this kernel", r->event);
		return why;
	}
	if (r->needs_btf && !env->any_btf)
		return "reads kernel structures with CO-RE: needs BTF for this kernel (its own, --btf or embedded), "
		       "none found";
	if (r->since_major && env->release && stk_kernel_version_parse(env->release, &v) == 0 &&
	    stk_kernel_version_cmp(&v, r->since_major, r->since_minor) < 0) {
		snprintf(why, len, "its tracepoints' arguments are as read from %u.%u on (kernel %s)", r->since_major,
			 r->since_minor, env->release);
		return why;
	}
	return NULL;
}

#define FUNC "finish_task_switch"

int stk_find_finish_task_switch(FILE *kallsyms, char *buf, size_t len)
{
	char line[512], sym[256], type;
	int found = 0;

	while (fgets(line, sizeof(line), kallsyms)) {
		if (sscanf(line, "%*s %c %255s", &type, sym) != 2)
			continue;
		if (type != 't' && type != 'T')
			continue;
		if (strcmp(sym, FUNC) == 0) {
			snprintf(buf, len, "%s", sym);
			return 0; /* the exact name wins over clones */
		}
		/* "finish_task_switch.isra.0", ".constprop.0", ...; not "finish_task_switch_foo" */
		if (!found && strncmp(sym, FUNC ".", sizeof(FUNC)) == 0) {
			snprintf(buf, len, "%s", sym);
			found = 1;
		}
	}
	return found ? 0 : -1;
}
