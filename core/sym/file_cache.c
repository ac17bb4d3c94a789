/*
 * The file cache: every ELF file a process maps, opened as the process sees
 * it (map_files, else inside its root), parsed once and shared by every
 * process mapping it: found by hash on device and inode (each inode opened
 * once), and on build ID (the same build in another container is another
 * inode), with its debug file, its DWARF for lines, the ELF kept for the
 * unwinders (core/unwind/mapping.h: its CFI guard and its kernel table
 * hang off it too).
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
#include "core/runtime/runtime.h"
#include "core/sym/debuginfo.h"
#include "core/sym/debuginfod.h"
#include "core/sym/dwarf_lines.h"

void sym_file_cache_init(struct sym_file_cache *c)
{
	memset(c, 0, sizeof(*c));
	c->by_inode = (struct stk_key_index){ .key_size = 2 * sizeof(uint64_t), .stride = sizeof(struct sym_inode_key) };
	c->by_build_id = (struct stk_key_index){ .key_size = sizeof(c->build_ids->build_id),
						 .stride = sizeof(struct sym_build_id_key) };
}

/* The entry of the file at (dev, ino) when that inode was opened before; *seen says whether it was. */
static struct sym_file *by_inode(struct sym_file_cache *c, uint64_t dev, uint64_t ino, bool *seen)
{
	struct sym_inode_key key = { dev, ino, NULL };
	int64_t i = stk_key_index_find(&c->by_inode, c->inodes, &key);

	*seen = i >= 0;
	return i >= 0 ? c->inodes[i].file : NULL;
}

static int add_inode(struct sym_file_cache *c, uint64_t dev, uint64_t ino, struct sym_file *f)
{
	if (stk_grow((void **)&c->inodes, &c->cap_inodes, c->n_inodes + 1, sizeof(*c->inodes)))
		return -1;
	c->inodes[c->n_inodes++] = (struct sym_inode_key){ dev, ino, f };
	if (stk_key_index_add(&c->by_inode, c->inodes, c->n_inodes)) {
		c->n_inodes--;
		return -1;
	}
	return 0;
}

/* The same build in another container (another inode): its parse, when one was made. */
static struct sym_file *by_build_id(struct sym_file_cache *c, const char *build_id)
{
	struct sym_build_id_key key;
	int64_t i;

	if (!*build_id)
		return NULL;
	memset(&key, 0, sizeof(key));
	snprintf(key.build_id, sizeof(key.build_id), "%s", build_id);
	i = stk_key_index_find(&c->by_build_id, c->build_ids, &key);
	return i >= 0 ? c->build_ids[i].file : NULL;
}

static void add_build_id(struct sym_file_cache *c, struct sym_file *f)
{
	struct sym_build_id_key *k;

	if (!f->elf.build_id[0] || by_build_id(c, f->elf.build_id) ||
	    stk_grow((void **)&c->build_ids, &c->cap_build_ids, c->n_build_ids + 1, sizeof(*c->build_ids)))
		return;
	k = &c->build_ids[c->n_build_ids++];
	memset(k, 0, sizeof(*k));
	snprintf(k->build_id, sizeof(k->build_id), "%s", f->elf.build_id);
	k->file = f;
	if (stk_key_index_add(&c->by_build_id, c->build_ids, c->n_build_ids))
		c->n_build_ids--; /* not found by build ID: parsed again for another inode */
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

	if (f->has_dwarf_fd || s->files.dwarf_fds >= MAX_DWARF_FILES)
		return;
	dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dup_fd < 0)
		return;
	f->dwarf_fd = dup_fd;
	f->has_dwarf_fd = true;
	s->files.dwarf_fds++;
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
	f->file.elf = elf;
	f->file.fd = own;
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

/* A new entry, in the cache (its identity still to be indexed); NULL when out of memory. */
static struct sym_file *new_entry(struct sym_file_cache *c)
{
	struct sym_file *f;

	if (stk_grow((void **)&c->all, &c->cap_all, c->n_all + 1, sizeof(*c->all)) || !(f = calloc(1, sizeof(*f))))
		return NULL;
	f->file.fd = -1;
	c->all[c->n_all++] = f;
	return f;
}

struct sym_file *sym_learn_file(struct stk_symbolizer *s, pid_t pid, const struct stk_map_entry *e)
{
	struct sym_file_cache *c = &s->files;
	char path[4096], why[128], build_id[129];
	struct sym_file *f;
	struct stat st;
	int fd, deleted;
	bool seen;

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
	f = by_inode(c, (uint64_t)st.st_dev, (uint64_t)st.st_ino, &seen);
	if (seen) {
		close(fd);
		return f->ok ? f : NULL;
	}
	f = NULL;
	if (stk_elf_build_id_fd(fd, build_id, sizeof(build_id)) == 0)
		f = by_build_id(c, build_id);
	if (!f) {
		if (!(f = new_entry(c))) {
			close(fd);
			return NULL;
		}
		if (stk_elf_file_from_fd(fd, &f->elf, why, sizeof(why)) == 0) {
			f->ok = 1;
			/* an interpreter's symbols, for its frames (most files hold none) */
			f->file.runtime = stk_runtime_file_scan(fd);
			if (s->opts.keep_elf)
				keep_elf(f, fd);
			if (f->elf.has_dwarf)
				keep_dwarf_fd(s, f, fd);
			attach_debuginfo(s, pid, path, f, &st);
			add_build_id(c, f);
			s->stats.files_parsed++;
		} else {
			s->stats.files_failed++;
			sym_note_failure(s, "pid %d: %s: %s", (int)pid, e->path, why);
		}
	}
	close(fd);
	add_inode(c, (uint64_t)st.st_dev, (uint64_t)st.st_ino, f); /* out of memory: opened again next time */
	return f->ok ? f : NULL;
}

struct sym_file *sym_vdso_file(struct stk_symbolizer *s)
{
	struct sym_file_cache *c = &s->files;
	uintptr_t base;
	struct stk_map_entry e;
	char line[4300], why[128];
	size_t size = 0;
	FILE *maps;

	if (c->vdso_tried)
		return c->vdso && c->vdso->ok ? c->vdso : NULL;
	c->vdso_tried = 1;
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
	if (!size || !(c->vdso = calloc(1, sizeof(*c->vdso))))
		return NULL;
	c->vdso->file.fd = -1;
	if (stk_elf_file_from_memory((const void *)base, size, &c->vdso->elf, why, sizeof(why)) == 0)
		c->vdso->ok = 1;
	else
		sym_note_failure(s, "vdso: %s", why);
	/* its CFI for the unwinders: a copy, so the Elf owns what it reads */
	if (c->vdso->ok && s->opts.keep_elf && (c->vdso->file.image = malloc(size))) {
		memcpy(c->vdso->file.image, (const void *)base, size);
		c->vdso->file.image_size = size;
		c->vdso->file.elf = elf_memory(c->vdso->file.image, size);
	}
	return c->vdso->ok ? c->vdso : NULL;
}

static void file_free(struct sym_file *f)
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
	stk_runtime_file_free(f->file.runtime);
	stk_file_release(&f->file);
	free(f);
}

void stk_symbolizer_set_table_holder(struct stk_symbolizer *s, const struct stk_table_holder *holder)
{
	s->holder = holder ? *holder : (struct stk_table_holder){ 0 };
}

/* Marks every file a process of the table maps (gone mappings too: their stacks still name them). */
static void mark_mapped(struct stk_symbolizer *s)
{
	for (size_t i = 0; i < s->files.n_all; i++)
		s->files.all[i]->mapped = false;
	for (size_t i = 0; i < s->procs.n; i++) {
		const struct stk_process *p = &s->procs.all[i]->proc;

		for (size_t j = 0; j < p->n_maps; j++)
			if (p->maps[j].kind == STK_MAPPING_FILE && p->maps[j].file)
				sym_file_of(p->maps[j].file)->mapped = true;
	}
}

/* Whether f goes: mapped by no process, and its kernel table given back (or it never had one). */
static bool let_go(struct stk_symbolizer *s, struct sym_file *f)
{
	if (f->mapped)
		return false;
	if (f->file.table && !(s->holder.let_go_file && s->holder.let_go_file(s->holder.ctx, &f->file)))
		return false;
	return !f->file.table;
}

/* The indexes made again over the entries that stayed. */
static void index_again(struct sym_file_cache *c)
{
	stk_key_index_clear(&c->by_inode);
	stk_key_index_clear(&c->by_build_id);
	/* an entry that cannot be indexed is only parsed again when next seen */
	for (size_t i = 0; i < c->n_inodes; i++)
		stk_key_index_add(&c->by_inode, c->inodes, i + 1);
	for (size_t i = 0; i < c->n_build_ids; i++)
		stk_key_index_add(&c->by_build_id, c->build_ids, i + 1);
}

unsigned stk_symbolizer_forget_files(struct stk_symbolizer *s)
{
	struct sym_file_cache *c = &s->files;
	size_t kept = 0, n;
	unsigned gone = 0;

	mark_mapped(s);
	for (size_t i = 0; i < c->n_all; i++)
		c->all[i]->gone = let_go(s, c->all[i]);
	for (size_t i = 0; i < c->n_all; i++)
		gone += c->all[i]->gone;
	if (!gone)
		return 0;
	/* the index entries first (they point at the entries about to be freed) */
	for (n = 0, kept = 0; n < c->n_inodes; n++)
		if (!c->inodes[n].file || !c->inodes[n].file->gone)
			c->inodes[kept++] = c->inodes[n];
	c->n_inodes = kept;
	for (n = 0, kept = 0; n < c->n_build_ids; n++)
		if (!c->build_ids[n].file->gone)
			c->build_ids[kept++] = c->build_ids[n];
	c->n_build_ids = kept;
	index_again(c);
	for (n = 0, kept = 0; n < c->n_all; n++) {
		struct sym_file *f = c->all[n];

		if (!f->gone) {
			c->all[kept++] = f;
			continue;
		}
		if (f->has_dwarf_fd)
			c->dwarf_fds--;
		file_free(f);
	}
	c->n_all = kept;
	/* frames made from them name their symbols */
	sym_frame_cache_free(s);
	s->stats.files_forgotten += gone;
	return gone;
}

void sym_file_cache_free(struct sym_file_cache *c)
{
	for (size_t i = 0; i < c->n_all; i++)
		file_free(c->all[i]);
	free(c->all);
	free(c->inodes);
	free(c->build_ids);
	stk_key_index_free(&c->by_inode);
	stk_key_index_free(&c->by_build_id);
	file_free(c->vdso);
	memset(c, 0, sizeof(*c));
}
