#include "core/bpf/iter_read.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "core/base/grow.h"

/* Room left before each read: a read returns at most one seq_file buffer (8 pages). */
#define READ_ROOM 65536

int stk_iter_read(struct bpf_link *link, struct stk_iter_buf *b)
{
	int fd = bpf_iter_create(bpf_link__fd(link));
	ssize_t n = -1;
	int err = 0;

	b->len = 0;
	if (fd < 0)
		return -1;
	for (;;) {
		if (stk_grow((void **)&b->data, &b->cap, b->len + READ_ROOM, 1)) {
			err = ENOMEM;
			break;
		}
		n = read(fd, b->data + b->len, b->cap - b->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = errno;
		if (n <= 0)
			break;
		b->len += (size_t)n;
	}
	close(fd);
	errno = err;
	return err ? -1 : 0;
}

void stk_iter_buf_free(struct stk_iter_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
