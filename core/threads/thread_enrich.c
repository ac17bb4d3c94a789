#include "core/threads/thread_enrich.h"

#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/threads/syscall_table.h"
#include "core/threads/thread_idmap.h"
#include "core/threads/thread_procfs.h"

struct process_info {
	char *exe;
	char *username;
};

struct user_name {
	char *name;
};

struct stk_thread_enrich {
	char root[256];
	struct stk_idmap *processes; /* tgid -> struct process_info */
	struct stk_idmap *users;     /* uid -> struct user_name */
	unsigned passes;
};

static void release_process(void *v)
{
	struct process_info *p = v;

	free(p->exe);
	free(p->username);
}

static void release_user(void *v)
{
	free(((struct user_name *)v)->name);
}

struct stk_thread_enrich *stk_thread_enrich_new(const char *proc_root)
{
	struct stk_thread_enrich *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	snprintf(e->root, sizeof(e->root), "%s", proc_root);
	e->processes = stk_idmap_new(sizeof(struct process_info), release_process);
	e->users = stk_idmap_new(sizeof(struct user_name), release_user);
	if (!e->processes || !e->users) {
		stk_thread_enrich_free(e);
		return NULL;
	}
	return e;
}

void stk_thread_enrich_free(struct stk_thread_enrich *e)
{
	if (!e)
		return;
	stk_idmap_free(e->processes);
	stk_idmap_free(e->users);
	free(e);
}

void stk_thread_read_fd_name(const struct stk_thread_enrich *e, struct stk_thread *t)
{
	int arg = t->syscall >= 0 ? stk_syscall_fd_arg(t->syscall) : -1;
	char path[320];
	ssize_t n;

	t->filename[0] = '\0';
	if (arg < 0 || (int64_t)t->args[arg] < 0 || t->args[arg] > INT_MAX)
		return;
	snprintf(path, sizeof(path), "%s/%u/task/%u/fd/%llu", e->root, t->tgid, t->tid,
		 (unsigned long long)t->args[arg]);
	n = readlink(path, t->filename, sizeof(t->filename) - 1);
	t->filename[n > 0 ? n : 0] = '\0';
}

static const char *user_name(struct stk_thread_enrich *e, uid_t uid)
{
	bool created;
	struct user_name *u = stk_idmap_put(e->users, (uint32_t)uid, &created);
	char buf[32];

	if (!u)
		return "";
	if (created) {
		struct passwd *pw = getpwuid(uid);
		snprintf(buf, sizeof(buf), "%u", (unsigned)uid);
		u->name = strdup(pw ? pw->pw_name : buf);
	}
	return u->name ? u->name : "";
}

static void learn_process(struct stk_thread_enrich *e, struct process_info *p, uint32_t tgid)
{
	char path[300], exe[PATH_MAX];
	struct stat st;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%u/exe", e->root, tgid);
	n = readlink(path, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	p->exe = strdup(exe);
	snprintf(path, sizeof(path), "%s/%u", e->root, tgid);
	if (stat(path, &st) == 0)
		p->username = strdup(user_name(e, st.st_uid));
}

static void read_wchan(const struct stk_thread_enrich *e, struct stk_thread *t)
{
	char path[320], text[STK_THREAD_WCHAN_LEN];

	snprintf(path, sizeof(path), "%s/%u/task/%u/wchan", e->root, t->tgid, t->tid);
	if (stk_read_small_file(path, text, sizeof(text)) > 0 && strcmp(text, "0") != 0)
		snprintf(t->wchan, sizeof(t->wchan), "%s", text);
}

static void read_kernel_stack(const struct stk_thread_enrich *e, struct stk_thread *t)
{
	char path[320], text[8192], wchan[STK_THREAD_WCHAN_LEN];

	snprintf(path, sizeof(path), "%s/%u/task/%u/stack", e->root, t->tgid, t->tid);
	if (stk_read_small_file(path, text, sizeof(text)) <= 0)
		return;
	t->kstack = stk_fold_proc_stack(text, wchan, sizeof(wchan));
	if (!t->wchan[0])
		snprintf(t->wchan, sizeof(t->wchan), "%s", wchan);
}

void stk_thread_read_syscall(const struct stk_thread_enrich *e, struct stk_thread *t)
{
	char path[320], text[256];

	snprintf(path, sizeof(path), "%s/%u/task/%u/syscall", e->root, t->tgid, t->tid);
	if (stk_read_small_file(path, text, sizeof(text)) > 0)
		stk_parse_task_syscall(text, t->args, &t->syscall);
}

void stk_thread_enrich(struct stk_thread_enrich *e, struct stk_thread *t, bool kernel_stack)
{
	bool created;
	struct process_info *p = stk_idmap_put(e->processes, t->tgid, &created);
	bool waiting = t->state != STK_TSTATE_RUN && t->state != STK_TSTATE_ZOMBIE;

	if (p && created)
		learn_process(e, p, t->tgid);
	t->exe = p && p->exe ? p->exe : "";
	t->username = p && p->username ? p->username : "";
	if (t->syscall == STK_TSYS_UNKNOWN && waiting && !t->kthread)
		stk_thread_read_syscall(e, t);
	if (kernel_stack && !t->kstack && waiting)
		read_kernel_stack(e, t);
	if (!t->wchan[0] && waiting)
		read_wchan(e, t);
	if (!t->filename[0])
		stk_thread_read_fd_name(e, t);
	if (t->state == STK_TSTATE_RUNQ) /* as /proc's wchan: a runnable thread waits for nothing */
		t->wchan[0] = '\0';
}

void stk_thread_enrich_end_pass(struct stk_thread_enrich *e)
{
	/* Every 64 passes, forget the processes no pass saw since the last time. */
	if (++e->passes % 64 == 0)
		stk_idmap_sweep(e->processes);
}

