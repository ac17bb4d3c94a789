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
#include "core/parquet/parquet_reader.h"

/*
 * What expanding the frames column may write over a file's reading: far more
 * than stk's files need (a stack's frames are a few KB, each stack expanded
 * once), little enough that references in a small file cannot keep the
 * reader copying for hours.
 */
#define EXPAND_BASE (256ull << 20)
#define EXPAND_PER_BYTE 64

/* A decoded stack and what holds its frames. */
struct decoded {
	int64_t id; /* the key of by_id */
	struct stk_stack stack;
	struct stk_decoded_frames *owner;
};

struct stk_ev_file {
	struct stk_pq_reader *r;
	struct stk_ev_meta meta;
	struct decoded *stacks;
	struct stk_stack *flat; /* the stacks alone, for stk_ev_stacks */
	size_t n_stacks, cap_stacks, cap_flat;
	struct stk_key_index by_id; /* stack id -> index in stacks */
	struct stk_frame_lines_table lines; /* the current row group's frame lines */
	struct stk_buf expanded;         /* a stack's frames whole, to decode */
	char *kinds_text;                /* stk.kinds, cut into the meta's kinds */
	const char *last_event;          /* the last row's event (a dictionary string) and its kind */
	uint32_t last_kind;
	bool walked;
};

void stk_ev_filter_all(struct stk_ev_filter *f)
{
	*f = (struct stk_ev_filter){ .from = INT64_MIN, .to = INT64_MAX };
}

static int parse_i64(const char *s, int64_t *v)
{
	char *end;

	if (!s || !*s)
		return -1;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return errno || *end ? -1 : 0;
}

/* The next tab-separated field of a stk.kinds line (cut in place at *p), or NULL when the line ended. */
static char *next_field(char **p)
{
	char *s = *p, *end;

	if (!s)
		return NULL;
	end = strchr(s, '\t');
	if (end)
		*end++ = '\0';
	*p = end;
	return s;
}

/* stk.kinds, when the recording has several kinds (event_schema.h), into the meta: 0, or -1 with err. */
static int read_kinds(struct stk_ev_file *f, char *err, size_t err_len)
{
	struct stk_ev_meta *m = &f->meta;
	const char *text = stk_pq_reader_metadata(f->r, STK_EV_META_KINDS);
	char *line, *save = NULL;

	if (!text)
		return 0;
	if (!(f->kinds_text = strdup(text))) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	m->n_kinds = 0;
	for (line = strtok_r(f->kinds_text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *p = line, *fields[7];
		int64_t divisor, sample_ns, lost;
		size_t n = 0;

		while (n < 7 && (fields[n] = next_field(&p)))
			n++;
		if (n != 7 || p || m->n_kinds == STK_EV_MAX_KINDS || parse_i64(fields[4], &divisor) || divisor < 1 ||
		    parse_i64(fields[5], &sample_ns) || sample_ns < 0 || parse_i64(fields[6], &lost) || lost < 0) {
			snprintf(err, err_len, "not an event log stk wrote: footer metadata %s not valid", STK_EV_META_KINDS);
			return -1;
		}
		m->kinds[m->n_kinds++] = (struct stk_ev_kind){
			.event = fields[0], .unit = fields[1], .value = { fields[2], fields[3] },
			.divisor = (uint64_t)divisor, .sample_ns = sample_ns, .lost = (uint64_t)lost,
		};
	}
	if (!m->n_kinds) {
		snprintf(err, err_len, "not an event log stk wrote: footer metadata %s empty", STK_EV_META_KINDS);
		return -1;
	}
	for (size_t i = 0; i < m->n_kinds; i++)
		m->types[i] = m->kinds[i].value;
	if (m->n_kinds > 1) {
		m->report.types = m->types;
		m->report.n_types = m->n_kinds;
	}
	return 0;
}

/* The footer's description; a key that is missing or malformed is a file stk did not write. */
static int read_meta(struct stk_ev_file *f, char *err, size_t err_len)
{
	struct stk_ev_meta *m = &f->meta;
	const char *schema = stk_pq_reader_metadata(f->r, STK_EV_META_SCHEMA);
	const char *opts = stk_pq_reader_metadata(f->r, STK_EV_META_OUTPUT);
	int64_t events = 0, lost = 0, per_thread = 0, divisor = 1, period = 0;
	const char *bad = NULL;

	if (!schema || (strcmp(schema, STK_EV_SCHEMA) != 0 && strcmp(schema, STK_EV_SCHEMA_1) != 0)) {
		snprintf(err, err_len, "not an stk event log (footer metadata %s is %s%s%s, want \"%s\")",
			 STK_EV_META_SCHEMA, schema ? "\"" : "missing", schema ? schema : "", schema ? "\"" : "",
			 STK_EV_SCHEMA);
		return -1;
	}
#define META_I64(key, var)                                                  \
	if (parse_i64(stk_pq_reader_metadata(f->r, key), &(var)) && !bad) \
		bad = key;
	META_I64(STK_EV_META_EVENTS, events);
	META_I64(STK_EV_META_START, m->start);
	META_I64(STK_EV_META_DURATION, m->duration);
	META_I64(STK_EV_META_PER_THREAD, per_thread);
	META_I64(STK_EV_META_DIVISOR, divisor);
	META_I64(STK_EV_META_SAMPLE_NS, m->sample_ns);
	META_I64(STK_EV_META_LOST, lost);
	META_I64(STK_EV_META_PERIOD, period);
#undef META_I64
	if (events > 0 && parse_i64(stk_pq_reader_metadata(f->r, STK_EV_META_FIRST), &m->first) && !bad)
		bad = STK_EV_META_FIRST;
	m->applet = stk_pq_reader_metadata(f->r, STK_EV_META_APPLET);
	m->event = stk_pq_reader_metadata(f->r, STK_EV_META_EVENT);
	if (!bad && (!m->applet || !m->event || !opts))
		bad = !m->applet ? STK_EV_META_APPLET : !m->event ? STK_EV_META_EVENT : STK_EV_META_OUTPUT;
	if (!bad && (events != stk_pq_reader_rows(f->r) || divisor < 1 || per_thread < 0 || per_thread > 1 ||
		     lost < 0 || m->sample_ns < 0))
		bad = events != stk_pq_reader_rows(f->r) ? STK_EV_META_EVENTS : "stk.*";
	if (bad) {
		snprintf(err, err_len, "not an event log stk wrote: footer metadata %s missing or not valid", bad);
		return -1;
	}
	m->events = (uint64_t)events;
	m->lost = (uint64_t)lost;
	m->per_thread = per_thread == 1;
	m->divisor = (uint64_t)divisor;
	m->command = stk_pq_reader_metadata(f->r, STK_EV_META_COMMAND);
	m->report = (struct stk_report){
		.value_type = stk_pq_reader_metadata(f->r, STK_EV_META_VALUE_TYPE),
		.value_unit = stk_pq_reader_metadata(f->r, STK_EV_META_VALUE_UNIT),
		.period_type = stk_pq_reader_metadata(f->r, STK_EV_META_PERIOD_TYPE),
		.period_unit = stk_pq_reader_metadata(f->r, STK_EV_META_PERIOD_UNIT),
		.period = period,
		.time_nanos = m->start,
		.duration_nanos = m->duration,
		.title = stk_pq_reader_metadata(f->r, STK_EV_META_TITLE),
	};
	m->opts = (struct stk_output_opts){
		.annotate = strchr(opts, 'a') != NULL, .show_tid = strchr(opts, 't') != NULL,
		.no_task = strchr(opts, 'n') != NULL, .symbol_offsets = strchr(opts, 's') != NULL,
		.delimiter = strchr(opts, 'd') != NULL, .verbose = strchr(opts, 'v') != NULL,
		.lines = strchr(opts, 'l') != NULL,
	};
	m->kinds[0] = (struct stk_ev_kind){
		.event = m->event, .value = { m->report.value_type, m->report.value_unit }, .divisor = m->divisor,
		.sample_ns = m->sample_ns, .lost = m->lost,
	};
	m->n_kinds = 1;
	return read_kinds(f, err, err_len);
}

struct stk_ev_file *stk_ev_open(int fd, char *err, size_t err_len)
{
	struct stk_ev_file *f = calloc(1, sizeof(*f));
	struct stat st;

	if (!f) {
		snprintf(err, err_len, "out of memory");
		return NULL;
	}
	f->by_id = (struct stk_key_index){ .key_size = sizeof(int64_t), .stride = sizeof(struct decoded) };
	stk_frame_lines_table_init(&f->lines, EXPAND_BASE + (fstat(fd, &st) == 0 && st.st_size > 0
							     ? (uint64_t)st.st_size * EXPAND_PER_BYTE : 0));
	f->r = stk_pq_reader_open(fd, stk_ev_columns, STK_EV_COLS, err, err_len);
	if (!f->r || read_meta(f, err, err_len)) {
		stk_ev_close(f);
		return NULL;
	}
	return f;
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

/* The row's stack id's index, decoding its frames the first time they come. */
static int row_stack(struct stk_ev_file *f, uint32_t *index, char *err, size_t err_len)
{
	int64_t id = stk_pq_reader_int64(f->r, STK_EV_STACK_ID);
	int64_t known;
	size_t len;
	const char *frames;
	struct decoded *d;

	*index = UINT32_MAX;
	if (stk_pq_reader_is_null(f->r, STK_EV_STACK_ID))
		return 0;
	if (id <= 0) {
		snprintf(err, err_len, "a stack_id of %" PRId64 " (stk numbers stacks from 1)", id);
		return -1;
	}
	known = stk_key_index_find(&f->by_id, f->stacks ? &f->stacks->id : NULL, &id);
	/* every frames value joins the group's lines, whether its stack is known or not */
	frames = stk_pq_reader_string(f->r, STK_EV_FRAMES, &len);
	f->expanded.len = 0;
	if (frames && stk_frame_lines_take(&f->lines, frames, len, known >= 0 ? NULL : &f->expanded, err, err_len))
		return -1;
	if (known >= 0) {
		*index = (uint32_t)known;
		return 0;
	}
	if (!frames) {
		snprintf(err, err_len, "stack_id %" PRId64 " has no frames on its first row", id);
		return -1;
	}
	if (f->n_stacks >= UINT32_MAX - 1 ||
	    stk_grow((void **)&f->stacks, &f->cap_stacks, f->n_stacks + 1, sizeof(*f->stacks))) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	d = &f->stacks[f->n_stacks];
	*d = (struct decoded){ .id = id };
	if (stk_frames_decode((const char *)f->expanded.data, f->expanded.len, &d->stack, &d->owner, err, err_len))
		return -1;
	if (stk_key_index_add(&f->by_id, &f->stacks->id, f->n_stacks + 1)) {
		stk_frames_free(d->owner);
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	*index = (uint32_t)f->n_stacks++;
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

/* Whether event is want, or one of want's names joined by ','. */
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
	if (!event_passes(flt, ev) || !listed(flt->pids, flt->n_pids, ev->pid) ||
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
	int rc, ret;

	if (f->walked) {
		snprintf(err, err_len, "the event log was read already");
		return -1;
	}
	f->walked = true;
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
	free(f->stacks);
	free(f->flat);
	stk_key_index_free(&f->by_id);
	stk_frame_lines_table_free(&f->lines);
	stk_buf_free(&f->expanded);
	free(f->kinds_text);
	stk_pq_reader_close(f->r);
	free(f);
}
