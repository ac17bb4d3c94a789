/* A file's CFI sections, found where libdw finds them: see cfi_sections.h. */
#include "core/unwind/cfi_sections.h"

#include <dwarf.h>
#include <gelf.h>
#include <string.h>

#include "core/unwind/cfi_bounds.h"

#define STR_(x) #x
#define STR(x) STR_(x)

static const char too_big[] = "CFI refused: a CFI section (or a file without section headers) over "
			      STR(STK_CFI_MAX_SECTION_BYTES) " bytes";

/* .eh_frame_hdr as libdw's parse_eh_frame_hdr reads it. */
struct header {
	bool valid; /* false: libdw takes no CFI through it */
	uint64_t eh_frame_ptr;
};

static struct stk_cfi_section like(Elf *e)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(e, NULL);

	return (struct stk_cfi_section){ .address_size = ident && ident[EI_CLASS] == ELFCLASS32 ? 4 : 8,
					 .big_endian = ident && ident[EI_DATA] == ELFDATA2MSB };
}

/* The header at hdr (size bytes, at vaddr); its search table into src (n stays 0 without one). */
static struct header parse_header(Elf *e, const uint8_t *hdr, size_t size, uint64_t vaddr, struct stk_cfi_source *src)
{
	struct stk_cfi_section hs = like(e);
	const uint8_t *p = hdr + 4, *end = hdr + size;
	struct header h = { 0 };
	uint64_t count;
	unsigned vsize;

	if (size < 4 || hdr[0] != 1 || hdr[1] == DW_EH_PE_omit)
		return h;
	hs.data = hdr;
	hs.size = size;
	hs.frame_vaddr = hs.datarel = vaddr;
	if (!stk_cfi_read_encoded(&hs, hdr[1], &p, end, &h.eh_frame_ptr))
		return h;
	if (hdr[2] != DW_EH_PE_omit) {
		if (!stk_cfi_read_encoded(&hs, hdr[2], &p, end, &count))
			return h;
		if (count && hdr[3] != DW_EH_PE_omit && (hdr[3] & ~DW_EH_PE_signed) != DW_EH_PE_uleb128) {
			vsize = stk_cfi_encoded_size(&hs, hdr[3]);
			if (!vsize || count > (size_t)(end - p) / vsize / 2)
				return h; /* libdw refuses the header, and with it the CFI */
			/* libdw reads the entries pcrel from the table's start */
			src->table = hs;
			src->table.data = p;
			src->table.size = (size_t)(end - p);
			src->table_encoding = hdr[3];
			src->n = (size_t)count;
		}
	}
	h.valid = true;
	return h;
}

static bool hand_over(Elf *e, Elf_Data *data, uint64_t vaddr, struct stk_cfi_source *src, stk_cfi_source_fn fn,
		      void *ctx)
{
	src->data = data;
	src->sec = like(e);
	src->sec.data = data->d_buf;
	src->sec.size = data->d_size;
	src->sec.frame_vaddr = vaddr;
	src->sec.eh_frame = true;
	return fn(ctx, src);
}

/* .eh_frame found by its section header (libdw's first choice). */
static const char *eh_frame_from_section(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, Elf_Scn *hdr_scn,
					 uint64_t hdr_vaddr, stk_cfi_source_fn fn, void *ctx)
{
	struct stk_cfi_source src = { 0 };
	Elf_Data *data, *hdr;
	GElf_Shdr hsh;

	if (sh->sh_size > STK_CFI_MAX_SECTION_BYTES ||
	    (hdr_scn && gelf_getshdr(hdr_scn, &hsh) && hsh.sh_size > STK_CFI_MAX_SECTION_BYTES))
		return too_big;
	if (!(data = elf_rawdata(scn, NULL)) || !data->d_buf)
		return NULL; /* libdw has no .eh_frame CFI then */
	if (hdr_scn && (hdr = elf_rawdata(hdr_scn, NULL)) && hdr->d_buf &&
	    parse_header(e, hdr->d_buf, hdr->d_size, hdr_vaddr, &src).eh_frame_ptr != sh->sh_addr)
		src.n = 0; /* libdw's own check: a header of another .eh_frame is not used */
	hand_over(e, data, sh->sh_addr, &src, fn, ctx);
	return NULL;
}

/* No .eh_frame section: PT_GNU_EH_FRAME, whose .eh_frame libdw takes to run to the end of the file. */
static const char *eh_frame_from_phdr(Elf *e, stk_cfi_source_fn fn, void *ctx)
{
	struct stk_cfi_source src = { 0 };
	struct header h;
	size_t phnum, file_size;
	GElf_Phdr ph;
	Elf_Data *hdr, *data;
	uint64_t offset;

	if (elf_getphdrnum(e, &phnum))
		return NULL;
	for (size_t i = 0;; i++) {
		if (i == phnum || !gelf_getphdr(e, (int)i, &ph))
			return NULL;
		if (ph.p_type == PT_GNU_EH_FRAME)
			break;
	}
	/* libdw reads the whole file here: refused before it does, when that is big. */
	if (elf_getdata_rawchunk(e, STK_CFI_MAX_SECTION_BYTES, 1, ELF_T_BYTE) || ph.p_filesz > STK_CFI_MAX_SECTION_BYTES)
		return too_big;
	if (!(hdr = elf_getdata_rawchunk(e, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_BYTE)) || !hdr->d_buf)
		return NULL;
	h = parse_header(e, hdr->d_buf, ph.p_filesz, ph.p_vaddr, &src);
	if (!h.valid || !elf_rawfile(e, &file_size))
		return NULL;
	offset = h.eh_frame_ptr - ph.p_vaddr + ph.p_offset;
	if (offset > file_size || !(data = elf_getdata_rawchunk(e, (int64_t)offset, file_size - offset, ELF_T_BYTE)))
		return NULL;
	hand_over(e, data, h.eh_frame_ptr, &src, fn, ctx);
	return NULL;
}

/* .eh_frame as libdw's dwarf_getcfi_elf finds it. */
static const char *eh_frame(Elf *e, stk_cfi_source_fn fn, void *ctx)
{
	Elf_Scn *scn = NULL, *hdr_scn = NULL;
	uint64_t hdr_vaddr = 0;
	size_t shstrndx;

	if (elf_getshdrstrndx(e, &shstrndx))
		return NULL;
	while (shstrndx && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstrndx, sh.sh_name)))
			continue;
		if (strcmp(name, ".eh_frame_hdr") == 0) {
			hdr_scn = scn;
			hdr_vaddr = sh.sh_addr;
		} else if (strcmp(name, ".eh_frame") == 0) {
			return sh.sh_type == SHT_NOBITS ? NULL : eh_frame_from_section(e, scn, &sh, hdr_scn, hdr_vaddr, fn, ctx);
		}
	}
	return eh_frame_from_phdr(e, fn, ctx);
}

/* The names libdw's dwarf_begin_elf takes for .debug_frame (compressed, split, LTO). */
static bool debug_frame_name(const char *n)
{
	static const char *const names[] = { ".debug_frame", ".zdebug_frame", ".debug_frame.dwo",
					     ".zdebug_frame.dwo", ".gnu.debuglto_.debug_frame" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(n, names[i]) == 0)
			return true;
	return false;
}

/* A compressed section's size once inflated (libdw inflates it on first use). 0: not compressed or unreadable. */
static uint64_t inflated_size(Elf_Scn *scn, const GElf_Shdr *sh, bool gnu)
{
	GElf_Chdr ch;
	Elf_Data *raw;
	uint64_t size = 0;

	if (sh->sh_flags & SHF_COMPRESSED)
		return gelf_getchdr(scn, &ch) ? ch.ch_size : 0;
	/* .zdebug: "ZLIB", then the size as 8 big-endian bytes */
	if (!gnu || !(raw = elf_rawdata(scn, NULL)) || raw->d_size < 12 || memcmp(raw->d_buf, "ZLIB", 4) != 0)
		return 0;
	for (int i = 4; i < 12; i++)
		size = size << 8 | ((const uint8_t *)raw->d_buf)[i];
	return size;
}

static const char *debug_frames(Elf *e, stk_cfi_source_fn fn, void *ctx)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(e, &shstrndx) || !shstrndx)
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		struct stk_cfi_source src = { 0 };
		GElf_Shdr sh;
		const char *name;
		bool gnu;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !(name = elf_strptr(e, shstrndx, sh.sh_name)) ||
		    !debug_frame_name(name))
			continue;
		gnu = name[1] == 'z';
		if (sh.sh_size > STK_CFI_MAX_SECTION_BYTES || inflated_size(scn, &sh, gnu) > STK_CFI_MAX_SECTION_BYTES)
			return too_big;
		/* As libdw: a .zdebug section is inflated if it can be (and used either way), an
		 * SHF_COMPRESSED one must inflate or is ignored. */
		if (gnu)
			elf_compress_gnu(scn, 0, 0);
		if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
			continue;
		if (!(src.data = elf_getdata(scn, NULL)) || !src.data->d_buf || !src.data->d_size)
			continue;
		src.sec = like(e);
		src.sec.data = src.data->d_buf;
		src.sec.size = src.data->d_size;
		if (!fn(ctx, &src))
			return NULL;
	}
	return NULL;
}

/* Stops after .eh_frame when fn asked to. */
struct relay {
	stk_cfi_source_fn fn;
	void *ctx;
	bool stopped;
};

static bool relay(void *ctx, const struct stk_cfi_source *src)
{
	struct relay *r = ctx;

	r->stopped = !r->fn(r->ctx, src);
	return !r->stopped;
}

const char *stk_cfi_sources(Elf *e, stk_cfi_source_fn fn, void *ctx)
{
	struct relay r = { fn, ctx, false };
	const char *why = eh_frame(e, relay, &r);

	return why || r.stopped ? why : debug_frames(e, fn, ctx);
}
