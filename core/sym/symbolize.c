/*
 * The symbolizer's state: a process table (pid -> sorted executable
 * mappings, learned when a pid is first seen so exited processes still
 * resolve) and a file cache keyed by (st_dev, st_ino) so every ELF file is
 * parsed once and shared by all processes mapping it.
 */
#include "core/base/grow.h"
#include "core/base/untrusted_file.h"
#include "core/sym/symbolize.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/sym/debuginfo.h"
#include "core/sym/debuginfod.h"
#include "core/sym/dwarf_lines.h"
#include "core/sym/elf_symbols.h"
#include "core/sym/kallsyms.h"
#include "core/sym/perf_map.h"
#include "core/sym/proc_maps.h"
#include "core/sym/sym_demangle.h"
#include "core/unwind/cfi_guard.h"

/* How often one process's maps are re-read when an address falls outside them (dlopen). */
#define MAX_MAPS_REFRESH 8
/* File mappings a process no longer has, kept so addresses taken while it had them still resolve. */
#define MAX_GONE_MAPS 64
/* How often one process's perf map is parsed (it grows as the JIT writes). */
#define MAX_PERF_MAP_LOADS 8
/* Files whose DWARF stays open for source lines and inline frames (one fd each). */
#define MAX_DWARF_FILES 256

enum map_kind { MAP_FILE, MAP_VDSO, MAP_ANON, MAP_SPECIAL };

struct sym_file {
	struct stk_elf_file elf;
	int ok; /* 0: parse failed, kept so the file is not retried */
	Elf *unwind_elf; /* opts.keep_elf: the file itself for CFI, read with pread on unwind_fd */
	int unwind_fd;
	char *vdso_image; /* the vDSO's unwind_elf reads this copy */
	struct stk_cfi_guard cfi_guard; /* of unwind_elf, once cfi_guard_done */
	bool cfi_guard_done;
	char **cfi_names; /* per CFI range: "module+0xSTART", made on first use */
	char *remote_name; /* set: no local debug file; ask debuginfod by build ID when first resolved */
	int dwarf_fd;      /* the file with this one's DWARF (itself or its debug file), while has_dwarf_fd */
	bool has_dwarf_fd, dwarf_tried, dwarf_error_noted;
	struct stk_dwarf_lines *dwarf; /* opened on first use */
};

struct file_key {
	uint64_t dev, ino;
	struct sym_file *file;
};

struct sym_map {
	uint64_t start, end, offset;
	char *path; /* as /proc/PID/maps shows it */
	enum map_kind kind;
	bool exe; /* the process's executable (/proc/PID/exe) */
	bool gone; /* no longer mapped (a library unloaded, a program before its exec): names only */
	struct sym_file *file;
};

struct sym_proc {
	pid_t pid;
	int err; /* -errno when the process could not be learned */
	struct sym_map *maps;
	size_t n_maps;
	unsigned refreshes;
	pid_t ns_pid; /* the pid inside its own namespace: it names the perf map */
	struct stk_perf_map *perf;
	off_t perf_size;
	unsigned perf_loads; /* a map that keeps changing is not re-read forever */
};

struct stk_symbolizer {
	struct stk_symbolizer_opts opts;
	char *kallsyms_path;
	struct stk_kallsyms *ksyms;
	int ksyms_tried;
	char ksyms_why[256];

	struct sym_file **files;
	size_t n_files, cap_files;
	struct file_key *keys; /* sorted by (dev, ino) */
	size_t n_keys, cap_keys;
	struct sym_proc **procs; /* sorted by pid */
	size_t n_procs, cap_procs;

	struct sym_file *vdso;
	int vdso_tried;

	struct stk_debuginfod *debuginfod; /* made on first need */
	int debuginfod_tried;
	unsigned dwarf_fds; /* kept open for source lines, at most MAX_DWARF_FILES */

	struct stk_symbolizer_stats stats;

	/* Past the deadline or when asked to stop, nothing new is opened or parsed. */
	int64_t deadline_ns; /* CLOCK_MONOTONIC; 0: none */
	stk_symbolizer_stop_fn stop_fn;
	void *stop_ctx;
	bool stopped;
};

static void note_failure(struct stk_symbolizer *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->stats.last_failure, sizeof(s->stats.last_failure), fmt, ap);
	va_end(ap);
}

static int64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Checked before each process or file is learned: the deadline and the stop request. */
static bool stopped(struct stk_symbolizer *s)
{
	if (s->stopped)
		return true;
	if (s->deadline_ns && monotonic_ns() >= s->deadline_ns) {
		s->stopped = true;
		note_failure(s, "symbolization stopped at its deadline; the rest stays unresolved");
	} else if (s->stop_fn && s->stop_fn(s->stop_ctx)) {
		s->stopped = true;
		note_failure(s, "symbolization stopped on request; the rest stays unresolved");
	}
	return s->stopped;
}

void stk_symbolizer_set_deadline(struct stk_symbolizer *s, long ms_from_now)
{
	s->deadline_ns = ms_from_now > 0 ? monotonic_ns() + (int64_t)ms_from_now * 1000000LL : 0;
}

void stk_symbolizer_set_stop(struct stk_symbolizer *s, stk_symbolizer_stop_fn fn, void *ctx)
{
	s->stop_fn = fn;
	s->stop_ctx = ctx;
}

bool stk_symbolizer_stopped(const struct stk_symbolizer *s)
{
	return s->stopped;
}

struct stk_symbolizer *stk_symbolizer_new(const struct stk_symbolizer_opts *opts)
{
	struct stk_symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	if (opts)
		s->opts = *opts;
	s->kallsyms_path = strdup(s->opts.kallsyms_path ? s->opts.kallsyms_path : "/proc/kallsyms");
	if (!s->kallsyms_path) {
		free(s);
		return NULL;
	}
	s->opts.kallsyms_path = s->kallsyms_path;
	elf_version(EV_CURRENT);
	return s;
}

static void free_sym_file(struct sym_file *f)
{
	if (!f)
		return;
	if (f->cfi_names)
		for (size_t i = 0; i < f->elf.cfi.n; i++)
			free(f->cfi_names[i]);
	free(f->cfi_names);
	free(f->remote_name);
	if (f->dwarf)
		stk_dwarf_lines_close(f->dwarf); /* closes dwarf_fd */
	else if (f->has_dwarf_fd)
		close(f->dwarf_fd);
	stk_elf_file_release(&f->elf);
	if (f->unwind_elf) {
		elf_end(f->unwind_elf);
		if (!f->vdso_image)
			close(f->unwind_fd);
	}
	free(f->vdso_image);
	stk_cfi_guard_free(&f->cfi_guard);
	free(f);
}

static void free_maps(struct sym_map *maps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(maps[i].path);
	free(maps);
}

void stk_symbolizer_free(struct stk_symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_procs; i++) {
		free_maps(s->procs[i]->maps, s->procs[i]->n_maps);
		stk_perf_map_free(s->procs[i]->perf);
		free(s->procs[i]);
	}
	free(s->procs);
	for (size_t i = 0; i < s->n_files; i++)
		free_sym_file(s->files[i]);
	free(s->files);
	free(s->keys);
	free_sym_file(s->vdso);
	stk_debuginfod_free(s->debuginfod);
	stk_kallsyms_free(s->ksyms);
	free(s->kallsyms_path);
	free(s);
}

/* ---- kernel ---- */

static void load_kallsyms(struct stk_symbolizer *s)
{
	if (s->ksyms_tried)
		return;
	s->ksyms_tried = 1;
	s->ksyms = stk_kallsyms_load(s->kallsyms_path, s->ksyms_why, sizeof(s->ksyms_why));
	if (!s->ksyms)
		note_failure(s, "%s", s->ksyms_why);
	s->stats.kernel_symbols = (unsigned)stk_kallsyms_count(s->ksyms);
}

int stk_symbolizer_kernel_status(struct stk_symbolizer *s, char *why, size_t len)
{
	load_kallsyms(s);
	if (!s->ksyms) {
		snprintf(why, len, "%s", s->ksyms_why);
		return 0;
	}
	if (stk_kallsyms_hidden(s->ksyms)) {
		snprintf(why, len,
			 "%s shows only zero addresses (hidden by kernel.kptr_restrict or "
			 "missing privileges): kernel frames stay unresolved",
			 s->kallsyms_path);
		return 0;
	}
	if (!stk_kallsyms_count(s->ksyms)) {
		snprintf(why, len, "%s has no kernel text symbols", s->kallsyms_path);
		return 0;
	}
	snprintf(why, len, "%zu kernel text symbols from %s", stk_kallsyms_count(s->ksyms),
		 s->kallsyms_path);
	return 1;
}

void stk_symbolize_kernel(struct stk_symbolizer *s, uint64_t addr, struct stk_frame *frame)
{
	const char *name, *module;
	uint64_t off;

	memset(frame, 0, sizeof(*frame));
	frame->address = addr;
	frame->kernel = true;
	load_kallsyms(s);
	if (stk_kallsyms_lookup(s->ksyms, addr, &name, &off, &module) == 0) {
		frame->symbol = name;
		frame->symbol_offset = off;
		frame->module = module;
	}
}

/* ---- file cache ---- */

static int key_cmp(uint64_t dev, uint64_t ino, const struct file_key *k)
{
	if (dev != k->dev)
		return dev < k->dev ? -1 : 1;
	return ino < k->ino ? -1 : ino > k->ino;
}

/* Index where (dev, ino) is or would be inserted; *found set when present. */
static size_t key_find(const struct stk_symbolizer *s, uint64_t dev, uint64_t ino, int *found)
{
	size_t lo = 0, hi = s->n_keys;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = key_cmp(dev, ino, &s->keys[mid]);

		if (c == 0) {
			*found = 1;
			return mid;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	*found = 0;
	return lo;
}

static int key_insert(struct stk_symbolizer *s, size_t at, uint64_t dev, uint64_t ino,
		      struct sym_file *f)
{
	if (stk_grow((void **)&s->keys, &s->cap_keys, s->n_keys + 1, sizeof(*s->keys)))
		return -1;
	memmove(&s->keys[at + 1], &s->keys[at], (s->n_keys - at) * sizeof(*s->keys));
	s->keys[at] = (struct file_key){ dev, ino, f };
	s->n_keys++;
	return 0;
}

/* The same build in another container (another inode): reuse its parse. */
static struct sym_file *file_by_build_id(struct stk_symbolizer *s, const char *build_id)
{
	if (!*build_id)
		return NULL;
	for (size_t i = 0; i < s->n_files; i++)
		if (s->files[i]->ok && strcmp(s->files[i]->elf.build_id, build_id) == 0)
			return s->files[i];
	return NULL;
}

static void strip_deleted(const char *path, char *out, size_t len, int *deleted)
{
	static const char suffix[] = " (deleted)";
	size_t n = strlen(path), sl = sizeof(suffix) - 1;

	*deleted = n > sl && strcmp(path + n - sl, suffix) == 0;
	snprintf(out, len, "%.*s", (int)(*deleted ? n - sl : n), path);
}

/*
 * Opens the file behind a mapping as the process sees it: map_files works
 * for deleted files and other mount namespaces (root only); /proc/PID/root
 * is the fallback, never the bare path (the process may be in a container).
 */
static int open_mapping(struct stk_symbolizer *s, pid_t pid, const struct stk_map_entry *e,
			const char *path, int deleted)
{
	char buf[4200];
	struct stat st;
	int fd;

	if (!s->opts.skip_map_files) {
		snprintf(buf, sizeof(buf), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid,
			 e->start, e->end);
		fd = stk_untrusted_open(buf, NULL);
		if (fd >= 0)
			return fd;
	}
	/* Resolved inside the process's root: its symlinks never reach the host's files. */
	snprintf(buf, sizeof(buf), "/proc/%d/root%s", (int)pid, path);
	fd = stk_untrusted_open(buf, NULL);
	if (fd < 0)
		return fd;
	/* A deleted file's path may now name a different file: only the same inode will do. */
	if (deleted && (fstat(fd, &st) || (uint64_t)st.st_ino != e->inode)) {
		close(fd);
		return -ENOENT;
	}
	return fd;
}

/* Keeps fd (a file with DWARF) for f's source lines: a dup, owned by f. */
static void keep_dwarf_fd(struct stk_symbolizer *s, struct sym_file *f, int fd)
{
	int dup_fd;

	if (f->has_dwarf_fd || s->dwarf_fds >= MAX_DWARF_FILES)
		return;
	dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dup_fd < 0)
		return;
	f->dwarf_fd = dup_fd;
	f->has_dwarf_fd = true;
	s->dwarf_fds++;
}

/* A debug file of f on fd: its symbols replace f's, its DWARF is kept for lines and inlined frames. */
static void take_debug_file(struct stk_symbolizer *s, struct sym_file *f, int fd, const char *name, const char *from)
{
	struct stk_elf_file dbg;
	char why[128];

	if (stk_elf_file_from_fd(fd, &dbg, why, sizeof(why)) == 0) {
		if (dbg.has_symtab)
			stk_elf_file_take_symbols(&f->elf, &dbg);
		if (dbg.has_dwarf)
			keep_dwarf_fd(s, f, fd);
		stk_elf_file_release(&dbg);
	} else {
		note_failure(s, "debug file of %s%s: %s", name, from, why);
	}
}

/* Symbols from the separate debug file when the binary itself has no .symtab. */
static void attach_debuginfo(struct stk_symbolizer *s, pid_t pid, const char *path,
			     struct sym_file *f, const struct stat *st)
{
	char root[64];
	int fd;

	if (f->elf.has_symtab || f->elf.has_dwarf || (!f->elf.build_id[0] && !f->elf.debuglink[0]))
		return;
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	fd = stk_debuginfo_open(root, path, st->st_uid, f->elf.build_id, f->elf.debuglink, f->elf.debuglink_crc,
				(uint64_t)st->st_dev, (uint64_t)st->st_ino);
	if (fd < 0) {
		/* Not here: a debuginfod server may have it, asked once the capture is over. */
		if (s->opts.debuginfod && f->elf.build_id[0] && !f->remote_name) {
			const char *base = strrchr(path, '/');

			f->remote_name = strdup(base ? base + 1 : path);
		}
		return;
	}
	take_debug_file(s, f, fd, path, "");
	close(fd);
}

/*
 * The file for the unwinder on a descriptor of its own (fd is closed next):
 * libelf reads with pread, never mmap, and only the sections asked for (CFI),
 * so a file truncated meanwhile cannot crash stk.
 */
static void keep_elf(struct sym_file *f, int fd)
{
	int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	Elf *elf = own >= 0 ? elf_begin(own, ELF_C_READ, NULL) : NULL;

	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		if (own >= 0)
			close(own);
		return;
	}
	f->unwind_elf = elf;
	f->unwind_fd = own;
}

/* The debug file of f from debuginfod, now (the first time one of its addresses is resolved). */
static void fetch_remote_debuginfo(struct stk_symbolizer *s, struct sym_file *f)
{
	struct stk_debuginfod_stats ds;
	char *name = f->remote_name;
	int fd;

	f->remote_name = NULL;
	if (!s->debuginfod_tried) {
		struct stk_debuginfod_opts o = { .progress = stderr, .verbose = s->opts.verbose };

		s->debuginfod_tried = 1;
		s->debuginfod = stk_debuginfod_new(&o);
	}
	fd = s->debuginfod ? stk_debuginfod_debuginfo(s->debuginfod, f->elf.build_id, name) : -1;
	if (fd >= 0) {
		take_debug_file(s, f, fd, name, " from debuginfod");
		close(fd);
	}
	stk_debuginfod_get_stats(s->debuginfod, &ds);
	s->stats.debuginfod_fetched = ds.fetched;
	s->stats.debuginfod_cached = ds.cache_hits;
	s->stats.debuginfod_failed = ds.failed;
	free(name);
}

static struct sym_file *learn_file(struct stk_symbolizer *s, pid_t pid, const struct stk_map_entry *e)
{
	char path[4096], why[128], build_id[129];
	struct sym_file *f;
	struct stat st;
	size_t at;
	int fd, deleted, found;

	if (stopped(s))
		return NULL;
	strip_deleted(e->path, path, sizeof(path), &deleted);
	fd = open_mapping(s, pid, e, path, deleted);
	if (fd < 0) {
		s->stats.files_failed++;
		note_failure(s, "pid %d: cannot open %s: %s", (int)pid, e->path, stk_untrusted_strerror(fd));
		return NULL;
	}
	if (fstat(fd, &st)) {
		close(fd);
		return NULL;
	}
	at = key_find(s, (uint64_t)st.st_dev, (uint64_t)st.st_ino, &found);
	if (found) {
		close(fd);
		return s->keys[at].file->ok ? s->keys[at].file : NULL;
	}
	f = NULL;
	if (stk_elf_build_id_fd(fd, build_id, sizeof(build_id)) == 0)
		f = file_by_build_id(s, build_id);
	if (!f) {
		if (stk_grow((void **)&s->files, &s->cap_files, s->n_files + 1, sizeof(*s->files)) ||
		    !(f = calloc(1, sizeof(*f)))) {
			close(fd);
			return NULL;
		}
		s->files[s->n_files++] = f;
		if (stk_elf_file_from_fd(fd, &f->elf, why, sizeof(why)) == 0) {
			f->ok = 1;
			if (s->opts.keep_elf)
				keep_elf(f, fd);
			if (f->elf.has_dwarf)
				keep_dwarf_fd(s, f, fd);
			attach_debuginfo(s, pid, path, f, &st);
			s->stats.files_parsed++;
		} else {
			s->stats.files_failed++;
			note_failure(s, "pid %d: %s: %s", (int)pid, e->path, why);
		}
	}
	close(fd);
	key_insert(s, at, (uint64_t)st.st_dev, (uint64_t)st.st_ino, f);
	return f->ok ? f : NULL;
}

/* ---- vDSO: every process on this host maps the same image as we do ---- */

static struct sym_file *vdso_file(struct stk_symbolizer *s)
{
	uintptr_t base;
	struct stk_map_entry e;
	char line[4300], why[128];
	size_t size = 0;
	FILE *maps;

	if (s->vdso_tried)
		return s->vdso && s->vdso->ok ? s->vdso : NULL;
	s->vdso_tried = 1;
	base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	if (!base || !(maps = fopen("/proc/self/maps", "re")))
		return NULL;
	/* The image's size is its mapping's: libelf must not read past it. */
	while (fgets(line, sizeof(line), maps))
		if (stk_maps_parse_line(line, &e) == 0 && e.start == base) {
			size = (size_t)(e.end - e.start);
			break;
		}
	fclose(maps);
	if (!size || !(s->vdso = calloc(1, sizeof(*s->vdso))))
		return NULL;
	if (stk_elf_file_from_memory((const void *)base, size, &s->vdso->elf, why, sizeof(why)) == 0)
		s->vdso->ok = 1;
	else
		note_failure(s, "vdso: %s", why);
	/* its CFI for the unwinders: a copy, so the Elf owns what it reads */
	if (s->vdso->ok && s->opts.keep_elf && (s->vdso->vdso_image = malloc(size))) {
		memcpy(s->vdso->vdso_image, (const void *)base, size);
		s->vdso->unwind_elf = elf_memory(s->vdso->vdso_image, size);
	}
	return s->vdso->ok ? s->vdso : NULL;
}

/* ---- process table ---- */

static size_t proc_find(const struct stk_symbolizer *s, pid_t pid, int *found)
{
	size_t lo = 0, hi = s->n_procs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->procs[mid]->pid == pid) {
			*found = 1;
			return mid;
		}
		if (s->procs[mid]->pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = 0;
	return lo;
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

	if (p->perf_loads >= MAX_PERF_MAP_LOADS || stopped(s))
		return;
	snprintf(path, sizeof(path), "/proc/%d", (int)p->pid);
	if (stat(path, &owner))
		return;
	struct stk_untrusted_rules rules = {
		.no_follow = true, .check_owner = true, .owner = owner.st_uid,
		.as_owner = true, .group = owner.st_gid,
	};
	snprintf(path, sizeof(path), "/proc/%d/root/tmp/perf-%d.map", (int)p->pid, (int)p->ns_pid);
	if ((fd = stk_untrusted_open(path, &rules)) < 0) {
		if (fd != -ENOENT)
			note_failure(s, "pid %d: perf map not read: %s", (int)p->pid, stk_untrusted_strerror(fd));
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

static int map_order(const void *a, const void *b)
{
	const struct sym_map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static bool overlaps_any(const struct sym_map *maps, size_t n, const struct sym_map *m)
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
 * in p->maps, freed by the caller.
 */
static void keep_gone_maps(struct sym_proc *p, struct sym_map **maps, size_t *n, size_t *cap)
{
	size_t fresh = *n, kept = 0;

	for (size_t i = 0; i < p->n_maps; i++)
		kept += p->maps[i].gone;
	for (size_t i = p->n_maps; i-- > 0 && kept < MAX_GONE_MAPS;) {
		struct sym_map *old = &p->maps[i];

		if (old->kind != MAP_FILE || !old->file || old->gone || overlaps_any(*maps, fresh, old) ||
		    stk_grow((void **)maps, cap, *n + 1, sizeof(**maps)))
			continue;
		(*maps)[(*n)++] = *old;
		(*maps)[*n - 1].gone = true;
		old->path = NULL; /* moved */
		kept++;
	}
	/* the gone ones kept before, still not covered */
	for (size_t i = 0; i < p->n_maps; i++) {
		struct sym_map *old = &p->maps[i];

		if (!old->gone || !old->path || overlaps_any(*maps, fresh, old) ||
		    stk_grow((void **)maps, cap, *n + 1, sizeof(**maps)))
			continue;
		(*maps)[(*n)++] = *old;
		old->path = NULL;
	}
	if (*n > fresh)
		qsort(*maps, *n, sizeof(**maps), map_order);
}

/* Reads /proc/PID/maps and learns every executable mapping's file now. */
static int read_maps(struct stk_symbolizer *s, struct sym_proc *p)
{
	char path[64], line[4300], exe[4096];
	struct stk_map_entry *e = malloc(sizeof(*e));
	ssize_t exe_len;
	struct sym_map *maps = NULL;
	size_t n = 0, cap = 0;
	int has_anon = 0, err = 0;
	FILE *f;

	if (!e)
		return -ENOMEM;
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
		struct sym_map *m;

		if (stk_maps_parse_line(line, e) || e->perms[2] != 'x')
			continue;
		if (stk_grow((void **)&maps, &cap, n + 1, sizeof(*maps)) || !(maps[n].path = strdup(e->path))) {
			err = -ENOMEM;
			break;
		}
		m = &maps[n++];
		m->start = e->start;
		m->end = e->end;
		m->offset = e->offset;
		m->file = NULL;
		m->gone = false;
		m->exe = exe[0] && strcmp(e->path, exe) == 0;
		if (!e->path[0]) {
			m->kind = MAP_ANON;
			has_anon = 1;
		} else if (strcmp(e->path, "[vdso]") == 0) {
			m->kind = MAP_VDSO;
		} else if (e->path[0] == '[') {
			m->kind = MAP_SPECIAL;
		} else {
			m->kind = MAP_FILE;
			m->file = learn_file(s, p->pid, e);
		}
	}
	/* An empty maps file read after exit looks like a kernel thread: tell them apart. */
	if (!err && ferror(f))
		err = -EIO;
	fclose(f);
	free(e);
	if (err) {
		free_maps(maps, n);
		return err;
	}
	if (n)
		qsort(maps, n, sizeof(*maps), map_order);
	keep_gone_maps(p, &maps, &n, &cap);
	free_maps(p->maps, p->n_maps);
	p->maps = maps;
	p->n_maps = n;
	if (has_anon)
		load_perf_map(s, p);
	return 0;
}

static struct sym_proc *get_proc(struct stk_symbolizer *s, pid_t pid)
{
	struct sym_proc *p;
	int found, zombie;
	size_t at = proc_find(s, pid, &found);

	if (found)
		return s->procs[at];
	if (stopped(s))
		return NULL;
	if (stk_grow((void **)&s->procs, &s->cap_procs, s->n_procs + 1, sizeof(*s->procs)) ||
	    !(p = calloc(1, sizeof(*p))))
		return NULL;
	p->pid = pid;
	p->ns_pid = read_status(pid, &zombie);
	p->err = read_maps(s, p);
	/* Exited but not reaped: its mappings are already gone. */
	if (!p->err && !p->n_maps && zombie)
		p->err = -ESRCH;
	if (p->err) {
		s->stats.processes_failed++;
		note_failure(s, "pid %d: cannot read its mappings: %s", (int)pid, strerror(-p->err));
	} else {
		s->stats.processes++;
	}
	memmove(&s->procs[at + 1], &s->procs[at], (s->n_procs - at) * sizeof(*s->procs));
	s->procs[at] = p;
	s->n_procs++;
	return p;
}

int stk_symbolizer_add_process(struct stk_symbolizer *s, pid_t pid)
{
	struct sym_proc *p = get_proc(s, pid);

	return p ? p->err : s->stopped ? -ECANCELED : -ENOMEM;
}

int stk_symbolizer_refresh_process(struct stk_symbolizer *s, pid_t pid)
{
	int found;
	size_t at = proc_find(s, pid, &found);
	struct sym_proc *p;

	if (!found)
		return stk_symbolizer_add_process(s, pid);
	p = s->procs[at];
	if (stopped(s))
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

static const struct sym_map *find_map(const struct sym_proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->n_maps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < p->maps[mid].start)
			hi = mid;
		else if (addr >= p->maps[mid].end)
			lo = mid + 1;
		else
			return &p->maps[mid];
	}
	return NULL;
}

static const char *display_name(struct stk_symbolizer *s, struct stk_elf_file *f, size_t i)
{
	const char *raw = f->names + f->syms[i].name;
	char *d;

	if (s->opts.demangle == STK_DEMANGLE_NONE)
		return raw;
	if (!f->display && !(f->display = calloc(f->n_syms, sizeof(*f->display))))
		return raw;
	if (!f->display[i]) {
		d = stk_demangle(raw, s->opts.demangle);
		f->display[i] = d ? d : raw;
	}
	return f->display[i];
}

/*
 * No symbol covers vaddr: name it after its function's start from CFI,
 * "module+0xSTART" (an ELF address, the same in every run and process), so
 * distinct unnamed functions stay distinct.
 */
static void name_from_cfi(struct sym_file *f, const struct sym_map *m, uint64_t vaddr, struct stk_frame *frame)
{
	long i = stk_cfi_ranges_lookup(&f->elf.cfi, vaddr);
	char path[4096], *name;
	const char *base;
	size_t len;
	int deleted;

	if (i < 0)
		return;
	if (!f->cfi_names && !(f->cfi_names = calloc(f->elf.cfi.n, sizeof(*f->cfi_names))))
		return;
	if (!f->cfi_names[i]) {
		strip_deleted(m->path, path, sizeof(path), &deleted);
		base = strrchr(path, '/');
		base = base ? base + 1 : path;
		len = strlen(base) + 24;
		if (!(name = malloc(len)))
			return;
		snprintf(name, len, "%s+0x%" PRIx64, base, f->elf.cfi.ranges[i].start);
		f->cfi_names[i] = name;
	}
	frame->symbol = f->cfi_names[i];
	frame->symbol_offset = vaddr - f->elf.cfi.ranges[i].start;
	frame->synthetic = true;
}

/*
 * Inlined functions and source lines at vaddr from f's DWARF. A return
 * address points past its call: the line asked about is then vaddr - 1's, so
 * a caller's frame shows the call (and the inlined functions around it), not
 * the statement after it.
 */
static void add_source_lines(struct stk_symbolizer *s, struct sym_file *f, uint64_t vaddr, bool return_address,
			     struct stk_frame *frame)
{
	struct stk_src_info info;
	char why[160];

	if (!f->has_dwarf_fd && !f->dwarf)
		return;
	if (!f->dwarf && !f->dwarf_tried) {
		f->dwarf_tried = true;
		f->has_dwarf_fd = false; /* handed over: closed by stk_dwarf_lines_* */
		f->dwarf = stk_dwarf_lines_open(f->dwarf_fd, why, sizeof(why));
		if (!f->dwarf) {
			s->stats.dwarf_failed++;
			note_failure(s, "%s: %s (no source lines or inlined frames from it)", frame->module, why);
			if (s->opts.verbose)
				fprintf(stderr, "stk: symbolizer: %s\n", s->stats.last_failure);
		}
	}
	if (!f->dwarf)
		return;
	if (stk_dwarf_lines_lookup(f->dwarf, return_address && vaddr ? vaddr - 1 : vaddr, &info)) {
		const char *err = stk_dwarf_lines_error(f->dwarf);

		if (err && !f->dwarf_error_noted) {
			f->dwarf_error_noted = true;
			s->stats.dwarf_failed++;
			note_failure(s, "%s: %s (no source lines or inlined frames from it)", frame->module, err);
			if (s->opts.verbose) /* resolution runs after the capture's summary: say it now */
				fprintf(stderr, "stk: symbolizer: %s\n", s->stats.last_failure);
		}
		return;
	}
	if (!s->opts.no_inline) {
		frame->inlined = info.inlined;
		frame->n_inlined = info.n_inlined;
	}
	frame->file = info.file;
	frame->line = info.line;
}

static void resolve_in_file(struct stk_symbolizer *s, struct sym_file *f, const struct sym_map *m,
			    uint64_t addr, bool return_address, struct stk_frame *frame)
{
	uint64_t vaddr;
	long i;

	if (!f)
		return;
	if (f->remote_name)
		fetch_remote_debuginfo(s, f);
	frame->build_id = f->elf.build_id[0] ? f->elf.build_id : NULL;
	/* mapping -> file offset -> ELF vaddr through the PT_LOAD holding that offset. */
	if (stk_elf_offset_to_vaddr(&f->elf, addr - m->start + m->offset, &vaddr))
		return;
	i = stk_elf_lookup(&f->elf, vaddr);
	if (i < 0) {
		name_from_cfi(f, m, vaddr, frame);
		return;
	}
	frame->symbol = display_name(s, &f->elf, (size_t)i);
	frame->symbol_offset = vaddr - f->elf.syms[i].addr;
	add_source_lines(s, f, vaddr, return_address, frame);
}

static void symbolize_user(struct stk_symbolizer *s, pid_t pid, uint64_t addr, bool return_address,
			   struct stk_frame *frame)
{
	struct sym_proc *p;
	const struct sym_map *m;
	const char *name;
	uint64_t off;

	memset(frame, 0, sizeof(*frame));
	frame->address = addr;
	p = get_proc(s, pid);
	if (!p || p->err)
		return;
	m = find_map(p, addr);
	/* Mapped after we learned the process (dlopen, JIT)? Re-read while it lives. */
	if (!m && p->refreshes < MAX_MAPS_REFRESH && !stopped(s)) {
		p->refreshes++;
		if (read_maps(s, p) == 0)
			m = find_map(p, addr);
	}
	if (!m)
		return;
	frame->module = m->path;
	frame->map_start = m->start;
	frame->map_end = m->end;
	frame->map_offset = m->offset;
	frame->main_exe = m->exe;
	switch (m->kind) {
	case MAP_FILE:
		resolve_in_file(s, m->file, m, addr, return_address, frame);
		break;
	case MAP_VDSO:
		resolve_in_file(s, vdso_file(s), m, addr, return_address, frame);
		break;
	case MAP_ANON:
		frame->module = "[anon]";
		if (stk_perf_map_lookup(p->perf, addr, &name, &off)) {
			load_perf_map(s, p); /* the JIT may have written more since */
			if (stk_perf_map_lookup(p->perf, addr, &name, &off))
				break;
		}
		frame->module = "[perf-map]";
		frame->symbol = name;
		frame->symbol_offset = off;
		break;
	case MAP_SPECIAL:
		break;
	}
}

/* f's CFI guard, scanned once per file: every process mapping it shares the verdict. */
static const struct stk_cfi_guard *cfi_guard_of(struct sym_file *f)
{
	if (!f->cfi_guard_done) {
		stk_cfi_guard_scan(f->unwind_elf, &f->cfi_guard);
		f->cfi_guard_done = true;
	}
	return &f->cfi_guard;
}

int stk_symbolizer_each_module(struct stk_symbolizer *s, pid_t pid, stk_user_module_fn fn, void *ctx)
{
	struct sym_proc *p = get_proc(s, pid);

	if (!p || p->err)
		return -1;
	for (size_t i = 0; i < p->n_maps; i++) {
		const struct sym_map *m = &p->maps[i];
		struct stk_user_module um = { m->start, m->end, m->offset, m->path, NULL, NULL };

		if (m->kind != MAP_FILE || m->gone || !m->file || !m->file->unwind_elf)
			continue;
		um.elf = m->file->unwind_elf;
		um.cfi_guard = cfi_guard_of(m->file);
		fn(ctx, &um);
	}
	return 0;
}

int stk_symbolizer_each_exec_mapping(struct stk_symbolizer *s, pid_t pid, stk_exec_mapping_fn fn, void *ctx)
{
	struct sym_proc *p = get_proc(s, pid);

	if (!p || p->err)
		return -1;
	for (size_t i = 0; i < p->n_maps; i++) {
		const struct sym_map *m = &p->maps[i];
		struct stk_exec_mapping em = { m->start, m->end, m->offset, m->path, NULL, NULL, NULL };
		struct sym_file *f = m->kind == MAP_FILE ? m->file : m->kind == MAP_VDSO ? vdso_file(s) : NULL;

		if (m->kind == MAP_SPECIAL || m->gone)
			continue;
		if (f) {
			em.file = f;
			em.elf = f->unwind_elf;
			em.cfi_guard = f->unwind_elf ? cfi_guard_of(f) : NULL;
		}
		fn(ctx, &em);
	}
	return 0;
}

void stk_symbolize_user(struct stk_symbolizer *s, pid_t pid, uint64_t addr, struct stk_frame *frame)
{
	symbolize_user(s, pid, addr, false, frame);
}

void stk_symbolize_user_caller(struct stk_symbolizer *s, pid_t pid, uint64_t addr, struct stk_frame *frame)
{
	symbolize_user(s, pid, addr, true, frame);
}

void stk_symbolizer_get_stats(const struct stk_symbolizer *s, struct stk_symbolizer_stats *st)
{
	*st = s->stats;
}
