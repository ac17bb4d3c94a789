#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "core/threads/syscall_table.h"
#include "core/threads/thread_active.h"
#include "core/threads/thread_idmap.h"
#include "core/threads/thread_procfs.h"
#include "core/threads/thread_sample.h"

static void parses_stat(struct test_ctx *t)
{
	char comm[16], state;
	unsigned long flags;

	CHECK(t, stk_parse_task_stat("123 (a b) c) S 1 123 123 0 -1 4194560 120 0 0 0", comm, &state, &flags) == 0);
	CHECK_STR(t, comm, "a b) c");
	CHECK(t, state == 'S' && flags == 4194560);
	CHECK(t, stk_parse_task_stat("2 (kthreadd) S 0 0 0 0 -1 2129984 0", comm, &state, &flags) == 0);
	CHECK(t, flags & 0x00200000); /* PF_KTHREAD */
	CHECK(t, stk_parse_task_stat("garbage", comm, &state, &flags) == -1);
}

static void parses_syscall(struct test_ctx *t)
{
	uint64_t args[6];
	int32_t nr;

	CHECK(t, stk_parse_task_syscall("0 0x3 0x7ffe 0x1 0x0 0x0 0x0 0x7ffd 0x7f12\n", args, &nr) == 0);
	CHECK(t, args[0] == 3 && args[1] == 0x7ffe && args[2] == 1);
	CHECK(t, stk_parse_task_syscall("-1 0x7ffd 0x7f12\n", args, &nr) == STK_TSYS_NONE);
	CHECK(t, stk_parse_task_syscall("running\n", args, &nr) == STK_TSYS_UNKNOWN);
	CHECK(t, stk_parse_task_syscall("230 0x1\n", args, &nr) == STK_TSYS_UNKNOWN);
}

static void folds_stack(struct test_ctx *t)
{
	char wchan[64];
	char *f = stk_fold_proc_stack("[<0>] __schedule+0x3c/0x100\n[<0>] schedule+0x27/0xa0\n"
				      "[<0>] do_nanosleep+0x6d/0x1a0\n[<0>] hrtimer_nanosleep+0xa0/0x150\n",
				      wchan, sizeof(wchan));
	CHECK(t, f != NULL);
	if (f)
		CHECK_STR(t, f, "hrtimer_nanosleep;do_nanosleep;schedule;__schedule");
	CHECK_STR(t, wchan, "do_nanosleep");
	free(f);
	CHECK(t, stk_fold_proc_stack("", wchan, sizeof(wchan)) == NULL);
	CHECK_STR(t, wchan, "");
}

static void parses_schedstat(struct test_ctx *t)
{
	uint64_t run, wait;

	CHECK(t, stk_parse_schedstat("2066746480 1232949288 859\n", &run, &wait) == 0);
	CHECK(t, run == 2066746480ULL && wait == 1232949288ULL);
	CHECK(t, stk_parse_schedstat("x", &run, &wait) == -1);
}

/* RUN samples of a thread that samples every `step` ns add up to its on-CPU share. */
static unsigned run_samples(double share, unsigned samples)
{
	struct stk_run_split s = { 0 };
	const uint64_t step = 100000000;
	uint64_t run = 0, wait = 0;
	unsigned on = 0;

	for (unsigned i = 0; i < samples; i++) {
		run += (uint64_t)(share * step);
		wait += step - (uint64_t)(share * step);
		on += stk_run_split_on_cpu(&s, run, wait);
	}
	return on;
}

static void splits_runnable_by_share(struct test_ctx *t)
{
	CHECK(t, run_samples(1.0, 100) == 100);
	CHECK(t, run_samples(0.0, 100) == 0);
	/* a majority vote per interval would say 0 and 100 here */
	CHECK(t, run_samples(0.48, 100) >= 47 && run_samples(0.48, 100) <= 49);
	CHECK(t, run_samples(0.52, 100) >= 51 && run_samples(0.52, 100) <= 53);
	CHECK(t, run_samples(0.25, 100) == 25);

	/* first sample: the lifetime share; no run since the previous one: RUNQ */
	struct stk_run_split s = { 0 };
	CHECK(t, stk_run_split_on_cpu(&s, 900, 100));
	CHECK(t, !stk_run_split_on_cpu(&s, 900, 100));
	CHECK(t, !stk_run_split_on_cpu(&s, 900, 5000));
	CHECK(t, stk_run_split_on_cpu(&s, 1900, 5000));
}

static void states_and_wchan(struct test_ctx *t)
{
	enum stk_tstate s;
	const char *frames[] = { "__schedule", "schedule_hrtimeout_range", "do_epoll_wait" };

	CHECK(t, stk_tstate_from_letter('D', &s) == 0 && s == STK_TSTATE_DISK);
	CHECK(t, stk_tstate_from_letter('t', &s) == 0 && s == STK_TSTATE_STOPPED);
	CHECK(t, stk_tstate_from_letter('I', &s) == 0 && s == STK_TSTATE_IDLE);
	CHECK(t, stk_tstate_from_letter('?', &s) == -1);
	CHECK_STR(t, stk_tstate_name(STK_TSTATE_RUNQ), "RUNQ");
	CHECK_STR(t, stk_wchan_from_frames(frames, 3), "do_epoll_wait");
	CHECK_STR(t, stk_wchan_from_frames(frames, 2), "");
	CHECK(t, stk_stack_hash("a;b") != stk_stack_hash("a;c") && stk_stack_hash("") != 0);
}

static void syscall_table(struct test_ctx *t)
{
	int read_nr = stk_syscall_number("read"), nanosleep = stk_syscall_number("nanosleep");

	CHECK(t, read_nr >= 0 && nanosleep >= 0);
	CHECK_STR(t, stk_syscall_name(read_nr), "read");
	CHECK(t, stk_syscall_name(-1) == NULL && stk_syscall_name(100000) == NULL);
	CHECK(t, stk_syscall_fd_arg(read_nr) == 0);
	CHECK(t, stk_syscall_fd_arg(stk_syscall_number("sendfile")) == 1);
	CHECK(t, stk_syscall_fd_arg(nanosleep) == -1);
	CHECK(t, stk_syscall_waits_for_io(read_nr));
	CHECK(t, stk_syscall_waits_for_io(stk_syscall_number("io_getevents")));
	CHECK(t, !stk_syscall_waits_for_io(nanosleep));
	CHECK(t, !stk_syscall_waits_for_io(stk_syscall_number("epoll_wait")));
	CHECK(t, stk_syscall_count() > 300);
}

static void active_rule(struct test_ctx *t)
{
	struct stk_thread th = { .state = STK_TSTATE_RUNQ, .syscall = STK_TSYS_NONE };

	CHECK(t, stk_thread_is_active(&th));
	th.state = STK_TSTATE_DISK;
	CHECK(t, stk_thread_is_active(&th));
	th.state = STK_TSTATE_STOPPED;
	CHECK(t, !stk_thread_is_active(&th));
	th.state = STK_TSTATE_SLEEP;
	th.syscall = stk_syscall_number("read");
	CHECK(t, stk_thread_active_needs_file(&th));
	strcpy(th.filename, "pipe:[123]");
	CHECK(t, stk_thread_is_active(&th));
	strcpy(th.filename, "socket:[9]");
	CHECK(t, stk_thread_is_active(&th));
	strcpy(th.filename, "/var/lib/db/file");
	CHECK(t, stk_thread_is_active(&th));
	strcpy(th.filename, "/dev/pts/0"); /* a shell waiting for its user */
	CHECK(t, !stk_thread_is_active(&th));
	th.filename[0] = '\0';
	CHECK(t, !stk_thread_is_active(&th));
	th.syscall = stk_syscall_number("nanosleep");
	CHECK(t, !stk_thread_active_needs_file(&th) && !stk_thread_is_active(&th));
	th.syscall = stk_syscall_number("io_getevents");
	CHECK(t, stk_thread_is_active(&th));
	th.syscall = STK_TSYS_UNKNOWN;
	CHECK(t, !stk_thread_is_active(&th));
	/* The first cut keeps what the fd or a /proc read may still make active. */
	CHECK(t, stk_thread_may_be_active(&th));
	th.syscall = stk_syscall_number("read");
	CHECK(t, stk_thread_may_be_active(&th));
	th.syscall = stk_syscall_number("pause");
	CHECK(t, !stk_thread_may_be_active(&th));
	th.state = STK_TSTATE_IDLE;
	CHECK(t, !stk_thread_may_be_active(&th));
}

static int add_value(void *ctx, uint32_t key, void *value)
{
	(void)key;
	*(uint64_t *)ctx += *(uint64_t *)value;
	return 0;
}

static void idmap(struct test_ctx *t)
{
	struct stk_idmap *m = stk_idmap_new(sizeof(uint64_t), NULL);
	bool created;

	for (uint32_t k = 1; k <= 1000; k++) {
		uint64_t *v = stk_idmap_put(m, k, &created);
		CHECK(t, v && created);
		if (v)
			*v = k * 7;
	}
	CHECK(t, stk_idmap_count(m) == 1000);
	uint64_t *v = stk_idmap_put(m, 500, &created);
	CHECK(t, v && !created && *v == 3500);
	stk_idmap_sweep(m); /* every entry was put since the (absent) previous sweep */
	CHECK(t, stk_idmap_count(m) == 1000);
	for (uint32_t k = 1; k <= 1000; k += 2)
		stk_idmap_get(m, k);
	stk_idmap_sweep(m); /* only the odd keys were seen */
	CHECK(t, stk_idmap_count(m) == 500);
	CHECK(t, stk_idmap_get(m, 2) == NULL);
	v = stk_idmap_get(m, 999);
	CHECK(t, v && *v == 6993);
	uint64_t sum = 0;
	stk_idmap_for_each(m, add_value, &sum);
	CHECK(t, sum == 7ULL * 250000); /* 7 * (1 + 3 + ... + 999) */
	stk_idmap_clear(m);
	CHECK(t, stk_idmap_count(m) == 0 && stk_idmap_get(m, 999) == NULL);
	CHECK(t, stk_idmap_put(m, 999, &created) && created);
	stk_idmap_free(m);
}

const struct test_case thread_procfs_tests[] = {
	{ "thread_procfs_stat", parses_stat },
	{ "thread_procfs_syscall", parses_syscall },
	{ "thread_procfs_stack", folds_stack },
	{ "thread_procfs_schedstat", parses_schedstat },
	{ "thread_procfs_run_split", splits_runnable_by_share },
	{ "thread_states_and_wchan", states_and_wchan },
	{ "thread_syscall_table", syscall_table },
	{ "thread_active_rule", active_rule },
	{ "thread_idmap", idmap },
	{ NULL, NULL },
};
