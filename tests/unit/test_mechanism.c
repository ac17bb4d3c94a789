#include "harness.h"
#include "core/ladder/climb.h"
#include "core/ladder/ladder.h"
#include "core/ladder/precondition.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *chosen(enum stk_attach_class c, const bool *avail)
{
	const struct stk_rung *r = stk_ladder_choose(c, avail);
	return r ? r->name : "none";
}

static void picks_first_available_in_order(struct test_ctx *t)
{
	bool a[STK_FEATURE_COUNT] = { 0 };

	/* Nothing works: kernel functions have no mechanism, threadstate falls to /proc. */
	CHECK_STR(t, chosen(STK_ATTACH_KERNEL_FUNCTION, a), "none");
	CHECK_STR(t, chosen(STK_ATTACH_THREAD_SAMPLING, a), "proc");

	/* This host's shape: fentry but no kprobes. */
	a[STK_FEATURE_FENTRY] = true;
	a[STK_FEATURE_RAW_TP] = true;
	a[STK_FEATURE_UPROBE] = true;
	CHECK_STR(t, chosen(STK_ATTACH_KERNEL_FUNCTION, a), "fentry");
	CHECK_STR(t, chosen(STK_ATTACH_SCHED_SWITCH, a), "raw_tp");
	CHECK_STR(t, chosen(STK_ATTACH_TRACEPOINT, a), "raw_tp");
	CHECK_STR(t, chosen(STK_ATTACH_USER_FUNCTION, a), "uprobe");
	a[STK_FEATURE_UPROBE_MULTI] = true;
	CHECK_STR(t, chosen(STK_ATTACH_USER_FUNCTION, a), "uprobe.multi");

	/* An old kernel without BTF: legacy kprobes and tracepoints. */
	bool old[STK_FEATURE_COUNT] = { 0 };
	old[STK_FEATURE_KPROBE_LEGACY] = true;
	old[STK_FEATURE_TRACEPOINT] = true;
	CHECK_STR(t, chosen(STK_ATTACH_KERNEL_FUNCTION, old), "kprobe_legacy");
	CHECK_STR(t, chosen(STK_ATTACH_SCHED_SWITCH, old), "tracepoint");
	CHECK_STR(t, chosen(STK_ATTACH_TRACEPOINT, old), "tracepoint");
}

static void every_class_has_a_name_and_rungs(struct test_ctx *t)
{
	for (int c = 0; c < STK_ATTACH_CLASS_COUNT; c++) {
		const struct stk_ladder *l = stk_ladder_for((enum stk_attach_class)c);
		CHECK(t, l->rungs != NULL && l->n > 0 && l->name && l->users);
		for (size_t i = 0; i < l->n; i++) {
			CHECK(t, stk_rung_by_name((enum stk_attach_class)c, l->rungs[i].name) == &l->rungs[i]);
			CHECK(t, stk_rung_by_id((enum stk_attach_class)c, l->rungs[i].id) == &l->rungs[i]);
		}
	}
	char names[128];
	stk_ladder_names(STK_ATTACH_KERNEL_FUNCTION, names, sizeof(names));
	CHECK_STR(t, names, "fentry, kprobe.multi, kprobe or kprobe_legacy");
}

static void kernel_function_order_follows_target_count(struct test_ctx *t)
{
	const struct stk_rung *o[8];

	CHECK(t, stk_ladder_order(STK_ATTACH_KERNEL_FUNCTION, 1, 16, o, 8) == 4);
	CHECK_STR(t, o[0]->name, "fentry");
	CHECK_STR(t, o[1]->name, "kprobe.multi");
	CHECK_STR(t, o[2]->name, "kprobe");
	CHECK_STR(t, o[3]->name, "kprobe_legacy");
	CHECK(t, stk_ladder_order(STK_ATTACH_KERNEL_FUNCTION, 16, 16, o, 8) == 4 && strcmp(o[0]->name, "fentry") == 0);
	/* many functions: one kprobe.multi link before one fentry program per function */
	CHECK(t, stk_ladder_order(STK_ATTACH_KERNEL_FUNCTION, 17, 16, o, 8) == 4);
	CHECK_STR(t, o[0]->name, "kprobe.multi");
	CHECK_STR(t, o[1]->name, "fentry");
	/* every other class keeps its table order whatever the count */
	CHECK(t, stk_ladder_order(STK_ATTACH_SCHED_SWITCH, 99, 0, o, 8) == 4 && strcmp(o[0]->name, "tp_btf") == 0);
}

/* The climb: rungs in order, reasons of those passed over, forced rungs. */
struct fake { const char *works; int calls; char seen[128]; };

static int fake_attempt(void *ctx, const struct stk_rung *r, char *why, size_t len)
{
	struct fake *f = ctx;
	size_t used = strlen(f->seen);

	f->calls++;
	snprintf(f->seen + used, sizeof(f->seen) - used, "%s%s", used ? "," : "", r->name);
	if (f->works && strcmp(r->name, f->works) == 0)
		return 0;
	snprintf(why, len, "no %s here", r->name);
	return -1;
}

static void climb_walks_in_order(struct test_ctx *t)
{
	struct fake f = { .works = "tracepoint" };
	struct stk_climb c = { .cls = STK_ATTACH_SCHED_SWITCH, .forced_opt = "--mechanism", .attempt = fake_attempt,
			       .ctx = &f };
	char err[256] = "";

	CHECK(t, stk_climb_all(&c, "none", err, sizeof(err)) == 0);
	CHECK_STR(t, c.chosen->name, "tracepoint");
	CHECK_STR(t, f.seen, "tp_btf,raw_tp,tracepoint");
	CHECK_STR(t, c.tried, "tp_btf: no tp_btf here; raw_tp: no raw_tp here");

	struct fake none = { 0 };
	c.ctx = &none;
	CHECK(t, stk_climb_all(&c, "no sched_switch mechanism works", err, sizeof(err)) == -1);
	CHECK(t, c.chosen == NULL);
	CHECK_STR(t, err, "no sched_switch mechanism works (tp_btf: no tp_btf here; raw_tp: no raw_tp here; "
			  "tracepoint: no tracepoint here; kprobe: no kprobe here)");

	struct fake forced = { .works = "tp_btf" };
	c.ctx = &forced;
	c.forced = "raw_tp";
	CHECK(t, stk_climb_all(&c, "none", err, sizeof(err)) == -1);
	CHECK_STR(t, forced.seen, "raw_tp");
	CHECK_STR(t, err, "--mechanism raw_tp: not available here: no raw_tp here");
	c.forced = "fentry";
	CHECK(t, stk_climb_all(&c, "none", err, sizeof(err)) == -1);
	CHECK_STR(t, err, "--mechanism fentry: expected tp_btf, raw_tp, tracepoint or kprobe");
}

static void preconditions_from_the_tree(struct test_ctx *t)
{
	char root[] = "/tmp/stk-precond-XXXXXX", path[512], why[256];
	struct stk_precondition_env env = { .kernel_btf = false, .root = root };

	CHECK(t, mkdtemp(root) != NULL);
	CHECK(t, stk_precondition(STK_FEATURE_FENTRY, &env, why, sizeof(why)) != NULL);
	CHECK(t, stk_precondition(STK_FEATURE_KPROBE_PMU, &env, why, sizeof(why)) != NULL);
	CHECK(t, stk_precondition(STK_FEATURE_RAW_TP, &env, why, sizeof(why)) == NULL);
	env.kernel_btf = true;
	CHECK(t, stk_precondition(STK_FEATURE_FENTRY, &env, why, sizeof(why)) == NULL);
	snprintf(path, sizeof(path), "mkdir -p %s/sys/bus/event_source/devices/kprobe && touch "
		 "%s/sys/bus/event_source/devices/kprobe/type", root, root);
	CHECK(t, system(path) == 0);
	CHECK(t, stk_precondition(STK_FEATURE_KPROBE_PMU, &env, why, sizeof(why)) == NULL);
	env.tracefs_error = "tracefs is not mounted";
	const char *pre = stk_precondition(STK_FEATURE_KPROBE_LEGACY, &env, why, sizeof(why));
	CHECK(t, pre && strcmp(pre, "tracefs is not mounted") == 0);
	snprintf(path, sizeof(path), "rm -rf %s", root);
	CHECK(t, system(path) == 0);
}

/* stk resources' rungs: the tracepoint must exist, CO-RE needs BTF, block's raw_tp needs 5.11. */
static void rung_preconditions(struct test_ctx *t)
{
	char root[] = "/tmp/stk-rung-XXXXXX", path[512], why[256];
	struct stk_precondition_env env = { .kernel_btf = true, .root = root, .any_btf = true, .release = "6.1.0-50-cloud-amd64" };
	const struct stk_rung *btf_raw = stk_rung_by_name(STK_ATTACH_RES_BLOCK, "raw_tp");
	const struct stk_rung *classic = stk_rung_by_name(STK_ATTACH_RES_BLOCK, "tracepoint");
	const char *pre;

	CHECK(t, mkdtemp(root) != NULL && btf_raw && classic);
	if (!btf_raw || !classic)
		return;
	pre = stk_rung_precondition(classic, &env, why, sizeof(why));
	CHECK(t, pre && strcmp(pre, "no tracepoint block/block_getrq in this kernel") == 0);
	snprintf(path, sizeof(path), "mkdir -p %s/sys/kernel/tracing/events/block/block_getrq", root);
	CHECK(t, system(path) == 0);
	CHECK(t, stk_rung_precondition(classic, &env, why, sizeof(why)) == NULL);
	CHECK(t, stk_rung_precondition(btf_raw, &env, why, sizeof(why)) == NULL);
	env.release = "5.10.0-32-cloud-amd64";
	pre = stk_rung_precondition(btf_raw, &env, why, sizeof(why));
	CHECK(t, pre && strstr(pre, "from 5.11 on (kernel 5.10.0-32-cloud-amd64)") != NULL);
	env.release = "6.1.0";
	env.any_btf = false;
	pre = stk_rung_precondition(btf_raw, &env, why, sizeof(why));
	CHECK(t, pre && strstr(pre, "needs BTF") != NULL);
	CHECK(t, stk_rung_precondition(classic, &env, why, sizeof(why)) == NULL);
	/* stk info's choice: the first rung whose feature works and whose needs are met */
	bool a[STK_FEATURE_COUNT] = { 0 };
	a[STK_FEATURE_RAW_TP] = a[STK_FEATURE_TRACEPOINT] = true;
	CHECK_STR(t, chosen(STK_ATTACH_RES_BLOCK, a), "raw_tp");
	snprintf(path, sizeof(path), "rm -rf %s", root);
	CHECK(t, system(path) == 0);
}

const struct test_case mechanism_tests[] = {
	{ "mechanism_rung_preconditions", rung_preconditions },
	{ "mechanism_order", picks_first_available_in_order },
	{ "mechanism_classes", every_class_has_a_name_and_rungs },
	{ "mechanism_kernel_function_order", kernel_function_order_follows_target_count },
	{ "mechanism_climb", climb_walks_in_order },
	{ "mechanism_preconditions", preconditions_from_the_tree },
	{ NULL, NULL },
};
