/* One file's CFI as the kernel unwinder's rows: see cfi_table.h. */
#include "core/unwind/cfi_table.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/base/grow.h"
#include "core/sym/cfi_ranges.h"
#include "core/unwind/cfi_guard.h"

/* Rows one FDE may yield: a function changes its rule at most a few times per instruction. */
#define MAX_FDE_ROWS 65536

/* The registers the walk tracks, in each architecture's DWARF numbering. */
struct arch_regs {
	int sp, fp, ra;
};
static const struct arch_regs x86_64_regs = { .sp = 7, .fp = 6, .ra = 16 };
static const struct arch_regs aarch64_regs = { .sp = 31, .fp = 29, .ra = 30 };

struct builder {
	const struct arch_regs *regs;
	const struct stk_cfi_guard *guard;
	bool x86_64;
	uint64_t base, span;
	struct stk_cfi_row *rows;
	size_t n, cap, max_rows;
	bool too_many;
	struct stk_cfi_table_stats *stats;
};

static int64_t cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static bool same_rule(const struct stk_cfi_row *a, const struct stk_cfi_row *b)
{
	return a->kind == b->kind && a->cfa_how == b->cfa_how && a->cfa_off == b->cfa_off &&
	       a->ra_how == b->ra_how && a->ra_off == b->ra_off && a->fp_how == b->fp_how &&
	       a->fp_off == b->fp_off;
}

/* Appends r at vaddr: replaces a row at the same pc, merges into the previous one when alike. */
static int add_row(struct builder *b, uint64_t vaddr, struct stk_cfi_row r)
{
	if (vaddr < b->base || vaddr - b->base >= b->span)
		return 0;
	r.pc = (uint32_t)(vaddr - b->base);
	if (b->n && r.pc < b->rows[b->n - 1].pc)
		return 0; /* rows only go up (overlapping or corrupt FDEs add nothing) */
	if (b->n && b->rows[b->n - 1].pc == r.pc) {
		b->n--;
		if (b->n && same_rule(&b->rows[b->n - 1], &r))
			return 0;
	} else if (b->n && same_rule(&b->rows[b->n - 1], &r)) {
		return 0;
	}
	if (b->n == b->max_rows) {
		b->too_many = true;
		return -1;
	}
	if (stk_grow((void **)&b->rows, &b->cap, b->n + 1, sizeof(*b->rows)))
		return -1;
	b->rows[b->n++] = r;
	return 0;
}

static struct stk_cfi_row stop_row(enum stk_walk_stop why)
{
	return (struct stk_cfi_row){ .kind = STK_ROW_STOP, .fp_how = (uint8_t)why };
}

static struct stk_cfi_row no_cfi_row(void)
{
	return (struct stk_cfi_row){ .kind = STK_ROW_NO_CFI };
}

/* libdw's location of a saved register: at CFA + off (1), unchanged (0), undefined (2), else -1. */
static int saved_at(Dwarf_Frame *f, int reg, int64_t *off)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;

	if (dwarf_frame_register(f, reg, mem, &ops, &nops) != 0)
		return -1;
	if (nops == 0)
		return ops == NULL ? 0 : 2; /* same value : undefined */
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return -1;
	size_t i = 1;
	*off = 0;
	if (i < nops && ops[i].atom == DW_OP_plus_uconst)
		*off = (int64_t)ops[i++].number;
	if (i != nops)
		return -1; /* a value (val_offset), not a location */
	return 1;
}

/*
 * The x86_64 PLT's CFA: rsp + 8, plus 8 once the entry has pushed
 * (DW_OP_breg7 8; DW_OP_breg16 0; lit15; and; lit11 or lit10; ge; lit3; shl; plus).
 */
static int plt_threshold(const Dwarf_Op *ops, size_t n)
{
	static const uint8_t shape[] = { DW_OP_breg7, DW_OP_breg16, DW_OP_lit15, DW_OP_and, 0,
					 DW_OP_ge,   DW_OP_lit3,   DW_OP_shl,   DW_OP_plus };

	if (n != sizeof(shape) || ops[0].number != 8 || ops[1].number != 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (i != 4 && ops[i].atom != shape[i])
			return -1;
	if (ops[4].atom < DW_OP_lit0 || ops[4].atom > DW_OP_lit31)
		return -1;
	return ops[4].atom - DW_OP_lit0;
}

/* The CFA part of r. false: a shape the walk does not take. */
static bool cfa_rule(const struct builder *b, Dwarf_Frame *f, struct stk_cfi_row *r)
{
	Dwarf_Op *ops;
	size_t n;
	int64_t off;
	int t;

	if (dwarf_frame_cfa(f, &ops, &n) != 0 || n == 0)
		return false;
	if (n == 1 && ops[0].atom == DW_OP_bregx) {
		off = (int64_t)ops[0].number2;
		if (off < INT32_MIN || off > INT32_MAX)
			return false;
		r->cfa_off = (int32_t)off;
		if ((int)ops[0].number == b->regs->sp)
			r->cfa_how = STK_CFA_SP;
		else if ((int)ops[0].number == b->regs->fp)
			r->cfa_how = STK_CFA_FP;
		else
			return false;
		return true;
	}
	/* stack realignment: the CFA was saved below the frame pointer */
	if (n == 2 && ops[0].atom == (uint8_t)(DW_OP_breg0 + b->regs->fp) && ops[1].atom == DW_OP_deref) {
		off = (int64_t)ops[0].number;
		if (off < INT32_MIN || off > INT32_MAX)
			return false;
		r->cfa_how = STK_CFA_DEREF_FP;
		r->cfa_off = (int32_t)off;
		return true;
	}
	if (b->x86_64 && (t = plt_threshold(ops, n)) >= 0) {
		r->cfa_how = STK_CFA_PLT;
		r->cfa_off = t;
		return true;
	}
	return false;
}

/* One libdw frame (a row of an FDE) as a table row. */
static struct stk_cfi_row row_of(const struct builder *b, Dwarf_Frame *f, bool signal)
{
	struct stk_cfi_row r = { .kind = STK_ROW_CFA };
	int64_t off = 0;
	int how;

	if (signal)
		return stop_row(STK_STOP_SIGNAL);
	how = saved_at(f, b->regs->ra, &off);
	if (how == 2)
		return (struct stk_cfi_row){ .kind = STK_ROW_ROOT };
	if (!cfa_rule(b, f, &r))
		return stop_row(STK_STOP_CFA_SHAPE);
	if (how < 0 || (how == 0 && b->x86_64) || off < INT16_MIN || off > INT16_MAX)
		return stop_row(STK_STOP_RA_SHAPE);
	r.ra_how = how == 1 ? STK_REG_AT_CFA : STK_REG_SAME;
	r.ra_off = (int16_t)off;
	how = saved_at(f, b->regs->fp, &off);
	if (how == 1 && off >= INT16_MIN && off <= INT16_MAX) {
		r.fp_how = STK_REG_AT_CFA;
		r.fp_off = (int16_t)off;
	} else {
		r.fp_how = how == 0 ? STK_REG_SAME : STK_REG_UNDEF;
	}
	return r;
}

/* The rows of one FDE's range [lo, hi), from whichever CFI describes it. -1: out of memory or too many. */
static int add_fde(struct builder *b, Dwarf_CFI *eh, Dwarf_CFI *dbg, uint64_t lo, uint64_t hi)
{
	Dwarf_CFI *cfi = eh;
	Dwarf_Frame *prev = NULL;
	uint64_t pc = lo;
	size_t rows = 0;
	int ret = 0;

	/*
	 * Each row's frame is freed only once the next one exists: libdw
	 * allocates one per call, and musl's allocator would otherwise hand the
	 * memory back to the kernel and fault it in again, row after row.
	 */
	while (pc < hi) {
		Dwarf_Frame *f = NULL;
		Dwarf_Addr start, end;
		bool signal = false;

		/* CFI the guard refuses is never run (a user's file could cost minutes and gigabytes) */
		if (!b->guard || stk_cfi_guard_check(b->guard, pc)) {
			b->stats->fdes_refused++;
			ret = add_row(b, pc, stop_row(STK_STOP_HOSTILE));
			goto out;
		}
		if (!cfi || dwarf_cfi_addrframe(cfi, pc, &f) != 0) {
			free(f);
			if (pc == lo && cfi == eh && dbg) {
				cfi = dbg; /* this function's CFI is in .debug_frame only */
				continue;
			}
			b->stats->fdes_refused++;
			ret = add_row(b, pc, no_cfi_row());
			goto out;
		}
		free(prev);
		prev = f;
		if (dwarf_frame_info(f, &start, &end, &signal) < 0 || end <= pc || ++rows > MAX_FDE_ROWS) {
			b->stats->fdes_refused++;
			ret = add_row(b, pc, stop_row(STK_STOP_CFA_SHAPE));
			goto out;
		}
		struct stk_cfi_row r = row_of(b, f, signal);
		if (r.kind == STK_ROW_STOP)
			b->stats->stop_rows++;
		if ((ret = add_row(b, pc, r)))
			goto out;
		pc = end < hi ? end : hi;
	}
	b->stats->fdes++;
out:
	free(prev);
	return ret;
}

/* [base, base + span) spans the executable PT_LOAD segments. false: none. */
static bool exec_span(Elf *e, uint64_t *base, uint64_t *span)
{
	size_t phnum;
	uint64_t lo = UINT64_MAX, hi = 0;

	if (elf_getphdrnum(e, &phnum))
		return false;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) || !ph.p_memsz)
			continue;
		if (ph.p_vaddr < lo)
			lo = ph.p_vaddr;
		if (ph.p_vaddr + ph.p_memsz > hi)
			hi = ph.p_vaddr + ph.p_memsz;
	}
	if (lo >= hi)
		return false;
	*base = lo;
	*span = hi - lo;
	return true;
}

/* pages[p]: the last row starting at or before page p's first byte. */
static int index_pages(struct stk_cfi_table *t, uint64_t span)
{
	size_t r = 0;

	t->n_pages = (size_t)((span + (1u << STK_UNWIND_PAGE_SHIFT) - 1) >> STK_UNWIND_PAGE_SHIFT);
	t->pages = malloc((t->n_pages + 1) * sizeof(*t->pages));
	if (!t->pages)
		return -1;
	for (size_t p = 0; p <= t->n_pages; p++) {
		uint64_t at = (uint64_t)p << STK_UNWIND_PAGE_SHIFT;

		while (r + 1 < t->n_rows && t->rows[r + 1].pc <= at)
			r++;
		t->pages[p] = (uint32_t)r;
	}
	return 0;
}

/* .debug_frame's CFI, when the file has the section (Dwarf handle kept in *dw). */
static Dwarf_CFI *debug_frame_cfi(Elf *e, Dwarf **dw)
{
	*dw = dwarf_begin_elf(e, DWARF_C_READ, NULL);
	return *dw ? dwarf_getcfi(*dw) : NULL;
}

int stk_cfi_table_build(Elf *e, const struct stk_cfi_guard *guard, const struct stk_cfi_table_limits *lim,
			struct stk_cfi_table *t, char *why, size_t len)
{
	int64_t t0 = cpu_ns();
	struct stk_cfi_ranges fdes = { 0 };
	struct builder b = { 0 };
	GElf_Ehdr eh;
	Dwarf *dw = NULL;
	Dwarf_CFI *ehcfi = NULL, *dbgcfi;
	int ret = -1;

	memset(t, 0, sizeof(*t));
	b.stats = &t->stats;
	b.guard = guard;
	if (!gelf_getehdr(e, &eh) || (eh.e_machine != EM_X86_64 && eh.e_machine != EM_AARCH64)) {
		snprintf(why, len, "not an x86_64 or aarch64 ELF file");
		return -1;
	}
	b.x86_64 = eh.e_machine == EM_X86_64;
	b.regs = b.x86_64 ? &x86_64_regs : &aarch64_regs;
	b.max_rows = lim->max_rows;
	if (!exec_span(e, &b.base, &b.span)) {
		snprintf(why, len, "no executable segment");
		return -1;
	}
	if (b.span > lim->max_span) {
		snprintf(why, len, "executable segments span %llu MiB (at most %llu)",
			 (unsigned long long)(b.span >> 20), (unsigned long long)(lim->max_span >> 20));
		return -1;
	}
	if (stk_cfi_ranges_read(e, &fdes)) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	ehcfi = dwarf_getcfi_elf(e);
	dbgcfi = debug_frame_cfi(e, &dw);
	if (!fdes.n || (!ehcfi && !dbgcfi)) {
		snprintf(why, len, "no CFI (.eh_frame or .debug_frame)");
		goto out;
	}
	if (add_row(&b, b.base, no_cfi_row()))
		goto oom;
	for (size_t i = 0; i < fdes.n; i++) {
		uint64_t lo = fdes.ranges[i].start, hi = lo + fdes.ranges[i].size;

		/* an FDE overlapping the one before (duplicate CFI), or wrapping around, adds nothing */
		if (hi <= lo || (b.n && lo < b.base + b.rows[b.n - 1].pc))
			continue;
		if (hi > b.base + b.span)
			hi = b.base + b.span;
		if (add_fde(&b, ehcfi, dbgcfi, lo, hi) || add_row(&b, hi, no_cfi_row()))
			goto oom;
		if ((i & 255) == 255 && cpu_ns() - t0 > lim->max_cpu_ns) {
			snprintf(why, len, "building its table took over %lld ms", (long long)(lim->max_cpu_ns / 1000000));
			goto out;
		}
		if ((i & 255) == 255 && lim->stop && lim->stop(lim->stop_ctx)) {
			snprintf(why, len, "stopped (a signal) while its table was built");
			goto out;
		}
	}
	t->base_vaddr = b.base;
	t->rows = b.rows;
	t->n_rows = b.n;
	b.rows = NULL;
	if (index_pages(t, b.span))
		goto oom;
	ret = 0;
	goto out;
oom:
	if (b.too_many)
		snprintf(why, len, "more than %zu rows", lim->max_rows);
	else
		snprintf(why, len, "out of memory");
out:
	free(b.rows);
	if (ehcfi)
		dwarf_cfi_end(ehcfi);
	if (dw)
		dwarf_end(dw);
	stk_cfi_ranges_free(&fdes);
	t->stats.build_ns = cpu_ns() - t0;
	if (ret)
		stk_cfi_table_free(t);
	return ret;
}

void stk_cfi_table_free(struct stk_cfi_table *t)
{
	struct stk_cfi_table_stats keep = t->stats;

	free(t->rows);
	free(t->pages);
	memset(t, 0, sizeof(*t));
	t->stats = keep;
}

int stk_cfi_table_mapping_base(Elf *e, uint64_t base_vaddr, uint64_t start, uint64_t offset, uint64_t *base)
{
	GElf_Ehdr eh;
	size_t phnum;

	if (!gelf_getehdr(e, &eh) || elf_getphdrnum(e, &phnum))
		return -1;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (offset >= ph.p_offset && offset < ph.p_offset + ph.p_filesz) {
			/* runtime = vaddr + bias; fixed-address executables have no bias */
			uint64_t bias = eh.e_type == ET_EXEC ? 0 : start - (ph.p_vaddr + (offset - ph.p_offset));

			*base = base_vaddr + bias;
			return 0;
		}
	}
	return -1;
}

const char *stk_walk_stop_text(unsigned stop)
{
	static const char *const text[STK_STOP_COUNT] = {
		[STK_STOP_NONE] = "unwinding ended",
		[STK_STOP_ROOT] = "outermost frame (return address undefined)",
		[STK_STOP_ZERO_RA] = "outermost frame (return address 0)",
		[STK_STOP_DEPTH] = "--perf-max-stack-depth reached",
		[STK_STOP_READ] = "the stack could not be read there",
		[STK_STOP_NO_MAPPING] = "a return address in no executable mapping",
		[STK_STOP_FP_END] = "no CFI for the last frame and its frame-pointer chain led nowhere",
		[STK_STOP_BACKWARDS] = "the stack pointer went down (corrupt stack)",
		[STK_STOP_CFA_SHAPE] = "the CFA rule there is not register plus offset",
		[STK_STOP_RA_SHAPE] = "the return-address rule there is not a stack slot",
		[STK_STOP_HOSTILE] = ("CFI refused: beyond the guard's bounds (register numbers, remember_state nesting "
				       "or count, stream or expression length)"),
		[STK_STOP_SIGNAL] = "a signal frame",
		[STK_STOP_LR_NOT_LEAF] = "a return address in the link register past the leaf",
		[STK_STOP_FP_UNKNOWN] = "the CFA needs a frame pointer whose value is unknown",
		[STK_STOP_NO_REGS] = "no user registers",
		[STK_STOP_KERNEL] = "kernel stack",
	};

	return stop < STK_STOP_COUNT && text[stop] ? text[stop] : "unwinding ended";
}
