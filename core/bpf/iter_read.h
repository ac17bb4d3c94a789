/* One pass of a BPF iterator: everything its program writes, read into a growing buffer. */
#ifndef STK_ITER_READ_H
#define STK_ITER_READ_H

#include <stddef.h>

struct bpf_link;

struct stk_iter_buf {
	char *data; /* malloc'd (so 8-byte aligned records can be used in place); owned, stk_iter_buf_free */
	size_t len, cap;
};

/* Creates an iterator instance from link and reads it to the end into b (replacing its content). 0, or -1 (errno). */
int stk_iter_read(struct bpf_link *link, struct stk_iter_buf *b);
void stk_iter_buf_free(struct stk_iter_buf *b);

#endif
