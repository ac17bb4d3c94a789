#include "core/snapshot/snap_proc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core/base/grow.h"
#include "core/snapshot/frame_names.h"
#include "core/snapshot/snap_ptrace.h"
#include "core/sym/proc_maps.h"
#include "core/threads/thread_procfs.h"
#include "core/threads/threads_proc.h"

#define KSTACK_MAX 64

/* A process's mappings, read once per pass for all its threads. */
struct range {
	uint64_t start, end;
};

struct stk_snap_proc {
	char root[256];
	uint32_t skip_tgid, stack_bytes;
	struct stk_frame_names *names;
	bool stop_threads;
	uint32_t maps_tgid; /* whose mappings ranges holds (0: none) */
	struct range *ranges;
	size_t n_ranges, cap_ranges;
	struct stk_map_entry entry; /* a parsed maps line (its path is large) */
};

struct stk_snap_proc *stk_snap_proc_new(const char *proc_root, uint32_t skip_tgid, uint32_t stack_bytes,
					struct stk_frame_names *names, bool stop_threads)
{
	struct stk_snap_proc *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	snprintf(p->root, sizeof(p->root), "%s", proc_root);
	p->skip_tgid = skip_tgid;
	p->stack_bytes = stack_bytes;
	p->names = names;
	p->stop_threads = stop_threads;
	return p;
}

void stk_snap_proc_free(void *impl)
{
	struct stk_snap_proc *p = impl;

	if (!p)
		return;
	free(p->ranges);
	free(p);
}

const char *stk_snap_proc_usable(const char *proc_root)
{
	char path[300], text[256];

	snprintf(path, sizeof(path), "%s/self/syscall", proc_root);
	if (stk_read_small_file(path, text, sizeof(text)) < 0)
		return "no /proc/PID/syscall (a kernel without CONFIG_HAVE_ARCH_TRACEHOOK)";
	return NULL;
}

static long read_task_file(const struct stk_snap_proc *p, uint32_t tgid, uint32_t tid, const char *name, char *buf,
			   size_t len)
{
	char path[320];

	snprintf(path, sizeof(path), "%s/%u/task/%u/%s", p->root, tgid, tid, name);
	return stk_read_small_file(path, buf, len);
}

/* The end of the mapping of tgid that holds addr, or 0. */
static uint64_t mapping_end(struct stk_snap_proc *p, uint32_t tgid, uint64_t addr)
{
	if (p->maps_tgid != tgid) {
		char path[300], line[4400];

		p->n_ranges = 0;
		p->maps_tgid = tgid;
		snprintf(path, sizeof(path), "%s/%u/maps", p->root, tgid);
		FILE *f = fopen(path, "re");
		if (!f)
			return 0;
		while (fgets(line, sizeof(line), f)) {
			if (stk_maps_parse_line(line, &p->entry) ||
			    stk_grow((void **)&p->ranges, &p->cap_ranges, p->n_ranges + 1, sizeof(*p->ranges)))
				continue;
			p->ranges[p->n_ranges++] = (struct range){ p->entry.start, p->entry.end };
		}
		fclose(f);
	}
	for (size_t i = 0; i < p->n_ranges; i++)
		if (addr >= p->ranges[i].start && addr < p->ranges[i].end)
			return p->ranges[i].end;
	return 0;
}

/* The kernel stack by name, as frame-name ids (leaf first). */
static void kernel_frames(struct stk_snap_proc *p, struct stk_snap_thread *t)
{
	const char *names[KSTACK_MAX];
	size_t lens[KSTACK_MAX], n;
	char text[8192];

	if (read_task_file(p, t->tgid, t->tid, "stack", text, sizeof(text)) <= 0)
		return;
	n = stk_parse_proc_stack(text, names, lens, KSTACK_MAX);
	if (!n || !(t->kernel = calloc(n, sizeof(*t->kernel))))
		return;
	for (size_t i = 0; i < n; i++)
		if ((t->kernel[t->n_kernel] = stk_frame_names_id(p->names, names[i], lens[i])))
			t->n_kernel++;
}

static bool read_switches(const struct stk_snap_proc *p, uint32_t tgid, uint32_t tid, uint64_t *switches)
{
	char text[4096];

	return read_task_file(p, tgid, tid, "status", text, sizeof(text)) > 0 &&
	       stk_parse_status_switches(text, switches) == 0;
}

/* The user stack from sp up to the end of its mapping (at most stack_bytes), with process_vm_readv. */
static void copy_stack(struct stk_snap_proc *p, struct stk_snap_thread *t)
{
	uint64_t sp = t->regs[STK_UREG_SP], end = mapping_end(p, t->tgid, sp), len;

	if (!end)
		return;
	len = end - sp < p->stack_bytes ? end - sp : p->stack_bytes;
	if (!len || !(t->stack = malloc(len)))
		return;
	struct iovec local = { t->stack, len }, remote = { (void *)(uintptr_t)sp, len };
	ssize_t got = process_vm_readv((pid_t)t->tid, &local, 1, &remote, 1, 0);
	t->stack_len = got > 0 ? (size_t)got : 0;
}

/* proc: sp and pc of a thread off CPU, its stack, and whether it stayed off CPU throughout. */
static void take_blocked(struct stk_snap_proc *p, struct stk_snap_thread *t)
{
	char first[256], again[256];
	uint64_t sp, pc, after;

	if (read_task_file(p, t->tgid, t->tid, "syscall", first, sizeof(first)) <= 0)
		return;
	if (stk_parse_task_syscall_sp_pc(first, &sp, &pc)) {
		t->pending |= STK_SNAP_RUNNING; /* "running": on a CPU or waiting for one */
		return;
	}
	t->has_regs = true;
	t->regs[STK_UREG_SP] = sp;
	t->regs[STK_UREG_PC] = pc;
	t->regs_known = 1ULL << STK_UREG_SP;
	copy_stack(p, t);
	if (!t->switches_known || !read_switches(p, t->tgid, t->tid, &after) || after != t->switches ||
	    read_task_file(p, t->tgid, t->tid, "syscall", again, sizeof(again)) <= 0 || strcmp(first, again) != 0)
		t->pending |= STK_SNAP_RACED;
}

/* ptrace: the thread stopped for all its registers and the copy. */
static void take_stopped(struct stk_snap_proc *p, struct stk_snap_thread *t)
{
	char why[128];

	if (stk_ptrace_stop((pid_t)t->tid, why, sizeof(why))) {
		t->no_user = "ptrace could not stop it";
		return;
	}
	if (stk_ptrace_regs((pid_t)t->tid, t->regs, STK_UREGS_N) == 0) {
		t->has_regs = true;
		copy_stack(p, t);
	}
	stk_ptrace_resume((pid_t)t->tid);
	if (!t->has_regs)
		t->no_user = "ptrace could not read its registers";
}

struct pass {
	struct stk_snap_proc *p;
	struct stk_snap *out;
};

static int take_thread(void *ctx, uint32_t tgid, uint32_t tid)
{
	struct pass *pass = ctx;
	struct stk_snap_proc *p = pass->p;
	char text[1024], letter;
	unsigned long flags;
	struct stk_snap_thread *t;

	if (tgid == p->skip_tgid)
		return 0;
	if (!(t = stk_snap_add(pass->out)))
		return -1;
	t->tid = tid;
	t->tgid = tgid;
	t->how = p->stop_threads ? "ptrace" : "proc";
	t->switches_known = read_switches(p, tgid, tid, &t->switches);
	if (read_task_file(p, tgid, tid, "stat", text, sizeof(text)) <= 0 ||
	    stk_parse_task_stat(text, t->comm, &letter, &flags)) {
		stk_snap_thread_clear(t); /* gone */
		pass->out->n--;
		return 0;
	}
	if (stk_tstate_from_letter(letter, &t->state))
		t->state = STK_TSTATE_SLEEP;
	t->kthread = (flags & 0x00200000) != 0; /* PF_KTHREAD */
	kernel_frames(p, t);
	if (t->kthread)
		t->no_user = "kernel thread";
	else if (t->state == STK_TSTATE_ZOMBIE)
		t->no_user = "exited (a zombie)";
	else if (p->stop_threads)
		take_stopped(p, t);
	else
		take_blocked(p, t);
	return 0;
}

/* A thread's process, from /proc/TID/status (a thread's directory exists at the top level too). */
static uint32_t tgid_of(const struct stk_snap_proc *p, uint32_t tid)
{
	char path[300], text[4096];
	const char *at;

	snprintf(path, sizeof(path), "%s/%u/status", p->root, tid);
	if (stk_read_small_file(path, text, sizeof(text)) <= 0 || !(at = strstr(text, "\nTgid:")))
		return 0;
	return (uint32_t)strtoul(at + 6, NULL, 10);
}

int stk_snap_proc_take(void *impl, const struct stk_snap_want *want, struct stk_snap *out)
{
	struct stk_snap_proc *p = impl;
	struct pass pass = { p, out };

	p->maps_tgid = 0; /* mappings are read anew each pass */
	if (want->n_tids) {
		for (size_t i = 0; i < want->n_tids; i++) {
			uint32_t tgid = tgid_of(p, want->tids[i]);
			if (tgid && take_thread(&pass, tgid, want->tids[i]))
				return -1;
		}
		return 0;
	}
	return stk_proc_walk_threads(p->root, want->pids, want->n_pids, p->skip_tgid, take_thread, &pass);
}
