/* What every runtime shares: see runtime.h; each runtime's own part is its file (runtime_class.h). */
#include "core/runtime/runtime.h"

#include <dirent.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/base/clock.h"
#include "core/base/grow.h"
#include "core/base/key_index.h"
#include "core/base/string_pool.h"
#include "core/runtime/runtime_class.h"
#include "core/stack/stack.h"
#include "core/unwind/mapping.h"

static const struct stk_runtime_class *const classes[] = { &stk_runtime_python };

/* Load segments of a file kept for the bias of its mappings. */
#define MAX_LOADS 16
/* A thread not in the list read last is looked for again at most this often... */
#define THREADS_REREAD_NS 50000000LL
/* ...and meanwhile among this many of the newest states (a thread made since). */
#define NEWEST_LOOKED 32
/* Threads (tasks) of one process mapped between PID namespaces at most. */
#define MAX_TASKS 16384
/* Bytes one thread's walk may read (128 bytes a frame and its code object's check: 4,096 frames). */
#define WALK_BUDGET (4096u * 136)
/* Words a splice holds at most (the copy unwinder's callers keep 1,024 frames). */
#define SPLICE_MAX 1024
/* Line tables kept per process; past it code objects keep their names, not their lines. */
#define MAX_TABLE_BYTES (64u << 20)
/* Code objects named per process at most (then the rest show "[python]"). */
#define MAX_NAMES (1u << 20)

struct stk_runtime_file {
	const struct stk_runtime_class *cls;
	void *data; /* the class's */
	struct { uint64_t offset, vaddr, filesz; } loads[MAX_LOADS];
	size_t n_loads;
};

/* A thread's state, by host tid (key first). */
struct rt_thread {
	uint32_t tid;
	uint32_t ns_tid;
	uint64_t state;
};

/* A code object named (or not: why), by address and check (key first, padding zeroed). */
struct rt_name {
	uint64_t code;
	uint32_t check;
	uint32_t pad;
	struct stk_rt_code c;
	const char *why; /* static; NULL when named */
};

struct stk_runtime_proc {
	const struct stk_runtime_class *cls;
	const struct stk_runtime_file *file; /* the file it runs from */
	uint64_t bias;
	void *state; /* the class's; NULL: not found (note says why) */
	char note[512];
	struct rt_thread *threads;
	size_t n_threads, cap_threads;
	struct stk_key_index by_tid;
	int64_t threads_read_ns; /* 0: never */
	struct rt_name *names;
	size_t n_names, cap_names;
	struct stk_key_index by_code;
	size_t table_bytes;
	struct stk_string_pool *strings;
	uint32_t *placed; /* host tids whose state the kernel walk has */
	size_t n_placed, cap_placed;
	struct stk_runtime_stats stats;
};

struct stk_runtime_file *stk_runtime_file_scan(int fd)
{
	Elf *elf;
	struct stk_runtime_file *f = NULL;
	size_t n_ph = 0;

	elf_version(EV_CURRENT);
	if (!(elf = elf_begin(fd, ELF_C_READ, NULL)))
		return NULL;
	if (elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &n_ph))
		goto out;
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]) && !f; i++) {
		void *data = classes[i]->scan_file(elf);

		if (!data)
			continue;
		if (!(f = calloc(1, sizeof(*f)))) {
			classes[i]->free_file(data);
			goto out;
		}
		f->cls = classes[i];
		f->data = data;
	}
	for (size_t i = 0; f && i < n_ph && f->n_loads < MAX_LOADS; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
			f->loads[f->n_loads].offset = ph.p_offset;
			f->loads[f->n_loads].vaddr = ph.p_vaddr;
			f->loads[f->n_loads++].filesz = ph.p_filesz;
		}
	}
out:
	elf_end(elf);
	return f;
}

void stk_runtime_file_free(struct stk_runtime_file *f)
{
	if (!f)
		return;
	f->cls->free_file(f->data);
	free(f);
}

/* The bias of file f mapped by m (runtime address = ELF address + bias); false when no segment holds m's offset. */
static bool mapping_bias(const struct stk_runtime_file *f, const struct stk_mapping *m, uint64_t *bias)
{
	for (size_t i = 0; i < f->n_loads; i++) {
		uint64_t seg_page = f->loads[i].offset & ~(uint64_t)4095;

		if (m->offset >= seg_page && m->offset < f->loads[i].offset + f->loads[i].filesz) {
			*bias = m->start - m->offset - (f->loads[i].vaddr - f->loads[i].offset);
			return true;
		}
	}
	return false;
}

static void drop_state(struct stk_runtime_proc *rp)
{
	if (rp->state)
		rp->cls->free_proc(rp->state);
	rp->state = NULL;
	rp->file = NULL; /* the file cache may free it once nothing maps it */
	rp->n_threads = 0;
	stk_key_index_clear(&rp->by_tid);
	rp->threads_read_ns = 0;
}

static struct stk_runtime_proc *new_proc(void)
{
	struct stk_runtime_proc *rp = calloc(1, sizeof(*rp));

	if (!rp)
		return NULL;
	if (!(rp->strings = stk_string_pool_new())) {
		free(rp);
		return NULL;
	}
	rp->by_tid = (struct stk_key_index){ .key_size = sizeof(uint32_t), .stride = sizeof(struct rt_thread) };
	rp->by_code = (struct stk_key_index){ .key_size = 16, .stride = sizeof(struct rt_name) };
	return rp;
}

/* Looks for p's runtime in its mappings as they are now. */
static void look(struct stk_process *p)
{
	const struct stk_mapping *m = NULL;
	struct stk_runtime_proc *rp = p->runtime;
	uint64_t bias = 0;
	char why[256] = "", version[16];

	for (size_t i = 0; i < p->n_maps && !m; i++)
		if (!p->maps[i].gone && p->maps[i].file && p->maps[i].file->runtime &&
		    mapping_bias(p->maps[i].file->runtime, &p->maps[i], &bias))
			m = &p->maps[i];
	if (!m) {
		/* none now (an exec): the names made before stay for the stacks that hold them */
		if (rp) {
			drop_state(rp);
			rp->note[0] = '\0';
		}
		return;
	}
	if (!rp && !(rp = p->runtime = new_proc()))
		return;
	if (rp->state && rp->file == m->file->runtime && rp->bias == bias)
		return; /* the same interpreter where it was */
	drop_state(rp);
	rp->file = m->file->runtime;
	rp->cls = rp->file->cls;
	rp->bias = bias;
	struct stk_mem mem = stk_mem_of_process(p->pid);
	rp->state = rp->cls->find(rp->file->data, bias, &mem, why, sizeof(why));
	if (rp->state)
		snprintf(rp->note, sizeof(rp->note), "%s %s in %.200s", rp->cls->name,
			 rp->cls->file_version(rp->file->data, version), m->path);
	else
		snprintf(rp->note, sizeof(rp->note), "%s (in %.200s)", why, m->path);
}

struct stk_runtime_proc *stk_runtime_of(struct stk_process *p)
{
	if (!p->runtime_looked || p->runtime_generation != p->generation) {
		p->runtime_looked = true;
		p->runtime_generation = p->generation;
		look(p);
	}
	return p->runtime && p->runtime->state ? p->runtime : NULL;
}

const char *stk_runtime_note(const struct stk_process *p)
{
	return p->runtime && p->runtime->note[0] ? p->runtime->note : NULL;
}

void stk_runtime_proc_free(struct stk_runtime_proc *rp)
{
	if (!rp)
		return;
	drop_state(rp);
	for (size_t i = 0; i < rp->n_names; i++)
		free(rp->names[i].c.table);
	free(rp->names);
	stk_key_index_free(&rp->by_code);
	free(rp->threads);
	stk_key_index_free(&rp->by_tid);
	stk_string_pool_free(rp->strings);
	free(rp->placed);
	free(rp);
}

/* ---- threads: the interpreter's ids are its PID namespace's, BPF's and stk's the host's ---- */

/* The host and innermost ids in a status file's NSpid line; false when it has none. */
static bool nspid(const char *path, uint32_t *host, uint32_t *inner, int *levels)
{
	char buf[2048];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	char *line, *p, *end;

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	if (!(line = strstr(buf, "\nNSpid:")))
		return false;
	p = line + 7;
	*levels = 0;
	for (;;) {
		unsigned long v = strtoul(p, &end, 10);

		if (end == p)
			break;
		if (!*levels)
			*host = (uint32_t)v;
		*inner = (uint32_t)v;
		(*levels)++;
		p = end;
	}
	return *levels > 0;
}

struct thread_list {
	struct stk_runtime_proc *rp;
	struct rt_thread *found; /* by ns tid, in the order the runtime listed them */
	size_t n, cap;
};

static bool add_found(void *ctx, uint32_t ns_tid, uint64_t state)
{
	struct thread_list *l = ctx;

	if (l->n < MAX_TASKS && !stk_grow((void **)&l->found, &l->cap, l->n + 1, sizeof(*l->found)))
		l->found[l->n++] = (struct rt_thread){ .tid = ns_tid, .ns_tid = ns_tid, .state = state };
	return false;
}

static void keep_thread(struct stk_runtime_proc *rp, uint32_t host, const struct rt_thread *t)
{
	if (stk_key_index_find(&rp->by_tid, rp->threads, &host) >= 0 ||
	    stk_grow((void **)&rp->threads, &rp->cap_threads, rp->n_threads + 1, sizeof(*rp->threads)))
		return;
	rp->threads[rp->n_threads] = (struct rt_thread){ .tid = host, .ns_tid = t->ns_tid, .state = t->state };
	if (stk_key_index_add(&rp->by_tid, rp->threads, rp->n_threads + 1) == 0)
		rp->n_threads++;
}

/* rp's threads read again from p's memory, by host tid. 0, or -1. */
static int read_threads(struct stk_runtime_proc *rp, const struct stk_process *p)
{
	struct thread_list l = { rp, NULL, 0, 0 };
	struct stk_mem mem = stk_mem_of_process(p->pid);
	char path[96];
	uint32_t host, inner;
	int levels = 0;

	rp->threads_read_ns = stk_now_ns(CLOCK_MONOTONIC);
	if (rp->cls->threads(rp->state, &mem, add_found, &l)) {
		free(l.found);
		return -1;
	}
	rp->n_threads = 0;
	stk_key_index_clear(&rp->by_tid);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)p->pid);
	if (!nspid(path, &host, &inner, &levels) || levels == 1) {
		/* stk's PID namespace: the ids are the host's */
		for (size_t i = 0; i < l.n; i++)
			keep_thread(rp, l.found[i].ns_tid, &l.found[i]);
	} else {
		/* another namespace: each task's own NSpid line pairs its ids */
		DIR *d;
		struct dirent *e;
		int tasks = 0;

		snprintf(path, sizeof(path), "/proc/%d/task", (int)p->pid);
		if ((d = opendir(path))) {
			while ((e = readdir(d)) && tasks++ < MAX_TASKS) {
				char status[128];

				if (e->d_name[0] < '1' || e->d_name[0] > '9')
					continue;
				snprintf(status, sizeof(status), "/proc/%d/task/%.24s/status", (int)p->pid, e->d_name);
				if (!nspid(status, &host, &inner, &levels))
					continue;
				for (size_t i = 0; i < l.n; i++)
					if (l.found[i].ns_tid == inner)
						keep_thread(rp, host, &l.found[i]);
			}
			closedir(d);
		}
	}
	free(l.found);
	return 0;
}

/* One thread looked for among the newest states. */
struct newest {
	uint32_t ns_tid;
	unsigned seen;
	struct rt_thread found;
};

static bool match_newest(void *ctx, uint32_t ns_tid, uint64_t state)
{
	struct newest *n = ctx;

	if (ns_tid == n->ns_tid) {
		n->found = (struct rt_thread){ .ns_tid = ns_tid, .state = state };
		return true;
	}
	return ++n->seen >= NEWEST_LOOKED;
}

/* tid (host) among the newest states, kept when found: a thread made since the list was read. 0: not there. */
static uint64_t newest_state(struct stk_runtime_proc *rp, const struct stk_process *p, uint32_t tid)
{
	struct newest n = { 0 };
	struct stk_mem mem = stk_mem_of_process(p->pid);
	char path[96];
	uint32_t host;
	int levels = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%u/status", (int)p->pid, tid);
	if (!nspid(path, &host, &n.ns_tid, &levels) || host != tid)
		return 0;
	if (rp->cls->threads(rp->state, &mem, match_newest, &n) || !n.found.state)
		return 0;
	keep_thread(rp, tid, &n.found);
	return n.found.state;
}

/*
 * tid's state (host tid): the threads read again when it is not among them
 * (not too often; meanwhile it is looked for among the newest). 0: none.
 */
static uint64_t thread_state(struct stk_runtime_proc *rp, const struct stk_process *p, uint32_t tid)
{
	int64_t at = stk_key_index_find(&rp->by_tid, rp->threads, &tid);

	if (at >= 0)
		return rp->threads[at].state;
	if ((!rp->threads_read_ns || stk_now_ns(CLOCK_MONOTONIC) - rp->threads_read_ns > THREADS_REREAD_NS) &&
	    read_threads(rp, p) == 0) {
		at = stk_key_index_find(&rp->by_tid, rp->threads, &tid);
		return at >= 0 ? rp->threads[at].state : 0;
	}
	return newest_state(rp, p, tid);
}

/* A walk that stopped early, counted under its reason (one past the table's room only in the total). */
static void count_stop(struct stk_runtime_stats *st, const char *why)
{
	size_t i = 0;

	st->stopped++;
	while (i < STK_RT_STOP_REASONS && st->stops[i].why && st->stops[i].why != why && strcmp(st->stops[i].why, why))
		i++;
	if (i == STK_RT_STOP_REASONS)
		return;
	st->stops[i].why = why;
	st->stops[i].n++;
}

/* ---- the user-space walk ---- */

size_t stk_runtime_splice(struct stk_process *p, pid_t tid, uint64_t *chain, uint8_t *how, const uint64_t *sps,
			  size_t n, size_t max, bool whole, uint8_t how_interp)
{
	struct stk_runtime_proc *rp = stk_runtime_of(p);
	uint64_t out[SPLICE_MAX], run[SPLICE_MAX], state, mark = 0;
	uint8_t out_how[SPLICE_MAX];
	struct stk_rt_cursor c = { 0 };
	struct stk_mem mem;
	size_t k = 0, i, found = 0, in_run;
	bool placed;

	if (!rp || !sps || n < 2)
		return n;
	if (!(state = thread_state(rp, p, (uint32_t)tid))) {
		rp->stats.no_thread++;
		return n;
	}
	if (max > SPLICE_MAX)
		max = SPLICE_MAX;
	mem = stk_mem_of_process(p->pid);
	stk_mem_budget(&mem, WALK_BUDGET);
	c.state = state;
	/* the first run, then at each native frame whose stack holds its mark, its frames there and the next run */
	in_run = rp->cls->walk_run(rp->state, &mem, &c, run, max, &mark);
	for (i = 0; i < n && k < max; i++) {
		/* frame i's stack: from its stack pointer to its caller's */
		if (mark && i + 1 < n && mark >= sps[i] && mark < sps[i + 1]) {
			size_t take = in_run < max - k ? in_run : max - k;

			memcpy(out + k, run, take * sizeof(*out));
			memset(out_how + k, how_interp, take);
			k += take;
			found += take / 2;
			in_run = 0;
			mark = 0;
			if (c.frame && !c.stop)
				in_run = rp->cls->walk_run(rp->state, &mem, &c, run, max, &mark);
			continue;
		}
		out[k] = chain[i];
		out_how[k++] = how ? how[i] : 0;
	}
	/* the native walk stopped short of the runs still to place (their marks are above its last frame): they follow it */
	while (!whole && mark && mark >= sps[n - 1] && in_run && k < max) {
		size_t take = in_run < max - k ? in_run : max - k;

		memcpy(out + k, run, take * sizeof(*out));
		memset(out_how + k, how_interp, take);
		k += take;
		found += take / 2;
		mark = 0;
		in_run = 0;
		if (c.frame && !c.stop)
			in_run = rp->cls->walk_run(rp->state, &mem, &c, run, max, &mark);
	}
	placed = !mark;
	rp->stats.walks++;
	rp->stats.frames += found;
	if (c.stop || !placed)
		count_stop(&rp->stats, c.stop ? c.stop : "no native frame held a run's mark");
	memcpy(chain, out, k * sizeof(*chain));
	if (how)
		memcpy(how, out_how, k);
	return k;
}

/* ---- naming ---- */

/* The entry of (code, check), named now when new; NULL when out of memory or past the bound. */
static struct rt_name *named(struct stk_runtime_proc *rp, const struct stk_process *p, uint64_t code, uint32_t check)
{
	struct rt_name key = { .code = code, .check = check };
	int64_t at = stk_key_index_find(&rp->by_code, rp->names, &key);
	char name[STK_RT_NAME_MAX], file[STK_RT_NAME_MAX];
	struct rt_name *e;
	struct stk_mem mem;

	if (at >= 0)
		return &rp->names[at];
	if (!rp->state || rp->n_names >= MAX_NAMES ||
	    stk_grow((void **)&rp->names, &rp->cap_names, rp->n_names + 1, sizeof(*rp->names)))
		return NULL;
	e = &rp->names[rp->n_names];
	*e = key;
	mem = stk_mem_of_process(p->pid);
	if (rp->cls->name_code(rp->state, &mem, code, check, name, file, &e->c, &e->why) == 0) {
		e->c.name = stk_string_pool_intern(rp->strings, name);
		e->c.file = file[0] ? stk_string_pool_intern(rp->strings, file) : NULL;
		if (!e->c.name)
			e->why = "out of memory";
		if (e->c.table && rp->table_bytes + e->c.table_len > MAX_TABLE_BYTES) {
			free(e->c.table);
			e->c.table = NULL;
			e->c.table_len = 0;
		}
		rp->table_bytes += e->c.table_len;
	}
	if (e->why) {
		free(e->c.table);
		e->c = (struct stk_rt_code){ 0 };
		rp->stats.unnamed++;
		rp->stats.last_unnamed = e->why;
	} else {
		rp->stats.named++;
	}
	if (stk_key_index_add(&rp->by_code, rp->names, rp->n_names + 1)) {
		free(e->c.table);
		return NULL;
	}
	rp->n_names++;
	return e;
}

void stk_runtime_unnamed(uint64_t word, struct stk_frame *f)
{
	const char *what = "[interpreted]";

	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (classes[i]->kind == ((word >> STK_RT_KIND_SHIFT) & 0xff))
			what = classes[i]->unnamed;
	memset(f, 0, sizeof(*f));
	f->address = word & STK_RT_ADDR_MASK;
	f->module = what;
	f->symbol = what;
}

void stk_runtime_name(struct stk_process *p, uint64_t word, uint64_t aux, struct stk_frame *f)
{
	struct stk_runtime_proc *rp;
	const struct rt_name *e;
	uint32_t instr = aux ? (uint32_t)(aux >> 32) & 0xffffff : STK_RT_NO_INSTR;

	stk_runtime_unnamed(word, f);
	stk_runtime_of(p);
	rp = p->runtime;
	if (!rp || !rp->cls || ((word >> STK_RT_KIND_SHIFT) & 0xff) != rp->cls->kind)
		return;
	if (!(e = named(rp, p, word & STK_RT_ADDR_MASK, (uint32_t)aux)) || e->why)
		return;
	f->symbol = e->c.name;
	f->file = e->c.file;
	f->line = rp->cls->line(&e->c, instr);
	f->address = rp->cls->instr_address(&e->c, instr);
}

void stk_runtime_name_chain(struct stk_process *p, const uint64_t *chain, size_t n)
{
	struct stk_runtime_proc *rp = stk_runtime_of(p);

	for (size_t i = 0; rp && i < n; i += stk_rt_entry_words(chain[i], i + 1 < n, i + 1 < n ? chain[i + 1] : 0))
		if (stk_rt_is_frame_word(chain[i]) && ((chain[i] >> STK_RT_KIND_SHIFT) & 0xff) == rp->cls->kind)
			named(rp, p, chain[i] & STK_RT_ADDR_MASK,
			      i + 1 < n && stk_rt_is_aux_word(chain[i + 1]) ? (uint32_t)chain[i + 1] : 0);
}

/* ---- the kernel walk's part ---- */

int stk_runtime_kernel_proc(struct stk_process *p, struct stk_rt_proc *out)
{
	struct stk_runtime_proc *rp = stk_runtime_of(p);

	if (!rp || rp->cls->kernel_layout(rp->state, out))
		return -1;
	out->threads_asked = 0;
	return 0;
}

void stk_runtime_kernel_forget(struct stk_process *p, void (*drop)(void *ctx, uint32_t tid), void *ctx)
{
	struct stk_runtime_proc *rp = p->runtime;

	for (size_t i = 0; rp && i < rp->n_placed; i++)
		drop(ctx, rp->placed[i]);
	if (rp)
		rp->n_placed = 0;
}

int stk_runtime_kernel_threads(struct stk_process *p, void (*put)(void *ctx, uint32_t tid, const struct stk_rt_thread *t),
			       void (*drop)(void *ctx, uint32_t tid), void *ctx)
{
	struct stk_runtime_proc *rp = stk_runtime_of(p);
	size_t kept = 0;

	if (!rp) {
		stk_runtime_kernel_forget(p, drop, ctx);
		return 0;
	}
	if (read_threads(rp, p))
		return -1;
	/* the threads gone since (a task that exited: its tid is no longer under /proc/PID/task) */
	for (size_t i = 0; i < rp->n_placed; i++) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/task/%u", (int)p->pid, rp->placed[i]);
		if (stk_key_index_find(&rp->by_tid, rp->threads, &rp->placed[i]) < 0 && access(path, F_OK))
			drop(ctx, rp->placed[i]);
	}
	if (stk_grow((void **)&rp->placed, &rp->cap_placed, rp->n_threads, sizeof(*rp->placed)))
		return -1;
	for (size_t i = 0; i < rp->n_threads; i++) {
		struct stk_rt_thread t = { .state = rp->threads[i].state, .tgid = (uint32_t)p->pid,
					   .ns_tid = rp->threads[i].ns_tid };

		put(ctx, rp->threads[i].tid, &t);
		rp->placed[kept++] = rp->threads[i].tid;
	}
	/* the process's other threads have no interpreter state: said too, so the walk does not ask for them */
	char path[64];
	DIR *d;
	struct dirent *e;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)p->pid);
	if ((d = opendir(path))) {
		while ((e = readdir(d)) && kept < MAX_TASKS) {
			uint32_t tid = (uint32_t)strtoul(e->d_name, NULL, 10);
			struct stk_rt_thread none = { .tgid = (uint32_t)p->pid };

			if (!tid || stk_key_index_find(&rp->by_tid, rp->threads, &tid) >= 0 ||
			    stk_grow((void **)&rp->placed, &rp->cap_placed, kept + 1, sizeof(*rp->placed)))
				continue;
			put(ctx, tid, &none);
			rp->placed[kept++] = tid;
		}
		closedir(d);
	}
	rp->n_placed = kept;
	return 0;
}

void stk_runtime_get_stats(const struct stk_process *p, struct stk_runtime_stats *st)
{
	if (p->runtime)
		*st = p->runtime->stats;
	else
		*st = (struct stk_runtime_stats){ 0 };
}

const char *stk_runtime_versions(void)
{
	return "python 3.11 (its layout from stk's table), 3.13 and 3.14 (from the process's _Py_DebugOffsets)";
}
