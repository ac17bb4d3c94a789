/*
 * core/unwind/unwind_dwarf.c on this very process: a snapshot of our own
 * registers and stack is unwound through CFI and must name the callers in
 * order; then bad input (garbage registers, a short copy, an unknown
 * process, corrupted .eh_frame) must stop the chain with a reason.
 */
#include <fcntl.h>
#include <libelf.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "../fuzz/one_process.h"
#include "core/stack/stack_table.h"
#include "core/unwind/unwind_dwarf.h"
#include "core/sym/proc_maps.h"
#include "core/sym/symbolize.h"
#include "core/unwind/cfi_guard.h"

#if defined(__x86_64__)

#define SNAP_BYTES 8192

struct snapshot {
	uint64_t regs[17]; /* x86_64 DWARF numbering: rsp = 7, rip = 16 */
	uint8_t stack[SNAP_BYTES];
	size_t len;
};

/* How far the mapping holding addr extends (so the copy never faults). */
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

/* Reads our own stack, ASan's redzones included: copied byte by byte, uninstrumented. */
__attribute__((noinline, no_sanitize("address"))) void unwind_test_snapshot(struct snapshot *s)
{
	uint64_t pc, sp, bp, end;

	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2" : "=r"(pc), "=r"(sp), "=r"(bp));
	memset(s->regs, 0, sizeof(s->regs));
	s->regs[6] = bp;
	s->regs[7] = sp;
	s->regs[16] = pc;
	end = mapping_end(sp);
	s->len = end > sp ? (end - sp < SNAP_BYTES ? end - sp : SNAP_BYTES) : 0;
	for (size_t i = 0; i < s->len; i++)
		s->stack[i] = ((const volatile uint8_t *)(uintptr_t)sp)[i];
}

__attribute__((noinline)) int unwind_test_inner(struct snapshot *s)
{
	volatile int r = 1;

	unwind_test_snapshot(s);
	return r;
}

__attribute__((noinline)) int unwind_test_outer(struct snapshot *s)
{
	volatile int r = unwind_test_inner(s);

	return r + 1;
}

static struct stk_symbolizer *keeping_symbolizer(void)
{
	struct stk_symbolizer_opts o = { .keep_elf = true };

	return stk_symbolizer_new(&o);
}

static void unwinds_own_stack_in_order(struct test_ctx *t)
{
	static struct snapshot s;
	struct stk_symbolizer *sym = keeping_symbolizer();
	struct stk_unwind_source src_ = stk_symbolizer_unwind_source(sym);
	struct stk_unwinder *u = stk_unwinder_new(&src_);
	uint64_t ips[64];
	uint8_t how[64];
	struct stk_unwind_result r = { .ips = ips, .how = how, .max = 64 };
	const char *want[] = { "unwind_test_snapshot", "unwind_test_inner", "unwind_test_outer",
			       "unwinds_own_stack_in_order" };
	size_t found = 0;

	CHECK(t, sym && u);
	if (!sym || !u)
		goto out;
	CHECK(t, unwind_test_outer(&s) == 2);
	struct stk_unwind_input in = { .pid = getpid(), .tid = getpid(),
					.regs = s.regs, .n_regs = 17, .sp = s.regs[7], .stack = s.stack, .stack_len = s.len };
	stk_unwind(u, &in, &r);
	CHECK(t, r.n >= 4);
	CHECK(t, r.stop != NULL);
	for (size_t i = 0; i < r.n && found < 4; i++) {
		struct stk_frame f;

		stk_symbolize_user(sym, getpid(), ips[i], &f);
		if (f.symbol && strcmp(f.symbol, want[found]) == 0)
			found++;
	}
	if (found < 4)
		printf("  unwound %zu frames (stop: %s), found %zu of 4 callers in order\n", r.n, r.stop, found);
	CHECK(t, found == 4);
	CHECK(t, how[0] == STK_FRAME_BY_REGS);
	CHECK(t, r.n > 1 && how[1] == STK_FRAME_BY_CFI);
	/* Cached per process: a second unwind gives the same chain. */
	uint64_t again[64];
	struct stk_unwind_result r2 = { .ips = again, .max = 64 };
	stk_unwind(u, &in, &r2);
	CHECK(t, r2.n == r.n && memcmp(again, ips, r.n * sizeof(*ips)) == 0);
	/* --perf-max-stack-depth: the chain is cut and says so. */
	struct stk_unwind_result r3 = { .ips = again, .max = 2 };
	stk_unwind(u, &in, &r3);
	CHECK(t, r3.n == 2 && strstr(r3.stop, "max-stack-depth"));
out:
	stk_unwinder_free(u);
	stk_symbolizer_free(sym);
}

/* The copied stack as the "memory" past a short copy. */
static bool from_snapshot(void *ctx, uint64_t addr, uint64_t *word)
{
	const struct snapshot *s = ctx;
	uint64_t off = addr - s->regs[7];

	if (addr < s->regs[7] || off + sizeof(*word) > s->len)
		return false;
	memcpy(word, s->stack + off, sizeof(*word));
	return true;
}

/* A copy cut short reads on through read_more; registers known in part (sp, fp, pc) still unwind. */
static void reads_past_the_copy_with_some_registers(struct test_ctx *t)
{
	static struct snapshot s;
	struct stk_symbolizer *sym = keeping_symbolizer();
	struct stk_unwind_source src = stk_symbolizer_unwind_source(sym);
	struct stk_unwinder *u = stk_unwinder_new(&src);
	uint64_t full[64], part[64];
	struct stk_unwind_result r = { .ips = full, .max = 64 }, r2 = { .ips = part, .max = 64 };

	CHECK(t, sym && u && unwind_test_outer(&s) == 2);
	struct stk_unwind_input in = { .pid = getpid(), .tid = getpid(),
				       .regs = s.regs, .n_regs = 17, .sp = s.regs[7], .stack = s.stack, .stack_len = s.len };
	stk_unwind(u, &in, &r);
	in.stack_len = 16;
	stk_unwind(u, &in, &r2);
	CHECK(t, r2.n < r.n && strstr(r2.stop, "copied bytes"));
	in.read_more = from_snapshot;
	in.read_ctx = &s;
	in.regs_known = 1ULL << 6 | 1ULL << 7; /* rbp, rsp: what unwinding these frames reads */
	stk_unwind(u, &in, &r2);
	CHECK(t, r2.n == r.n && memcmp(full, part, r.n * sizeof(*full)) == 0);
	if (r2.n != r.n)
		printf("  %zu frames past a short copy (stop: %s), %zu from the whole copy\n", r2.n, r2.stop, r.n);
	stk_unwinder_free(u);
	stk_symbolizer_free(sym);
}

static void bad_input_stops_with_reason(struct test_ctx *t)
{
	static struct snapshot s;
	struct stk_symbolizer *sym = keeping_symbolizer();
	struct stk_unwind_source src_ = stk_symbolizer_unwind_source(sym);
	struct stk_unwinder *u = stk_unwinder_new(&src_);
	uint64_t ips[64], garbage[17];
	struct stk_unwind_result r = { .ips = ips, .max = 64 };

	CHECK(t, unwind_test_outer(&s) == 2);
	/* No registers. */
	struct stk_unwind_input none = { .pid = getpid(), .tid = getpid(),
					.regs = NULL, .n_regs = 0, .sp = 0, .stack = NULL, .stack_len = 0 };
	stk_unwind(u, &none, &r);
	CHECK(t, r.n == 0 && r.stop && strstr(r.stop, "no user registers"));
	/* The stack copy is empty: the leaf, then a reason. */
	struct stk_unwind_input empty = { .pid = getpid(), .tid = getpid(),
					.regs = s.regs, .n_regs = 17, .sp = s.regs[7], .stack = s.stack, .stack_len = 0 };
	stk_unwind(u, &empty, &r);
	CHECK(t, r.n >= 1 && r.stop && strstr(r.stop, "--stack-bytes"));
	if (!r.stop || !strstr(r.stop, "--stack-bytes"))
		printf("  empty copy: %zu frames, stop: %s\n", r.n, r.stop);
	/* Garbage registers and stack. */
	for (int i = 0; i < 17; i++)
		garbage[i] = 0xdeadbeefcafe0000ULL + (uint64_t)i * 4096;
	memset(s.stack, 0xa5, sizeof(s.stack));
	struct stk_unwind_input junk = { .pid = getpid(), .tid = getpid(),
					.regs = garbage, .n_regs = 17, .sp = garbage[7], .stack = s.stack, .stack_len = sizeof(s.stack) };
	stk_unwind(u, &junk, &r);
	CHECK(t, r.n <= 64 && r.stop != NULL);
	/* A process never seen (pid beyond pid_max). */
	struct stk_unwind_input gone = { .pid = 0x3ffffff0, .tid = 0x3ffffff0,
					.regs = s.regs, .n_regs = 17, .sp = s.regs[7], .stack = s.stack, .stack_len = s.len };
	stk_unwind(u, &gone, &r);
	CHECK(t, r.n == 1 && r.stop && strstr(r.stop, "unknown"));
	stk_unwinder_free(u);
	stk_symbolizer_free(sym);
}

/*
 * One unwind of s through this process's mappings as the symbolizer has
 * them, the file holding this code given guard instead of its own (a new
 * unwinder: modules are read once per process). *bias: runtime address -
 * ELF vaddr in that file.
 */
static void unwind_guarded(struct stk_symbolizer *sym, const struct stk_cfi_guard *guard, struct snapshot *s,
			   struct stk_unwind_result *r, uint64_t *bias)
{
	const struct stk_process *me = stk_symbolizer_process(sym, getpid());
	uint64_t here = (uint64_t)(uintptr_t)unwind_test_snapshot;
	struct stk_mapping *maps = me ? calloc(me->n_maps + 1, sizeof(*maps)) : NULL;
	struct stk_file own;
	GElf_Ehdr eh;
	size_t phnum;

	r->n = 0;
	r->stop = NULL;
	if (!maps)
		return;
	for (size_t i = 0; i < me->n_maps; i++) {
		struct stk_mapping *m = &maps[i];

		*m = me->maps[i];
		if (m->kind != STK_MAPPING_FILE || !m->file || !m->file->elf || here < m->start || here >= m->end)
			continue;
		own = *m->file;
		own.cfi_guard = *guard;
		own.cfi_scanned = true;
		m->file = &own;
		if (!gelf_getehdr(own.elf, &eh) || elf_getphdrnum(own.elf, &phnum))
			continue;
		for (size_t k = 0; k < phnum; k++) {
			GElf_Phdr ph;

			if (gelf_getphdr(own.elf, (int)k, &ph) && ph.p_type == PT_LOAD && m->offset >= ph.p_offset &&
			    m->offset < ph.p_offset + ph.p_filesz)
				*bias = eh.e_type == ET_EXEC ? 0 : m->start - (ph.p_vaddr + (m->offset - ph.p_offset));
		}
	}
	struct one_process table = { { .pid = getpid(), .maps = maps, .n_maps = me->n_maps } };
	struct stk_unwind_source us = one_process_source(&table);
	struct stk_unwinder *u = stk_unwinder_new(&us);
	struct stk_unwind_input in = { .pid = getpid(), .tid = getpid(),
					.regs = s->regs, .n_regs = 17, .sp = s->regs[7], .stack = s->stack, .stack_len = s->len };

	if (u)
		stk_unwind(u, &in, r);
	stk_unwinder_free(u);
	one_process_end(&table);
	free(maps);
}

/*
 * libdw runs no CFI the guard refuses: the frame whose lookup address it
 * refuses (the pc of the first frame, a return address - 1 after it) is
 * the chain's last, with the guard's reason.
 */
static void guard_ends_the_chain_where_it_refuses(struct test_ctx *t)
{
	static struct snapshot s;
	struct stk_symbolizer *sym = keeping_symbolizer();
	struct stk_unwind_source src_ = stk_symbolizer_unwind_source(sym);
	struct stk_unwinder *u = stk_unwinder_new(&src_);
	struct stk_cfi_guard refuse = { 0 };
	struct stk_cfi_guard_range range;
	uint64_t ips[64], first[64], bias = 0;
	struct stk_unwind_result r = { .ips = ips, .max = 64 }, whole = { .ips = first, .max = 64 };

	CHECK(t, sym && u && unwind_test_outer(&s) == 2);
	if (!sym || !u)
		goto out;
	/* The module's own guard (the symbolizer's scan of our file) lets the whole chain through. */
	struct stk_unwind_input in = { .pid = getpid(), .tid = getpid(),
					.regs = s.regs, .n_regs = 17, .sp = s.regs[7], .stack = s.stack, .stack_len = s.len };
	stk_unwind(u, &in, &whole);
	CHECK(t, whole.n >= 4);
	if (whole.n < 4)
		goto out;
	/* Every address refused: the leaf only. */
	refuse.all = "test: all refused";
	unwind_guarded(sym, &refuse, &s, &r, &bias);
	CHECK(t, r.n == 1 && r.stop && strcmp(r.stop, "test: all refused") == 0);
	/* The first frame's pc itself. */
	refuse.all = NULL;
	refuse.refused = &range;
	refuse.n_refused = 1;
	range = (struct stk_cfi_guard_range){ first[0] - bias, first[0] - bias + 1, "test: leaf refused" };
	unwind_guarded(sym, &refuse, &s, &r, &bias);
	CHECK(t, r.n == 1 && ips[0] == first[0] && r.stop && strcmp(r.stop, "test: leaf refused") == 0);
	/* The second frame's call (its return address - 1): two frames. */
	range = (struct stk_cfi_guard_range){ first[1] - 1 - bias, first[1] - bias, "test: caller refused" };
	unwind_guarded(sym, &refuse, &s, &r, &bias);
	CHECK(t, r.n == 2 && ips[1] == first[1] && r.stop && strcmp(r.stop, "test: caller refused") == 0);
	/* Refusing an address no frame looks up changes nothing. */
	range = (struct stk_cfi_guard_range){ first[1] + 64 - bias, first[1] + 65 - bias, "test: elsewhere" };
	unwind_guarded(sym, &refuse, &s, &r, &bias);
	CHECK(t, r.n == whole.n && memcmp(ips, first, whole.n * sizeof(*ips)) == 0);
out:
	stk_unwinder_free(u);
	stk_symbolizer_free(sym);
}

/*
 * A process table whose mappings grow each time they are read again, as a
 * process's do while it starts: none at first, then the mapping holding
 * `cut` cut short there, then all of them (the symbolizer's).
 */
struct late_source {
	struct stk_symbolizer *sym;
	unsigned stage;
	bool may_reread;
	uint64_t cut;
	struct stk_process proc;
	struct stk_mapping maps[512];
};

static struct stk_process *late_process(void *table, pid_t pid)
{
	struct late_source *l = table;
	const struct stk_process *all = stk_symbolizer_process(l->sym, pid);

	l->proc.pid = pid;
	l->proc.maps = l->maps;
	l->proc.n_maps = 0;
	l->proc.generation = l->stage;
	for (size_t i = 0; l->stage && all && i < all->n_maps && i < 512; i++) {
		struct stk_mapping *m = &l->maps[l->proc.n_maps++];

		*m = all->maps[i];
		if (l->stage == 1 && l->cut > m->start && l->cut < m->end)
			m->end = l->cut;
	}
	return &l->proc;
}

static bool late_reread(void *table, pid_t pid)
{
	struct late_source *l = table;

	(void)pid;
	if (!l->may_reread || l->stage == 2)
		return false;
	l->stage++;
	return true;
}

/* One unwind of s from a fresh table at stage `stage`. */
static void unwind_late(struct late_source *l, unsigned stage, struct snapshot *s, struct stk_unwind_result *r)
{
	struct stk_unwind_source src = { .table = l, .process = late_process, .reread = late_reread };
	struct stk_unwinder *u = stk_unwinder_new(&src);
	struct stk_unwind_input in = { .pid = getpid(), .tid = getpid(),
					.regs = s->regs, .n_regs = 17, .sp = s->regs[7], .stack = s->stack, .stack_len = s->len };

	l->stage = stage;
	r->n = 0;
	r->stop = NULL;
	if (u)
		stk_unwind(u, &in, r);
	stk_unwinder_free(u);
	stk_unwinder_slot_free(l->proc.unwinder);
	l->proc.unwinder = NULL;
}

/*
 * Mappings read too early (a process first seen halfway through its exec,
 * before the loader mapped its libraries): a leaf outside them, or a chain
 * walking out of them, reads them again and unwinds the whole chain.
 */
static void reads_mappings_again_when_the_chain_leaves_them(struct test_ctx *t)
{
	static struct snapshot s;
	static struct late_source l;
	l = (struct late_source){ .sym = keeping_symbolizer() };
	struct stk_unwind_source own = stk_symbolizer_unwind_source(l.sym);
	struct stk_unwinder *u = stk_unwinder_new(&own);
	uint64_t whole_ips[64], ips[64];
	struct stk_unwind_result whole = { .ips = whole_ips, .max = 64 }, r = { .ips = ips, .max = 64 };

	CHECK(t, l.sym && u && unwind_test_outer(&s) == 2);
	if (!l.sym || !u)
		goto out;
	struct stk_unwind_input in = { .pid = getpid(), .tid = getpid(),
					.regs = s.regs, .n_regs = 17, .sp = s.regs[7], .stack = s.stack, .stack_len = s.len };
	stk_unwind(u, &in, &whole);
	CHECK(t, whole.n >= 4);
	/* No mappings at first, not read again: the leaf alone, and why. */
	unwind_late(&l, 0, &s, &r);
	CHECK(t, r.n == 1 && ips[0] == whole_ips[0] && r.stop && strstr(r.stop, "no executable file mappings"));
	/* Read again: the whole chain. */
	l.may_reread = true;
	unwind_late(&l, 0, &s, &r);
	CHECK(t, r.n == whole.n && memcmp(ips, whole_ips, whole.n * sizeof(*ips)) == 0);
	/*
	 * Our mapping cut short at the lowest caller above the leaf (one is:
	 * the tests' callers and the C library's start code lie after it): the
	 * chain walks out of the modules known there.
	 */
	for (size_t i = 1; i < whole.n; i++)
		if (whole_ips[i] - 1 > whole_ips[0] && (!l.cut || whole_ips[i] - 1 < l.cut))
			l.cut = whole_ips[i] - 1;
	CHECK(t, l.cut != 0);
	l.may_reread = false;
	unwind_late(&l, 1, &s, &r);
	CHECK(t, r.n >= 1 && r.n <= whole.n);
	bool left = r.n && r.ips[r.n - 1] - (r.n > 1) >= l.cut;
	l.may_reread = true;
	unwind_late(&l, 1, &s, &r);
	if (left) /* it ended outside: read again, walked again, whole */
		CHECK(t, r.n == whole.n && memcmp(ips, whole_ips, whole.n * sizeof(*ips)) == 0 && l.stage == 2);
	else /* frame pointers carried it back inside: nothing to read again */
		CHECK(t, l.stage == 1 && r.stop && !strstr(r.stop, "no CFI for the last frame"));
out:
	stk_unwinder_free(u);
	stk_symbolizer_free(l.sym);
}

/* Our own executable mapping with our ELF image, .eh_frame overwritten by pattern. */
struct corrupt_source {
	Elf *elf;
	char *image;
	uint64_t start, end, offset;
	struct stk_cfi_guard guard;
};

static int load_corrupted_self(struct corrupt_source *c, unsigned seed)
{
	char line[4300], exe[4096];
	struct stk_map_entry e;
	uint64_t here = (uint64_t)(uintptr_t)unwind_test_snapshot;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f = fopen("/proc/self/maps", "re");
	size_t size = 0, shstrndx;
	Elf_Scn *scn = NULL;
	int fd;

	if (!f || n <= 0)
		return f ? (fclose(f), -1) : -1;
	exe[n] = '\0';
	while (fgets(line, sizeof(line), f))
		if (stk_maps_parse_line(line, &e) == 0 && here >= e.start && here < e.end) {
			c->start = e.start, c->end = e.end, c->offset = e.offset;
			break;
		}
	fclose(f);
	if ((fd = open(exe, O_RDONLY)) < 0)
		return -1;
	size = (size_t)lseek(fd, 0, SEEK_END);
	c->image = malloc(size);
	if (!c->image || pread(fd, c->image, size, 0) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	close(fd);
	/* Find .eh_frame and .eh_frame_hdr through a first, clean view. */
	Elf *view = elf_memory(c->image, size);
	if (!view || elf_getshdrstrndx(view, &shstrndx))
		return -1;
	while ((scn = elf_nextscn(view, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(view, shstrndx, sh.sh_name)))
			continue;
		if ((strcmp(name, ".eh_frame") == 0 || strcmp(name, ".eh_frame_hdr") == 0) &&
		    sh.sh_type != SHT_NOBITS && sh.sh_offset + sh.sh_size <= size) {
			/* Keep the first 4 bytes of every 16 (lengths stay plausible), scramble the rest. */
			for (uint64_t i = 0; i < sh.sh_size; i++) {
				seed = seed * 1103515245u + 12345u;
				if (i % 16 >= 4 && (seed >> 16) % 3 == 0)
					c->image[sh.sh_offset + i] ^= (char)(seed >> 24);
			}
		}
	}
	elf_end(view);
	c->elf = elf_memory(c->image, size);
	return c->elf && stk_cfi_guard_scan(c->elf, &c->guard) == 0 ? 0 : -1;
}

static void corrupt_cfi_never_crashes(struct test_ctx *t)
{
	static struct snapshot s;

	CHECK(t, unwind_test_outer(&s) == 2);
	for (unsigned seed = 1; seed <= 8; seed++) {
		struct corrupt_source c = { 0 };
		struct stk_unwinder *u;
		uint64_t ips[128];
		struct stk_unwind_result r = { .ips = ips, .max = 128 };

		elf_version(EV_CURRENT);
		if (load_corrupted_self(&c, seed)) {
			CHECK(t, !"cannot load our own ELF image");
			free(c.image);
			return;
		}
		struct stk_file file = { .elf = c.elf, .fd = -1, .cfi_guard = c.guard, .cfi_scanned = true };
		struct stk_mapping map = { c.start, c.end, c.offset, "self", &file, STK_MAPPING_FILE, false, false };
		struct one_process table = { { .pid = getpid(), .maps = &map, .n_maps = 1 } };
		struct stk_unwind_source us = one_process_source(&table);
		u = stk_unwinder_new(&us);
		struct stk_unwind_input in = { .pid = getpid(), .tid = getpid(),
						.regs = s.regs, .n_regs = 17, .sp = s.regs[7], .stack = s.stack, .stack_len = s.len };
		stk_unwind(u, &in, &r);
		CHECK(t, r.n <= 128 && r.stop != NULL);
		stk_unwinder_free(u);
		one_process_end(&table);
		stk_cfi_guard_free(&c.guard);
		elf_end(c.elf);
		free(c.image);
	}
}

#endif

static void table_keeps_distinct_stacks_apart(struct test_ctx *t)
{
	struct stk_stack_table *tab = stk_stack_table_new();
	uint64_t a[] = { 1, 2, 3 }, b[] = { 1, 2, 4 }, k[] = { 0xffffffff81000000ULL };
	uint8_t how_a[] = { 0, 1, 1 }, how_b[] = { 0, 1, 2 };
	static const char stop1[] = "one", stop2[] = "two";
	struct stk_raw_stack s = { .tgid = 7, .comm = "x", .user = a, .n_user = 3, .value = 1 };

	CHECK(t, tab != NULL);
	CHECK(t, stk_stack_table_add(tab, &s) == 0);
	CHECK(t, stk_stack_table_add(tab, &s) == 0);
	CHECK(t, stk_stack_table_size(tab) == 1 && stk_stack_table_at(tab, 0)->value == 2);
	s.user = b;
	CHECK(t, stk_stack_table_add(tab, &s) == 0); /* other leaf */
	s.n_user = 2;
	CHECK(t, stk_stack_table_add(tab, &s) == 0); /* a prefix */
	s.n_user = 3, s.kernel = k, s.n_kernel = 1;
	CHECK(t, stk_stack_table_add(tab, &s) == 0); /* with a kernel frame */
	s.tid = 8;
	CHECK(t, stk_stack_table_add(tab, &s) == 0); /* other thread */
	s.user_how = how_a;
	CHECK(t, stk_stack_table_add(tab, &s) == 0);
	s.user_how = how_b;
	CHECK(t, stk_stack_table_add(tab, &s) == 0); /* found another way */
	s.stop = stop1;
	CHECK(t, stk_stack_table_add(tab, &s) == 0);
	s.stop = stop2;
	CHECK(t, stk_stack_table_add(tab, &s) == 0); /* stopped for another reason */
	CHECK(t, stk_stack_table_size(tab) == 9);
	/* Many distinct stacks: all kept, each counted once, across rehashes. */
	for (uint64_t i = 0; i < 5000; i++) {
		uint64_t u[2] = { i, i * 7 };
		struct stk_raw_stack m = { .tgid = 9, .comm = "many", .user = u, .n_user = 2, .value = 1 };

		CHECK(t, stk_stack_table_add(tab, &m) == 0);
		CHECK(t, stk_stack_table_add(tab, &m) == 0);
	}
	CHECK(t, stk_stack_table_size(tab) == 5009);
	uint64_t total = 0;
	for (size_t i = 9; i < stk_stack_table_size(tab); i++)
		total += stk_stack_table_at(tab, i)->value;
	CHECK(t, total == 10000);
	stk_stack_table_free(tab);
}

/* Retaining some entries: the others freed, the kept renumbered in order and still found by content. */
static void table_retains_only_the_kept(struct test_ctx *t)
{
	struct stk_stack_table *tab = stk_stack_table_new();
	size_t where[1000], at;

	CHECK(t, tab != NULL);
	for (uint64_t i = 0; i < 1000; i++) {
		uint64_t u[2] = { i, 0x400000 + i };
		struct stk_raw_stack m = { .tgid = 5, .comm = "churn", .user = u, .n_user = 2, .value = i };

		CHECK(t, stk_stack_table_add(tab, &m) == 0);
		where[i] = i % 3 == 0; /* every third stays */
	}
	CHECK(t, stk_stack_table_retain(tab, where) == 666);
	CHECK(t, stk_stack_table_size(tab) == 334);
	CHECK(t, where[0] == 1 && where[1] == 0 && where[2] == 0 && where[3] == 2 && where[999] == 334);
	for (size_t i = 0; i < 334; i++)
		CHECK(t, stk_stack_table_at(tab, i)->value == i * 3 && stk_stack_table_at(tab, i)->user[0] == i * 3 &&
			 stk_stack_table_at(tab, i)->user[1] == 0x400000 + i * 3);
	/* a kept stack is found at its new index; a freed one comes back as a new entry */
	uint64_t kept[2] = { 999, 0x400000 + 999 }, gone[2] = { 998, 0x400000 + 998 };
	struct stk_raw_stack k = { .tgid = 5, .comm = "churn", .user = kept, .n_user = 2, .value = 1 };

	CHECK(t, stk_stack_table_add_at(tab, &k, &at) == 0 && at == 333 && stk_stack_table_at(tab, 333)->value == 1000);
	k.user = gone;
	CHECK(t, stk_stack_table_add_at(tab, &k, &at) == 0 && at == 334 && stk_stack_table_size(tab) == 335);
	memset(where, 0, sizeof(where));
	CHECK(t, stk_stack_table_retain(tab, where) == 335 && stk_stack_table_size(tab) == 0);
	CHECK(t, stk_stack_table_add_at(tab, &k, &at) == 0 && at == 0 && stk_stack_table_at(tab, 0)->value == 1);
	stk_stack_table_free(tab);
}

const struct test_case unwind_dwarf_tests[] = {
#if defined(__x86_64__)
	{ "unwinds_own_stack_in_order", unwinds_own_stack_in_order },
	{ "unwind_guard_ends_the_chain", guard_ends_the_chain_where_it_refuses },
	{ "bad_input_stops_with_reason", bad_input_stops_with_reason },
	{ "unwind_reads_past_the_copy", reads_past_the_copy_with_some_registers },
	{ "corrupt_cfi_never_crashes", corrupt_cfi_never_crashes },
	{ "unwind_reads_mappings_again", reads_mappings_again_when_the_chain_leaves_them },
#endif
	{ "table_keeps_distinct_stacks_apart", table_keeps_distinct_stacks_apart },
	{ "table_retains_only_the_kept", table_retains_only_the_kept },
	{ NULL, NULL },
};
