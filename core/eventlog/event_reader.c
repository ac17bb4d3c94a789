/* Reading the event log back: see event_reader.h. */
#include "core/eventlog/event_reader.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/base/grow.h"
#include "core/eventlog/event_schema.h"
#include "core/eventlog/frame_lines.h"
#include "core/eventlog/frames_codec.h"
#include "core/base/key_index.h"
#include "core/base/string_pool.h"
#include "core/eventlog/event_meta.h"
#include "core/parquet/parquet_reader.h"

/*
 * What expanding the frames column may write over a file's reading: far more
 * than stk's files need (a stack's frames are a few KB, each stack expanded
 * once), little enough that references in a small file cannot keep the
 * reader copying for hours.
 */
#define EXPAND_BASE (256ull << 20)
#define EXPAND_PER_BYTE 64

/* What tells a file's stack apart in a recording of several files: its id, in its file. */
struct stack_key {
	int64_t id;
	int64_t part;
};

/* A stack id of a file, and the stack it is (several ids may be one stack: files of one recording). */
struct decoded {
	struct stack_key key; /* the key of by_id */
	uint32_t index;       /* in stacks */
};

/* A stack decoded and what holds its frames. */
struct unique {
	struct stk_stack stack;
	struct stk_decoded_frames *owner;
};

/* One file of the recording. */
struct part {
	struct stk_pq_reader *r;
	struct stk_ev_meta meta;
	char *kinds_text; /* stk.kinds, cut into its meta's kinds */
	size_t order;     /* as given (ties in time keep it) */
};

struct stk_ev_file {
	struct part *parts;
	size_t n_parts, cur;           /* cur: the part being read */
	struct stk_pq_reader *r;       /* parts[cur]'s */
	struct stk_ev_meta meta;       /* the recording's, its files' merged */
	struct decoded *ids;
	size_t n_ids, cap_ids;
	struct stk_key_index by_id;    /* (id, part) -> index in ids */
	struct unique *stacks;
	struct stk_stack *flat;        /* the stacks alone, for stk_ev_stacks */
	size_t n_stacks, cap_stacks, cap_flat;
	struct stk_string_pool *texts; /* several files: each stack's text, numbered as stacks are */
	struct stk_frame_lines_table lines; /* the current row group's frame lines */
	struct stk_buf expanded;         /* a stack's frames whole, to decode */
	const char *last_event;          /* the last row's event (a dictionary string) and its kind */
	uint32_t last_kind;
	bool walked;
};

void stk_ev_filter_all(struct stk_ev_filter *f)
{
	*f = (struct stk_ev_filter){ .from = INT64_MIN, .to = INT64_MAX };
}

/* Reading fd's footer as one part of the recording. 0, or -1 with err. */
static int open_part(struct part *p, int fd, char *err, size_t err_len)
{
	p->r = stk_pq_reader_open(fd, stk_ev_columns, STK_EV_COLS, err, err_len);
	return p->r && stk_ev_meta_read(p->r, &p->meta, &p->kinds_text, err, err_len) == 0 ? 0 : -1;
}

static int cmp_parts(const void *pa, const void *pb)
{
	const struct part *a = pa, *b = pb;
	int64_t ta = a->meta.events ? a->meta.first : a->meta.start, tb = b->meta.events ? b->meta.first : b->meta.start;

	if (ta != tb)
		return ta < tb ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

struct stk_ev_file *stk_ev_open_many(const int *fds, size_t n, size_t *bad, char *err, size_t err_len)
{
	struct stk_ev_file *f = calloc(1, sizeof(*f));
	struct stk_ev_meta *metas = NULL;
	uint64_t budget = EXPAND_BASE;

	*bad = 0;
	if (!f || !n || !(f->parts = calloc(n, sizeof(*f->parts))) || !(metas = calloc(n, sizeof(*metas)))) {
		snprintf(err, err_len, n ? "out of memory" : "no recording");
		free(metas);
		stk_ev_close(f);
		return NULL;
	}
	f->by_id = (struct stk_key_index){ .key_size = sizeof(struct stack_key), .stride = sizeof(struct decoded) };
	for (size_t i = 0; i < n; i++, f->n_parts++) {
		struct stat st;

		f->parts[i].order = i;
		if (fstat(fds[i], &st) == 0 && st.st_size > 0)
			budget += (uint64_t)st.st_size * EXPAND_PER_BYTE;
		if (open_part(&f->parts[i], fds[i], err, err_len)) {
			*bad = i;
			f->n_parts++;
			free(metas);
			stk_ev_close(f);
			return NULL;
		}
	}
	stk_frame_lines_table_init(&f->lines, budget);
	/* several files: one recording in the time order of their first events, a stack found by its text */
	qsort(f->parts, n, sizeof(*f->parts), cmp_parts);
	for (size_t i = 0; i < n; i++)
		metas[i] = f->parts[i].meta;
	stk_ev_meta_merge(&f->meta, metas, n);
	free(metas);
	if (n > 1 && !(f->texts = stk_string_pool_new())) {
		snprintf(err, err_len, "out of memory");
		stk_ev_close(f);
		return NULL;
	}
	return f;
}

struct stk_ev_file *stk_ev_open(int fd, char *err, size_t err_len)
{
	size_t bad;

	return stk_ev_open_many(&fd, 1, &bad, err, err_len);
}

const struct stk_ev_meta *stk_ev_meta(const struct stk_ev_file *f)
{
	return &f->meta;
}

bool stk_ev_span_matches(const char *label, const char *want)
{
	size_t n = strlen(want);

	return label && strncmp(label, want, n) == 0 && (label[n] == '\0' || (label[n] == '=' && !strchr(want, '=')));
}

static bool listed(const uint32_t *ids, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return !n;
}

/* A stack new to the recording, from the frames expanded into f->expanded: its index in stacks, or -1 with err. */
static int64_t decode_new(struct stk_ev_file *f, char *err, size_t err_len)
{
	struct unique *u;

	if (f->n_stacks >= UINT32_MAX - 1 ||
	    stk_grow((void **)&f->stacks, &f->cap_stacks, f->n_stacks + 1, sizeof(*f->stacks))) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	u = &f->stacks[f->n_stacks];
	*u = (struct unique){ 0 };
	if (stk_frames_decode((const char *)f->expanded.data, f->expanded.len, &u->stack, &u->owner, err, err_len))
		return -1;
	return (int64_t)f->n_stacks++;
}

/*
 * Several files: the stack another file (or id) had already with the row's
 * text, or -1 for a new one (its text numbered as the stack will be). -2
 * when out of memory.
 */
static int64_t same_text(struct stk_ev_file *f)
{
	size_t len;
	const char *text = stk_pq_reader_string(f->r, STK_EV_STACK, &len);
	uint32_t t = stk_string_pool_id(f->texts, text ? text : "", text ? len : 0);

	if (t == STK_STRING_NONE)
		return -2;
	return t < f->n_stacks ? (int64_t)t : -1;
}

/* The row's stack's index, decoding its frames the first time its id comes. */
static int row_stack(struct stk_ev_file *f, uint32_t *index, char *err, size_t err_len)
{
	struct stack_key key = { stk_pq_reader_int64(f->r, STK_EV_STACK_ID), (int64_t)f->cur };
	int64_t known, at = -1;
	size_t len;
	const char *frames;

	*index = UINT32_MAX;
	if (stk_pq_reader_is_null(f->r, STK_EV_STACK_ID))
		return 0;
	if (key.id <= 0) {
		snprintf(err, err_len, "a stack_id of %" PRId64 " (stk numbers stacks from 1)", key.id);
		return -1;
	}
	known = stk_key_index_find(&f->by_id, f->ids ? &f->ids->key : NULL, &key);
	/* every frames value joins the group's lines, whether its stack is known or not */
	frames = stk_pq_reader_string(f->r, STK_EV_FRAMES, &len);
	f->expanded.len = 0;
	if (frames && stk_frame_lines_take(&f->lines, frames, len, known >= 0 ? NULL : &f->expanded, err, err_len))
		return -1;
	if (known >= 0) {
		*index = f->ids[known].index;
		return 0;
	}
	if (!frames) {
		snprintf(err, err_len, "stack_id %" PRId64 " has no frames on its first row", key.id);
		return -1;
	}
	if ((f->texts && (at = same_text(f)) == -2) ||
	    stk_grow((void **)&f->ids, &f->cap_ids, f->n_ids + 1, sizeof(*f->ids))) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	if (at < 0 && (at = decode_new(f, err, err_len)) < 0)
		return -1;
	f->ids[f->n_ids] = (struct decoded){ .key = key, .index = (uint32_t)at };
	if (stk_key_index_add(&f->by_id, &f->ids->key, f->n_ids + 1)) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	f->n_ids++;
	*index = (uint32_t)at;
	return 0;
}

/* An interval's part inside [from, to): 0 when none. */
static int64_t clip(int64_t start, int64_t len, int64_t from, int64_t to)
{
	int64_t end = len > INT64_MAX - start ? INT64_MAX : start + len;

	if (start < from)
		start = from;
	if (end > to)
		end = to;
	return end > start ? end - start : 0;
}

/* Whether event (or a host) is want, or one of want's names joined by ','. */
static bool event_listed(const char *want, const char *event)
{
	size_t n = strlen(event);

	if (strcmp(want, event) == 0)
		return true;
	for (const char *p = want; *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == n && strncmp(p, event, n) == 0)
			return true;
		p += len + (end != NULL);
	}
	return false;
}

size_t stk_ev_kinds_kept(const struct stk_ev_meta *m, const struct stk_ev_filter *flt, int *type_of,
			 struct stk_value_type *types)
{
	size_t n = 0;

	for (size_t i = 0; i < m->n_kinds; i++) {
		type_of[i] = -1;
		if (flt->event && !event_listed(flt->event, m->kinds[i].event))
			continue;
		type_of[i] = (int)n;
		types[n++] = m->kinds[i].value;
	}
	return n;
}

/* The kind of a row's event: its index in the meta's kinds, or UINT32_MAX. The rows of a group share few names. */
static uint32_t kind_of_event(struct stk_ev_file *f, const char *event)
{
	if (event == f->last_event)
		return f->last_kind;
	f->last_event = event;
	f->last_kind = UINT32_MAX;
	for (size_t i = 0; i < f->meta.n_kinds; i++)
		if (strcmp(f->meta.kinds[i].event, event) == 0)
			f->last_kind = (uint32_t)i;
	return f->last_kind;
}

/* Whether the event names pass: the asked ones, or the capture's own kinds (and spans when wanted). */
static bool event_passes(const struct stk_ev_filter *flt, const struct stk_ev_event *ev)
{
	if (flt->event)
		return event_listed(flt->event, ev->event);
	return ev->kind != UINT32_MAX || (flt->with_spans && strcmp(ev->event, "span") == 0);
}

/* The columns some kinds add. */
static void take_added(struct stk_pq_reader *r, struct stk_ev_event *ev)
{
	size_t len;

	ev->syscall = stk_pq_reader_string(r, STK_EV_SYSCALL, &len);
	ev->syscall_nr = stk_pq_reader_is_null(r, STK_EV_SYSCALL_NR) ? -1 : stk_pq_reader_int32(r, STK_EV_SYSCALL_NR);
	ev->wchan = stk_pq_reader_string(r, STK_EV_WCHAN, &len);
	ev->file = stk_pq_reader_string(r, STK_EV_FILE, &len);
	ev->device = stk_pq_reader_string(r, STK_EV_DEVICE, &len);
	ev->op = stk_pq_reader_string(r, STK_EV_OP, &len);
	ev->bytes = stk_pq_reader_is_null(r, STK_EV_BYTES) ? -1 : stk_pq_reader_int64(r, STK_EV_BYTES);
	ev->host = stk_pq_reader_string(r, STK_EV_HOST, &len);
}

/* The current row as ev, or 0 when the filter leaves it out; -1 on a bad row. */
static int take_row(struct stk_ev_file *f, const struct stk_ev_filter *flt, struct stk_ev_event *ev, char *err,
		    size_t err_len)
{
	struct stk_pq_reader *r = f->r;
	size_t len;
	const char *s;

	*ev = (struct stk_ev_event){ .time = stk_pq_reader_int64(r, STK_EV_TIME) };
	ev->pid = (uint32_t)stk_pq_reader_int32(r, STK_EV_PID);
	ev->tid = (uint32_t)stk_pq_reader_int32(r, STK_EV_TID);
	ev->cpu = (uint32_t)stk_pq_reader_int32(r, STK_EV_CPU);
	ev->weight = stk_pq_reader_int64(r, STK_EV_WEIGHT);
	ev->event = stk_pq_reader_string(r, STK_EV_EVENT, &len);
	ev->unit = stk_pq_reader_string(r, STK_EV_UNIT, &len);
	ev->span = stk_pq_reader_string(r, STK_EV_SPAN, &len);
	s = stk_pq_reader_string(r, STK_EV_COMM, &len);
	memcpy(ev->comm, s, len < sizeof(ev->comm) ? len : sizeof(ev->comm));
	s = stk_pq_reader_string(r, STK_EV_STATE, &len);
	ev->state = s && len == 1 ? s[0] : 0;
	ev->state_name = s;
	ev->kind = kind_of_event(f, ev->event);
	take_added(r, ev);
	/* a stack's frames come on its first row in the group, whether that row passes or not */
	if (row_stack(f, &ev->stack, err, err_len))
		return -1;
	if (ev->weight < 0) {
		snprintf(err, err_len, "a negative weight (%" PRId64 ")", ev->weight);
		return -1;
	}
	ev->interval = strcmp(ev->unit, "nanoseconds") == 0;
	if (!event_passes(flt, ev) || (flt->host && !(ev->host && event_listed(flt->host, ev->host))) ||
	    !listed(flt->pids, flt->n_pids, ev->pid) ||
	    !listed(flt->tids, flt->n_tids, ev->tid) || (flt->span && !stk_ev_span_matches(ev->span, flt->span)))
		return 0;
	if (ev->interval) {
		if (flt->from != INT64_MIN || flt->to != INT64_MAX) {
			ev->weight = clip(ev->time, ev->weight, flt->from, flt->to);
			if (ev->weight == 0)
				return 0;
		}
		return 1;
	}
	return ev->time >= flt->from && ev->time < flt->to;
}

int stk_ev_each(struct stk_ev_file *f, const struct stk_ev_filter *flt,
		int (*fn)(void *ctx, const struct stk_ev_event *ev), void *ctx, char *err, size_t err_len)
{
	struct stk_ev_event ev;
	int rc = 0, ret;

	if (f->walked) {
		snprintf(err, err_len, "the event log was read already");
		return -1;
	}
	f->walked = true;
	for (f->cur = 0; f->cur < f->n_parts && rc >= 0; f->cur++) {
		f->r = f->parts[f->cur].r;
		while ((rc = stk_pq_reader_next_group(f->r)) > 0) {
			int64_t lo, hi;

			stk_frame_lines_table_reset(&f->lines);
			f->last_event = NULL; /* the group's strings are new ones, wherever they lie */

			/* intervals start before the window they reach into: only groups that start after it go */
			if (stk_pq_reader_group_range(f->r, STK_EV_TIME, &lo, &hi) && lo >= flt->to)
				continue;
			while ((rc = stk_pq_reader_next_row(f->r)) > 0) {
				if ((ret = take_row(f, flt, &ev, err, err_len)) < 0)
					return -1;
				if (ret && (ret = fn(ctx, &ev)))
					return ret;
			}
			if (rc < 0)
				break;
		}
	}
	if (rc < 0) {
		snprintf(err, err_len, "%s", stk_pq_reader_error(f->r));
		return -1;
	}
	return 0;
}

const struct stk_stack *stk_ev_stacks(struct stk_ev_file *f, size_t *n)
{
	*n = 0;
	if (stk_grow((void **)&f->flat, &f->cap_flat, f->n_stacks ? f->n_stacks : 1, sizeof(*f->flat)))
		return NULL;
	for (size_t i = 0; i < f->n_stacks; i++)
		f->flat[i] = f->stacks[i].stack;
	*n = f->n_stacks;
	return f->flat;
}

void stk_ev_close(struct stk_ev_file *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n_stacks; i++)
		stk_frames_free(f->stacks[i].owner);
	for (size_t i = 0; i < f->n_parts; i++) {
		stk_pq_reader_close(f->parts[i].r);
		free(f->parts[i].kinds_text);
	}
	free(f->parts);
	free(f->stacks);
	free(f->ids);
	free(f->flat);
	stk_key_index_free(&f->by_id);
	stk_frame_lines_table_free(&f->lines);
	stk_buf_free(&f->expanded);
	stk_string_pool_free(f->texts);
	free(f);
}
