#include "core/bpf/features.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/sdt.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "core/base/clock.h"
#include "core/bpf/bpf_object.h"
#include "core/sym/proc_maps.h"
#include "stk.skel.h"
#include "bpf/feature_ids.h"
#include "core/ladder/precondition.h"

/* A kernel function present from 4.14 to today that reading a file reaches. */
#define PROBE_KERNEL_FUNC "vfs_read"

static void set_result(struct stk_feature_result *r, bool ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_result(struct stk_feature_result *r, bool ok, const char *fmt, ...)
{
	va_list ap;

	r->probed = true;
	r->available = ok;
	va_start(ap, fmt);
	vsnprintf(r->detail, sizeof(r->detail), fmt, ap);
	va_end(ap);
}

/* Targets for the uprobe and USDT probes: stk probes itself. */
__attribute__((noinline)) int stk_feature_uprobe_target(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

__attribute__((noinline)) static void stk_feature_usdt_site(void)
{
	STAP_PROBE1(stk, feature_probe, 42);
}

static void trigger_kernel_read(void)
{
	char buf[256];
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	for (int i = 0; i < 4; i++) {
		if (pread(fd, buf, sizeof(buf), 0) < 0)
			break;
		if (read(fd, buf, sizeof(buf)) < 0)
			break;
	}
	close(fd);
}

static void trigger_context_switches(void)
{
	struct timespec ts = { .tv_nsec = 1000000 };

	for (int i = 0; i < 3; i++)
		nanosleep(&ts, NULL);
}

static void burn_cpu_ms(long ms)
{
	int64_t until = stk_now_ns(CLOCK_MONOTONIC) + (int64_t)ms * 1000000;
	volatile uint64_t sink = 0;

	do {
		for (int i = 0; i < 10000; i++)
			sink += (uint64_t)i;
	} while (stk_now_ns(CLOCK_MONOTONIC) < until);
}

static int open_self_cpu_clock(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_freq = 1000,
		.freq = 1,
	};

	/* This process on any CPU: fires while burn_cpu_ms() runs. */
	return (int)syscall(__NR_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static uint64_t read_hits(struct stk_bpf *skel, uint32_t slot)
{
	uint64_t hits = 0;

	if (bpf_map__lookup_elem(skel->maps.feature_hits, &slot, sizeof(slot), &hits, sizeof(hits), 0))
		return 0;
	return hits;
}

/* One probe: open with only prog (+ maps), load, attach, trigger, count. */
struct probe_plan {
	const char *program;
	const char *const *extra_maps;
	uint32_t slot;
	const char *what; /* attach target, for the detail text */
};

typedef struct bpf_link *(*attach_fn)(struct bpf_program *prog, char *why, size_t whylen);
typedef void (*trigger_fn)(void);

static void describe_errno(char *why, size_t len, const char *step, int err)
{
	snprintf(why, len, "%s failed: %s", step, strerror(err < 0 ? -err : err));
}

static void run_probe(const struct stk_feature_env *env, const struct probe_plan *plan,
		      const char *fentry_target, attach_fn attach, trigger_fn trigger,
		      struct stk_feature_result *r)
{
	const char *maps[8] = { "feature_hits" };
	const char *programs[2] = { plan->program, NULL };
	size_t n = 1;
	char err[256], why[160] = "";

	for (const char *const *m = plan->extra_maps; m && *m && n < 7; m++)
		maps[n++] = *m;
	maps[n] = NULL;

	struct stk_bpf_selection sel = {
		.programs = programs, .maps = maps, .btf_custom_path = env->btf_custom_path,
	};
	struct stk_bpf *skel = stk_bpf_open_selected(&sel, err, sizeof(err));
	if (!skel) {
		set_result(r, false, "%s", err);
		return;
	}
	struct bpf_program *prog = bpf_object__find_program_by_name(skel->obj, plan->program);
	if (fentry_target)
		bpf_program__set_attach_target(prog, 0, fentry_target);
	int ret = stk_bpf__load(skel);
	if (ret) {
		describe_errno(why, sizeof(why), "load", ret);
		set_result(r, false, "%s", why);
		stk_bpf__destroy(skel);
		return;
	}
	struct bpf_link *link = attach(prog, why, sizeof(why));
	if (!link) {
		set_result(r, false, "%s", why);
		stk_bpf__destroy(skel);
		return;
	}
	if (trigger)
		trigger();
	uint64_t hits = read_hits(skel, plan->slot);
	bpf_link__destroy(link);
	if (hits)
		set_result(r, true, "%s, ran %llu times", plan->what, (unsigned long long)hits);
	else
		set_result(r, false, "attached to %s but never ran", plan->what);
	stk_bpf__destroy(skel);
}

static struct bpf_link *link_or_why(struct bpf_link *link, const char *step, char *why, size_t len)
{
	if (!link)
		describe_errno(why, len, step, errno);
	return link;
}

static struct bpf_link *attach_kprobe_pmu(struct bpf_program *p, char *why, size_t len)
{
	LIBBPF_OPTS(bpf_kprobe_opts, o, .attach_mode = PROBE_ATTACH_MODE_PERF);

	return link_or_why(bpf_program__attach_kprobe_opts(p, PROBE_KERNEL_FUNC, &o), "attach", why, len);
}

static struct bpf_link *attach_kprobe_legacy(struct bpf_program *p, char *why, size_t len)
{
	LIBBPF_OPTS(bpf_kprobe_opts, o, .attach_mode = PROBE_ATTACH_MODE_LEGACY);

	return link_or_why(bpf_program__attach_kprobe_opts(p, PROBE_KERNEL_FUNC, &o), "attach", why, len);
}

static struct bpf_link *attach_kprobe_multi(struct bpf_program *p, char *why, size_t len)
{
	return link_or_why(bpf_program__attach_kprobe_multi_opts(p, PROBE_KERNEL_FUNC, NULL),
			   "attach", why, len);
}

static struct bpf_link *attach_trace(struct bpf_program *p, char *why, size_t len)
{
	return link_or_why(bpf_program__attach_trace(p), "attach", why, len);
}

static struct bpf_link *attach_raw_tp(struct bpf_program *p, char *why, size_t len)
{
	return link_or_why(bpf_program__attach_raw_tracepoint(p, "sched_switch"), "attach", why, len);
}

static struct bpf_link *attach_tracepoint(struct bpf_program *p, char *why, size_t len)
{
	return link_or_why(bpf_program__attach_tracepoint(p, "sched", "sched_switch"), "attach", why, len);
}

static struct bpf_link *attach_uprobe_self(struct bpf_program *p, char *why, size_t len)
{
	struct stk_map_entry e;
	uint64_t off;

	/* The offset comes from /proc/self/maps, so this works on a stripped stk. */
	if (stk_maps_file_offset(0, (uint64_t)(uintptr_t)stk_feature_uprobe_target, &e, &off)) {
		snprintf(why, len, "cannot find stk's own text in /proc/self/maps");
		return NULL;
	}
	return link_or_why(bpf_program__attach_uprobe_opts(p, 0, "/proc/self/exe", off, NULL),
			   "attach", why, len);
}

static struct bpf_link *attach_uprobe_multi_self(struct bpf_program *p, char *why, size_t len)
{
	LIBBPF_OPTS(bpf_uprobe_multi_opts, o);
	struct stk_map_entry e;
	uint64_t off;
	unsigned long offsets[1];

	if (stk_maps_file_offset(0, (uint64_t)(uintptr_t)stk_feature_uprobe_target, &e, &off)) {
		snprintf(why, len, "cannot find stk's own text in /proc/self/maps");
		return NULL;
	}
	offsets[0] = (unsigned long)off;
	o.offsets = offsets;
	o.cnt = 1;
	/* A kernel without uprobe.multi (before 6.6) refuses it: the reason is the result, not a warning. */
	libbpf_print_fn_t print = libbpf_set_print(NULL);
	struct bpf_link *link = bpf_program__attach_uprobe_multi(p, getpid(), "/proc/self/exe", NULL, &o);
	int saved = errno;
	libbpf_set_print(print);
	errno = saved;
	return link_or_why(link, "attach", why, len);
}

static struct bpf_link *attach_usdt_self(struct bpf_program *p, char *why, size_t len)
{
	return link_or_why(bpf_program__attach_usdt(p, getpid(), "/proc/self/exe", "stk",
						    "feature_probe", NULL),
			   "attach", why, len);
}

static struct bpf_link *attach_perf_event_self(struct bpf_program *p, char *why, size_t len)
{
	int fd = open_self_cpu_clock();
	struct bpf_link *link;

	if (fd < 0) {
		describe_errno(why, len, "perf_event_open(cpu-clock)", errno);
		return NULL;
	}
	link = bpf_program__attach_perf_event(p, fd);
	if (!link) {
		describe_errno(why, len, "attach", errno);
		close(fd);
		return NULL;
	}
	/* bpf_link owns the perf event fd from here on (closed on destroy). */
	return link;
}

static struct bpf_link *attach_task_iter(struct bpf_program *p, char *why, size_t len)
{
	struct bpf_link *link = bpf_program__attach_iter(p, NULL);
	char buf[256];
	int fd;

	if (!link) {
		describe_errno(why, len, "attach", errno);
		return NULL;
	}
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0) {
		describe_errno(why, len, "bpf_iter_create", errno);
		bpf_link__destroy(link);
		return NULL;
	}
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	return link;
}

static void trigger_cpu(void) { burn_cpu_ms(30); }
static void trigger_uprobe(void) { stk_feature_uprobe_target(1); }
static void trigger_usdt(void) { stk_feature_usdt_site(); }

/* A program using a .bss-style map value (BPF_PSEUDO_MAP_VALUE), which 5.2 added. */
static void probe_global_data(struct stk_feature_result *r)
{
	int map_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "stk_gdata", sizeof(uint32_t), 8, 1, NULL);
	if (map_fd < 0) {
		set_result(r, false, "array map create failed: %s", strerror(errno));
		return;
	}
	struct bpf_insn insns[] = {
		/* r1 = &map_value[0] */
		{ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = BPF_REG_1,
		  .src_reg = BPF_PSEUDO_MAP_VALUE, .imm = map_fd },
		{ .imm = 0 },
		/* *(u64 *)(r1 + 0) = 42 */
		{ .code = BPF_ST | BPF_DW | BPF_MEM, .dst_reg = BPF_REG_1, .imm = 42 },
		/* r0 = 0; exit */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int prog_fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "stk_gdata", "GPL", insns,
				    sizeof(insns) / sizeof(insns[0]), NULL);
	if (prog_fd < 0)
		set_result(r, false, "program with a map value reference rejected: %s", strerror(errno));
	else
		set_result(r, true, "program with a direct map value reference loaded");
	if (prog_fd >= 0)
		close(prog_fd);
	close(map_fd);
}

static void probe_ringbuf(struct stk_feature_result *r)
{
	int ret = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL);

	if (ret == 1)
		set_result(r, true, "BPF_MAP_TYPE_RINGBUF created");
	else
		set_result(r, false, "BPF_MAP_TYPE_RINGBUF rejected%s%s", ret < 0 ? ": " : "",
			   ret < 0 ? strerror(-ret) : "");
}

/* The kernel unwinder's walk: one bpf_loop callback per frame (5.17). */
static void probe_bpf_loop(struct stk_feature_result *r)
{
	int ret = libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_loop, NULL);

	if (ret == 1)
		set_result(r, true, "bpf_loop accepted in a perf_event program");
	else
		set_result(r, false, "bpf_loop rejected%s%s (kernel 5.17 has it)", ret < 0 ? ": " : "",
			   ret < 0 ? strerror(-ret) : "");
}

static const char *const usdt_maps[] = { "__bpf_usdt_specs", "__bpf_usdt_ip_to_spec_id", "stk_bpf.kconfig", NULL };
static const char *const stack_maps[] = { "feature_stack_buf", NULL };

/*
 * How each feature is probed: a program of bpf/feature_probes.bpf.c loaded,
 * attached and triggered until it counts in its slot, or (direct) a check
 * that needs no program of its own. A new feature is one row.
 */
static const struct feature_probe {
	struct probe_plan plan;
	attach_fn attach;
	trigger_fn trigger;         /* NULL: attaching runs it (an iterator) */
	const char *fentry_target;  /* the kernel function a tracing program attaches to */
	void (*direct)(struct stk_feature_result *r);
} probes[STK_FEATURE_COUNT] = {
	[STK_FEATURE_PERF_EVENT] = { { "stk_feat_perf_event", NULL, STK_FEAT_SLOT_PERF_EVENT,
				       "software cpu-clock sampling" }, attach_perf_event_self, trigger_cpu },
	[STK_FEATURE_GET_STACK] = { { "stk_feat_get_stack", stack_maps, STK_FEAT_SLOT_GET_STACK,
				      "cpu-clock sampling with bpf_get_stack" }, attach_perf_event_self, trigger_cpu },
	[STK_FEATURE_KPROBE_PMU] = { { "stk_feat_kprobe", NULL, STK_FEAT_SLOT_KPROBE,
				       "kprobe " PROBE_KERNEL_FUNC " via perf PMU" }, attach_kprobe_pmu,
				     trigger_kernel_read },
	[STK_FEATURE_KPROBE_LEGACY] = { { "stk_feat_kprobe", NULL, STK_FEAT_SLOT_KPROBE,
					  "kprobe " PROBE_KERNEL_FUNC " via tracefs kprobe_events" },
					attach_kprobe_legacy, trigger_kernel_read },
	[STK_FEATURE_KPROBE_MULTI] = { { "stk_feat_kprobe_multi", NULL, STK_FEAT_SLOT_KPROBE_MULTI,
					 "kprobe.multi " PROBE_KERNEL_FUNC }, attach_kprobe_multi, trigger_kernel_read },
	[STK_FEATURE_FENTRY] = { { "stk_feat_fentry", NULL, STK_FEAT_SLOT_FENTRY, "fentry " PROBE_KERNEL_FUNC },
				 attach_trace, trigger_kernel_read, PROBE_KERNEL_FUNC },
	[STK_FEATURE_TP_BTF] = { { "stk_feat_tp_btf", NULL, STK_FEAT_SLOT_TP_BTF, "tp_btf sched_switch" },
				 attach_trace, trigger_context_switches },
	[STK_FEATURE_RAW_TP] = { { "stk_feat_raw_tp", NULL, STK_FEAT_SLOT_RAW_TP, "raw_tp sched_switch" },
				 attach_raw_tp, trigger_context_switches },
	[STK_FEATURE_TRACEPOINT] = { { "stk_feat_tracepoint", NULL, STK_FEAT_SLOT_TRACEPOINT,
				       "tracepoint sched:sched_switch" }, attach_tracepoint, trigger_context_switches },
	[STK_FEATURE_UPROBE] = { { "stk_feat_uprobe", NULL, STK_FEAT_SLOT_UPROBE, "uprobe on stk itself" },
				 attach_uprobe_self, trigger_uprobe },
	[STK_FEATURE_UPROBE_MULTI] = { { "stk_feat_uprobe_multi", NULL, STK_FEAT_SLOT_UPROBE_MULTI,
					 "uprobe.multi on stk itself" }, attach_uprobe_multi_self, trigger_uprobe },
	[STK_FEATURE_USDT] = { { "stk_feat_usdt", usdt_maps, STK_FEAT_SLOT_USDT,
				 "USDT stk:feature_probe in stk itself" }, attach_usdt_self, trigger_usdt },
	[STK_FEATURE_TASK_ITER] = { { "stk_feat_task_iter", NULL, STK_FEAT_SLOT_TASK_ITER,
				      "task iterator over all tasks" }, attach_task_iter },
	[STK_FEATURE_TASK_ITER_COPY] = { { "stk_feat_task_iter_copy", NULL, STK_FEAT_SLOT_TASK_ITER_COPY,
					   "sleepable task iterator copying stk's own stack (bpf_copy_from_user_task)" },
					 attach_task_iter },
	[STK_FEATURE_RINGBUF] = { .direct = probe_ringbuf },
	[STK_FEATURE_GLOBAL_DATA] = { .direct = probe_global_data },
	[STK_FEATURE_BPF_LOOP] = { .direct = probe_bpf_loop },
};

void stk_feature_probe(const struct stk_feature_env *env, enum stk_feature f,
		       struct stk_feature_result *r)
{
	const struct feature_probe *p = (unsigned)f < STK_FEATURE_COUNT ? &probes[f] : NULL;

	memset(r, 0, sizeof(*r));
	if (!p)
		return;
	if (!p->direct && !p->attach) { /* a feature without its row: said, not skipped in silence */
		set_result(r, false, "stk has no probe for it");
		return;
	}
	if (p->direct) {
		p->direct(r);
		return;
	}
	const struct stk_precondition_env pre_env = {
		.kernel_btf = !env->no_kernel_btf, .tracefs_error = env->tracefs_error, .root = "",
	};
	char why[256];
	const char *pre = stk_precondition(f, &pre_env, why, sizeof(why));
	if (pre) {
		set_result(r, false, "%s", pre);
		return;
	}
	run_probe(env, &p->plan, p->fentry_target, p->attach, p->trigger, r);
}
