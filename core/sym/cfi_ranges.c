/*
 * Function ranges from call-frame information. Stripped binaries keep
 * .eh_frame (unwinders need it), and each FDE there covers one function's
 * [start, start + size): the function start gives code without symbols a
 * stable, distinct name. libdw's dwarf_next_cfi walks the entries; what it
 * leaves to its caller is decoding the FDE's two address fields, whose
 * encoding the CIE's augmentation ('R') names.
 */
#include "core/sym/cfi_ranges.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"

/* At most this many FDEs per file (a 100 MB binary has ~100k): bounds memory on hostile input. */
#define MAX_FDES (4u << 20)

struct cie_encoding {
	Dwarf_Off offset;
	uint8_t fde_encoding; /* DW_EH_PE_* for the FDE's address fields */
};

struct reader {
	const uint8_t *p, *end;
	bool big_endian;
};

static bool read_fixed(struct reader *r, size_t n, uint64_t *v)
{
	uint64_t x = 0;

	if ((size_t)(r->end - r->p) < n)
		return false;
	for (size_t i = 0; i < n; i++)
		x |= (uint64_t)r->p[r->big_endian ? i : n - 1 - i] << (8 * (n - 1 - i));
	r->p += n;
	*v = x;
	return true;
}

static bool read_leb(struct reader *r, bool sign, uint64_t *v)
{
	uint64_t x = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		if (r->p >= r->end || shift >= 64)
			return false;
		b = *r->p++;
		x |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (sign && shift < 64 && (b & 0x40))
		x |= ~(uint64_t)0 << shift;
	*v = x;
	return true;
}

/* One value in encoding's format (no application: pcrel is added by the caller). */
static bool read_encoded(struct reader *r, uint8_t encoding, size_t address_size, uint64_t *v)
{
	uint64_t x;

	switch (encoding & 0x0f) {
	case DW_EH_PE_absptr:
		return read_fixed(r, address_size, v);
	case DW_EH_PE_uleb128:
		return read_leb(r, false, v);
	case DW_EH_PE_sleb128:
		return read_leb(r, true, v);
	case DW_EH_PE_udata2:
		return read_fixed(r, 2, v);
	case DW_EH_PE_udata4:
		return read_fixed(r, 4, v);
	case DW_EH_PE_udata8:
		return read_fixed(r, 8, v);
	case DW_EH_PE_sdata2:
		if (!read_fixed(r, 2, &x))
			return false;
		*v = (uint64_t)(int64_t)(int16_t)x;
		return true;
	case DW_EH_PE_sdata4:
		if (!read_fixed(r, 4, &x))
			return false;
		*v = (uint64_t)(int64_t)(int32_t)x;
		return true;
	case DW_EH_PE_sdata8:
		return read_fixed(r, 8, v);
	}
	return false;
}

/* The FDE address encoding from a CIE's augmentation ("zR", "zPLR", ...). */
static uint8_t fde_encoding_of(const Dwarf_CIE *cie, bool eh_frame, size_t address_size, bool big_endian)
{
	struct reader r = { cie->augmentation_data, cie->augmentation_data + cie->augmentation_data_size,
			    big_endian };
	const char *a = cie->augmentation;
	uint64_t skip;

	if (!eh_frame || a[0] != 'z')
		return DW_EH_PE_absptr; /* .debug_frame: plain target addresses */
	for (a++; *a; a++) {
		uint8_t enc;

		if (*a == 'S')
			continue;
		if (r.p >= r.end)
			break;
		enc = *r.p++;
		if (*a == 'R')
			return enc;
		if (*a == 'P' && !read_encoded(&r, enc, address_size, &skip))
			break;
		if (*a != 'P' && *a != 'L')
			break;
	}
	return DW_EH_PE_absptr;
}

static int range_order(const void *a, const void *b)
{
	const struct stk_cfi_range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->size < y->size ? 1 : x->size > y->size ? -1 : 0;
}

/* Adds the FDEs of one section; -1 only when out of memory. */
static int scan_section(Elf *e, Elf_Scn *scn, bool eh_frame, struct stk_cfi_ranges *out, size_t *cap)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(e, NULL);
	size_t address_size = ident && ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
	bool big_endian = ident && ident[EI_DATA] == ELFDATA2MSB;
	struct cie_encoding *cies = NULL;
	size_t n_cies = 0, cap_cies = 0;
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry entry;
	Elf_Data *d = elf_getdata(scn, NULL);
	GElf_Shdr sh;
	int ret = 0;

	if (!ident || !d || !d->d_buf || !gelf_getshdr(scn, &sh))
		return 0;
	/* A corrupt entry ends the walk: the ranges found so far stay. */
	while (dwarf_next_cfi(ident, d, eh_frame, off, &next, &entry) == 0) {
		if (dwarf_cfi_cie_p(&entry)) {
			if (stk_grow((void **)&cies, &cap_cies, n_cies + 1, sizeof(*cies))) {
				ret = -1;
				break;
			}
			cies[n_cies].offset = off;
			cies[n_cies++].fde_encoding = fde_encoding_of(&entry.cie, eh_frame, address_size, big_endian);
		} else {
			uint8_t enc = DW_EH_PE_absptr;
			struct reader r = { entry.fde.start, entry.fde.end, big_endian };
			uint64_t start, size;

			/* CIEs come before their FDEs; a short linear search from the newest one. */
			for (size_t i = n_cies; i-- > 0;)
				if (cies[i].offset == entry.fde.CIE_pointer) {
					enc = cies[i].fde_encoding;
					break;
				}
			if (read_encoded(&r, enc, address_size, &start) &&
			    read_encoded(&r, enc & 0x0f, address_size, &size) && size) {
				if (enc & DW_EH_PE_indirect)
					size = 0; /* the field holds where the address is: not for FDEs */
				switch (enc & 0x70) {
				case DW_EH_PE_absptr:
					break;
				case DW_EH_PE_pcrel: /* relative to the field itself */
					start += sh.sh_addr + (uint64_t)(entry.fde.start - (const uint8_t *)d->d_buf);
					break;
				default: /* datarel, textrel, funcrel: not used for FDEs on Linux targets */
					size = 0;
				}
				if (size && out->n < MAX_FDES) {
					if (stk_grow((void **)&out->ranges, cap, out->n + 1, sizeof(*out->ranges))) {
						ret = -1;
						break;
					}
					out->ranges[out->n].start = start;
					out->ranges[out->n++].size = size;
				}
			}
		}
		if (next == (Dwarf_Off)-1 || next <= off)
			break;
		off = next;
	}
	free(cies);
	return ret;
}

int stk_cfi_ranges_read(Elf *e, struct stk_cfi_ranges *out)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx, cap = 0;

	memset(out, 0, sizeof(*out));
	if (elf_getshdrstrndx(e, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;
		bool eh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || (sh.sh_flags & SHF_COMPRESSED) ||
		    !(name = elf_strptr(e, shstrndx, sh.sh_name)))
			continue;
		eh = strcmp(name, ".eh_frame") == 0;
		if (!eh && strcmp(name, ".debug_frame") != 0)
			continue;
		if (scan_section(e, scn, eh, out, &cap)) {
			stk_cfi_ranges_free(out);
			return -1;
		}
	}
	if (out->n)
		qsort(out->ranges, out->n, sizeof(*out->ranges), range_order);
	/* .eh_frame and .debug_frame may both describe a function: keep the first of each start. */
	size_t kept = 0;
	for (size_t i = 0; i < out->n; i++)
		if (!kept || out->ranges[kept - 1].start != out->ranges[i].start)
			out->ranges[kept++] = out->ranges[i];
	out->n = kept;
	return 0;
}

long stk_cfi_ranges_lookup(const struct stk_cfi_ranges *c, uint64_t vaddr)
{
	size_t lo = 0, hi = c->n;

	if (!c->n || vaddr < c->ranges[0].start)
		return -1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->ranges[mid].start <= vaddr)
			lo = mid;
		else
			hi = mid;
	}
	return vaddr - c->ranges[lo].start < c->ranges[lo].size ? (long)lo : -1;
}

void stk_cfi_ranges_free(struct stk_cfi_ranges *c)
{
	free(c->ranges);
	memset(c, 0, sizeof(*c));
}
