/* Source lines and inline chains from DWARF: see dwarf_lines.h. */
#include "core/sym/dwarf_lines.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/grow.h"
#include "core/base/key_index.h"
#include "core/sym/sym_demangle.h"

/* Deeper inline nesting than this is cut (the outer frames keep their place). */
#define MAX_INLINE_DEPTH 64

struct memo {
	uint64_t vaddr;
	int found;
	struct stk_src_info info;
};

struct stk_dwarf_lines {
	int fd;
	Elf *elf;
	Dwarf *dw;
	struct memo *memo; /* in the order looked up */
	size_t n_memo, cap_memo;
	struct stk_key_index memo_index; /* over memo, by vaddr */
	char **strings; /* every string handed out, freed at close */
	size_t n_strings, cap_strings;
	char error[128]; /* the first error libdw reported for a lookup, "" when none */
};

struct stk_dwarf_lines *stk_dwarf_lines_open(int fd, char *why, size_t len)
{
	struct stk_dwarf_lines *d = calloc(1, sizeof(*d));
	struct stat st;

	if (!d) {
		snprintf(why, len, "out of memory");
		close(fd);
		return NULL;
	}
	d->fd = fd;
	d->memo_index = (struct stk_key_index){ .key_size = sizeof(uint64_t), .stride = sizeof(struct memo) };
	/* Mapped only when no other user can truncate the file under us (a fault, not an
	 * error): root's and not writable by others, like /usr/lib/debug; else read. */
	d->elf = elf_begin(fd, fstat(fd, &st) == 0 && st.st_uid == 0 && !(st.st_mode & 022) ? ELF_C_READ_MMAP
											     : ELF_C_READ,
			   NULL);
	if (!d->elf || elf_kind(d->elf) != ELF_K_ELF) {
		snprintf(why, len, "not an ELF file: %s", elf_errmsg(-1));
		stk_dwarf_lines_close(d);
		return NULL;
	}
	d->dw = dwarf_begin_elf(d->elf, DWARF_C_READ, NULL);
	if (!d->dw) {
		snprintf(why, len, "DWARF rejected by libdw: %s", dwarf_errmsg(-1));
		stk_dwarf_lines_close(d);
		return NULL;
	}
	return d;
}

const char *stk_dwarf_lines_error(const struct stk_dwarf_lines *d)
{
	return d->error[0] ? d->error : NULL;
}

void stk_dwarf_lines_close(struct stk_dwarf_lines *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n_memo; i++)
		free((void *)(uintptr_t)d->memo[i].info.inlined);
	free(d->memo);
	stk_key_index_free(&d->memo_index);
	for (size_t i = 0; i < d->n_strings; i++)
		free(d->strings[i]);
	free(d->strings);
	if (d->dw)
		dwarf_end(d->dw);
	if (d->elf)
		elf_end(d->elf);
	close(d->fd);
	free(d);
}

/* A copy owned by d (NULL stays NULL; NULL on allocation failure too). */
static const char *keep(struct stk_dwarf_lines *d, char *owned)
{
	if (!owned)
		return NULL;
	if (stk_grow((void **)&d->strings, &d->cap_strings, d->n_strings + 1, sizeof(*d->strings))) {
		free(owned);
		return NULL;
	}
	d->strings[d->n_strings++] = owned;
	return owned;
}

static const char *keep_copy(struct stk_dwarf_lines *d, const char *s)
{
	return s ? keep(d, strdup(s)) : NULL;
}

/* A function's name: its linkage name demangled (C++), else DW_AT_name, through abstract origins. */
static const char *function_name(struct stk_dwarf_lines *d, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *linkage = NULL, *name;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
		linkage = dwarf_formstring(&attr);
	if (linkage) {
		char *dem = stk_demangle(linkage, STK_DEMANGLE_FULL);

		if (dem)
			return keep(d, dem);
	}
	name = dwarf_attr_integrate(die, DW_AT_name, &attr) ? dwarf_formstring(&attr) : NULL;
	return keep_copy(d, name ? name : linkage);
}

/* The call site of an inlined subroutine: DW_AT_call_file (an index into the CU's files) and line. */
static void call_site(Dwarf_Die *inl, Dwarf_Files *files, size_t n_files, const char **file, uint32_t *line)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;

	*file = NULL;
	*line = 0;
	if (files && dwarf_attr(inl, DW_AT_call_file, &attr) && dwarf_formudata(&attr, &v) == 0 && v < n_files)
		*file = dwarf_filesrc(files, v, NULL, NULL);
	if (dwarf_attr(inl, DW_AT_call_line, &attr) && dwarf_formudata(&attr, &v) == 0 && v <= UINT32_MAX)
		*line = (uint32_t)v;
}

static int compute(struct stk_dwarf_lines *d, uint64_t vaddr, struct stk_src_info *out)
{
	struct stk_inline_frame chain[MAX_INLINE_DEPTH];
	Dwarf_Aranges *aranges;
	Dwarf_Arange *arange;
	Dwarf_Off cu_off;
	size_t n_aranges;
	Dwarf_Die cudie, *scopes = NULL;
	Dwarf_Files *files = NULL;
	Dwarf_Line *line;
	size_t n_files = 0, n = 0;
	const char *file = NULL;
	int lineno = 0, n_scopes;

	memset(out, 0, sizeof(*out));
	/* dwarf_addrdie's steps, so that an address no unit covers (code built without -g,
	 * a static libc) is told apart from DWARF libdw cannot read */
	if (dwarf_getaranges(d->dw, &aranges, &n_aranges) != 0)
		goto rejected;
	if (!(arange = dwarf_getarange_addr(aranges, vaddr)))
		return -1;
	if (dwarf_getarangeinfo(arange, NULL, NULL, &cu_off) != 0 || !dwarf_offdie(d->dw, cu_off, &cudie))
		goto rejected;
	if ((line = dwarf_getsrc_die(&cudie, vaddr))) {
		file = dwarf_linesrc(line, NULL, NULL);
		dwarf_lineno(line, &lineno);
	}
	if (dwarf_getsrcfiles(&cudie, &files, &n_files))
		files = NULL;
	n_scopes = dwarf_getscopes(&cudie, vaddr, &scopes);
	/* dwarf_getscopes leaves the concrete tree at the first inlined subroutine (for its
	 * abstract definition's scopes): the chain of functions it was inlined into comes
	 * from the scopes that contain that DIE */
	for (int i = 0; i < n_scopes; i++) {
		int tag = dwarf_tag(&scopes[i]);
		Dwarf_Die *outer = NULL;

		if (tag == DW_TAG_subprogram)
			break;
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		Dwarf_Die inl = scopes[i];
		free(scopes);
		scopes = NULL;
		n_scopes = dwarf_getscopes_die(&inl, &outer);
		scopes = outer;
		break;
	}
	/* innermost scope first: each inlined subroutine's line is where we are in it, and
	 * its call site is the line in the function around it */
	for (int i = 0; i < n_scopes; i++) {
		int tag = dwarf_tag(&scopes[i]);
		uint32_t call_line;
		const char *call_file;

		if (tag == DW_TAG_subprogram)
			break;
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		call_site(&scopes[i], files, n_files, &call_file, &call_line);
		if (n < MAX_INLINE_DEPTH) {
			chain[n].symbol = function_name(d, &scopes[i]);
			chain[n].file = keep_copy(d, file);
			chain[n].line = lineno > 0 ? (uint32_t)lineno : 0;
			if (chain[n].symbol)
				n++;
		}
		file = call_file;
		lineno = (int)call_line;
	}
	free(scopes);
	if (n) {
		struct stk_inline_frame *v = malloc(n * sizeof(*v));

		if (v) {
			memcpy(v, chain, n * sizeof(*v));
			out->inlined = v;
			out->n_inlined = n;
		}
	}
	out->file = keep_copy(d, file);
	out->line = lineno > 0 ? (uint32_t)lineno : 0;
	return 0;
rejected:
	if (!d->error[0])
		snprintf(d->error, sizeof(d->error), "DWARF rejected by libdw: %s", dwarf_errmsg(-1));
	return -1;
}

int stk_dwarf_lines_lookup(struct stk_dwarf_lines *d, uint64_t vaddr, struct stk_src_info *out)
{
	int64_t known = stk_key_index_find(&d->memo_index, d->memo, &vaddr);
	int ret;

	if (known >= 0) {
		*out = d->memo[known].info;
		return d->memo[known].found == 1 ? 0 : -1;
	}
	if (stk_grow((void **)&d->memo, &d->cap_memo, d->n_memo + 1, sizeof(*d->memo)))
		return -1; /* out of memory: the frame keeps its symbol, without lines */
	ret = compute(d, vaddr, out);
	/* 2: looked up, nothing there; kept (its strings owned here) even when the index cannot take it */
	d->memo[d->n_memo] = (struct memo){ .vaddr = vaddr, .found = ret == 0 ? 1 : 2, .info = *out };
	stk_key_index_add(&d->memo_index, d->memo, ++d->n_memo);
	return ret;
}
