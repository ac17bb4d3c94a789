#include "core/probe/user_probe.h"

#include "core/base/untrusted_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sym/elf_symbols.h"
#include "core/base/grow.h"
#include "core/sym/proc_maps.h"

static const char *const lib_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
	"/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib", NULL,
};

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Whether a mapped or found file's name is LIB's: "c" is glibc's or musl's libc. */
static bool names_lib(const char *base, const char *lib)
{
	char want[300];

	if (strcmp(lib, "c") == 0)
		return starts_with(base, "libc.so") || (starts_with(base, "libc-") && strstr(base, ".so")) ||
		       starts_with(base, "ld-musl-") || starts_with(base, "libc.musl-");
	if (strcmp(base, lib) == 0)
		return true;
	snprintf(want, sizeof(want), "lib%s.so", lib);
	if (starts_with(base, want))
		return true;
	snprintf(want, sizeof(want), "lib%s-", lib);
	if (starts_with(base, want) && strstr(base, ".so"))
		return true;
	snprintf(want, sizeof(want), "%s.so", lib);
	return starts_with(base, want);
}

static bool is_elf(const char *path)
{
	unsigned char magic[4];
	int fd = stk_untrusted_open(path, NULL);
	bool ok = fd >= 0 && read(fd, magic, 4) == 4 && memcmp(magic, "\177ELF", 4) == 0;

	if (fd >= 0)
		close(fd);
	return ok;
}

int stk_user_file_find_in(const char *lib, const char *const *dirs, char *path, size_t len)
{
	for (size_t i = 0; dirs[i]; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *e;
		char best[512] = "";

		if (!d)
			continue;
		while ((e = readdir(d))) {
			char full[4096];
			if (!names_lib(e->d_name, lib))
				continue;
			snprintf(full, sizeof(full), "%s/%s", dirs[i], e->d_name);
			/* the shortest ELF name wins: libc.so.6 over libc.so.6.1 (libc.so is a linker script) */
			if (is_elf(full) && (!best[0] || strlen(e->d_name) < strlen(best) ||
					     (strlen(e->d_name) == strlen(best) && strcmp(e->d_name, best) < 0)))
				snprintf(best, sizeof(best), "%s", e->d_name);
		}
		closedir(d);
		if (best[0]) {
			snprintf(path, len, "%s/%s", dirs[i], best);
			return 0;
		}
	}
	return -1;
}

static int find_in_path(const char *exe, char *path, size_t len)
{
	const char *env = getenv("PATH");
	char dirs[4096];

	snprintf(dirs, sizeof(dirs), "%s", env && *env ? env : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
	for (char *save = NULL, *dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		snprintf(path, len, "%s/%s", dir, exe);
		if (access(path, X_OK) == 0 && is_elf(path))
			return 0;
	}
	return -1;
}

/* The process's own mapping of lib; the executable itself for "c" in a static program. */
static int resolve_in_process(const char *lib, pid_t pid, struct stk_user_file *out, char *err, size_t len)
{
	char maps_path[64], line[4400], exe[4096] = "";
	struct stk_map_entry e;
	FILE *f;
	ssize_t n;
	bool found = false;

	snprintf(maps_path, sizeof(maps_path), "/proc/%d/exe", (int)pid);
	n = readlink(maps_path, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	snprintf(maps_path, sizeof(maps_path), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(maps_path, "re"))) {
		snprintf(err, len, "-p %d: cannot read %s: %s", (int)pid, maps_path, strerror(errno));
		return -1;
	}
	while (!found && fgets(line, sizeof(line), f)) {
		if (stk_maps_parse_line(line, &e) || e.path[0] != '/')
			continue;
		if (names_lib(base_name(e.path), lib) || strcmp(e.path, lib) == 0) {
			snprintf(out->display, sizeof(out->display), "%s", e.path);
			found = true;
		}
	}
	fclose(f);
	if (!found && exe[0] && (strcmp(lib, "c") == 0 || strcmp(base_name(exe), lib) == 0)) {
		snprintf(out->display, sizeof(out->display), "%s", exe);
		found = true;
	}
	if (!found) {
		snprintf(err, len, "library '%s' not found in the mappings of process %d", lib, (int)pid);
		return -1;
	}
	snprintf(out->path, sizeof(out->path), "/proc/%d/root%s", (int)pid, out->display);
	return 0;
}

int stk_user_file_resolve(const char *lib, pid_t pid, struct stk_user_file *out, char *err, size_t len)
{
	memset(out, 0, sizeof(*out));
	if (strchr(lib, '/')) {
		if (!is_elf(lib)) {
			snprintf(err, len, "'%s': %s", lib, access(lib, R_OK) ? strerror(errno) : "not an ELF file");
			return -1;
		}
		snprintf(out->display, sizeof(out->display), "%s", lib);
		snprintf(out->path, sizeof(out->path), "%s", lib);
		return 0;
	}
	if (pid > 0)
		return resolve_in_process(lib, pid, out, err, len);
	if (stk_user_file_find_in(lib, lib_dirs, out->display, sizeof(out->display)) &&
	    find_in_path(lib, out->display, sizeof(out->display))) {
		snprintf(err, len, "library '%s' not found (neither lib%s.so in the library directories nor an "
			 "executable in $PATH)", lib, lib);
		return -1;
	}
	snprintf(out->path, sizeof(out->path), "%s", out->display);
	return 0;
}

/* ELF virtual address -> file offset through the PT_LOAD holding it. */
static int vaddr_to_offset(const struct stk_elf_file *f, uint64_t vaddr, uint64_t *offset)
{
	for (size_t i = 0; i < f->n_loads; i++) {
		const struct stk_elf_load *l = &f->loads[i];
		if (vaddr >= l->vaddr && vaddr < l->vaddr + l->filesz) {
			*offset = vaddr - l->vaddr + l->offset;
			return 0;
		}
	}
	return -1;
}

static int cmp_funcs(const void *a, const void *b)
{
	const struct stk_user_func *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return strcmp(x->name, y->name);
}

int stk_user_functions(const char *path, const struct stk_name_match *m, struct stk_user_func_list *out,
		       char *err, size_t len)
{
	struct stk_elf_file f = { 0 };
	int fd = stk_untrusted_open(path, NULL), ret = -1;
	char why[256];

	if (fd < 0) {
		snprintf(err, len, "%s: %s", path, stk_untrusted_strerror(fd));
		return -1;
	}
	elf_version(EV_CURRENT);
	if (stk_elf_file_from_fd_flags(fd, &f, STK_ELF_ALL_NAMES, why, sizeof(why))) {
		snprintf(err, len, "%s: %s", path, why);
		close(fd);
		return -1;
	}
	close(fd);
	for (size_t i = 0; i < f.n_syms; i++) {
		const char *full = f.names + f.syms[i].name;
		char name[512];
		uint64_t off;

		/* "nanosleep" matches nanosleep@@GLIBC_2.2.5 and nanosleep@GLIBC_2.2.5; a pattern
		 * with '@' matches the versioned name itself. */
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(full, "@"), full);
		if (!stk_name_matches(m, strchr(m->pattern, '@') ? full : name) ||
		    vaddr_to_offset(&f, f.syms[i].addr, &off))
			continue;
		if (stk_grow((void **)&out->funcs, &out->cap, out->n + 1, sizeof(*out->funcs)) ||
		    !(out->funcs[out->n].name = strdup(name))) {
			snprintf(err, len, "out of memory");
			goto done;
		}
		out->funcs[out->n++].offset = off;
	}
	/* One probe per address: aliases (malloc, __libc_malloc) are the same code. */
	if (out->n) {
		size_t kept = 0;
		qsort(out->funcs, out->n, sizeof(*out->funcs), cmp_funcs);
		for (size_t i = 1; i < out->n; i++) {
			if (out->funcs[i].offset == out->funcs[kept].offset)
				free(out->funcs[i].name);
			else
				out->funcs[++kept] = out->funcs[i];
		}
		out->n = kept + 1;
	}
	ret = 0;
done:
	stk_elf_file_release(&f);
	return ret;
}

void stk_user_func_list_free(struct stk_user_func_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->funcs[i].name);
	free(l->funcs);
	l->funcs = NULL;
	l->n = l->cap = 0;
}
