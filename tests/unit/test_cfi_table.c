/*
 * core/unwind/cfi_table.c and unwind_tables.c: the rows built from a
 * fixture's CFI (thread root, function entry, PLT, sorted rows, a page
 * index that narrows every lookup); the store writing them through a fake
 * of the BPF maps (proc entry last, reloads, forgetting, no room, eviction,
 * the reload budget); and the proof of the whole: this process's own stack
 * walked with the tables, by the rules bpf/unwind.bpf.c follows, gives the
 * chain libdw gives for the same snapshot.
 */
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "core/unwind/unwind_dwarf.h"
#include "core/sym/elf_symbols.h"
#include "core/sym/proc_maps.h"
#include "core/sym/symbolize.h"
#include "core/unwind/cfi_guard.h"
#include "core/unwind/cfi_table.h"
#include "core/unwind/unwind_tables.h"
#include "fake_unwind_maps.h"
#include "sym_fixture.h"

struct open_elf {
	int fd;
	Elf *elf;
};

static int open_elf(const char *path, struct open_elf *o)
{
	elf_version(EV_CURRENT);
	o->fd = open(path, O_RDONLY | O_CLOEXEC);
	o->elf = o->fd >= 0 ? elf_begin(o->fd, ELF_C_READ, NULL) : NULL;
	return o->elf ? 0 : -1;
}

static void close_elf(struct open_elf *o)
{
	if (o->elf)
		elf_end(o->elf);
	if (o->fd >= 0)
		close(o->fd);
}

/* The row covering vaddr, as the walk finds it: the page index, then halves. */
static const struct stk_cfi_row *row_at(const struct stk_cfi_table *t, uint64_t vaddr)
{
	uint64_t rel = vaddr - t->base_vaddr;
	size_t page = (size_t)(rel >> STK_UNWIND_PAGE_SHIFT), lo, hi;

	if (vaddr < t->base_vaddr || page >= t->n_pages)
		return NULL;
	lo = t->pages[page];
	hi = t->pages[page + 1] + 1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= rel)
			lo = mid;
		else
			hi = mid;
	}
	return &t->rows[lo];
}

static uint64_t symbol_vaddr(Elf *e, const char *name)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (gelf_getsym(d, (int)i, &sym) && (n = elf_strptr(e, sh.sh_link, sym.st_name)) &&
			    strcmp(n, name) == 0)
				return sym.st_value;
		}
	}
	return 0;
}

static uint64_t section_vaddr(Elf *e, const char *name, uint64_t *size)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(e, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(e, shstrndx, sh.sh_name)) && strcmp(n, name) == 0) {
			*size = sh.sh_size;
			return sh.sh_addr;
		}
	}
	return 0;
}

static void rows_of_a_fixture(struct test_ctx *t)
{
	const struct stk_cfi_table_limits lim = STK_CFI_TABLE_LIMITS_DEFAULT;
	struct stk_cfi_table tab;
	struct stk_cfi_guard guard;
	struct open_elf o = { -1, NULL };
	char path[PATH_MAX], why[160];
	const struct stk_cfi_row *r;

	if (fixture_path("sym_pie", path, sizeof(path)) || open_elf(path, &o)) {
		CHECK(t, !"fixture sym_pie");
		return;
	}
	CHECK(t, stk_cfi_guard_scan(o.elf, &guard) == 0 && !guard.n_refused);
	CHECK(t, stk_cfi_table_build(o.elf, &guard, &lim, &tab, why, sizeof(why)) == 0);
	CHECK(t, tab.n_rows > 10 && tab.rows[0].pc == 0 && tab.rows[0].kind == STK_ROW_NO_CFI);
	CHECK(t, tab.stats.fdes > 5);
	for (size_t i = 1; i < tab.n_rows; i++)
		if (tab.rows[i].pc <= tab.rows[i - 1].pc) {
			CHECK(t, !"rows sorted and unique");
			break;
		}
	/* the page index: the row it names covers the page's first byte */
	for (size_t p = 0; p < tab.n_pages; p++) {
		uint64_t at = (uint64_t)p << STK_UNWIND_PAGE_SHIFT;
		size_t i = tab.pages[p];

		if (tab.rows[i].pc > at || (i + 1 < tab.n_rows && tab.rows[i + 1].pc <= at)) {
			CHECK(t, !"page index");
			break;
		}
	}
#if defined(__x86_64__)
	uint64_t plt_size = 0, plt = section_vaddr(o.elf, ".plt", &plt_size);

	/* _start marks its return address undefined: the thread's root */
	r = row_at(&tab, symbol_vaddr(o.elf, "_start") + 4);
	CHECK(t, r && r->kind == STK_ROW_ROOT);
	/* a function's entry: the CFA is rsp + 8, the return address just below it */
	r = row_at(&tab, symbol_vaddr(o.elf, "main"));
	CHECK(t, r && r->kind == STK_ROW_CFA && r->cfa_how == STK_CFA_SP && r->cfa_off == 8 &&
		 r->ra_how == STK_REG_AT_CFA && r->ra_off == -8 && r->fp_how == STK_REG_SAME);
	/* PLT entries: the expression rsp + 8 (+ 8 past the push), as the known shape it is */
	CHECK(t, plt && plt_size > 32);
	r = plt ? row_at(&tab, plt + 16 + 2) : NULL;
	CHECK(t, r && r->kind == STK_ROW_CFA && r->cfa_how == STK_CFA_PLT && r->cfa_off == 11);
#endif
	stk_cfi_table_free(&tab);
	/* bounded: a table that would need more rows than allowed is refused, with why */
	struct stk_cfi_table_limits tiny = lim;
	tiny.max_rows = 4;
	CHECK(t, stk_cfi_table_build(o.elf, &guard, &tiny, &tab, why, sizeof(why)) == -1 &&
		 strstr(why, "more than 4 rows"));
	/* without a guard's word, no CFI is run at all */
	CHECK(t, stk_cfi_table_build(o.elf, NULL, &lim, &tab, why, sizeof(why)) == -1 && strstr(why, "no guard"));
	/* and what the guard refuses ends the walk there */
	struct stk_cfi_guard_range refuse_main = { symbol_vaddr(o.elf, "main"), symbol_vaddr(o.elf, "main") + 1,
						   "CFI refused: test" };
	guard.refused = &refuse_main;
	guard.n_refused = 1;
	CHECK(t, stk_cfi_table_build(o.elf, &guard, &lim, &tab, why, sizeof(why)) == 0);
	r = row_at(&tab, symbol_vaddr(o.elf, "main"));
	CHECK(t, r && r->kind == STK_ROW_STOP && r->fp_how == STK_STOP_HOSTILE && tab.stats.fdes_refused == 1);
	stk_cfi_table_free(&tab);
	guard.refused = NULL;
	guard.n_refused = 0;
	stk_cfi_guard_free(&guard);
	close_elf(&o);
}

/* ---- the walk, by the rules of bpf/unwind.bpf.c, over a snapshot of our own stack ---- */

#if defined(__x86_64__)
#define SNAP 8192

struct snap {
	uint64_t regs[17];
	uint8_t stack[SNAP];
	size_t len;
};

static uint64_t mapping_end(uint64_t addr)
{
	char line[4300];
	struct stk_map_entry e;
	uint64_t end = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (stk_maps_parse_line(line, &e) == 0 && addr >= e.start && addr < e.end)
			end = e.end;
	fclose(f);
	return end;
}

__attribute__((noinline, no_sanitize("address"))) void cfi_test_snapshot(struct snap *s)
{
	uint64_t pc, sp, bp, end;

	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2" : "=r"(pc), "=r"(sp), "=r"(bp));
	memset(s->regs, 0, sizeof(s->regs));
	s->regs[6] = bp;
	s->regs[7] = sp;
	s->regs[16] = pc;
	end = mapping_end(sp);
	s->len = end > sp ? (end - sp < SNAP ? end - sp : SNAP) : 0;
	for (size_t i = 0; i < s->len; i++)
		s->stack[i] = ((const volatile uint8_t *)(uintptr_t)sp)[i];
}

__attribute__((noinline)) int cfi_test_inner(struct snap *s)
{
	volatile int r = 1;

	cfi_test_snapshot(s);
	return r;
}

__attribute__((noinline)) int cfi_test_outer(struct snap *s)
{
	volatile int r = cfi_test_inner(s);

	return r + 1;
}

static bool word(const struct snap *s, uint64_t addr, uint64_t *v)
{
	uint64_t sp = s->regs[7];

	if (addr < sp || addr - sp + 8 > s->len)
		return false;
	memcpy(v, s->stack + (addr - sp), 8);
	return true;
}

static const struct stk_unwind_mapping *mapping_of(const struct fake_maps *f, uint64_t pc)
{
	for (uint32_t i = 0; i < f->proc.n_maps; i++) {
		const struct stk_unwind_mapping *m = &f->maps[f->proc.first_map + i];

		if (pc >= m->start && pc < m->end)
			return m;
	}
	return NULL;
}

static const struct stk_cfi_row *kernel_row(const struct fake_maps *f, const struct stk_unwind_mapping *m,
					    uint64_t pc)
{
	uint64_t rel = pc - m->base;
	uint32_t page = (uint32_t)(rel >> STK_UNWIND_PAGE_SHIFT), lo, hi;

	if (pc < m->base || page >= m->n_pages)
		return NULL;
	lo = f->pages[m->first_page + page];
	hi = f->pages[m->first_page + page + 1] + 1;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (f->rows[m->first_row + mid].pc <= rel)
			lo = mid;
		else
			hi = mid;
	}
	return &f->rows[m->first_row + lo];
}

/* Frames (leaf first) the kernel's walk would give. */
static size_t walk(const struct fake_maps *f, const struct snap *s, uint64_t *ips, size_t max)
{
	uint64_t pc = s->regs[16], sp = s->regs[7], fp = s->regs[6];
	size_t n = 0;

	while (n < max) {
		uint64_t lookup = n ? pc - 1 : pc, cfa, ra, nfp = fp;
		const struct stk_unwind_mapping *m = mapping_of(f, lookup);
		const struct stk_cfi_row *r;

		ips[n++] = pc;
		if (!m || (m->flags & STK_MAP_NO_CFI) || !(r = kernel_row(f, m, lookup)) || r->kind != STK_ROW_CFA)
			break; /* the root, or somewhere this test does not follow */
		if (r->cfa_how == STK_CFA_SP)
			cfa = sp + (uint64_t)(int64_t)r->cfa_off;
		else if (r->cfa_how == STK_CFA_FP)
			cfa = fp + (uint64_t)(int64_t)r->cfa_off;
		else
			break;
		if (r->ra_how != STK_REG_AT_CFA || !word(s, cfa + (uint64_t)(int64_t)r->ra_off, &ra))
			break;
		if (r->fp_how == STK_REG_AT_CFA && !word(s, cfa + (uint64_t)(int64_t)r->fp_off, &nfp))
			break;
		if (cfa <= sp || !ra)
			break;
		sp = cfa;
		fp = nfp;
		pc = ra;
	}
	return n;
}

static void walk_matches_libdw(struct test_ctx *t)
{
	static struct snap s;
	struct fake_maps *fm = fake_new();
	struct stk_symbolizer_opts so = { .keep_elf = true };
	struct stk_symbolizer *sym = stk_symbolizer_new(&so);
	const struct stk_unwind_capacity cap = { CAP_ROWS, CAP_PAGES, CAP_MAPS, 16 };
	const struct stk_cfi_table_limits lim = STK_CFI_TABLE_LIMITS_DEFAULT;
	struct stk_unwind_tables *tables = fm ? stk_unwind_tables_new(&fake_ops, fm, &cap, &lim) : NULL;
	struct stk_unwind_source us = sym ? stk_symbolizer_unwind_source(sym) : (struct stk_unwind_source){ 0 };
	struct stk_unwinder *u = sym ? stk_unwinder_new(&us) : NULL;
	struct stk_process *self;
	uint64_t kips[64], dips[64];
	struct stk_unwind_result r = { .ips = dips, .max = 64 };
	size_t n;

	CHECK(t, sym && tables && u);
	if (!sym || !tables || !u)
		goto out;
	/* the process table's own entry, as the session loads it */
	CHECK(t, (self = stk_symbolizer_process(sym, getpid())) != NULL);
	if (!self)
		goto out;
	CHECK(t, stk_unwind_tables_load(tables, self, 0) != STK_UNWIND_LOAD_FAILED);
	CHECK(t, cfi_test_outer(&s) == 2);
	n = walk(fm, &s, kips, 64);
	struct stk_unwind_input in = { .pid = getpid(), .tid = getpid(),
					.regs = s.regs, .n_regs = 17, .sp = s.regs[7], .stack = s.stack, .stack_len = s.len };
	stk_unwind(u, &in, &r);
	/* the same frames, as far as the copy reaches (the kernel walk has no copy to run out of) */
	size_t same = 0, want = r.n < n ? r.n : n;
	while (same < want && kips[same] == dips[same])
		same++;
	if (same != want || n < 4)
		printf("  tables walked %zu frames, libdw %zu (%s), the same for %zu\n", n, r.n, r.stop, same);
	CHECK(t, n >= 4 && same == want);
	/* and the callers are ours, in order */
	const char *names[] = { "cfi_test_snapshot", "cfi_test_inner", "cfi_test_outer", "walk_matches_libdw" };
	for (size_t i = 0; i < 4 && i < n; i++) {
		struct stk_frame fr;

		if (i)
			stk_symbolize_user_caller(sym, getpid(), kips[i], &fr);
		else
			stk_symbolize_user(sym, getpid(), kips[i], &fr);
		CHECK(t, fr.symbol && strcmp(fr.symbol, names[i]) == 0);
	}
out:
	stk_unwinder_free(u);
	stk_unwind_tables_free(tables);
	stk_symbolizer_free(sym);
	fake_free(fm);
}
#endif

static void store_lifecycle(struct test_ctx *t)
{
	struct fake_maps *fm = fake_new();
	struct stk_symbolizer_opts so = { .keep_elf = true };
	struct stk_symbolizer *sym = stk_symbolizer_new(&so);
	const struct stk_unwind_capacity cap = { CAP_ROWS, CAP_PAGES, CAP_MAPS, 16 };
	const struct stk_cfi_table_limits lim = STK_CFI_TABLE_LIMITS_DEFAULT;
	struct stk_unwind_tables *tables = fm ? stk_unwind_tables_new(&fake_ops, fm, &cap, &lim) : NULL;
	struct stk_unwind_tables_stats st;
	static struct self_process g;
	struct stk_process *me = &g.proc;
	size_t n;

	CHECK(t, fm && sym && tables);
	if (!fm || !sym || !tables)
		goto out;
	CHECK(t, self_process(sym, &g));
	n = g.n;
	CHECK(t, stk_unwind_tables_load(tables, me, 0) == STK_UNWIND_LOADED);
	CHECK(t, fm->has_proc && fm->tgid == (uint32_t)getpid() && fm->proc.n_maps == n && fm->proc_written_last);
	CHECK(t, stk_unwind_tables_has(tables, me));
	/* the same mappings again: nothing is written */
	unsigned writes = fm->writes, procs = fm->proc_writes;
	CHECK(t, stk_unwind_tables_load(tables, me, 0) == STK_UNWIND_LOADED);
	CHECK(t, fm->writes == writes && fm->proc_writes == procs);
	/* one mapping fewer: a new entry (the files' tables are shared, not rebuilt) */
	stk_unwind_tables_get_stats(tables, &st);
	unsigned built = st.files_built;
	me->n_maps = n - 1;
	CHECK(t, stk_unwind_tables_load(tables, me, 0) == STK_UNWIND_LOADED);
	stk_unwind_tables_get_stats(tables, &st);
	CHECK(t, fm->proc.n_maps == n - 1 && st.files_built == built && st.reloads == 1);
	CHECK(t, st.mappings_used == n - 1);
	/* the reload budget: a burst, then one per interval */
	for (int i = 0; i < STK_UNWIND_RELOAD_BURST + 4; i++) {
		me->n_maps = (i & 1) ? n : n - 1;
		stk_unwind_tables_load(tables, me, 0);
	}
	me->n_maps = n;
	bool later = stk_unwind_tables_load(tables, me, 0) == STK_UNWIND_LATER;
	me->n_maps = n - 1;
	CHECK(t, later || stk_unwind_tables_load(tables, me, 0) == STK_UNWIND_LATER);
	me->n_maps = fm->proc.n_maps == n ? n - 1 : n;
	CHECK(t, stk_unwind_tables_load(tables, me, STK_UNWIND_RELOAD_EVERY_NS) == STK_UNWIND_LOADED);
	/* forgotten: deleted from the map, its slots back */
	stk_unwind_tables_forget(tables, me);
	stk_unwind_tables_get_stats(tables, &st);
	CHECK(t, !fm->has_proc && !stk_unwind_tables_has(tables, me) && st.mappings_used == 0);
	stk_unwind_tables_free(tables);
	/* no room for any table: the process still loads, partial (its frames take the copy path) */
	const struct stk_unwind_capacity small = { 8, 8, CAP_MAPS, 16 };
	me->n_maps = n;
	tables = stk_unwind_tables_new(&fake_ops, fm, &small, &lim);
	CHECK(t, tables && stk_unwind_tables_load(tables, me, 0) == STK_UNWIND_PARTIAL);
	CHECK(t, fm->has_proc && (fm->proc.flags & STK_PROC_PARTIAL));
	stk_unwind_tables_get_stats(tables, &st);
	CHECK(t, st.files_no_room > 0 && strstr(st.last_failure, "no room"));
out:
	stk_unwind_tables_free(tables);
	stk_symbolizer_free(sym);
	fake_free(fm);
}

const struct test_case cfi_table_tests[] = {
	{ "rows_of_a_fixture", rows_of_a_fixture },
	{ "store_lifecycle", store_lifecycle },
#if defined(__x86_64__)
	{ "walk_matches_libdw", walk_matches_libdw },
#endif
	{ NULL, NULL },
};
