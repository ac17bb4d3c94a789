/*
 * The symbolizer's file cache: every ELF file a process maps, opened as the
 * process sees it (map_files, else inside its root), parsed once and shared
 * by every process mapping it (keyed by device and inode, and by build ID
 * across containers), with its debug file, its DWARF for lines, the ELF kept
 * for the unwinders and its CFI guard.
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
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/base/grow.h"
#include "core/base/untrusted_file.h"
#include "core/sym/debuginfo.h"
#include "core/sym/debuginfod.h"
#include "core/sym/dwarf_lines.h"

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

void sym_strip_deleted(const char *path, char *out, size_t len, int *deleted)
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
		sym_note_failure(s, "debug file of %s%s: %s", name, from, why);
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
void sym_fetch_remote_debuginfo(struct stk_symbolizer *s, struct sym_file *f)
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

struct sym_file *sym_learn_file(struct stk_symbolizer *s, pid_t pid, const struct stk_map_entry *e)
{
	char path[4096], why[128], build_id[129];
	struct sym_file *f;
	struct stat st;
	size_t at;
	int fd, deleted, found;

	if (sym_stopped(s))
		return NULL;
	sym_strip_deleted(e->path, path, sizeof(path), &deleted);
	fd = open_mapping(s, pid, e, path, deleted);
	if (fd < 0) {
		s->stats.files_failed++;
		sym_note_failure(s, "pid %d: cannot open %s: %s", (int)pid, e->path, stk_untrusted_strerror(fd));
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
			sym_note_failure(s, "pid %d: %s: %s", (int)pid, e->path, why);
		}
	}
	close(fd);
	key_insert(s, at, (uint64_t)st.st_dev, (uint64_t)st.st_ino, f);
	return f->ok ? f : NULL;
}

struct sym_file *sym_vdso_file(struct stk_symbolizer *s)
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
		sym_note_failure(s, "vdso: %s", why);
	/* its CFI for the unwinders: a copy, so the Elf owns what it reads */
	if (s->vdso->ok && s->opts.keep_elf && (s->vdso->vdso_image = malloc(size))) {
		memcpy(s->vdso->vdso_image, (const void *)base, size);
		s->vdso->vdso_size = size;
		s->vdso->unwind_elf = elf_memory(s->vdso->vdso_image, size);
	}
	return s->vdso->ok ? s->vdso : NULL;
}

/* f's CFI guard, scanned once per file: every process mapping it shares the verdict. */
const struct stk_cfi_guard *sym_cfi_guard_of(struct sym_file *f)
{
	if (!f->cfi_guard_done) {
		stk_cfi_guard_scan(f->unwind_elf, &f->cfi_guard);
		f->cfi_guard_done = true;
	}
	return &f->cfi_guard;
}

void sym_file_free(struct sym_file *f)
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
