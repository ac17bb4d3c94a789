/*
 * The CFI guard (core/unwind/cfi_guard.c) on ELF files written here: what a
 * compiler emits passes (and libdw reads the same entries), each bound is
 * exact, a refused CIE takes its FDEs along, entries libdw could reach
 * around the walk (a CIE pointer or a search-table offset into another
 * entry's bytes) are refused, and .eh_frame found without section headers,
 * .debug_frame and its compressed form are checked all the same.
 */
#include <elfutils/libdw.h>
#include <stdio.h>

#include "harness.h"
#include "core/unwind/cfi_guard.h"
#include "tests/fuzz/cfi_elf.h"

/* def_cfa rsp+8; return address at cfa-8 */
static const uint8_t cie_insns[] = { DW_CFA_def_cfa, 7, 8, DW_CFA_offset + 16, 1 };
/* push rbp; mov rsp, rbp; ... leave */
static const uint8_t fde_insns[] = { DW_CFA_advance_loc + 1, DW_CFA_def_cfa_offset, 16, DW_CFA_offset + 6, 2,
				     DW_CFA_advance_loc + 3, DW_CFA_def_cfa_register, 6, DW_CFA_remember_state,
				     DW_CFA_advance_loc + 32, DW_CFA_def_cfa, 7, 8, DW_CFA_restore_state };

struct image {
	int fd;
	Elf *e;
	struct stk_cfi_guard g;
};

static bool image_open(struct image *im, const struct cfi_elf_spec *spec)
{
	memset(im, 0, sizeof(*im));
	im->e = cfi_elf_open(spec, &im->fd);
	return im->e && stk_cfi_guard_scan(im->e, &im->g) == 0;
}

static void image_close(struct image *im)
{
	stk_cfi_guard_free(&im->g);
	if (im->e)
		elf_end(im->e);
	if (im->fd >= 0)
		close(im->fd);
}

/* Instructions: prefix, then n copies of unit, as one FDE program. */
static uint8_t *repeat(const uint8_t *prefix, size_t np, const uint8_t *unit, size_t nu, size_t n, size_t *len)
{
	uint8_t *b = malloc(np + nu * n + 1);

	if (!b)
		return NULL;
	if (np)
		memcpy(b, prefix, np);
	for (size_t i = 0; i < n; i++)
		memcpy(b + np + i * nu, unit, nu);
	*len = np + nu * n;
	return b;
}

/* Scans one x86_64 .eh_frame: a good FDE at 0x1000 and an FDE of insns at 0x1040. The verdict at 0x1040. */
static const char *verdict_of(uint16_t machine, const uint8_t *insns, size_t n)
{
	static char reason[256];
	struct cfi_bytes c = { .eh = true };
	struct image im;
	const char *why = "(image not built)";
	size_t cie = cfi_cie(&c, 16, cie_insns, sizeof(cie_insns));

	cfi_fde(&c, cie, 0x1000, 0x40, fde_insns, sizeof(fde_insns));
	cfi_fde(&c, cie, 0x1040, 0x40, insns, n);
	cfi_u32(&c, 0);
	if (!c.oom && image_open(&im, &(struct cfi_elf_spec){ .machine = machine, .eh = &c })) {
		why = stk_cfi_guard_check(&im.g, 0x1040);
		if (!im.g.all && stk_cfi_guard_check(&im.g, 0x1000))
			why = "the good FDE was refused too";
		snprintf(reason, sizeof(reason), "%s", why ? why : "");
		why = why ? reason : NULL;
	}
	image_close(&im);
	free(c.b);
	return why;
}

static void passes_compiler_cfi_as_libdw_reads_it(struct test_ctx *t)
{
	struct cfi_bytes c = { .eh = true };
	struct image im;
	size_t cie = cfi_cie(&c, 16, cie_insns, sizeof(cie_insns));
	Dwarf_CFI *cfi;
	Dwarf_Frame *frame = NULL;

	cfi_fde(&c, cie, 0x1000, 0x40, fde_insns, sizeof(fde_insns));
	cfi_fde(&c, cie, 0x1040, 0x40, fde_insns, sizeof(fde_insns));
	cfi_u32(&c, 0);
	CHECK(t, image_open(&im, &(struct cfi_elf_spec){ .machine = EM_X86_64, .eh = &c }));
	CHECK(t, !im.g.all && im.g.n_refused == 0);
	CHECK(t, im.g.cies == 1 && im.g.fdes == 2);
	CHECK(t, im.g.max_register == 16 && im.g.max_depth == 1 && im.g.max_remembers == 1);
	for (uint64_t a = 0xff0; a < 0x1090; a += 8)
		CHECK(t, stk_cfi_guard_check(&im.g, a) == NULL);
	/* The entries written here are ones libdw reads: it finds the frame at 0x1050. */
	cfi = im.e ? dwarf_getcfi_elf(im.e) : NULL;
	CHECK(t, cfi && dwarf_cfi_addrframe(cfi, 0x1050, &frame) == 0);
	free(frame);
	if (cfi)
		dwarf_cfi_end(cfi);
	image_close(&im);
	free(c.b);
}

static void refuses_registers_above_the_architecture(struct test_ctx *t)
{
	const uint8_t x145[] = { DW_CFA_undefined, 0x91, 0x01 }, x146[] = { DW_CFA_undefined, 0x92, 0x01 };
	const uint8_t a127[] = { DW_CFA_same_value, 0x7f }, a128[] = { DW_CFA_same_value, 0x80, 0x01 };
	const uint8_t big[] = { DW_CFA_undefined, 0x80, 0x92, 0xf4, 0x01 }; /* 4,000,000 */
	const uint8_t reg_pair[] = { DW_CFA_register, 3, 0x92, 0x01 };
	const char *why;

	CHECK(t, verdict_of(EM_X86_64, x145, sizeof(x145)) == NULL);
	why = verdict_of(EM_X86_64, x146, sizeof(x146));
	CHECK(t, why && strstr(why, "above 145, x86_64's largest DWARF register"));
	why = verdict_of(EM_X86_64, big, sizeof(big));
	CHECK(t, why && strstr(why, "register number above 145"));
	why = verdict_of(EM_X86_64, reg_pair, sizeof(reg_pair));
	CHECK(t, why && strstr(why, "register number"));
	CHECK(t, verdict_of(EM_AARCH64, a127, sizeof(a127)) == NULL);
	why = verdict_of(EM_AARCH64, a128, sizeof(a128));
	CHECK(t, why && strstr(why, "above 127, aarch64's"));
	/* No bound is known for other machines: nothing of theirs runs. */
	why = verdict_of(EM_386, x145, sizeof(x145));
	CHECK(t, why && strstr(why, "other than x86_64 and aarch64"));
}

static void bounds_are_exact(struct test_ctx *t)
{
	const uint8_t rem = DW_CFA_remember_state, res = DW_CFA_restore_state, nop = DW_CFA_nop;
	const uint8_t pair[] = { DW_CFA_remember_state, DW_CFA_restore_state };
	uint8_t *b;
	size_t n;
	const char *why;

	/* nesting: 16 deep passes, 17 do not */
	uint8_t nest[2 * (STK_CFI_MAX_DEPTH + 1)];
	memset(nest, rem, STK_CFI_MAX_DEPTH);
	memset(nest + STK_CFI_MAX_DEPTH, res, STK_CFI_MAX_DEPTH);
	CHECK(t, verdict_of(EM_X86_64, nest, 2 * STK_CFI_MAX_DEPTH) == NULL);
	memset(nest, rem, STK_CFI_MAX_DEPTH + 1);
	memset(nest + STK_CFI_MAX_DEPTH + 1, res, STK_CFI_MAX_DEPTH + 1);
	why = verdict_of(EM_X86_64, nest, sizeof(nest));
	CHECK(t, why && strstr(why, "nested deeper than 16"));
	/* copies: 4096 remember_states pass, 4097 do not (even one deep) */
	CHECK(t, (b = repeat(NULL, 0, pair, 2, STK_CFI_MAX_REMEMBERS, &n)) != NULL);
	CHECK(t, b && verdict_of(EM_X86_64, b, n) == NULL);
	free(b);
	CHECK(t, (b = repeat(NULL, 0, pair, 2, STK_CFI_MAX_REMEMBERS + 1, &n)) != NULL);
	why = b ? verdict_of(EM_X86_64, b, n) : NULL;
	CHECK(t, why && strstr(why, "more than 4096 DW_CFA_remember_state"));
	free(b);
	/* length: every instruction counts (the entry's padding nops too) */
	CHECK(t, (b = repeat(NULL, 0, &nop, 1, STK_CFI_MAX_INSNS - 8, &n)) != NULL);
	CHECK(t, b && verdict_of(EM_X86_64, b, n) == NULL);
	free(b);
	CHECK(t, (b = repeat(NULL, 0, &nop, 1, STK_CFI_MAX_INSNS + 1, &n)) != NULL);
	why = b ? verdict_of(EM_X86_64, b, n) : NULL;
	CHECK(t, why && strstr(why, "more than 65536 instructions"));
	free(b);
	/* expressions: 512 bytes pass, 513 do not */
	const uint8_t e512[] = { DW_CFA_def_cfa_expression, 0x80, 0x04 }, e513[] = { DW_CFA_expression, 6, 0x81, 0x04 };
	CHECK(t, (b = repeat(e512, sizeof(e512), &nop, 1, 512, &n)) != NULL);
	CHECK(t, b && verdict_of(EM_X86_64, b, n) == NULL);
	free(b);
	CHECK(t, (b = repeat(e513, sizeof(e513), &nop, 1, 513, &n)) != NULL);
	why = b ? verdict_of(EM_X86_64, b, n) : NULL;
	CHECK(t, why && strstr(why, "expression longer than 512 bytes"));
	free(b);
	/* cut short: the FDE ends inside a register number (7 bytes: no padding after them) */
	const uint8_t cut[] = { 0, 0, 0, 0, 0, DW_CFA_undefined, 0x80 };
	why = verdict_of(EM_X86_64, cut, sizeof(cut));
	CHECK(t, why && strstr(why, "runs past the end"));
}

/* Refused ranges are exact, merge where they overlap, and a refused CIE refuses its FDEs. */
static void refused_ranges_and_cies(struct test_ctx *t)
{
	const uint8_t bad[] = { DW_CFA_undefined, 0x80, 0x92, 0xf4, 0x01 };
	const uint8_t bad_cie[] = { DW_CFA_def_cfa, 7, 8, DW_CFA_undefined, 0x80, 0x92, 0xf4, 0x01 };
	struct cfi_bytes c = { .eh = true };
	struct image im;
	size_t good = cfi_cie(&c, 16, cie_insns, sizeof(cie_insns));
	size_t evil = cfi_cie(&c, 16, bad_cie, sizeof(bad_cie));
	size_t evil_ra = cfi_cie(&c, 4000000, cie_insns, sizeof(cie_insns));

	cfi_fde(&c, good, 0x1000, 0x100, bad, sizeof(bad));
	cfi_fde(&c, good, 0x1080, 0x180, bad, sizeof(bad)); /* overlaps the one before */
	cfi_fde(&c, good, 0x1300, 0x10, fde_insns, sizeof(fde_insns));
	cfi_fde(&c, evil, 0x1400, 0x10, fde_insns, sizeof(fde_insns));
	cfi_fde(&c, evil, 0x1500, 0x10, NULL, 0);
	cfi_fde(&c, evil_ra, 0x1600, 0x10, fde_insns, sizeof(fde_insns));
	cfi_u32(&c, 0);
	CHECK(t, image_open(&im, &(struct cfi_elf_spec){ .machine = EM_X86_64, .eh = &c }));
	CHECK(t, !im.g.all && im.g.fdes == 6 && im.g.fdes_refused == 5);
	CHECK(t, im.g.n_refused == 4); /* the first two merged */
	CHECK(t, stk_cfi_guard_check(&im.g, 0xfff) == NULL);
	CHECK(t, stk_cfi_guard_check(&im.g, 0x1000) != NULL);
	CHECK(t, stk_cfi_guard_check(&im.g, 0x11ff) != NULL);
	CHECK(t, stk_cfi_guard_check(&im.g, 0x1200) == NULL);
	CHECK(t, stk_cfi_guard_check(&im.g, 0x1305) == NULL);
	CHECK(t, stk_cfi_guard_check(&im.g, 0x1405) != NULL);
	CHECK(t, stk_cfi_guard_check(&im.g, 0x1505) != NULL); /* no instructions of its own: its CIE's run */
	CHECK(t, stk_cfi_guard_check(&im.g, 0x160f) != NULL); /* return address register 4,000,000 */
	CHECK(t, stk_cfi_guard_check(&im.g, 0x1610) == NULL);
	image_close(&im);
	free(c.b);
}

/*
 * An FDE of the good CIE whose only instruction is a DWARF expression
 * holding a whole hidden entry (what put_hidden writes), at start.
 * Returns the hidden entry's offset.
 */
static size_t fde_hiding(struct cfi_bytes *c, size_t cie, uint64_t start, void (*put_hidden)(struct cfi_bytes *))
{
	size_t at = c->n, len_at, hidden, len;

	cfi_u32(c, 0);
	cfi_u32(c, (uint32_t)(c->n - cie));
	cfi_u32(c, (uint32_t)(int32_t)(start - (CFI_EH_VADDR + c->n)));
	cfi_u32(c, 0x10);
	cfi_uleb(c, 0);
	cfi_u8(c, DW_CFA_def_cfa_expression);
	len_at = c->n;
	cfi_u8(c, 0x80); /* a two-byte ULEB128, written below */
	cfi_u8(c, 0);
	hidden = c->n;
	put_hidden(c);
	len = c->n - hidden;
	if (!c->oom) {
		c->b[len_at] = (uint8_t)(0x80 | (len & 0x7f));
		c->b[len_at + 1] = (uint8_t)(len >> 7);
	}
	cfi_end_entry(c, at);
	return hidden;
}

static void put_hostile_cie(struct cfi_bytes *c)
{
	const uint8_t bad_cie[] = { DW_CFA_def_cfa, 7, 8, DW_CFA_undefined, 0x80, 0x92, 0xf4, 0x01 };

	cfi_cie(c, 16, bad_cie, sizeof(bad_cie));
}

static void put_hostile_fde(struct cfi_bytes *c)
{
	const uint8_t bad[] = { DW_CFA_undefined, 0x80, 0x92, 0xf4, 0x01 };

	cfi_fde(c, 0, 0x1200, 0x10, bad, sizeof(bad)); /* the CIE at offset 0 */
}

/* libdw reaches entries by CIE pointer and by .eh_frame_hdr offset, wherever they point. */
static void refuses_entries_outside_the_walk(struct test_ctx *t)
{
	struct cfi_bytes c = { .eh = true }, h = { .eh = true };
	struct image im;
	size_t cie = cfi_cie(&c, 16, cie_insns, sizeof(cie_insns));
	size_t hidden_cie = fde_hiding(&c, cie, 0x1000, put_hostile_cie);

	cfi_fde(&c, cie, 0x1100, 0x10, fde_insns, sizeof(fde_insns));
	cfi_fde(&c, hidden_cie, 0x1300, 0x10, fde_insns, sizeof(fde_insns));
	cfi_u32(&c, 0);
	CHECK(t, image_open(&im, &(struct cfi_elf_spec){ .machine = EM_X86_64, .eh = &c }));
	const char *why = stk_cfi_guard_check(&im.g, 0x1305);
	CHECK(t, why && strstr(why, "CIE pointer leads outside its section's entries"));
	CHECK(t, im.g.all != NULL); /* a file made that way is refused whole */
	image_close(&im);

	/* A search table naming the walk's FDEs is fine; one naming a hidden FDE refuses the file. */
	free(c.b);
	memset(&c, 0, sizeof(c));
	c.eh = true;
	cie = cfi_cie(&c, 16, cie_insns, sizeof(cie_insns));
	size_t outer = cfi_fde(&c, cie, 0x1000, 0x10, fde_insns, sizeof(fde_insns));
	size_t hider = c.n;
	size_t hidden_fde = fde_hiding(&c, cie, 0x1100, put_hostile_fde);
	size_t good = cfi_fde(&c, cie, 0x1300, 0x10, fde_insns, sizeof(fde_insns));
	cfi_u32(&c, 0);
	uint64_t honest[3][2] = { { 0x1000, outer }, { 0x1100, hider }, { 0x1300, good } };
	cfi_hdr(&h, honest, 3);
	CHECK(t, image_open(&im, &(struct cfi_elf_spec){ .machine = EM_X86_64, .eh = &c, .hdr = &h }));
	CHECK(t, !im.g.all && im.g.n_refused == 0);
	image_close(&im);
	/* The hidden FDE's own CIE pointer was written for where it sits: libdw would run it. */
	uint64_t lying[3][2] = { { 0x1000, outer }, { 0x1200, hidden_fde }, { 0x1300, good } };
	free(h.b);
	memset(&h, 0, sizeof(h));
	cfi_hdr(&h, lying, 3);
	CHECK(t, image_open(&im, &(struct cfi_elf_spec){ .machine = EM_X86_64, .eh = &c, .hdr = &h }));
	CHECK(t, im.g.all && strstr(im.g.all, ".eh_frame_hdr names an FDE"));
	CHECK(t, stk_cfi_guard_check(&im.g, 0x1305) != NULL);
	image_close(&im);
	free(c.b);
	free(h.b);
}

/* Without section headers libdw follows PT_GNU_EH_FRAME: so does the guard. */
static void checks_eh_frame_found_by_program_header(struct test_ctx *t)
{
	const uint8_t bad[] = { DW_CFA_undefined, 0x80, 0x92, 0xf4, 0x01 };
	struct cfi_bytes c = { .eh = true }, h = { .eh = true };
	struct image im;
	size_t cie = cfi_cie(&c, 16, cie_insns, sizeof(cie_insns));
	size_t a = cfi_fde(&c, cie, 0x1000, 0x10, fde_insns, sizeof(fde_insns));
	size_t b = cfi_fde(&c, cie, 0x1100, 0x10, bad, sizeof(bad));
	uint64_t table[2][2] = { { 0x1000, a }, { 0x1100, b } };
	size_t shnum = 1;

	cfi_u32(&c, 0);
	cfi_hdr(&h, table, 2);
	CHECK(t, image_open(&im, &(struct cfi_elf_spec){ .machine = EM_X86_64, .eh = &c, .hdr = &h,
							.no_section_headers = true }));
	CHECK(t, im.e && elf_getshdrnum(im.e, &shnum) == 0 && shnum == 0);
	CHECK(t, !im.g.all && im.g.fdes == 2);
	CHECK(t, stk_cfi_guard_check(&im.g, 0x1005) == NULL);
	CHECK(t, stk_cfi_guard_check(&im.g, 0x1105) != NULL);
	image_close(&im);
	free(c.b);
	free(h.b);
}

/* .debug_frame (libdwfl's second source of CFI), plain and zlib-compressed. */
static void checks_debug_frame(struct test_ctx *t)
{
	const uint8_t bad[] = { DW_CFA_undefined, 0x80, 0x92, 0xf4, 0x01 };
	struct cfi_bytes c = { .eh = false };
	size_t cie = cfi_cie(&c, 16, cie_insns, sizeof(cie_insns));

	cfi_fde(&c, cie, 0x1000, 0x10, fde_insns, sizeof(fde_insns));
	cfi_fde(&c, cie, 0x1100, 0x10, bad, sizeof(bad));
	for (int compressed = 0; compressed < 2; compressed++) {
		struct image im;

		CHECK(t, image_open(&im, &(struct cfi_elf_spec){ .machine = EM_X86_64, .debug = &c,
								.compress_debug = compressed }));
		CHECK(t, !im.g.all && im.g.fdes == 2);
		CHECK(t, stk_cfi_guard_check(&im.g, 0x1005) == NULL);
		CHECK(t, stk_cfi_guard_check(&im.g, 0x1105) != NULL);
		if (stk_cfi_guard_check(&im.g, 0x1105) == NULL)
			printf("  %s .debug_frame: %zu FDEs seen\n", compressed ? "compressed" : "plain", im.g.fdes);
		image_close(&im);
	}
	free(c.b);
}

const struct test_case cfi_guard_tests[] = {
	{ "cfi_guard_passes_compiler_cfi", passes_compiler_cfi_as_libdw_reads_it },
	{ "cfi_guard_register_bound", refuses_registers_above_the_architecture },
	{ "cfi_guard_bounds_exact", bounds_are_exact },
	{ "cfi_guard_ranges_and_cies", refused_ranges_and_cies },
	{ "cfi_guard_entries_outside_walk", refuses_entries_outside_the_walk },
	{ "cfi_guard_program_header_path", checks_eh_frame_found_by_program_header },
	{ "cfi_guard_debug_frame", checks_debug_frame },
	{ NULL, NULL },
};
