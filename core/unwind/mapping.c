/* What the unwinders keep of a file: see mapping.h. */
#include "core/unwind/mapping.h"

#include <stdlib.h>
#include <unistd.h>

const struct stk_cfi_guard *stk_file_cfi_guard(struct stk_file *f)
{
	if (!f->cfi_scanned) {
		stk_cfi_guard_scan(f->elf, &f->cfi_guard);
		f->cfi_scanned = true;
	}
	return &f->cfi_guard;
}

void stk_file_release(struct stk_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f->image);
	stk_cfi_guard_free(&f->cfi_guard);
	f->elf = NULL;
	f->fd = -1;
	f->image = NULL;
}
