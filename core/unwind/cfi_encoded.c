/* CFI values read as libdw reads them: see cfi_encoded.h. */
#include "core/unwind/cfi_encoded.h"

#include <dwarf.h>

/* libdw reads at most this many bytes of one LEB128 number. */
#define LEB_MAX_BYTES 10

bool stk_cfi_read_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned i = 0; i < LEB_MAX_BYTES && *p < end; i++) {
		uint8_t b = *(*p)++;

		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

bool stk_cfi_read_sleb(const uint8_t **p, const uint8_t *end, int64_t *v)
{
	uint64_t x = 0;

	for (unsigned i = 0; i < LEB_MAX_BYTES && *p < end; i++) {
		uint8_t b = *(*p)++;

		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			if (7 * (i + 1) < 64 && (b & 0x40))
				x |= ~(uint64_t)0 << (7 * (i + 1));
			*v = (int64_t)x;
			return true;
		}
	}
	return false;
}

bool stk_cfi_read_fixed(const struct stk_cfi_section *s, const uint8_t **p, const uint8_t *end, unsigned n,
			uint64_t *v)
{
	uint64_t x = 0;

	if (*p > end || (size_t)(end - *p) < n)
		return false;
	for (unsigned i = 0; i < n; i++)
		x |= (uint64_t)(*p)[i] << (8 * (s->big_endian ? n - 1 - i : i));
	*p += n;
	*v = x;
	return true;
}

unsigned stk_cfi_encoded_size(const struct stk_cfi_section *s, uint8_t encoding)
{
	if (encoding == DW_EH_PE_omit)
		return 0;
	switch (encoding & 0x07) {
	case DW_EH_PE_udata2: return 2;
	case DW_EH_PE_udata4: return 4;
	case DW_EH_PE_udata8: return 8;
	case DW_EH_PE_absptr: return s->address_size;
	default: return 0;
	}
}

bool stk_cfi_read_encoded(const struct stk_cfi_section *s, uint8_t encoding, const uint8_t **p, const uint8_t *end,
			  uint64_t *v)
{
	uint64_t base = 0, x = 0;
	int64_t sx;

	if (*p < s->data || *p > end)
		return false;
	switch (encoding & 0x70) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_textrel: /* libdw's Dwarf_CFI has textrel 0, and ignores funcrel */
	case DW_EH_PE_funcrel:
		break;
	case DW_EH_PE_datarel:
		base = s->datarel;
		break;
	case DW_EH_PE_pcrel:
		base = s->frame_vaddr + (uint64_t)(*p - s->data);
		break;
	case DW_EH_PE_aligned: {
		unsigned size = stk_cfi_encoded_size(s, encoding);
		uint64_t misalign;

		if (!size)
			return false;
		misalign = (s->frame_vaddr + (uint64_t)(*p - s->data)) & (size - 1);
		if (misalign && (size_t)(end - *p) < size - misalign)
			return false;
		if (misalign)
			*p += size - misalign;
		break;
	}
	default:
		return false;
	}
	switch (encoding & 0x0f) {
	case DW_EH_PE_udata2:
		if (!stk_cfi_read_fixed(s, p, end, 2, &x))
			return false;
		break;
	case DW_EH_PE_sdata2:
		if (!stk_cfi_read_fixed(s, p, end, 2, &x))
			return false;
		x = (uint64_t)(int64_t)(int16_t)x;
		break;
	case DW_EH_PE_udata4:
		if (!stk_cfi_read_fixed(s, p, end, 4, &x))
			return false;
		break;
	case DW_EH_PE_sdata4:
		if (!stk_cfi_read_fixed(s, p, end, 4, &x))
			return false;
		x = (uint64_t)(int64_t)(int32_t)x;
		break;
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		if (!stk_cfi_read_fixed(s, p, end, 8, &x))
			return false;
		break;
	case DW_EH_PE_absptr:
		if (!stk_cfi_read_fixed(s, p, end, s->address_size, &x))
			return false;
		break;
	case DW_EH_PE_uleb128:
		if (!stk_cfi_read_uleb(p, end, &x))
			return false;
		break;
	case DW_EH_PE_sleb128:
		if (!stk_cfi_read_sleb(p, end, &sx))
			return false;
		x = (uint64_t)sx;
		break;
	default:
		return false;
	}
	x += base;
	if (encoding & DW_EH_PE_indirect) {
		/* The value is where, in this section, the address is stored. */
		const uint8_t *at;

		if (x < s->frame_vaddr || s->size < s->address_size || x - s->frame_vaddr > s->size - s->address_size)
			return false;
		at = s->data + (x - s->frame_vaddr);
		if (!stk_cfi_read_fixed(s, &at, s->data + s->size, s->address_size, &x))
			return false;
	}
	*v = x;
	return true;
}
