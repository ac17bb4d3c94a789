/* Another process's memory, bounded: see proc_mem.h. */
#include "core/runtime/proc_mem.h"

#include <string.h>
#include <sys/uio.h>

static int read_process(void *ctx, uint64_t addr, void *buf, size_t len)
{
	pid_t pid = (pid_t)(intptr_t)ctx;
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -1;
}

struct stk_mem stk_mem_of_process(pid_t pid)
{
	return (struct stk_mem){ .read = read_process, .ctx = (void *)(intptr_t)pid };
}

int stk_mem_read(struct stk_mem *m, uint64_t addr, void *buf, size_t len)
{
	if (len > m->budget || addr + len < addr)
		return -1;
	m->budget -= len;
	m->reads++;
	return m->read(m->ctx, addr, buf, len);
}

int stk_mem_word(struct stk_mem *m, uint64_t addr, uint64_t *out)
{
	uint8_t b[8];

	if (stk_mem_read(m, addr, b, sizeof(b)))
		return -1;
	*out = 0;
	for (int i = 7; i >= 0; i--)
		*out = *out << 8 | b[i];
	return 0;
}

static int read_image(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct stk_mem_image *img = ctx;

	if (addr < img->base || addr - img->base > img->len || len > img->len - (addr - img->base))
		return -1;
	memcpy(buf, img->data + (addr - img->base), len);
	return 0;
}

struct stk_mem stk_mem_of_image(struct stk_mem_image *img)
{
	return (struct stk_mem){ .read = read_image, .ctx = img };
}
