/*
 * Unit tests' stand-in for the kernel unwinder's BPF maps (arrays behind
 * struct stk_unwind_maps_ops, recording the order of writes), and this
 * process as the symbolizer's process table has it, copied so a test may
 * change what it loads.
 */
#ifndef STK_TEST_FAKE_UNWIND_MAPS_H
#define STK_TEST_FAKE_UNWIND_MAPS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sym/symbolize.h"
#include "core/unwind/unwind_tables.h"

/* room for this test binary and its libraries, ASan's build included */
#define CAP_ROWS (4u << 20)
#define CAP_PAGES (256u << 10)
#define CAP_MAPS 256

struct fake_maps {
	struct stk_cfi_row *rows;
	uint32_t *pages;
	struct stk_unwind_mapping maps[CAP_MAPS];
	uint32_t tgid;
	struct stk_unwind_proc proc;
	bool has_proc;
	unsigned writes, proc_writes, deletes;
	bool proc_written_last; /* every proc write came after its rows and mappings */
	unsigned since_proc;
};

static inline int fake_rows(void *ctx, uint32_t first, const struct stk_cfi_row *rows, size_t n)
{
	struct fake_maps *f = ctx;

	if (first + n > CAP_ROWS)
		return -1;
	memcpy(&f->rows[first], rows, n * sizeof(*rows));
	f->writes++;
	f->since_proc++;
	return 0;
}

static inline int fake_pages(void *ctx, uint32_t first, const uint32_t *pages, size_t n)
{
	struct fake_maps *f = ctx;

	if (first + n > CAP_PAGES)
		return -1;
	memcpy(&f->pages[first], pages, n * sizeof(*pages));
	f->writes++;
	f->since_proc++;
	return 0;
}

static inline int fake_mappings(void *ctx, uint32_t first, const struct stk_unwind_mapping *m, size_t n)
{
	struct fake_maps *f = ctx;

	if (first + n > CAP_MAPS)
		return -1;
	memcpy(&f->maps[first], m, n * sizeof(*m));
	f->writes++;
	f->since_proc++;
	return 0;
}

static inline int fake_proc(void *ctx, uint32_t tgid, const struct stk_unwind_proc *p)
{
	struct fake_maps *f = ctx;

	f->tgid = tgid;
	f->proc = *p;
	f->has_proc = true;
	f->proc_writes++;
	f->proc_written_last = f->since_proc > 0;
	f->since_proc = 0;
	return 0;
}

static inline int fake_delete(void *ctx, uint32_t tgid)
{
	struct fake_maps *f = ctx;

	if (f->tgid == tgid)
		f->has_proc = false;
	f->deletes++;
	return 0;
}

static const struct stk_unwind_maps_ops fake_ops = {
	fake_rows, fake_pages, fake_mappings, fake_proc, fake_delete,
};

static inline struct fake_maps *fake_new(void)
{
	struct fake_maps *f = calloc(1, sizeof(*f));

	if (f && (!(f->rows = calloc(CAP_ROWS, sizeof(*f->rows))) || !(f->pages = calloc(CAP_PAGES, sizeof(*f->pages))))) {
		free(f->rows);
		free(f);
		return NULL;
	}
	return f;
}

static inline void fake_free(struct fake_maps *f)
{
	if (f) {
		free(f->rows);
		free(f->pages);
		free(f);
	}
}

/*
 * This process's entry in sym's process table, copied with the mappings the
 * kernel's walk can meet (special and gone ones aside): its own slot for the
 * tables, so it may be loaded with fewer (n_maps) than it has.
 */
struct self_process {
	struct stk_process proc;
	struct stk_mapping maps[256];
	size_t n;
};

static inline bool self_process(struct stk_symbolizer *sym, struct self_process *out)
{
	const struct stk_process *p = stk_symbolizer_process(sym, getpid());

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; p && i < p->n_maps && out->n < 256; i++)
		if (p->maps[i].kind != STK_MAPPING_SPECIAL && !p->maps[i].gone)
			out->maps[out->n++] = p->maps[i];
	out->proc = (struct stk_process){ .pid = getpid(), .maps = out->maps, .n_maps = out->n };
	return out->n > 0;
}

#endif
