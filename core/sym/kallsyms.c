/*
 * Kernel symbols from /proc/kallsyms: parsed once into one sorted array
 * (16 bytes a symbol) plus a name arena, so ~200k symbols stay a few MB.
 */
#include "core/base/floor.h"
#include "core/base/grow.h"
#include "core/sym/kallsyms.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct ksym {
	uint64_t addr;
	uint32_t name;   /* offset into names */
	uint32_t module; /* 0: vmlinux, else index + 1 into modules */
};

struct stk_kallsyms {
	struct ksym *syms;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
	char **modules;
	size_t n_modules, modules_cap;
	size_t lines;     /* text symbols seen, including zero-address ones */
	int hidden;
};

static uint32_t intern_module(struct stk_kallsyms *k, const char *name, size_t len)
{
	/* Module symbols come grouped, so the last module is almost always the one. */
	for (size_t i = k->n_modules; i-- > 0;)
		if (strlen(k->modules[i]) == len && memcmp(k->modules[i], name, len) == 0)
			return (uint32_t)i + 1;
	if (stk_grow((void **)&k->modules, &k->modules_cap, k->n_modules + 1, sizeof(char *)))
		return 0;
	k->modules[k->n_modules] = strndup(name, len);
	if (!k->modules[k->n_modules])
		return 0;
	return (uint32_t)++k->n_modules;
}

static int by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Same address: keep file order (names are appended in order). */
	return x->name < y->name ? -1 : x->name > y->name;
}

/* One line: "ffffffff81000000 T _stext" or "ffffffffc0a00000 t ext4_foo\t[ext4]". */
static int parse_line(struct stk_kallsyms *k, char *line)
{
	char *p = line, *end, *name, *mod = NULL;
	uint64_t addr;
	char type;
	size_t name_len, mod_len = 0;

	addr = strtoull(p, &end, 16);
	if (end == p || *end != ' ')
		return 0;
	p = end + 1;
	type = *p;
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return 0;
	if (p[1] != ' ')
		return 0;
	name = p + 2;
	name_len = strcspn(name, " \t\n");
	if (!name_len)
		return 0;
	p = name + name_len;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '[') {
		mod = p + 1;
		mod_len = strcspn(mod, "]\n");
	}
	k->lines++;
	if (!addr)
		return 0;
	if (stk_grow((void **)&k->syms, &k->cap, k->n + 1, sizeof(*k->syms)) ||
	    stk_grow((void **)&k->names, &k->names_cap, k->names_len + name_len + 1, 1))
		return -1;
	k->syms[k->n].addr = addr;
	k->syms[k->n].name = (uint32_t)k->names_len;
	k->syms[k->n].module = 0;
	if (mod && mod_len) {
		k->syms[k->n].module = intern_module(k, mod, mod_len);
		if (!k->syms[k->n].module)
			return -1;
	}
	memcpy(k->names + k->names_len, name, name_len);
	k->names[k->names_len + name_len] = '\0';
	k->names_len += name_len + 1;
	k->n++;
	return 0;
}

struct stk_kallsyms *stk_kallsyms_parse(FILE *f)
{
	struct stk_kallsyms *k = calloc(1, sizeof(*k));
	char line[1024];

	if (!k)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		if (parse_line(k, line)) {
			stk_kallsyms_free(k);
			return NULL;
		}
	}
	/* Text symbols present but all at address 0: kptr_restrict hides them. */
	k->hidden = k->lines > 0 && k->n == 0;
	if (k->n)
		qsort(k->syms, k->n, sizeof(*k->syms), by_addr);
	return k;
}

struct stk_kallsyms *stk_kallsyms_load(const char *path, char *why, size_t len)
{
	FILE *f = fopen(path, "re");
	struct stk_kallsyms *k;

	if (!f) {
		snprintf(why, len, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	/* Big reads: kallsyms is ~10 MB of text behind a seq_file. */
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	k = stk_kallsyms_parse(f);
	fclose(f);
	if (!k)
		snprintf(why, len, "cannot parse %s: out of memory", path);
	return k;
}

void stk_kallsyms_free(struct stk_kallsyms *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n_modules; i++)
		free(k->modules[i]);
	free(k->modules);
	free(k->syms);
	free(k->names);
	free(k);
}

size_t stk_kallsyms_count(const struct stk_kallsyms *k)
{
	return k ? k->n : 0;
}

int stk_kallsyms_hidden(const struct stk_kallsyms *k)
{
	return k && k->hidden;
}

int stk_kallsyms_lookup(const struct stk_kallsyms *k, uint64_t addr, const char **name,
			uint64_t *offset, const char **module)
{
	size_t at, lo;

	if (!k)
		return -1;
	/* Last symbol with start <= addr; kallsyms has no sizes. */
	STK_FLOOR(at, k->n, i, k->syms[i].addr <= addr);
	if (!at)
		return -1;
	lo = at - 1;
	/* Among aliases at one address, the first one in file order. */
	while (lo > 0 && k->syms[lo - 1].addr == k->syms[lo].addr)
		lo--;
	*name = k->names + k->syms[lo].name;
	*offset = addr - k->syms[lo].addr;
	*module = k->syms[lo].module ? k->modules[k->syms[lo].module - 1] : NULL;
	return 0;
}
