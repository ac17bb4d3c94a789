#include "parquet_files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int pq_write(const struct stk_pq_column *cols, size_t n_cols, const struct stk_pq_writer_opts *o, pq_row_fn *row,
	     size_t n, struct pq_bytes *out, char *err, size_t err_len)
{
	FILE *f = tmpfile();
	struct stk_pq_writer *w = f ? stk_pq_writer_new(f, cols, n_cols, o, err, err_len) : NULL;
	long size;

	*out = (struct pq_bytes){ 0 };
	if (!w) {
		if (f)
			fclose(f);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		row(w, i);
		stk_pq_end_row(w);
	}
	stk_pq_set_metadata(w, "stk.schema", "0");
	stk_pq_set_metadata(w, "stk.schema", "1");
	stk_pq_set_metadata(w, "stk.command", "unit test");
	if (stk_pq_writer_close(w, err, err_len) < 0 || (size = ftell(f)) < 0 || !(out->data = malloc((size_t)size + 1)) ||
	    fseek(f, 0, SEEK_SET) != 0 || fread(out->data, 1, (size_t)size, f) != (size_t)size) {
		fclose(f);
		free(out->data);
		out->data = NULL;
		return -1;
	}
	out->len = (size_t)size;
	fclose(f);
	return 0;
}

int pq_memfd(const uint8_t *data, size_t len)
{
	int fd = memfd_create("parquet", MFD_CLOEXEC);

	if (fd >= 0 && len && write(fd, data, len) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	return fd;
}
