/*
 * Test images for the CFI guard (tests/unit/test_cfi_guard.c and
 * tests/fuzz/fuzz_cfi_guard.c): CFI entries put together byte by byte, and a
 * small ELF file written by libelf around them (.text at TEXT_VADDR, then
 * .eh_frame_hdr, .eh_frame, .debug_frame as given), optionally without
 * section headers so that only PT_GNU_EH_FRAME leads to the CFI.
 */
#ifndef STK_TEST_CFI_ELF_H
#define STK_TEST_CFI_ELF_H

#include <dwarf.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define CFI_TEXT_VADDR 0x1000u
#define CFI_TEXT_SIZE 0x1000u
#define CFI_HDR_VADDR 0x2000u
#define CFI_EH_VADDR 0x3000u

/* CFI bytes being written: .eh_frame format (pcrel sdata4 addresses), or .debug_frame's. */
struct cfi_bytes {
	uint8_t *b;
	size_t n, cap;
	bool eh;
	bool oom;
};

static inline void cfi_put(struct cfi_bytes *c, const void *p, size_t n)
{
	if (!n)
		return;
	if (c->n + n > c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 256;
		uint8_t *b;

		while (cap < c->n + n)
			cap *= 2;
		if (!(b = realloc(c->b, cap))) {
			c->oom = true;
			return;
		}
		c->b = b;
		c->cap = cap;
	}
	memcpy(c->b + c->n, p, n);
	c->n += n;
}

static inline void cfi_u8(struct cfi_bytes *c, uint8_t v)
{
	cfi_put(c, &v, 1);
}

static inline void cfi_u32(struct cfi_bytes *c, uint32_t v)
{
	cfi_put(c, &v, 4); /* little-endian hosts only (x86_64, aarch64) */
}

static inline void cfi_u64(struct cfi_bytes *c, uint64_t v)
{
	cfi_put(c, &v, 8);
}

static inline void cfi_uleb(struct cfi_bytes *c, uint64_t v)
{
	do {
		uint8_t b = v & 0x7f;

		v >>= 7;
		cfi_u8(c, b | (v ? 0x80 : 0));
	} while (v);
}

static inline void cfi_sleb(struct cfi_bytes *c, int64_t v)
{
	for (;;) {
		uint8_t b = v & 0x7f;

		v >>= 7;
		if ((v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40))) {
			cfi_u8(c, b);
			return;
		}
		cfi_u8(c, b | 0x80);
	}
}

/* Pads the entry begun at `at` with DW_CFA_nop to a multiple of 8 and writes its length. */
static inline void cfi_end_entry(struct cfi_bytes *c, size_t at)
{
	uint32_t len;

	while ((c->n - at) % 8)
		cfi_u8(c, DW_CFA_nop);
	if (c->oom)
		return;
	len = (uint32_t)(c->n - at - 4);
	memcpy(c->b + at, &len, 4);
}

/* A CIE (version 3: the return address register is a ULEB128) with these initial instructions. */
static inline size_t cfi_cie(struct cfi_bytes *c, uint64_t ra, const uint8_t *insns, size_t n)
{
	size_t at = c->n;

	cfi_u32(c, 0);
	cfi_u32(c, c->eh ? 0 : 0xffffffffu);
	cfi_u8(c, 3);
	cfi_put(c, c->eh ? "zR" : "", c->eh ? 3 : 1);
	cfi_uleb(c, 1);
	cfi_sleb(c, -8);
	cfi_uleb(c, ra);
	if (c->eh) {
		cfi_uleb(c, 1);
		cfi_u8(c, DW_EH_PE_pcrel | DW_EH_PE_sdata4);
	}
	cfi_put(c, insns, n);
	cfi_end_entry(c, at);
	return at;
}

/* An FDE of the CIE at cie, for [start, start + len) (ELF vaddrs); its offset. */
static inline size_t cfi_fde(struct cfi_bytes *c, size_t cie, uint64_t start, uint64_t len, const uint8_t *insns,
			     size_t n)
{
	size_t at = c->n;

	cfi_u32(c, 0);
	if (c->eh) {
		cfi_u32(c, (uint32_t)(c->n - cie)); /* back from this field to the CIE */
		cfi_u32(c, (uint32_t)(int32_t)(start - (CFI_EH_VADDR + c->n)));
		cfi_u32(c, (uint32_t)len);
		cfi_uleb(c, 0);
	} else {
		cfi_u32(c, (uint32_t)cie);
		cfi_u64(c, start);
		cfi_u64(c, len);
	}
	cfi_put(c, insns, n);
	cfi_end_entry(c, at);
	return at;
}

/* .eh_frame_hdr with a search table of (initial location, FDE offset in .eh_frame) pairs, sorted by the caller. */
static inline void cfi_hdr(struct cfi_bytes *h, const uint64_t (*pairs)[2], size_t n)
{
	cfi_u8(h, 1);
	cfi_u8(h, DW_EH_PE_pcrel | DW_EH_PE_sdata4);
	cfi_u8(h, DW_EH_PE_udata4);
	cfi_u8(h, DW_EH_PE_datarel | DW_EH_PE_sdata4);
	cfi_u32(h, (uint32_t)(int32_t)(CFI_EH_VADDR - (CFI_HDR_VADDR + 4)));
	cfi_u32(h, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		cfi_u32(h, (uint32_t)(int32_t)(pairs[i][0] - CFI_HDR_VADDR));
		cfi_u32(h, (uint32_t)(int32_t)(CFI_EH_VADDR + pairs[i][1] - CFI_HDR_VADDR));
	}
}

struct cfi_elf_spec {
	uint16_t machine;
	const struct cfi_bytes *eh, *hdr, *debug; /* NULL: no such section */
	bool compress_debug;                      /* .debug_frame SHF_COMPRESSED (zlib) */
	bool no_section_headers;                  /* found through PT_GNU_EH_FRAME only */
};

static inline Elf_Scn *cfi_elf_section(Elf *w, size_t name_off, uint32_t type, uint64_t flags, uint64_t addr,
				       const void *data, size_t size)
{
	Elf_Scn *scn = elf_newscn(w);
	Elf_Data *d = scn ? elf_newdata(scn) : NULL;
	GElf_Shdr sh;

	if (!d || !gelf_getshdr(scn, &sh))
		return NULL;
	d->d_buf = (void *)data;
	d->d_size = size;
	d->d_type = ELF_T_BYTE;
	d->d_align = 1;
	sh.sh_name = (uint32_t)name_off;
	sh.sh_type = type;
	sh.sh_flags = flags;
	sh.sh_addr = addr;
	sh.sh_addralign = 1;
	sh.sh_size = size;
	return gelf_update_shdr(scn, &sh) ? scn : NULL;
}

/* Places scn at offset (its address too, where it has one: file offsets equal addresses). */
static inline bool cfi_elf_place(Elf_Scn *scn, uint64_t offset)
{
	GElf_Shdr sh;

	if (!gelf_getshdr(scn, &sh))
		return false;
	sh.sh_offset = offset;
	return gelf_update_shdr(scn, &sh) != 0;
}

/*
 * The image as a file (a memfd, *fd) opened for reading; NULL on failure.
 * Laid out by hand so that file offsets equal addresses, as PT_GNU_EH_FRAME
 * readers assume: .text at 0x1000, .eh_frame_hdr at 0x2000 (at most 4 KiB),
 * .eh_frame at 0x3000, then .debug_frame, the names, the section headers.
 */
static inline Elf *cfi_elf_open(const struct cfi_elf_spec *s, int *fd)
{
	static const char strtab[] = "\0.text\0.eh_frame_hdr\0.eh_frame\0.debug_frame\0.shstrtab";
	static uint8_t text[CFI_TEXT_SIZE];
	Elf *w = NULL, *r = NULL;
	Elf_Scn *scn[5] = { NULL }; /* text, hdr, eh, debug, names */
	uint64_t at;
	GElf_Ehdr eh;
	GElf_Phdr ph = { 0 };
	GElf_Shdr sh;

	elf_version(EV_CURRENT);
	if ((*fd = memfd_create("cfi", MFD_CLOEXEC)) < 0)
		return NULL;
	if ((s->hdr && s->hdr->n > 0x1000) || !(w = elf_begin(*fd, ELF_C_WRITE, NULL)))
		goto out;
	elf_flagelf(w, ELF_C_SET, ELF_F_LAYOUT);
	if (!gelf_newehdr(w, ELFCLASS64) || !gelf_getehdr(w, &eh))
		goto out;
	/* the byte order first: compressing a section needs it */
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_machine = s->machine;
	eh.e_type = ET_DYN;
	eh.e_version = EV_CURRENT;
	if (!gelf_update_ehdr(w, &eh) || (s->hdr && !gelf_newphdr(w, 1)))
		goto out;
	if (!(scn[0] = cfi_elf_section(w, 1, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, CFI_TEXT_VADDR, text,
				       sizeof(text))) ||
	    (s->hdr && !(scn[1] = cfi_elf_section(w, 7, SHT_PROGBITS, SHF_ALLOC, CFI_HDR_VADDR, s->hdr->b, s->hdr->n))) ||
	    (s->eh && !(scn[2] = cfi_elf_section(w, 21, SHT_PROGBITS, SHF_ALLOC, CFI_EH_VADDR, s->eh->b, s->eh->n))) ||
	    (s->debug && !(scn[3] = cfi_elf_section(w, 31, SHT_PROGBITS, 0, 0, s->debug->b, s->debug->n))) ||
	    !(scn[4] = cfi_elf_section(w, 44, SHT_STRTAB, 0, 0, strtab, sizeof(strtab))))
		goto out;
	if (s->debug && s->compress_debug && elf_compress(scn[3], ELFCOMPRESS_ZLIB, ELF_CHF_FORCE) != 1)
		goto out;
	at = CFI_EH_VADDR + (s->eh ? s->eh->n : 0);
	if (!cfi_elf_place(scn[0], CFI_TEXT_VADDR) || (scn[1] && !cfi_elf_place(scn[1], CFI_HDR_VADDR)) ||
	    (scn[2] && !cfi_elf_place(scn[2], CFI_EH_VADDR)))
		goto out;
	for (int i = 3; i < 5; i++) {
		if (!scn[i])
			continue;
		if (!cfi_elf_place(scn[i], at) || !gelf_getshdr(scn[i], &sh))
			goto out;
		at += sh.sh_size;
	}
	if (!gelf_getehdr(w, &eh)) /* again: gelf_newphdr changed it */
		goto out;
	eh.e_phoff = s->hdr ? 0x40 : 0;
	eh.e_shoff = (at + 7) & ~7ull;
	eh.e_shstrndx = (uint16_t)elf_ndxscn(scn[4]);
	if (!gelf_update_ehdr(w, &eh))
		goto out;
	if (s->hdr) {
		ph.p_type = PT_GNU_EH_FRAME;
		ph.p_flags = PF_R;
		ph.p_offset = ph.p_vaddr = ph.p_paddr = CFI_HDR_VADDR;
		ph.p_filesz = ph.p_memsz = s->hdr->n;
		ph.p_align = 4;
		if (!gelf_update_phdr(w, 0, &ph))
			goto out;
	}
	if (elf_update(w, ELF_C_WRITE) < 0)
		goto out;
	elf_end(w);
	w = NULL;
	if (s->no_section_headers) {
		/* e_shoff, e_shnum, e_shstrndx of an Elf64_Ehdr: no sections at all */
		static const uint8_t zero[8];

		if (pwrite(*fd, zero, 8, 0x28) != 8 || pwrite(*fd, zero, 2, 0x3c) != 2 || pwrite(*fd, zero, 2, 0x3e) != 2)
			goto out;
	}
	r = elf_begin(*fd, ELF_C_READ, NULL);
out:
	if (w)
		elf_end(w);
	if (!r) {
		close(*fd);
		*fd = -1;
	}
	return r;
}

#endif
