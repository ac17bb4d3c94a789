/* Frame lines once per row group: see frame_lines.h. */
#include "core/eventlog/frame_lines.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"

#define FULL "stk-frames 1"
#define COMPACT "stk-frames 2"
#define MAGIC_LEN (sizeof(FULL) - 1)

static bool starts(const char *s, size_t len, const char *magic)
{
	return len >= MAGIC_LEN && memcmp(s, magic, MAGIC_LEN) == 0;
}

/* Puts magic and the header's fields (the text up to its first LF) on out. */
static void put_header(struct stk_buf *out, const char *magic, const char *frames, const char *header_end)
{
	stk_buf_put(out, magic, MAGIC_LEN);
	stk_buf_put(out, frames + MAGIC_LEN, (size_t)(header_end - frames) - MAGIC_LEN);
}

/* The line after the LF at *lf: its start and length; *lf moves to the LF that ends it, or NULL. */
static const char *next_line(const char **lf, const char *end, size_t *n)
{
	const char *line = *lf + 1;

	*lf = memchr(line, '\n', (size_t)(end - line));
	*n = (size_t)((*lf ? *lf : end) - line);
	return line;
}

void stk_frame_lines_init(struct stk_frame_lines *t)
{
	stk_pq_dict_init(&t->lines, false);
}

void stk_frame_lines_reset(struct stk_frame_lines *t)
{
	stk_pq_dict_reset(&t->lines);
}

void stk_frame_lines_free(struct stk_frame_lines *t)
{
	stk_pq_dict_free(&t->lines);
}

/* "\n=N" or "\n=N+C" for the run of C known lines from N; nothing for an empty run. */
static void put_run(struct stk_buf *out, uint32_t start, uint32_t count)
{
	if (!count)
		return;
	stk_buf_put(out, "\n=", 2);
	stk_buf_dec(out, start);
	if (count > 1) {
		stk_buf_byte(out, '+');
		stk_buf_dec(out, count);
	}
}

int stk_frame_lines_compact(struct stk_frame_lines *t, const char *frames, size_t len, struct stk_buf *out)
{
	const char *end = frames + len;
	const char *lf = memchr(frames, '\n', len);
	uint32_t run_start = 0, run_len = 0;

	if (!starts(frames, len, FULL))
		return -1;
	put_header(out, COMPACT, frames, lf ? lf : end);
	/* lf: the LF before the next line */
	while (lf) {
		size_t n, known = t->lines.n;
		const char *line = next_line(&lf, end, &n);
		uint32_t index;

		if ((n && line[0] == '=') || stk_pq_dict_hashed(&t->lines, line, n, &index))
			return -1;
		if (t->lines.n != known) {
			put_run(out, run_start, run_len);
			run_len = 0;
			stk_buf_byte(out, '\n');
			stk_buf_put(out, line, n);
		} else if (run_len && index == run_start + run_len) {
			run_len++;
		} else {
			put_run(out, run_start, run_len);
			run_start = index;
			run_len = 1;
		}
	}
	put_run(out, run_start, run_len);
	return out->oom ? -1 : 0;
}

void stk_frame_lines_table_init(struct stk_frame_lines_table *t, uint64_t budget)
{
	*t = (struct stk_frame_lines_table){ .budget = budget };
}

void stk_frame_lines_table_reset(struct stk_frame_lines_table *t)
{
	t->bytes.len = 0;
	t->n = 0;
}

void stk_frame_lines_table_free(struct stk_frame_lines_table *t)
{
	stk_buf_free(&t->bytes);
	free(t->spans);
	*t = (struct stk_frame_lines_table){ 0 };
}

/* A decimal of at most 10 digits from [*p, end) that fits 32 bits. 0 or -1. */
static int get_u32(const char **p, const char *end, uint32_t *v)
{
	uint64_t x = 0;
	const char *s = *p;

	for (; *p < end && **p >= '0' && **p <= '9' && *p - s < 10; (*p)++)
		x = x * 10 + (uint64_t)(**p - '0');
	if (*p == s || x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

/* "=N" or "=N+C" (line[0] is '='): the run it names, checked against the table. 0 or -1. */
static int parse_ref(const struct stk_frame_lines_table *t, const char *line, size_t n, uint32_t *start,
		     uint32_t *count)
{
	const char *p = line + 1, *end = line + n;

	*count = 1;
	if (get_u32(&p, end, start) || (p < end && (*p++ != '+' || get_u32(&p, end, count))) || p != end)
		return -1;
	return *count && *start < t->n && *count <= t->n - *start ? 0 : -1;
}

static int add_line(struct stk_frame_lines_table *t, const char *line, size_t n)
{
	size_t at = t->bytes.len;

	if (at + n > UINT32_MAX || stk_grow((void **)&t->spans, &t->cap, t->n + 1, sizeof(*t->spans)))
		return -1;
	stk_buf_put(&t->bytes, line, n);
	if (t->bytes.oom)
		return -1;
	t->spans[t->n++] = (uint64_t)at << 32 | n;
	return 0;
}

/* Appends the table's lines [start, start + count) to out, each after an LF, within the budget. 0 or -1. */
static int put_lines(struct stk_frame_lines_table *t, uint32_t start, uint32_t count, struct stk_buf *out)
{
	for (uint32_t i = start; i < start + count; i++) {
		uint32_t off = (uint32_t)(t->spans[i] >> 32), n = (uint32_t)t->spans[i];

		if (n + 1u > t->budget)
			return -1;
		t->budget -= n + 1u;
		stk_buf_byte(out, '\n');
		if (n) /* an empty line may be all the table holds: no bytes, no address */
			stk_buf_put(out, t->bytes.data + off, n);
	}
	return 0;
}

int stk_frame_lines_take(struct stk_frame_lines_table *t, const char *frames, size_t len, struct stk_buf *out,
			 char *err, size_t err_len)
{
	const char *end = frames + len;
	const char *lf = memchr(frames, '\n', len);

	if (!starts(frames, len, FULL) && !starts(frames, len, COMPACT)) {
		snprintf(err, err_len, "a frames value that is not stk-frames text");
		return -1;
	}
	if (starts(frames, len, FULL)) { /* whole already: nothing in it refers to the table */
		if (out)
			stk_buf_put(out, frames, len);
		lf = NULL;
	} else if (out) {
		put_header(out, FULL, frames, lf ? lf : end);
	}
	while (lf) {
		size_t n;
		const char *line = next_line(&lf, end, &n);
		uint32_t start, count;

		if (n && line[0] == '=') {
			if (parse_ref(t, line, n, &start, &count)) {
				snprintf(err, err_len, "a frames value refers to lines its row group does not have");
				return -1;
			}
			if (out && put_lines(t, start, count, out)) {
				snprintf(err, err_len, "the frames column refers back to more text than a file this size holds");
				return -1;
			}
		} else {
			if (add_line(t, line, n)) {
				snprintf(err, err_len, "out of memory (frame lines of a row group)");
				return -1;
			}
			if (out) {
				stk_buf_byte(out, '\n');
				stk_buf_put(out, line, n);
			}
		}
	}
	if (out && out->oom) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	return 0;
}
