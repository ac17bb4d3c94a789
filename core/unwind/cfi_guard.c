/*
 * The CFI guard (cfi_guard.h). It reads entries as libdw does, in the
 * sections libdw would use (cfi_sections.c):
 * - One after another from offset 0 (dwarf_next_cfi), skipping the ones it
 *   rejects as libdw's own search does. An FDE's address range and the
 *   start of its instructions are read as libdw's intern_fde reads them,
 *   its CIE's augmentation as intern_new_cie does.
 * - Where libdw could reach an entry the walk does not see (a CIE pointer
 *   or a search-table offset into the middle of another entry), the whole
 *   file is refused: compilers never write such CFI.
 */
#include "core/unwind/cfi_guard.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/floor.h"
#include "core/base/grow.h"
#include "core/unwind/cfi_encoded.h"
#include "core/unwind/cfi_program.h"
#include "core/unwind/cfi_sections.h"

#define STR_(x) #x
#define STR(x) STR_(x)

static const char reg_x86_64[] = "CFI refused: a register number above " STR(STK_CFI_MAX_REGISTER_X86_64)
				 ", x86_64's largest DWARF register";
static const char reg_aarch64[] = "CFI refused: a register number above " STR(STK_CFI_MAX_REGISTER_AARCH64)
				  ", aarch64's largest DWARF register";
static const char other_machine[] = "CFI refused: an ELF machine other than x86_64 and aarch64";
static const char too_many[] = "CFI refused: more than " STR(STK_CFI_MAX_ENTRIES) " entries in one CFI section";
static const char odd_cie[] = "CFI refused: an FDE's CIE pointer leads outside its section's entries";
static const char odd_augmentation[] = "CFI refused: a CIE whose augmentation stk cannot follow";
static const char odd_range[] = "CFI refused: an FDE whose address range stk cannot read";
static const char odd_table[] = "CFI refused: .eh_frame_hdr names an FDE that is not one of .eh_frame's entries";
static const char no_memory[] = "CFI refused: out of memory while checking it";

/* A CIE as libdw interns it, and whether libdw may run its initial instructions. */
struct cie_info {
	uint64_t offset;
	const char *reason;
	uint64_t fde_aug_size; /* without 'z': bytes of augmentation data before an FDE's instructions */
	uint8_t fde_encoding;
	bool sized;            /* 'z': an FDE's augmentation data is preceded by its length */
	bool understood;       /* false: stk cannot tell where its FDEs' fields lie */
};

struct scan {
	struct stk_cfi_guard *g;
	const unsigned char *ident;
	uint64_t max_register;
	const char *register_reason;
	size_t cap_refused, cap_ranges;
	bool oom;
};

/* One section's walk. */
struct section_scan {
	struct stk_cfi_section sec;
	Elf_Data *data;
	struct cie_info *cies; /* by offset (the walk's order) */
	size_t n_cies, cap_cies;
	uint64_t *fdes;        /* offsets of the walk's FDEs, for the search table; NULL: not kept */
	size_t n_fdes, cap_fdes;
	bool keep_fde_offsets;
};

static void refuse_all(struct scan *s, const char *why)
{
	if (!s->g->all)
		s->g->all = why;
}

static void add_refused(struct scan *s, uint64_t start, uint64_t end, const char *why)
{
	struct stk_cfi_guard *g = s->g;

	g->fdes_refused++;
	if (stk_grow((void **)&g->refused, &s->cap_refused, g->n_refused + 1, sizeof(*g->refused))) {
		s->oom = true;
		return;
	}
	g->refused[g->n_refused++] = (struct stk_cfi_guard_range){ start, end, why };
}

static void note_stats(struct stk_cfi_guard *g, const struct stk_cfi_program_stats *st)
{
	if (st->insns > g->max_insns)
		g->max_insns = st->insns;
	if (st->remembers > g->max_remembers)
		g->max_remembers = st->remembers;
	if (st->max_depth > g->max_depth)
		g->max_depth = st->max_depth;
	if (st->max_expr > g->max_expr)
		g->max_expr = st->max_expr;
	if (st->max_register > g->max_register)
		g->max_register = st->max_register;
}

static const char *check_program(struct scan *s, const struct stk_cfi_section *sec, uint8_t fde_encoding,
				 const uint8_t *p, const uint8_t *end)
{
	struct stk_cfi_program prog = { sec, fde_encoding, s->max_register, s->register_reason };
	struct stk_cfi_program_stats st;
	const char *why;

	if (p >= end)
		return NULL;
	why = stk_cfi_program_check(&prog, p, end, &st);
	note_stats(s->g, &st);
	return why;
}

/* Bytes of a LEB128 number at p, below end; 0 when it does not end there. */
static size_t leb_length(const uint8_t *p, const uint8_t *end)
{
	for (const uint8_t *q = p; q < end; q++)
		if (!(*q & 0x80))
			return (size_t)(q + 1 - p);
	return 0;
}

/*
 * The CIE's FDE encoding and augmentation layout, as libdw's intern_new_cie
 * reads them (even the letters of an augmentation without 'z', whose bytes
 * are the initial instructions). Reading past the entry: not understood.
 */
static void parse_augmentation(const struct stk_cfi_section *sec, const Dwarf_CIE *c, struct cie_info *ci)
{
	const uint8_t *d = c->augmentation_data, *end = c->initial_instructions_end;

	ci->fde_encoding = DW_EH_PE_absptr;
	ci->sized = false;
	ci->fde_aug_size = 0;
	ci->understood = false;
	for (const char *a = c->augmentation; *a; a++) {
		uint8_t enc;
		size_t n;

		if (*a == 'z') {
			ci->sized = true;
			continue;
		}
		if (*a == 'S')
			continue;
		if (*a != 'L' && *a != 'R' && *a != 'P') {
			if (ci->sized)
				continue;
			break; /* libdw stops reading the augmentation here */
		}
		if (d >= end)
			return;
		enc = *d++;
		if (*a == 'L') {
			if (!ci->sized)
				ci->fde_aug_size += stk_cfi_encoded_size(sec, enc);
		} else if (*a == 'R') {
			ci->fde_encoding = enc;
		} else {
			/* the personality pointer: skipped by its size */
			n = enc != DW_EH_PE_omit && (enc & 0x07) == DW_EH_PE_uleb128 ? leb_length(d, end)
									     : stk_cfi_encoded_size(sec, enc);
			if ((enc != DW_EH_PE_omit && (enc & 0x07) == DW_EH_PE_uleb128 && !n) || n > (size_t)(end - d))
				return;
			d += n;
		}
	}
	ci->understood = true;
	if ((ci->fde_encoding & 0x0f) == DW_EH_PE_absptr)
		ci->fde_encoding |= sec->address_size == 8 ? DW_EH_PE_udata8 : DW_EH_PE_udata4;
}

static void add_cie(struct scan *s, struct section_scan *ss, uint64_t offset, const Dwarf_CIE *c)
{
	struct cie_info *ci;

	if (stk_grow((void **)&ss->cies, &ss->cap_cies, ss->n_cies + 1, sizeof(*ss->cies))) {
		s->oom = true;
		return;
	}
	ci = &ss->cies[ss->n_cies++];
	ci->offset = offset;
	parse_augmentation(&ss->sec, c, ci);
	ci->reason = c->return_address_register > s->max_register
			     ? s->register_reason
			     : check_program(s, &ss->sec, ci->fde_encoding, c->initial_instructions,
					     c->initial_instructions_end);
	s->g->cies++;
}

static const struct cie_info *find_cie(const struct section_scan *ss, uint64_t offset)
{
	size_t at;

	STK_FLOOR(at, ss->n_cies, i, ss->cies[i].offset <= offset);
	return at && ss->cies[at - 1].offset == offset ? &ss->cies[at - 1] : NULL;
}

/* An FDE as libdw's intern_fde reads it: its range, then its instructions. */
static void check_fde(struct scan *s, struct section_scan *ss, uint64_t offset, const Dwarf_FDE *f)
{
	const struct stk_cfi_section *sec = &ss->sec;
	const uint8_t *p = f->start, *end = f->end, *sec_end = sec->data + sec->size;
	const struct cie_info *ci = find_cie(ss, f->CIE_pointer);
	uint64_t start, range, len;
	const char *why;

	s->g->fdes++;
	if (ss->keep_fde_offsets) {
		if (stk_grow((void **)&ss->fdes, &ss->cap_fdes, ss->n_fdes + 1, sizeof(*ss->fdes))) {
			s->oom = true;
			return;
		}
		ss->fdes[ss->n_fdes++] = offset;
	}
	if (!ci) {
		/* libdw reads a CIE wherever the pointer leads (inside another entry, say): the walk never saw it. */
		refuse_all(s, odd_cie);
		return;
	}
	if (!ci->understood) {
		refuse_all(s, odd_augmentation);
		return;
	}
	if (!stk_cfi_read_encoded(sec, ci->fde_encoding, &p, sec_end, &start) ||
	    !stk_cfi_read_encoded(sec, ci->fde_encoding & 0x0f, &p, sec_end, &range)) {
		refuse_all(s, odd_range);
		return;
	}
	if (start >= start + range)
		return; /* empty (or wrapping): libdw never uses it */
	if (stk_grow((void **)&s->g->ranges, &s->cap_ranges, s->g->n_ranges + 1, sizeof(*s->g->ranges))) {
		s->oom = true;
		return;
	}
	s->g->ranges[s->g->n_ranges++] = (struct stk_cfi_range){ start, range };
	why = ci->reason;
	if (ci->sized) {
		if (!stk_cfi_read_uleb(&p, end, &len))
			why = why ? why : stk_cfi_past_end;
		else if (len > (uint64_t)(end - p))
			return; /* libdw rejects the FDE */
		else
			p += len;
	} else {
		p = (uint64_t)(end - p) > ci->fde_aug_size ? p + ci->fde_aug_size : end;
	}
	if (!why)
		why = check_program(s, sec, ci->fde_encoding, p, end);
	if (why)
		add_refused(s, start, start + range, why);
}

/* Every entry of the section from offset 0, as libdw's own search walks them: CIEs, or FDEs. */
static void walk(struct scan *s, struct section_scan *ss, bool fdes)
{
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry e;
	size_t n = 0;

	while (!s->oom && !s->g->all) {
		int r;

		next = off;
		r = dwarf_next_cfi(s->ident, ss->data, ss->sec.eh_frame, off, &next, &e);
		if (r > 0 || next == off || next == (Dwarf_Off)-1 || next < off)
			break;
		if (r == 0) {
			if (++n > STK_CFI_MAX_ENTRIES) {
				refuse_all(s, too_many);
				break;
			}
			if (dwarf_cfi_cie_p(&e)) {
				if (!fdes)
					add_cie(s, ss, off, &e.cie);
			} else if (fdes) {
				check_fde(s, ss, off, &e.fde);
			}
		}
		off = next;
	}
}

static int offset_order(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Every FDE the search table leads libdw to must be one the walk checked. */
static void check_search_table(struct scan *s, const struct section_scan *ss, const struct stk_cfi_source *src)
{
	const uint8_t *p = src->table.data, *end = src->table.data + src->table.size;

	for (size_t i = 0; i < src->n; i++) {
		uint64_t start, fde, off;

		if (!stk_cfi_read_encoded(&src->table, src->table_encoding, &p, end, &start) ||
		    !stk_cfi_read_encoded(&src->table, src->table_encoding, &p, end, &fde))
			return; /* libdw's binary search stops at the same place */
		off = fde - ss->sec.frame_vaddr;
		if (!bsearch(&off, ss->fdes, ss->n_fdes, sizeof(*ss->fdes), offset_order)) {
			refuse_all(s, odd_table);
			return;
		}
	}
}

/* One CFI section: its CIEs, then its FDEs, then the search table that leads into it. */
static bool scan_source(void *ctx, const struct stk_cfi_source *src)
{
	struct scan *s = ctx;
	struct section_scan ss = { .sec = src->sec, .data = src->data, .keep_fde_offsets = src->n > 0 };

	walk(s, &ss, false);
	walk(s, &ss, true);
	if (ss.keep_fde_offsets && !s->oom && !s->g->all)
		check_search_table(s, &ss, src);
	free(ss.cies);
	free(ss.fdes);
	return !s->oom && !s->g->all;
}

static int range_order(const void *a, const void *b)
{
	const struct stk_cfi_guard_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Sorted and merged into disjoint ranges (a hostile file may overlap them). */
static void merge_refused(struct stk_cfi_guard *g)
{
	size_t kept = 0;

	if (!g->n_refused)
		return;
	qsort(g->refused, g->n_refused, sizeof(*g->refused), range_order);
	for (size_t i = 1; i < g->n_refused; i++) {
		struct stk_cfi_guard_range *last = &g->refused[kept];

		if (g->refused[i].start < last->end) {
			if (g->refused[i].end > last->end)
				last->end = g->refused[i].end;
		} else {
			g->refused[++kept] = g->refused[i];
		}
	}
	g->n_refused = kept + 1;
}

static int fde_order(const void *a, const void *b)
{
	const struct stk_cfi_range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->size < y->size ? 1 : x->size > y->size ? -1 : 0;
}

/* Sorted, one per start: .eh_frame and .debug_frame often describe a function twice. */
static void sort_ranges(struct stk_cfi_guard *g)
{
	size_t kept = 0;

	if (g->n_ranges)
		qsort(g->ranges, g->n_ranges, sizeof(*g->ranges), fde_order);
	for (size_t i = 0; i < g->n_ranges; i++)
		if (!kept || g->ranges[kept - 1].start != g->ranges[i].start)
			g->ranges[kept++] = g->ranges[i];
	g->n_ranges = kept;
}

int stk_cfi_guard_scan(Elf *e, struct stk_cfi_guard *out)
{
	struct scan s = { .g = out };
	const char *why;
	GElf_Ehdr eh;

	memset(out, 0, sizeof(*out));
	if (!gelf_getehdr(e, &eh) || !(s.ident = (const unsigned char *)elf_getident(e, NULL))) {
		out->all = other_machine;
		return 0;
	}
	if (eh.e_machine == EM_X86_64) {
		s.max_register = STK_CFI_MAX_REGISTER_X86_64;
		s.register_reason = reg_x86_64;
	} else if (eh.e_machine == EM_AARCH64) {
		s.max_register = STK_CFI_MAX_REGISTER_AARCH64;
		s.register_reason = reg_aarch64;
	} else {
		out->all = other_machine;
		return 0;
	}
	why = stk_cfi_sources(e, scan_source, &s);
	if (why)
		refuse_all(&s, why);
	if (s.oom)
		refuse_all(&s, no_memory);
	if (out->all) {
		free(out->refused);
		out->refused = NULL;
		out->n_refused = 0;
	}
	merge_refused(out);
	sort_ranges(out);
	return s.oom ? -1 : 0;
}

const char *stk_cfi_guard_check(const struct stk_cfi_guard *g, uint64_t vaddr)
{
	size_t at;

	if (g->all)
		return g->all;
	/* the last range starting at or below vaddr */
	STK_FLOOR(at, g->n_refused, i, g->refused[i].start <= vaddr);
	return at && vaddr < g->refused[at - 1].end ? g->refused[at - 1].reason : NULL;
}

void stk_cfi_guard_free(struct stk_cfi_guard *g)
{
	if (!g)
		return;
	free(g->refused);
	free(g->ranges);
	memset(g, 0, sizeof(*g));
}
