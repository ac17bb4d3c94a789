/* jit-PID.dump parsing: names into a perf map, each code load's .eh_frame kept once. */
#include "core/sym/jitdump.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"
#include "core/base/untrusted_file.h"

#define JITDUMP_MAGIC 0x4A695444u /* "JiTD" in the writer's byte order */
#define JITDUMP_MAGIC_SWAPPED 0x4454694Au
#define HEADER_MIN 40 /* magic, version, total_size, elf_mach, pad1, pid, timestamp, flags */
#define RECORD_HEAD 16 /* id, total_size, timestamp */

enum record_id {
	CODE_LOAD = 0,
	CODE_MOVE = 1,
	CODE_DEBUG_INFO = 2,
	CODE_CLOSE = 3,
	CODE_UNWINDING_INFO = 4,
};

/* Fixed parts after the record head: pid, tid, vma, code_addr, code_size, code_index. */
#define LOAD_FIXED 40
/* unwinding_size, eh_frame_hdr_size, mapped_size */
#define UNWIND_FIXED 24

static uint32_t u32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t u64_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

struct parse {
	struct stk_jitdump *d;
	/* the unwinding record waiting for the next code load: offsets into cfi_bytes, or none */
	bool pending;
	size_t pending_offset, pending_size;
	size_t *eh_offsets; /* each eh_frame's offset into cfi_bytes while it may still move */
	size_t cap_eh_offsets, cap_cfi;
};

/* .eh_frame's bytes (the .eh_frame_hdr after them is not needed: libdw finds the FDE itself). */
static int take_unwinding(struct parse *ps, const uint8_t *rec, size_t len)
{
	struct stk_jitdump *d = ps->d;
	uint64_t size, hdr_size, eh_size;

	ps->pending = false;
	if (len < RECORD_HEAD + UNWIND_FIXED)
		return 0;
	size = u64_at(rec + RECORD_HEAD);
	hdr_size = u64_at(rec + RECORD_HEAD + 8);
	/* a size the record does not hold, or a header bigger than the whole */
	if (size > len - RECORD_HEAD - UNWIND_FIXED || hdr_size > size)
		return 0;
	eh_size = size - hdr_size;
	if (!eh_size || eh_size > STK_JITDUMP_MAX_CFI) {
		d->cfi_dropped += eh_size > 0;
		return 0;
	}
	/* JITs write the same CFI for every trampoline: kept once while it repeats */
	if (d->n_eh_frames) {
		size_t last = ps->eh_offsets[d->n_eh_frames - 1];

		if (d->eh_frames[d->n_eh_frames - 1].size == eh_size &&
		    memcmp(d->cfi_bytes + last, rec + RECORD_HEAD + UNWIND_FIXED, eh_size) == 0) {
			ps->pending = true;
			ps->pending_offset = last;
			ps->pending_size = eh_size;
			return 0;
		}
	}
	if (d->cfi_len + eh_size > STK_JITDUMP_MAX_CFI_TOTAL) {
		d->cfi_dropped++;
		return 0;
	}
	if (stk_grow((void **)&d->cfi_bytes, &ps->cap_cfi, d->cfi_len + eh_size, 1))
		return -1;
	memcpy(d->cfi_bytes + d->cfi_len, rec + RECORD_HEAD + UNWIND_FIXED, eh_size);
	ps->pending = true;
	ps->pending_offset = d->cfi_len;
	ps->pending_size = eh_size;
	d->cfi_len += eh_size;
	return 0;
}

/* The eh_frame entry of the pending CFI for code of code_size (one per distinct bytes and placement). */
static int eh_frame_index(struct parse *ps, uint64_t code_size, uint32_t *index)
{
	struct stk_jitdump *d = ps->d;
	uint64_t addr = (code_size + 7) & ~(uint64_t)7;
	size_t n = d->n_eh_frames;

	if (n && ps->eh_offsets[n - 1] == ps->pending_offset && d->eh_frames[n - 1].addr == addr) {
		*index = (uint32_t)(n - 1);
		return 0;
	}
	if (stk_grow((void **)&d->eh_frames, &d->cap_eh_frames, n + 1, sizeof(*d->eh_frames)) ||
	    stk_grow((void **)&ps->eh_offsets, &ps->cap_eh_offsets, n + 1, sizeof(*ps->eh_offsets)))
		return -1;
	d->eh_frames[n] = (struct stk_jit_eh_frame){ .size = ps->pending_size, .addr = addr };
	ps->eh_offsets[n] = ps->pending_offset;
	d->n_eh_frames++;
	*index = (uint32_t)n;
	return 0;
}

static int take_load(struct parse *ps, const uint8_t *rec, size_t len)
{
	struct stk_jitdump *d = ps->d;
	const uint8_t *name, *nul;
	uint64_t start, size;
	bool cfi = ps->pending;

	ps->pending = false; /* it applies to this load only */
	if (len < RECORD_HEAD + LOAD_FIXED + 1)
		return 0;
	start = u64_at(rec + RECORD_HEAD + 16);
	size = u64_at(rec + RECORD_HEAD + 24);
	name = rec + RECORD_HEAD + LOAD_FIXED;
	nul = memchr(name, '\0', len - RECORD_HEAD - LOAD_FIXED);
	/* the name ends in the record and the code bytes follow it there; the range does not wrap */
	if (!nul || !size || size > (uint64_t)(rec + len - (nul + 1)) || start + size < start)
		return 0;
	d->loads++;
	if (stk_perf_map_add(d->names, start, size, (const char *)name, (size_t)(nul - name)))
		return -1;
	if (!cfi || d->n_code >= STK_JITDUMP_MAX_CFI_CODE)
		return 0;
	if (stk_grow((void **)&d->code, &d->cap_code, d->n_code + 1, sizeof(*d->code)))
		return -1;
	d->code[d->n_code] = (struct stk_jit_cfi_code){ .start = start, .size = size };
	if (eh_frame_index(ps, size, &d->code[d->n_code].eh_frame))
		return -1;
	d->n_code++;
	return 0;
}

/* Records from the header's end; -1 on ENOMEM. */
static int parse_records(struct parse *ps, const uint8_t *buf, size_t len, size_t at)
{
	struct stk_jitdump *d = ps->d;

	while (at < len) {
		uint32_t id, size;

		if (d->records >= STK_JITDUMP_MAX_RECORDS) {
			d->stop = "too many records";
			return 0;
		}
		if (len - at < RECORD_HEAD) {
			d->stop = "a record cut short";
			return 0;
		}
		id = u32_at(buf + at);
		size = u32_at(buf + at + 4);
		/* a size that does not move on or runs past what was read: nothing after it can be trusted */
		if (size < RECORD_HEAD || size > len - at) {
			d->stop = size < RECORD_HEAD ? "a record's size is smaller than its head" : "a record cut short";
			return 0;
		}
		d->records++;
		if (id == CODE_LOAD && take_load(ps, buf + at, size))
			return -1;
		if (id == CODE_UNWINDING_INFO && take_unwinding(ps, buf + at, size))
			return -1;
		if (id == CODE_CLOSE)
			return 0;
		/* moves and debug info are not followed: CPython, V8 and the JVM's agents load code anew */
		at += size;
	}
	return 0;
}

struct stk_jitdump *stk_jitdump_parse(const uint8_t *buf, size_t len, const char **why)
{
	struct parse ps = { 0 };
	struct stk_jitdump *d;
	uint32_t magic, header_size;

	*why = NULL;
	if (len < HEADER_MIN) {
		*why = "shorter than a jitdump header";
		return NULL;
	}
	magic = u32_at(buf);
	if (magic != JITDUMP_MAGIC) {
		*why = magic == JITDUMP_MAGIC_SWAPPED ? "written in the other byte order" : "no jitdump magic";
		return NULL;
	}
	header_size = u32_at(buf + 8);
	if (header_size < HEADER_MIN || header_size > len) {
		*why = "its header's size is wrong";
		return NULL;
	}
	if (!(d = calloc(1, sizeof(*d))) || !(d->names = stk_perf_map_new())) {
		free(d);
		return NULL;
	}
	d->machine = (uint16_t)u32_at(buf + 12);
	ps.d = d;
	if (parse_records(&ps, buf, len, header_size)) {
		free(ps.eh_offsets);
		stk_jitdump_free(d);
		return NULL;
	}
	/* cfi_bytes moves no more */
	for (size_t i = 0; i < d->n_eh_frames; i++)
		d->eh_frames[i].bytes = d->cfi_bytes + ps.eh_offsets[i];
	free(ps.eh_offsets);
	stk_perf_map_sort(d->names);
	return d;
}

struct stk_jitdump *stk_jitdump_parse_fd(int fd, uint64_t max_bytes, const char **why)
{
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	struct stk_jitdump *d;

	*why = NULL;
	if (max_bytes > STK_JITDUMP_MAX_SIZE)
		max_bytes = STK_JITDUMP_MAX_SIZE;
	/* read until its end (a file still growing: as far as it got), within the bound */
	while (len < max_bytes) {
		size_t want = max_bytes - len < (1u << 20) ? (size_t)(max_bytes - len) : (1u << 20);
		ssize_t n;

		if (stk_grow((void **)&buf, &cap, len + want, 1)) {
			free(buf);
			return NULL;
		}
		n = stk_read_bounded(fd, buf + len, want, (off_t)len);
		if (n < 0) {
			*why = strerror((int)-n);
			free(buf);
			return NULL;
		}
		len += (size_t)n;
		/* no magic: not worth reading the rest */
		if ((size_t)n < want || (len >= 4 && u32_at(buf) != JITDUMP_MAGIC))
			break;
	}
	d = stk_jitdump_parse(buf, len, why);
	free(buf);
	return d;
}

void stk_jitdump_free(struct stk_jitdump *d)
{
	if (!d)
		return;
	stk_perf_map_free(d->names);
	free(d->code);
	free(d->eh_frames);
	free(d->cfi_bytes);
	free(d);
}
