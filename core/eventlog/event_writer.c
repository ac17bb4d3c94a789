/* The event log's rows into Parquet: see event_writer.h. */
#include "core/eventlog/event_writer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/eventlog/event_schema.h"
#include "core/eventlog/frame_lines.h"
#include "core/base/utf8.h"
#include "core/base/grow.h"
#include "core/base/key_index.h"
#include "core/threads/syscall_table.h"

/* A stack id the current row group holds: its frames went on its first row there. */
struct framed {
	int64_t id;
	uint32_t text; /* its text's dictionary entry: ids that print alike share one */
	uint32_t pad;
};

/*
 * Ids up to this above the file's first are looked up in an array (a
 * capture numbers its stacks in order, and a series' file gives every stack
 * a new id: two lookups a row, no hashing); others in framed_index.
 */
#define DIRECT_IDS (1u << 24)

/* An id's place in by_id: in the current group when its group is. */
struct framed_direct {
	uint32_t group;
	uint32_t text;
};

struct stk_ev_writer {
	struct stk_pq_writer *pq;
	struct framed *framed;
	size_t n_framed, cap_framed;
	struct stk_key_index framed_index;
	struct framed_direct *by_id; /* index: id - id_base */
	size_t cap_by_id;
	int64_t id_base; /* the first id remembered, less one (-1: none yet) */
	uint32_t group; /* the current row group's number, from 1 */
	struct stk_frame_lines lines; /* the group's frame lines, each stored once (frame_lines.h) */
	struct stk_buf compact;    /* a stack's frames as the file holds them */
	uint64_t group_mark; /* the file's bytes when the current group began (they grow only as one ends) */
	int64_t first_time;
	bool any;
};

struct stk_ev_writer *stk_ev_writer_new(FILE *out, const struct stk_pq_writer_opts *opts, char *err, size_t err_len)
{
	struct stk_ev_writer *w = calloc(1, sizeof(*w));

	if (!w) {
		snprintf(err, err_len, "out of memory");
		return NULL;
	}
	/* gzip 1: as small as 6 within 1% on these columns, and a third faster (docs/parquet.md) */
	const struct stk_pq_writer_opts fast = STK_EV_WRITER_OPTS;

	w->pq = stk_pq_writer_new(out, stk_ev_columns, STK_EV_COLS, opts ? opts : &fast, err, err_len);
	if (!w->pq) {
		free(w);
		return NULL;
	}
	w->group_mark = stk_pq_writer_bytes(w->pq);
	w->group = 1;
	w->id_base = -1;
	w->framed_index = (struct stk_key_index){ .key_size = sizeof(int64_t), .stride = sizeof(struct framed) };
	stk_frame_lines_init(&w->lines);
	return w;
}

static bool direct(const struct stk_ev_writer *w, int64_t id)
{
	return w->id_base >= 0 && id > w->id_base && id - w->id_base <= DIRECT_IDS;
}

/* The text entry of id in the current group, or -1 when the group has not had it. */
static int64_t group_text(const struct stk_ev_writer *w, int64_t id)
{
	int64_t at;

	if (direct(w, id)) {
		size_t i = (size_t)(id - w->id_base);

		return i < w->cap_by_id && w->by_id[i].group == w->group ? (int64_t)w->by_id[i].text : -1;
	}
	at = stk_key_index_find(&w->framed_index, w->framed, &id);
	return at >= 0 ? (int64_t)w->framed[at].text : -1;
}

/* Remembers id's text entry for the rest of the group. 0, or -1 out of memory. */
static int remember(struct stk_ev_writer *w, int64_t id, uint32_t text)
{
	if (w->id_base < 0 && id > 0)
		w->id_base = id - 1; /* a file of a long series starts at a large id */
	if (direct(w, id)) {
		size_t had = w->cap_by_id, i = (size_t)(id - w->id_base);

		if (stk_grow((void **)&w->by_id, &w->cap_by_id, i + 1, sizeof(*w->by_id)))
			return -1;
		memset(w->by_id + had, 0, (w->cap_by_id - had) * sizeof(*w->by_id));
		w->by_id[i] = (struct framed_direct){ .group = w->group, .text = text };
		return 0;
	}
	if (stk_grow((void **)&w->framed, &w->cap_framed, w->n_framed + 1, sizeof(*w->framed)))
		return -1;
	w->framed[w->n_framed++] = (struct framed){ .id = id, .text = text };
	return stk_key_index_add(&w->framed_index, w->framed, w->n_framed);
}

/*
 * The row's stack: on the group's first row of its id, the text (found by
 * its bytes, so ids that print alike store it once) and the frames; on the
 * others the text's entry alone. 0, or -1 out of memory.
 */
static int set_stack(struct stk_ev_writer *w, const struct stk_ev_stack_ref *st)
{
	int64_t text = group_text(w, st->id);

	stk_pq_set_int64(w->pq, STK_EV_STACK_ID, st->id);
	if (text >= 0) {
		stk_pq_set_string_index(w->pq, STK_EV_STACK, (uint32_t)text);
		return 0;
	}
	if ((text = stk_pq_set_string_entry(w->pq, STK_EV_STACK, st->text, st->text_len)) < 0)
		return 0; /* recorded: stk_pq_end_row says so */
	w->compact.len = 0;
	if (stk_frame_lines_compact(&w->lines, st->frames, st->frames_len, &w->compact))
		return -1;
	stk_pq_set_string_keyed(w->pq, STK_EV_FRAMES, (uint64_t)st->id, (const char *)w->compact.data,
				w->compact.len);
	return remember(w, st->id, (uint32_t)text);
}

/* A short string column's value, made valid UTF-8 on the way (comm is arbitrary bytes). */
static void set_text(struct stk_ev_writer *w, size_t col, const char *s, size_t len)
{
	char clean[64];

	if (len <= sizeof(clean) && !stk_utf8_valid(s, len)) {
		memcpy(clean, s, len);
		stk_ev_utf8_clean(clean, len);
		s = clean;
	}
	stk_pq_set_string(w->pq, col, s, len);
}

/* A string that stays at its address for the writer's life: found by the address, not hashed per row. */
static void set_constant(struct stk_ev_writer *w, size_t col, const char *s)
{
	size_t len = strlen(s);

	if (stk_utf8_valid(s, len))
		stk_pq_set_string_keyed(w->pq, col, (uint64_t)(uintptr_t)s, s, len);
	else
		set_text(w, col, s, len);
}

/* When a row group went out (the file grew: it grows only then), the next one starts without frames. */
static void group_went_out(struct stk_ev_writer *w)
{
	if (stk_pq_writer_bytes(w->pq) == w->group_mark)
		return;
	w->group_mark = stk_pq_writer_bytes(w->pq);
	w->group++;
	stk_key_index_clear(&w->framed_index);
	w->n_framed = 0;
	stk_frame_lines_reset(&w->lines);
}

int stk_ev_writer_add(struct stk_ev_writer *w, const struct stk_ev_row *r)
{
	struct stk_pq_writer *pq = w->pq;

	stk_pq_set_int64(pq, STK_EV_TIME, r->time);
	stk_pq_set_int32(pq, STK_EV_PID, (int32_t)r->pid);
	stk_pq_set_int32(pq, STK_EV_TID, (int32_t)r->tid);
	set_text(w, STK_EV_COMM, r->comm, strnlen(r->comm, 16));
	stk_pq_set_int32(pq, STK_EV_CPU, (int32_t)r->cpu);
	set_constant(w, STK_EV_EVENT, r->event);
	stk_pq_set_int64(pq, STK_EV_WEIGHT, r->weight);
	set_constant(w, STK_EV_UNIT, r->unit);
	if (r->stack && set_stack(w, r->stack))
		return -1;
	if (r->span)
		set_text(w, STK_EV_SPAN, r->span, strlen(r->span));
	if (r->state_name)
		set_constant(w, STK_EV_STATE, r->state_name);
	else if (r->state) /* one byte: its value is its key */
		stk_pq_set_string_keyed(pq, STK_EV_STATE, (uint8_t)r->state, &r->state, 1);
	if (r->syscall) {
		const char *name = stk_syscall_name(r->syscall - 1);

		if (name)
			set_constant(w, STK_EV_SYSCALL, name);
		stk_pq_set_int32(pq, STK_EV_SYSCALL_NR, r->syscall - 1);
	}
	if (r->wchan && r->wchan[0])
		set_text(w, STK_EV_WCHAN, r->wchan, strlen(r->wchan));
	if (r->file && r->file[0])
		set_text(w, STK_EV_FILE, r->file, strlen(r->file));
	if (r->device)
		set_text(w, STK_EV_DEVICE, r->device, strlen(r->device));
	if (r->op)
		set_constant(w, STK_EV_OP, r->op);
	if (r->has_bytes)
		stk_pq_set_int64(pq, STK_EV_BYTES, r->bytes);
	if (r->host)
		set_constant(w, STK_EV_HOST, r->host);
	if (!w->any || r->time < w->first_time)
		w->first_time = r->time;
	w->any = true;
	if (stk_pq_end_row(pq))
		return -1;
	group_went_out(w);
	return 0;
}

bool stk_ev_writer_has_stack(const struct stk_ev_writer *w, int64_t id)
{
	return group_text(w, id) >= 0;
}

int stk_ev_writer_meta(struct stk_ev_writer *w, const char *key, const char *value)
{
	return stk_pq_set_metadata(w->pq, key, value);
}

uint64_t stk_ev_writer_rows(const struct stk_ev_writer *w)
{
	return stk_pq_writer_rows(w->pq);
}

/* The keys the writer itself knows: rows, schema, the first time. */
static void own_metadata(struct stk_ev_writer *w)
{
	char num[32];

	snprintf(num, sizeof(num), "%" PRIu64, stk_pq_writer_rows(w->pq));
	stk_pq_set_metadata(w->pq, STK_EV_META_EVENTS, num);
	stk_pq_set_metadata(w->pq, STK_EV_META_SCHEMA, STK_EV_SCHEMA);
	if (w->any) {
		snprintf(num, sizeof(num), "%" PRId64, w->first_time);
		stk_pq_set_metadata(w->pq, STK_EV_META_FIRST, num);
	}
}

int stk_ev_writer_checkpoint(struct stk_ev_writer *w)
{
	int ret;

	own_metadata(w);
	ret = stk_pq_checkpoint(w->pq);
	group_went_out(w);
	return ret;
}

int stk_ev_writer_errno(const struct stk_ev_writer *w)
{
	return stk_pq_writer_errno(w->pq);
}

uint64_t stk_ev_writer_checkpointed(const struct stk_ev_writer *w)
{
	return stk_pq_writer_checkpointed(w->pq);
}

int64_t stk_ev_writer_first_time(const struct stk_ev_writer *w)
{
	return w->any ? w->first_time : INT64_MAX;
}

int stk_ev_writer_close(struct stk_ev_writer *w, char *err, size_t err_len)
{
	int ret;

	own_metadata(w);
	ret = stk_pq_writer_close(w->pq, err, err_len);
	int e = errno;
	w->pq = NULL;
	stk_ev_writer_free(w);
	errno = e;
	return ret;
}

void stk_ev_writer_free(struct stk_ev_writer *w)
{
	if (!w)
		return;
	stk_pq_writer_free(w->pq);
	stk_key_index_free(&w->framed_index);
	free(w->framed);
	free(w->by_id);
	stk_frame_lines_free(&w->lines);
	stk_buf_free(&w->compact);
	free(w);
}

void stk_ev_utf8_clean(char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		size_t n = stk_utf8_seq_len((const unsigned char *)s + i, len - i);

		if (n == 0) {
			s[i] = '?';
			n = 1;
		}
		i += n;
	}
}
