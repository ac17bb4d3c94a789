/*
 * What stk pmp does without a kernel: reading /proc/.../syscall, status and
 * stack, interning frame names, a perf sample's body, counting threads by
 * state and stack, and the pt-pmp line those counts print as.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "harness.h"
#include "core/output/output.h"
#include "core/snapshot/frame_names.h"
#include "core/snapshot/snap_count.h"
#include "core/snapshot/snap_perf.h"
#include "core/threads/stack_fold.h"
#include "core/threads/thread_procfs.h"

static void parses_syscall_sp_pc(struct test_ctx *t)
{
	uint64_t sp = 0, pc = 0;

	CHECK(t, stk_parse_task_syscall_sp_pc("0 0x3 0x7ffe 0x1 0x0 0x0 0x0 0x7ffd1000 0x7f12aa\n", &sp, &pc) == 0);
	CHECK(t, sp == 0x7ffd1000 && pc == 0x7f12aa);
	CHECK(t, stk_parse_task_syscall_sp_pc("-1 0x7ffc0000 0x401000\n", &sp, &pc) == 0);
	CHECK(t, sp == 0x7ffc0000 && pc == 0x401000);
	CHECK(t, stk_parse_task_syscall_sp_pc("running\n", &sp, &pc) == -1);
	CHECK(t, stk_parse_task_syscall_sp_pc("230 0x1 0x2\n", &sp, &pc) == -1);  /* neither shape */
	CHECK(t, stk_parse_task_syscall_sp_pc("-1 0x7ffc0000\n", &sp, &pc) == -1); /* pc missing */
	CHECK(t, stk_parse_task_syscall_sp_pc("", &sp, &pc) == -1);
}

static void parses_status_switches(struct test_ctx *t)
{
	uint64_t n = 0;

	CHECK(t, stk_parse_status_switches("Name:\tx\nvoluntary_ctxt_switches:\t12\nnonvoluntary_ctxt_switches:\t3\n",
					   &n) == 0);
	CHECK(t, n == 15);
	CHECK(t, stk_parse_status_switches("Name:\tx\nvoluntary_ctxt_switches:\t12\n", &n) == -1);
	CHECK(t, stk_parse_status_switches("nonvoluntary_ctxt_switches:\t3\nvoluntary_ctxt_switches:\tx\n", &n) == -1);
}

static void parses_proc_stack_names(struct test_ctx *t)
{
	const char *names[4];
	size_t lens[4];
	size_t n = stk_parse_proc_stack("[<0>] do_epoll_wait+0x4a0/0x4f0\n[<0>] ext4_x+0x1/0x2 [ext4]\nno frame here\n", names,
					lens, 4);

	CHECK(t, n == 2);
	CHECK(t, n == 2 && lens[0] == 13 && strncmp(names[0], "do_epoll_wait", 13) == 0);
	CHECK(t, n == 2 && lens[1] == 6 && strncmp(names[1], "ext4_x", 6) == 0);
}

static void interns_frame_names(struct test_ctx *t)
{
	struct stk_frame_names *n = stk_frame_names_new();
	uint64_t a = stk_frame_names_id(n, "futex_wait_queue", 16), b = stk_frame_names_id(n, "schedule_xyz", 8);

	CHECK(t, a && b && a != b);
	CHECK(t, stk_frame_names_id(n, "futex_wait_queue", 16) == a);
	CHECK_STR(t, stk_frame_names_name(n, b), "schedule");
	/* Real code addresses are never ids. */
	CHECK(t, stk_frame_names_name(n, 0xffffffff81000000ULL) == NULL);
	CHECK(t, stk_frame_names_name(n, 0x7f0000001000ULL) == NULL);
	CHECK(t, stk_frame_names_name(n, b + 1) == NULL);
	for (int i = 0; i < 3000; i++) { /* grows past its first table */
		char name[32];
		snprintf(name, sizeof(name), "f%d", i);
		CHECK(t, stk_frame_names_id(n, name, strlen(name)) != 0);
	}
	CHECK(t, stk_frame_names_id(n, "futex_wait_queue", 16) == a);
	stk_frame_names_free(n);
}

/* A sample body as the kernel writes it: ids, call chain, user registers, user stack. */
static void parses_perf_sample(struct test_ctx *t)
{
	uint64_t body[64], mask = stk_perf_regs_mask();
	size_t n = 0, nregs = 0;
	struct stk_snap_thread th = { 0 };

	body[n++] = (uint64_t)42 << 32 | 7; /* pid 7, tid 42 */
	body[n++] = 3;
	body[n++] = PERF_CONTEXT_KERNEL;
	body[n++] = 0xffffffff81001000ULL;
	body[n++] = 0xffffffff81002000ULL;
	body[n++] = PERF_SAMPLE_REGS_ABI_64;
	for (int bit = 0; bit < 64; bit++)
		if (mask >> bit & 1)
			body[n++] = 0x1000 + (uint64_t)bit, nregs++;
	body[n++] = 16; /* the stack copy's size, its bytes, and the part that was filled */
	body[n++] = 0x1111;
	body[n++] = 0x2222;
	body[n++] = 8;
	CHECK(t, nregs == STK_UREGS_N);
	CHECK(t, stk_perf_sample_parse((const uint8_t *)body, n * 8, &th) == 0);
	CHECK(t, th.tgid == 7 && th.tid == 42);
	CHECK(t, th.n_kernel == 2 && th.kernel[0] == 0xffffffff81001000ULL);
	CHECK(t, th.has_regs && th.stack_len == 8 && th.stack[0] == 0x11);
#if defined(__x86_64__)
	CHECK(t, th.regs[STK_UREG_SP] == 0x1000 + 7 && th.regs[STK_UREG_PC] == 0x1000 + 8); /* perf's SP 7, IP 8 */
	CHECK(t, th.regs[3] == 0x1000 + 1);                                                   /* rbx is perf's BX */
#endif
	stk_snap_thread_clear(&th);
	CHECK(t, stk_perf_sample_parse((const uint8_t *)body, 20, &th) == -1); /* cut short */
	stk_snap_thread_clear(&th);
}

static struct stk_stack *add_to(void *ctx)
{
	struct { struct stk_stack s[8]; size_t n; } *list = ctx;

	return list->n < 8 ? memset(&list->s[list->n++], 0, sizeof(list->s[0])) : NULL;
}

/* Threads in the same state and stack merge; another state is another line, as pt-pmp prints it. */
static void merges_by_state_and_stack(struct test_ctx *t)
{
	struct stk_frame_names *names = stk_frame_names_new();
	uint64_t waits[2] = { stk_frame_names_id(names, "__schedule", 10), stk_frame_names_id(names, "pipe_read", 9) };
	uint64_t disk[1] = { stk_frame_names_id(names, "folio_wait_bit", 14) };
	struct stk_snap_thread a = { .tid = 1, .tgid = 1, .state = STK_TSTATE_SLEEP, .kernel = waits, .n_kernel = 2 };
	struct stk_snap_thread b = a, c = a, d = { .tid = 4, .tgid = 1, .state = STK_TSTATE_DISK, .kernel = disk,
						   .n_kernel = 1 };
	const struct stk_snap_count_opts by_state = { .state_frame = true, .kernel_only = true };
	const struct stk_snap_count_opts plain = { .kernel_only = true };
	struct stk_snap_counter *cs = stk_snap_counter_new(&by_state, names, NULL);
	struct stk_snap_counter *cp = stk_snap_counter_new(&plain, names, NULL);
	char text[64];

	b.tid = 2;
	c.tid = 3;
	c.state = STK_TSTATE_RUNQ;
	stk_snap_wchan(cs, &a, text, sizeof(text));
	CHECK_STR(t, text, "pipe_read");
	stk_snap_state_text(STK_TSTATE_SLEEP, "pipe_read", text, sizeof(text));
	CHECK_STR(t, text, "[SLEEP pipe_read]");
	stk_snap_state_text(STK_TSTATE_RUN, "", text, sizeof(text));
	CHECK_STR(t, text, "[RUN]");
	const struct stk_snap_thread *all[] = { &a, &b, &c, &d };
	for (int i = 0; i < 4; i++) {
		CHECK(t, stk_snap_count(cs, all[i], NULL, 0, NULL) == 0);
		CHECK(t, stk_snap_count(cp, all[i], NULL, 0, NULL) == 0);
	}
	CHECK(t, stk_snap_counter_size(cs) == 3 && stk_snap_counter_value(cs, 0) == 2);
	CHECK(t, stk_snap_counter_size(cp) == 2 && stk_snap_counter_value(cp, 0) == 3);

	struct { struct stk_stack s[8]; size_t n; } list = { .n = 0 };
	CHECK(t, stk_snap_counter_collect(cs, add_to, &list) == 0 && list.n == 3);
	struct stk_report r = { .stacks = list.s, .n_stacks = list.n };
	struct stk_output_opts o = { .format = STK_FORMAT_PMP };
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	CHECK(t, f && stk_output_write(f, &r, &o) == 0);
	if (f)
		fclose(f);
	CHECK_STR(t, out ? out : "",
		  "2 [SLEEP pipe_read],__schedule,pipe_read\n"
		  "1 [DISK folio_wait_bit],folio_wait_bit\n"
		  "1 [RUNQ pipe_read],__schedule,pipe_read\n");
	free(out);
	for (size_t i = 0; i < list.n; i++) {
		free((void *)list.s[i].kernel);
		free((void *)list.s[i].user);
	}
	stk_snap_counter_free(cs);
	stk_snap_counter_free(cp);
	stk_frame_names_free(names);
}

/* threadstate's table shows where a thread is: the innermost frames of its stack, as pmp prints them. */
static void shows_innermost_frames(struct test_ctx *t)
{
	char buf[64];

	stk_fold_innermost("_start;main;wait;read", 4, buf, sizeof(buf));
	CHECK_STR(t, buf, "read,wait,main,_start");
	stk_fold_innermost("clone3;start_thread;worker;wait;read", 3, buf, sizeof(buf));
	CHECK_STR(t, buf, "read,wait,worker,...");
	stk_fold_innermost(NULL, 3, buf, sizeof(buf));
	CHECK_STR(t, buf, "");
	stk_fold_innermost("a;bbbbbbbbbb", 4, buf, 8); /* a frame that does not fit is left out */
	CHECK_STR(t, buf, "");
}

const struct test_case pmp_tests[] = {
	{ "pmp_syscall_sp_pc", parses_syscall_sp_pc },
	{ "pmp_status_switches", parses_status_switches },
	{ "pmp_proc_stack_names", parses_proc_stack_names },
	{ "pmp_frame_names", interns_frame_names },
	{ "pmp_perf_sample", parses_perf_sample },
	{ "pmp_merges_by_state", merges_by_state_and_stack },
	{ "pmp_table_innermost_frames", shows_innermost_frames },
	{ NULL, NULL },
};
