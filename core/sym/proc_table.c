/*
 * The process table: pid -> sorted executable mappings, read from
 * /proc/PID/maps when a process is first seen (so exited processes still
 * resolve) and again after an exec or a new mapping, keeping the file
 * mappings it no longer has (stacks taken while it had them still resolve);
 * its perf map and jitdump for JITs. The symbolizer, the copy unwinder and the kernel
 * tables all read it (core/unwind/mapping.h); an exited process is
 * compacted to what its stacks name.
 */
#include "core/sym/sym_state.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/base/clock.h"
#include "core/base/floor.h"
#include "core/base/grow.h"
#include "core/base/untrusted_file.h"
#include "core/runtime/runtime.h"
#include "core/unwind/jit_cfi.h"

/* Where pid is (*found) or would go in the table, sorted by pid. */
static size_t proc_find(const struct sym_proc_table *t, pid_t pid, int *found)
{
	size_t at;

	STK_FLOOR(at, t->n, i, t->all[i]->proc.pid < pid);
	*found = at < t->n && t->all[at]->proc.pid == pid;
	return at;
}

/* From /proc/PID/status: the pid inside its own namespace (it names the perf map), zombie state. */
static pid_t read_status(pid_t pid, int *zombie)
{
	char path[64], line[256];
	pid_t ns = pid;
	FILE *f;

	*zombie = 0;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "re")))
		return pid;
	while (fgets(line, sizeof(line), f)) {
		char *p;

		if (strncmp(line, "State:", 6) == 0) {
			*zombie = strchr(line, 'Z') != NULL;
		} else if (strncmp(line, "NSpid:", 6) == 0) {
			/* The last field is the pid in the innermost namespace. */
			p = strrchr(line, '\t');
			if (p)
				ns = (pid_t)strtol(p + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return ns > 0 ? ns : pid;
}

/*
 * /tmp/perf-PID.map inside the process's root, written by its JIT: another
 * user's file. Not a symlink, owned by the process's user (or root), opened
 * with that user's permissions, and read only up to a bound.
 */
static void load_perf_map(struct stk_symbolizer *s, struct sym_proc *p)
{
	char path[128];
	struct stat st, owner;
	int fd;

	if (p->perf_loads >= MAX_PERF_MAP_LOADS || sym_stopped(s))
		return;
	p->perf_tried_ns = stk_now_ns(CLOCK_MONOTONIC);
	snprintf(path, sizeof(path), "/proc/%d", (int)p->proc.pid);
	if (stat(path, &owner))
		return;
	struct stk_untrusted_rules rules = {
		.no_follow = true, .check_owner = true, .owner = owner.st_uid,
		.as_owner = true, .group = owner.st_gid,
	};
	snprintf(path, sizeof(path), "/proc/%d/root/tmp/perf-%d.map", (int)p->proc.pid, (int)p->ns_pid);
	if ((fd = stk_untrusted_open(path, &rules)) < 0) {
		if (fd != -ENOENT)
			sym_note_failure(s, "pid %d: perf map not read: %s", (int)p->proc.pid, stk_untrusted_strerror(fd));
		return;
	}
	if (fstat(fd, &st) == 0 && (!p->perf || st.st_size != p->perf_size)) {
		struct stk_perf_map *m = stk_perf_map_parse_fd(fd, STK_PERF_MAP_MAX_SIZE);

		p->perf_loads++;
		if (m) {
			stk_perf_map_free(p->perf);
			p->perf = m;
			p->perf_size = st.st_size;
		}
	}
	close(fd);
}

/* A JIT's dump as it names it: jit-PID.dump, in any directory. */
static bool is_jitdump_path(const char *path)
{
	const char *base = strrchr(path, '/'), *p;

	base = base ? base + 1 : path;
	if (strncmp(base, "jit-", 4) != 0)
		return false;
	for (p = base + 4; *p >= '0' && *p <= '9'; p++)
		;
	return p > base + 4 && strcmp(p, ".dump") == 0;
}

/*
 * The jitdump mapping's file: map_files is the very file mapped (any mount
 * namespace), else its path inside the process's root, the same inode
 * only. Another user's file: owned by the process's user (or root), a
 * regular file, and read only up to a bound.
 */
static int open_jitdump(struct stk_symbolizer *s, const struct sym_proc *p)
{
	char path[4200];
	struct stat st, owner;
	int fd = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%d", (int)p->proc.pid);
	if (stat(path, &owner))
		return -errno;
	struct stk_untrusted_rules rules = {
		.no_follow = true, .check_owner = true, .owner = owner.st_uid,
		.as_owner = true, .group = owner.st_gid,
	};
	if (!s->opts.skip_map_files) {
		snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)p->proc.pid,
			 p->jit_map_start, p->jit_map_end);
		fd = stk_untrusted_open(path, NULL);
	}
	if (fd < 0) {
		snprintf(path, sizeof(path), "/proc/%d/root%s", (int)p->proc.pid, p->jit_path);
		fd = stk_untrusted_open(path, &rules);
	}
	if (fd < 0)
		return fd;
	int err = stk_untrusted_check_fd(fd, &rules);

	if (!err && (fstat(fd, &st) || (uint64_t)st.st_ino != p->jit_inode))
		err = -ENOENT; /* the path names another file now */
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

static int jit_order(const void *a, const void *b)
{
	const struct stk_jit_code *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void free_jit_code(struct sym_proc *p)
{
	/* the unwinder's session reads these files: it goes first */
	stk_unwinder_slot_free(p->proc.unwinder);
	p->proc.unwinder = NULL;
	for (size_t i = 0; i < p->n_jit_files; i++)
		stk_file_release(&p->jit_files[i]);
	free(p->jit_files);
	free(p->proc.jit);
	p->jit_files = NULL;
	p->n_jit_files = 0;
	p->proc.jit = NULL;
	p->proc.n_jit = 0;
}

/*
 * d's code with CFI as the unwinder's ranges: a file per distinct CFI (at
 * most MAX_JIT_CFI_FILES), ranges sorted and apart (a range overlapping an
 * earlier one, re-JITted code or a lie, is left out). Out of memory: fewer.
 */
static void make_jit_code(struct sym_proc *p, const struct stk_jitdump *d)
{
	size_t n_files = d->n_eh_frames < MAX_JIT_CFI_FILES ? d->n_eh_frames : MAX_JIT_CFI_FILES, n = 0;
	struct stk_jit_code *code;

	if (!d->n_code || !(p->jit_files = calloc(n_files, sizeof(*p->jit_files))))
		return;
	for (size_t i = 0; i < n_files; i++) {
		const struct stk_jit_eh_frame *eh = &d->eh_frames[i];

		p->jit_files[i].fd = -1;
		stk_jit_cfi_file(&p->jit_files[i], d->machine, eh->bytes, eh->size, eh->addr);
	}
	p->n_jit_files = n_files;
	if (!(code = calloc(d->n_code, sizeof(*code))))
		return;
	for (size_t i = 0; i < d->n_code; i++) {
		const struct stk_jit_cfi_code *c = &d->code[i];

		if (c->eh_frame < n_files && p->jit_files[c->eh_frame].elf)
			code[n++] = (struct stk_jit_code){ c->start, c->start + c->size, &p->jit_files[c->eh_frame] };
	}
	qsort(code, n, sizeof(*code), jit_order);
	size_t kept = 0;

	for (size_t i = 0; i < n; i++)
		if (!kept || code[i].start >= code[kept - 1].end)
			code[kept++] = code[i];
	p->proc.jit = code;
	p->proc.n_jit = kept;
}

/*
 * The jitdump p maps, parsed again when it grew (a bounded number of
 * times): its names, and its CFI for the copy unwinder. True when the
 * JIT code with CFI changed (the caller moves the generation).
 */
static bool load_jitdump(struct stk_symbolizer *s, struct sym_proc *p)
{
	struct stat st;
	struct stk_jitdump *d;
	const char *why;
	bool had_code = p->proc.n_jit > 0;
	int fd;

	if (p->jit_loads >= MAX_PERF_MAP_LOADS || sym_stopped(s))
		return false;
	if ((fd = open_jitdump(s, p)) < 0) {
		sym_note_failure(s, "pid %d: jitdump %s not read: %s", (int)p->proc.pid, p->jit_path,
				 stk_untrusted_strerror(fd));
		p->jit_loads++;
		return false;
	}
	if (fstat(fd, &st) || (p->jitdump && st.st_size == p->jit_size)) {
		close(fd);
		return false;
	}
	p->jit_loads++;
	d = stk_jitdump_parse_fd(fd, STK_JITDUMP_MAX_SIZE, &why);
	close(fd);
	if (!d) {
		if (why)
			sym_note_failure(s, "pid %d: jitdump %s not read: %s", (int)p->proc.pid, p->jit_path, why);
		return false;
	}
	free_jit_code(p);
	stk_jitdump_free(p->jitdump);
	p->jitdump = d;
	p->jit_size = st.st_size;
	make_jit_code(p, d);
	return had_code || p->proc.n_jit > 0;
}

static int map_order(const void *a, const void *b)
{
	const struct stk_mapping *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static bool overlaps_any(const struct stk_mapping *maps, size_t n, const struct stk_mapping *m)
{
	for (size_t i = 0; i < n; i++)
		if (maps[i].start < m->end && m->start < maps[i].end)
			return true;
	return false;
}

/*
 * After a reread: the file mappings p had that nothing new covers move into
 * *maps (sorted again), marked gone, up to MAX_GONE_MAPS, so stacks taken
 * before a library moved or the process exec'd still resolve. The rest stay
 * in p's mappings, freed by the caller.
 */
static void keep_gone_maps(struct stk_process *p, struct stk_mapping **maps, size_t *n, size_t *cap)
{
	size_t fresh = *n, kept = 0;

	for (size_t i = 0; i < p->n_maps; i++)
		kept += p->maps[i].gone;
	for (size_t i = p->n_maps; i-- > 0 && kept < MAX_GONE_MAPS;) {
		struct stk_mapping *old = &p->maps[i];

		if (old->kind != STK_MAPPING_FILE || !old->file || old->gone || overlaps_any(*maps, fresh, old) ||
		    stk_grow((void **)maps, cap, *n + 1, sizeof(**maps)))
			continue;
		(*maps)[(*n)++] = *old;
		(*maps)[*n - 1].gone = true;
		old->file = NULL; /* moved */
		kept++;
	}
	/* the gone ones kept before, still not covered */
	for (size_t i = 0; i < p->n_maps; i++) {
		struct stk_mapping *old = &p->maps[i];

		if (!old->gone || !old->file || overlaps_any(*maps, fresh, old) ||
		    stk_grow((void **)maps, cap, *n + 1, sizeof(**maps)))
			continue;
		(*maps)[(*n)++] = *old;
		old->file = NULL;
	}
	if (*n > fresh)
		qsort(*maps, *n, sizeof(**maps), map_order);
}

/* Whether fresh (n, sorted) are the mappings p has now, the gone ones aside. */
static bool same_maps(const struct stk_process *p, const struct stk_mapping *fresh, size_t n)
{
	size_t j = 0;

	for (size_t i = 0; i < p->n_maps; i++) {
		const struct stk_mapping *o = &p->maps[i];

		if (o->gone)
			continue;
		if (j == n || o->start != fresh[j].start || o->end != fresh[j].end || o->offset != fresh[j].offset ||
		    o->path != fresh[j].path || o->kind != fresh[j].kind || o->exe != fresh[j].exe ||
		    o->file != fresh[j].file)
			return false;
		j++;
	}
	return j == n;
}

/* The file of a mapping of pid that /proc/PID/maps shows as e (NULL: none, or unreadable). */
static struct stk_file *file_of(struct stk_symbolizer *s, pid_t pid, const struct stk_map_entry *e,
				enum stk_mapping_kind kind)
{
	struct sym_file *f = kind == STK_MAPPING_FILE ? sym_learn_file(s, pid, e)
			     : kind == STK_MAPPING_VDSO ? sym_vdso_file(s)
							 : NULL;

	return f ? &f->file : NULL;
}

/*
 * Reads /proc/PID/maps and learns every executable mapping's file now; the
 * generation moves only when they changed (a reader's state made from them
 * stays good otherwise).
 */
static int read_maps(struct stk_symbolizer *s, struct sym_proc *sp)
{
	struct stk_process *p = &sp->proc;
	char path[64], line[4300], exe[4096];
	struct stk_map_entry *e = malloc(sizeof(*e));
	ssize_t exe_len;
	struct stk_mapping *maps = NULL;
	size_t n = 0, cap = 0;
	int has_anon = 0, err = 0;
	bool changed, jit_changed = false;
	FILE *f;

	if (!e)
		return -ENOMEM;
	sp->read_ns = stk_now_ns(CLOCK_MONOTONIC); /* tried: a failed read is not tried again at once either */
	/* The executable's mappings carry its path as the process sees it, as exe does. */
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)p->pid);
	exe_len = readlink(path, exe, sizeof(exe) - 1);
	exe[exe_len > 0 ? exe_len : 0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)p->pid);
	if (!(f = fopen(path, "re"))) {
		err = -errno;
		free(e);
		return err;
	}
	while (fgets(line, sizeof(line), f)) {
		struct stk_mapping *m;

		if (stk_maps_parse_line(line, e) || e->perms[2] != 'x')
			continue;
		if (stk_grow((void **)&maps, &cap, n + 1, sizeof(*maps)) ||
		    !(maps[n].path = stk_string_pool_intern(s->strings, e->path))) {
			err = -ENOMEM;
			break;
		}
		m = &maps[n++];
		m->start = e->start;
		m->end = e->end;
		m->offset = e->offset;
		m->gone = false;
		m->exe = exe[0] && strcmp(e->path, exe) == 0;
		if (!e->path[0]) {
			m->kind = STK_MAPPING_ANON;
			has_anon = 1;
		} else if (strcmp(e->path, "[vdso]") == 0) {
			m->kind = STK_MAPPING_VDSO;
		} else if (e->path[0] == '[') {
			m->kind = STK_MAPPING_SPECIAL;
		} else {
			m->kind = STK_MAPPING_FILE;
		}
		/* a JIT's dump is mapped executable so profilers see it: no code, no ELF to learn */
		if (m->kind == STK_MAPPING_FILE && is_jitdump_path(e->path)) {
			sp->jit_mapped = true;
			sp->jit_map_start = e->start;
			sp->jit_map_end = e->end;
			sp->jit_inode = e->inode;
			sp->jit_path = m->path;
			m->file = NULL;
		} else {
			m->file = file_of(s, p->pid, e, m->kind);
		}
	}
	/* An empty maps file read after exit looks like a kernel thread: tell them apart. */
	if (!err && ferror(f))
		err = -EIO;
	fclose(f);
	free(e);
	if (err) {
		free(maps); /* their paths are the pool's */
		return err;
	}
	if (n)
		qsort(maps, n, sizeof(*maps), map_order);
	if (sp->jit_mapped)
		jit_changed = load_jitdump(s, sp);
	changed = !same_maps(p, maps, n) || sp->err || jit_changed;
	keep_gone_maps(p, &maps, &n, &cap);
	free(p->maps);
	p->maps = maps;
	p->n_maps = n;
	sp->exited = false; /* read: it lives (a pid taken again, if it had exited) */
	if (changed)
		p->generation = ++s->procs.generations;
	if (has_anon)
		load_perf_map(s, sp);
	return 0;
}

struct sym_proc *sym_find_proc(const struct stk_symbolizer *s, pid_t pid)
{
	int found;
	size_t at = proc_find(&s->procs, pid, &found);

	return found ? s->procs.all[at] : NULL;
}

struct sym_proc *sym_get_proc(struct stk_symbolizer *s, pid_t pid)
{
	struct sym_proc_table *t = &s->procs;
	struct sym_proc *p;
	int found, zombie;
	size_t at = proc_find(t, pid, &found);

	if (found)
		return t->all[at];
	if (sym_stopped(s))
		return NULL;
	if (stk_grow((void **)&t->all, &t->cap, t->n + 1, sizeof(*t->all)) || !(p = calloc(1, sizeof(*p))))
		return NULL;
	p->proc.pid = pid;
	p->ns_pid = read_status(pid, &zombie);
	p->err = read_maps(s, p);
	/* Exited but not reaped: its mappings are already gone. */
	if (!p->err && !p->proc.n_maps && zombie)
		p->err = -ESRCH;
	if (p->err) {
		s->stats.processes_failed++;
		sym_note_failure(s, "pid %d: cannot read its mappings: %s", (int)pid, strerror(-p->err));
	} else {
		s->stats.processes++;
	}
	memmove(&t->all[at + 1], &t->all[at], (t->n - at) * sizeof(*t->all));
	t->all[at] = p;
	t->n++;
	return p;
}

int stk_symbolizer_add_process(struct stk_symbolizer *s, pid_t pid)
{
	struct sym_proc *p = sym_get_proc(s, pid);

	return p ? p->err : s->stopped ? -ECANCELED : -ENOMEM;
}

int stk_symbolizer_refresh_process(struct stk_symbolizer *s, pid_t pid)
{
	struct sym_proc *p = sym_find_proc(s, pid);

	if (!p)
		return stk_symbolizer_add_process(s, pid);
	if (sym_stopped(s))
		return p->err;
	s->stats.refreshes++;
	/* On failure (the process is gone) the mappings learned before stay. */
	if (read_maps(s, p) == 0 && p->err) {
		p->err = 0;
		s->stats.processes_failed--;
		s->stats.processes++;
	}
	return p->err;
}

struct stk_process *stk_symbolizer_process(struct stk_symbolizer *s, pid_t pid)
{
	struct sym_proc *p = sym_get_proc(s, pid);

	return p && !p->err ? &p->proc : NULL;
}

struct stk_process *stk_symbolizer_find_process(struct stk_symbolizer *s, pid_t pid)
{
	struct sym_proc *p = sym_find_proc(s, pid);

	return p && !p->err ? &p->proc : NULL;
}

struct stk_process *stk_symbolizer_live_process(struct stk_symbolizer *s, pid_t pid)
{
	struct sym_proc *p = sym_get_proc(s, pid);

	return p && !p->err && !p->exited ? &p->proc : NULL;
}

const struct stk_mapping *sym_find_map(const struct sym_proc *sp, uint64_t addr)
{
	const struct stk_process *p = &sp->proc;
	size_t at;

	/* sorted and apart: the last mapping starting at or below addr is the only one that may hold it */
	STK_FLOOR(at, p->n_maps, i, p->maps[i].start <= addr);
	return at && addr < p->maps[at - 1].end ? &p->maps[at - 1] : NULL;
}

const struct stk_mapping *sym_proc_map_at(struct stk_symbolizer *s, struct sym_proc *p, uint64_t addr)
{
	const struct stk_mapping *m = sym_find_map(p, addr);

	/* Mapped after we learned the process (dlopen, JIT)? Re-read while it lives. */
	if (!m && !p->exited && p->refreshes < MAX_MAPS_REFRESH && !sym_stopped(s)) {
		p->refreshes++;
		if (read_maps(s, p) == 0)
			m = sym_find_map(p, addr);
	}
	return m;
}

/*
 * The jitdump first: where a JIT writes both, its perf map names the same
 * code, while only the jitdump's records come with the CFI the walk went
 * through, so the name and the unwinding agree.
 */
static int jit_name(const struct sym_proc *p, uint64_t addr, const char **name, uint64_t *off, const char **module)
{
	if (p->jitdump && stk_perf_map_lookup(p->jitdump->names, addr, name, off) == 0) {
		*module = "[jitdump]";
		return 0;
	}
	if (stk_perf_map_lookup(p->perf, addr, name, off) == 0) {
		*module = "[perf-map]";
		return 0;
	}
	return -1;
}

int sym_proc_perf_name(struct stk_symbolizer *s, struct sym_proc *p, uint64_t addr, const char **name, uint64_t *off,
		       const char **module)
{
	if (jit_name(p, addr, name, off, module) == 0)
		return 0;
	/* the JIT may have written more since; code without a perf map misses every time: not each a look */
	if (p->perf_tried_ns && stk_now_ns(CLOCK_MONOTONIC) - p->perf_tried_ns < PERF_MAP_RETRY_NS)
		return -1;
	load_perf_map(s, p);
	if (p->jit_mapped && load_jitdump(s, p))
		p->proc.generation = ++s->procs.generations;
	return jit_name(p, addr, name, off, module);
}

/* p exited: the unwinder's state goes, the mappings shrink to fit. */
static void compact(struct stk_symbolizer *s, struct sym_proc *p)
{
	struct stk_mapping *fit;

	stk_unwinder_slot_free(p->proc.unwinder);
	p->proc.unwinder = NULL;
	if (p->exited)
		return;
	p->exited = true;
	p->exited_ns = stk_now_ns(CLOCK_MONOTONIC);
	s->stats.processes_exited++;
	if (p->proc.n_maps && (fit = realloc(p->proc.maps, p->proc.n_maps * sizeof(*p->proc.maps))))
		p->proc.maps = fit;
}

void stk_symbolizer_process_exited(struct stk_symbolizer *s, pid_t pid)
{
	struct sym_proc *p = sym_find_proc(s, pid);

	if (p)
		compact(s, p);
}

unsigned stk_symbolizer_sweep(struct stk_symbolizer *s)
{
	unsigned n = 0;

	for (size_t i = 0; i < s->procs.n; i++) {
		struct sym_proc *p = s->procs.all[i];

		/* a late sample may have made an exited process's unwinder again */
		if (p->exited) {
			if (p->proc.unwinder)
				compact(s, p);
		} else if (kill(p->proc.pid, 0) && errno == ESRCH) {
			compact(s, p);
			n++;
		}
	}
	return n;
}

static void free_proc(struct sym_proc *p)
{
	free_jit_code(p); /* the unwinder's session too */
	stk_runtime_proc_free(p->proc.runtime);
	free(p->proc.maps); /* their paths are the pool's */
	stk_perf_map_free(p->perf);
	stk_jitdump_free(p->jitdump);
	free(p);
}

unsigned stk_symbolizer_forget_exited(struct stk_symbolizer *s, int64_t before_ns)
{
	struct sym_proc_table *t = &s->procs;
	size_t kept = 0;
	unsigned n = 0;

	for (size_t i = 0; i < t->n; i++) {
		struct sym_proc *p = t->all[i];

		/* the kernel's tables point at a loaded entry: they go first (a lost exit left them) */
		if (p->exited && p->exited_ns <= before_ns && p->proc.tables && s->holder.let_go_process)
			s->holder.let_go_process(s->holder.ctx, &p->proc);
		if (p->exited && p->exited_ns <= before_ns && !p->proc.tables) {
			free_proc(p);
			n++;
		} else {
			t->all[kept++] = p; /* still sorted by pid */
		}
	}
	t->n = kept;
	s->stats.processes_forgotten += n;
	return n;
}

void sym_proc_table_free(struct sym_proc_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free_proc(t->all[i]);
	free(t->all);
	memset(t, 0, sizeof(*t));
}
