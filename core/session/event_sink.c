/* A capture's events into the event log: see event_sink.h. */
#include "core/session/event_sink.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "stk.skel.h"
#include "bpf/resources_types.h"
#include "bpf/stack_sample.h"
#include "core/base/byte_arena.h"
#include "core/base/clock.h"
#include "core/base/grow.h"
#include "core/base/key_index.h"
#include "core/base/waitlist.h"
#include "core/base/run_loop.h"
#include "core/bpf/percpu_maps.h"
#include "core/eventlog/event_host.h"
#include "core/eventlog/event_schema.h"
#include "core/eventlog/event_series.h"
#include "core/eventlog/event_writer.h"
#include "core/eventlog/frames_codec.h"
#include "core/options/stack_opts.h"
#include "core/output/output.h"
#include "core/session/dwarf_samples.h"
#include "core/session/stack_list.h"
#include "core/session/stack_resolver.h"
#include "core/sym/symbolize.h"

/* How often the ring buffer is read when no quarter of it filled (events wake no one). */
#define READ_EVERY_NS 100000000L
/*
 * A turn of reading ends after this much time (a new stack is symbolized as
 * its first event comes), so the loop's other buffers get theirs; the timer
 * brings the loop back right after them.
 */
#define TURN_NS 20000000LL
/*
 * The text and frames of stacks kept between row groups, at most: past it
 * they are dropped and made again from the stack's references the next time
 * a row group needs them (each group stores each of its stacks once).
 */
#define KEPT_BYTES (8u << 20)
/* They are kept in blocks of this size, emptied together when dropped. */
#define KEPT_BLOCK_BYTES (1u << 20)
/* Events waiting for their stack copy to be unwound; past this they are written without it. */
#define PENDING_MAX 65536
/*
 * A series' checkpoint forgets the processes that exited this long before it
 * (their events are written by then: the ring buffer is read every 100 ms,
 * a copy waits for its unwinding seconds at most).
 */
#define FORGET_EXITED_NS (10 * 1000000000LL)
/* Block devices named (iorq): their dev_t and name, kept for the capture. */
#define DEVICES_MAX 64

struct stack_entry {
	struct stk_ev_stack_ref ref; /* id: numbered from 1 in the order first seen, never twice */
};

/* The capture's description for the footer, copied. */
struct description {
	char *applet, *command, *title, *value_type, *value_unit, *period_type, *period_unit;
	int64_t period, start, duration;
	char opts[8];
};

_Static_assert(STK_EVENT_TYPES < STK_EV_SERIES_KINDS, "a series counts every kind's losses apart");

/* What one file's footer says it lost: the kernel's losses since it opened, and a full disk's before it. */
struct file_losses {
	uint64_t total, of[STK_EVENT_TYPES];
};

struct stk_event_sink {
	struct stk_ev_writer *writers[STK_MAX_OUTPUTS];
	size_t n_writers;
	struct stk_ev_series *series; /* -o DIR/ (stk record): rows go there, a file at a time */
	struct file_losses lost_at_open; /* the series' current file: the kernel's losses when it opened */
	char *labels[STK_MAX_SPANS];
	size_t n_labels;
	struct ring_buffer *rb;
	const struct bpf_map *stats, *lost;
	uint64_t lost_before; /* counted by skeletons replaced since */
	uint64_t lost_before_of[STK_EVENT_TYPES];
	uint64_t rows_of[STK_EVENT_TYPES];
	struct stk_event_desc kinds[STK_EVENT_TYPES]; /* by ref.type */
	size_t n_kinds;
	bool per_thread;
	struct device { uint32_t dev; char name[40]; } devices[DEVICES_MAX];
	size_t n_devices;
	const struct stk_stack_resolver *resolver; /* the session's */
	struct stk_dwarf_samples *dwarf;
	int timer_fd;
	int64_t wall_offset; /* CLOCK_REALTIME - CLOCK_MONOTONIC */
	struct stk_stack_ref *keys; /* what tells stacks apart: the ref without comm, and tid only when still */
	struct stack_entry *entries;
	size_t n_stacks, cap_keys, cap_entries;
	int64_t last_id;       /* the last stack id given */
	uint64_t turns_seen;   /* the series' checkpoints and files when the entries were last forgotten */
	uint64_t stacks_forgotten; /* entries a series' checkpoints let go */
	struct stk_key_index index;
	struct stk_byte_arena kept; /* the text and frames of the entries that hold them */
	size_t kept_bytes;          /* of them, against KEPT_BYTES */
	uint64_t renders;  /* stacks rendered, again each time one was dropped and needed */
	struct stk_waitlist pending; /* events (struct stk_event) waiting on their copy's content hash */
	struct stk_buf frames;       /* a stack's frames as they are encoded: kept, so encoding does not regrow it */
	struct stk_folded_scratch *folded; /* the same for its text */
	size_t unwound_seen; /* the copies unwound whose waiting events have been released */
	struct description d;
	bool closed;
	bool final; /* every copy is unwound: no event waits any more */
	int64_t turn_end; /* CLOCK_MONOTONIC: when on_record stops the current read */
	unsigned turn_records;
	bool turn_cut; /* the current read ended with records left */
	uint64_t rows; /* written, as the first stream's footer says (once closed) */
	char host[STK_EV_HOST_MAX + 1]; /* every row's host */
	char err[256]; /* the first failure */
};

static void fail(struct stk_event_sink *k, const char *what)
{
	if (!k->err[0])
		snprintf(k->err, sizeof(k->err), "%s", what);
}

struct stk_event_sink *stk_event_sink_new(FILE *const *streams, size_t n, const struct stk_span_spec *spans,
					  size_t n_spans, char *err, size_t err_len)
{
	struct stk_event_sink *k = calloc(1, sizeof(*k));

	if (!k || n > STK_MAX_OUTPUTS || n_spans > STK_MAX_SPANS) {
		snprintf(err, err_len, k ? "too many event outputs or spans" : "out of memory");
		free(k);
		return NULL;
	}
	k->timer_fd = -1;
	stk_ev_host_default(k->host, sizeof(k->host));
	stk_byte_arena_init(&k->kept, KEPT_BLOCK_BYTES);
	stk_waitlist_init(&k->pending, sizeof(struct stk_event));
	if (!(k->folded = stk_folded_scratch_new()))
		goto oom;
	k->index = (struct stk_key_index){ .key_size = sizeof(struct stk_stack_ref), .stride = sizeof(struct stk_stack_ref) };
	k->wall_offset = stk_now_ns(CLOCK_REALTIME) - stk_now_ns(CLOCK_MONOTONIC);
	for (size_t i = 0; i < n_spans; i++, k->n_labels++)
		if (!(k->labels[i] = strdup(spans[i].label)))
			goto oom;
	for (size_t i = 0; i < n; i++, k->n_writers++)
		if (!(k->writers[i] = stk_ev_writer_new(streams[i], NULL, err, err_len)))
			goto fail;
	return k;
oom:
	snprintf(err, err_len, "out of memory");
fail:
	stk_event_sink_free(k);
	return NULL;
}

/* The label of the span an event was in ("FUNC", "FUNC=VALUE") into buf, or NULL. */
static const char *span_label(const struct stk_event_sink *k, const struct stk_event *e, char *buf, size_t len)
{
	if (!e->span_label || e->span_label > k->n_labels)
		return NULL;
	if (!(e->flags & STK_EVENT_SPAN_VALUE))
		return k->labels[e->span_label - 1];
	snprintf(buf, len, "%s=%" PRId64, k->labels[e->span_label - 1], (int64_t)e->span_value);
	return buf;
}

/* What tells e's stack apart: a stack does not depend on the command or (but for a block still going) the thread. */
static void key_of(const struct stk_event *e, struct stk_stack_ref *key)
{
	*key = e->ref;
	memset(key->comm, 0, sizeof(key->comm));
	/* a block still going is its own entry in the capture's totals, whichever thread */
	if (!(key->flags & STK_REF_STILL))
		key->tid = 0;
}

/* Drops the text and frames of every entry (the writers have each in their row group). */
static void drop_strings(struct stk_event_sink *k)
{
	for (size_t i = 0; i < k->n_stacks; i++)
		k->entries[i].ref.text = k->entries[i].ref.frames = NULL;
	stk_byte_arena_reset(&k->kept);
	k->kept_bytes = 0;
}

/*
 * The text (as -f prints it) and frames of key's stack into ref, kept
 * together (text, NUL, frames) while they fit KEPT_BYTES. 0, or -1 when out
 * of memory.
 */
static int render(struct stk_event_sink *k, const struct stk_stack_ref *key, struct stk_ev_stack_ref *ref)
{
	struct stk_output_opts plain = { 0 };
	struct stk_stack_list list = { 0 };
	const struct stk_stack *st = stk_stack_resolve(k->resolver, &list, key, 0);
	const char *text = NULL;
	size_t text_len = 0;
	char *both = NULL;

	k->frames.len = 0;
	if (st && (text = stk_folded_stack_in(k->folded, st, &plain, &text_len)))
		stk_frames_encode(&k->frames, st);
	stk_stack_list_free(&list);
	if (text && !k->frames.oom) {
		if (k->kept_bytes + text_len + 1 + k->frames.len > KEPT_BYTES)
			drop_strings(k);
		if ((both = stk_byte_arena_alloc(&k->kept, text_len + 1 + k->frames.len))) {
			memcpy(both, text, text_len + 1);
			memcpy(both + text_len + 1, k->frames.data, k->frames.len);
		}
	}
	if (!both) {
		k->frames.oom = false;
		return -1;
	}
	stk_ev_utf8_clean(both, text_len);
	k->renders++;
	ref->text = both;
	ref->text_len = text_len;
	ref->frames = both + text_len + 1;
	ref->frames_len = k->frames.len;
	k->kept_bytes += text_len + 1 + k->frames.len;
	return 0;
}

/* A new entry for key, its stack not rendered yet. Its index, or -1 when out of memory. */
static int64_t add_entry(struct stk_event_sink *k, const struct stk_stack_ref *key)
{
	if (stk_grow((void **)&k->keys, &k->cap_keys, k->n_stacks + 1, sizeof(*k->keys)) ||
	    stk_grow((void **)&k->entries, &k->cap_entries, k->n_stacks + 1, sizeof(*k->entries)))
		return -1;
	k->keys[k->n_stacks] = *key;
	if (stk_key_index_add(&k->index, k->keys, k->n_stacks + 1))
		return -1;
	k->entries[k->n_stacks].ref = (struct stk_ev_stack_ref){ .id = ++k->last_id };
	return (int64_t)k->n_stacks++;
}

/* Whether some writer's row group has not had this stack yet (its text and frames go with it). */
static bool strings_needed(const struct stk_event_sink *k, int64_t id)
{
	for (size_t i = 0; i < k->n_writers; i++)
		if (!stk_ev_writer_has_stack(k->writers[i], id))
			return true;
	return k->series && !stk_ev_series_has_stack(k->series, id);
}

static void retry_pending(struct stk_event_sink *k, bool final);

/*
 * A series' checkpoint or new file: every entry goes (each stack is a new id
 * the first time it comes after it), then the stack copies no rows needed
 * since the last one and the processes that exited well before. A recorder
 * left running for weeks keeps what one checkpoint's rows need, not each
 * stack of every process the host ever ran.
 */
static void forget_stacks(struct stk_event_sink *k)
{
	k->stacks_forgotten += k->n_stacks;
	drop_strings(k);
	k->n_stacks = k->cap_keys = k->cap_entries = 0;
	free(k->keys);
	free(k->entries);
	k->keys = NULL;
	k->entries = NULL;
	stk_key_index_free(&k->index);
	if (k->dwarf) {
		/* the copies are renumbered: the events waiting on those unwound go first (into the new file) */
		retry_pending(k, false);
		stk_dwarf_samples_forget_unused(k->dwarf);
		k->unwound_seen = stk_dwarf_samples_unwound(k->dwarf);
	}
	if (k->resolver && k->resolver->sym) {
		stk_symbolizer_forget_exited(k->resolver->sym, stk_now_ns(CLOCK_MONOTONIC) - FORGET_EXITED_NS);
		/* then the files only they mapped: their parse, descriptors and kernel tables */
		stk_symbolizer_forget_files(k->resolver->sym);
	}
}

/*
 * After a checkpoint (a minute's row group out, or a full one) or a new file
 * (on time, SIGHUP, a full disk): what the rows before needed goes. So what a
 * recorder holds follows the host's activity in one checkpoint's interval, not
 * the length of its files (an hour's, by the service's default).
 */
static void series_turned(struct stk_event_sink *k)
{
	uint64_t turns = stk_ev_series_files(k->series) + stk_ev_series_checkpoints(k->series);

	if (turns != k->turns_seen) {
		k->turns_seen = turns;
		forget_stacks(k);
	}
}

/*
 * e's stack: its id is kept while its file is written (the capture's
 * whole recording when it is not a series), its text and frames
 * while they fit (KEPT_BYTES), else made again when a row group needs them.
 * NULL when out of memory.
 */
static const struct stk_ev_stack_ref *stack_of(struct stk_event_sink *k, const struct stk_event *e)
{
	struct stk_stack_ref key;
	int64_t at;

	key_of(e, &key);
	if ((at = stk_key_index_find(&k->index, k->keys, &key)) < 0 && (at = add_entry(k, &key)) < 0)
		return NULL;
	struct stk_ev_stack_ref *ref = &k->entries[at].ref;
	if (ref->text || !strings_needed(k, ref->id))
		return ref;
	return render(k, &k->keys[at], ref) ? NULL : ref;
}

/* The kind of ref.type type (the first where the type names none). */
static const struct stk_event_desc *kind_of(const struct stk_event_sink *k, uint16_t type)
{
	return type < k->n_kinds && k->kinds[type].event ? &k->kinds[type] : &k->kinds[0];
}

/* A block device's name as /sys/dev/block knows it ("nvme0n1"), else "MAJOR:MINOR"; kept for the capture. */
static const char *device_name(struct stk_event_sink *k, uint32_t dev, char *buf, size_t len)
{
	unsigned major = dev >> 20, minor = dev & 0xfffff;
	char path[96], line[128];
	FILE *f;

	for (size_t i = 0; i < k->n_devices; i++)
		if (k->devices[i].dev == dev)
			return k->devices[i].name;
	snprintf(buf, len, "%u:%u", major, minor);
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", major, minor);
	if ((f = fopen(path, "re"))) {
		while (fgets(line, sizeof(line), f))
			if (strncmp(line, "DEVNAME=", 8) == 0) {
				line[strcspn(line, "\n")] = '\0';
				snprintf(buf, len, "%.*s", (int)(len - 1), line + 8);
				break;
			}
		fclose(f);
	}
	if (k->n_devices == DEVICES_MAX)
		return buf;
	k->devices[k->n_devices].dev = dev;
	snprintf(k->devices[k->n_devices].name, sizeof(k->devices[0].name), "%s", buf);
	return k->devices[k->n_devices++].name;
}

/* What e's kind adds to its row: the system call, a block request's direction, device and bytes. */
static void kind_columns(struct stk_event_sink *k, const struct stk_event_desc *kind, const struct stk_event *e,
			 struct stk_ev_row *row, char *dev, size_t dev_len)
{
	if ((kind->columns & STK_EV_FILLS_SYSCALL) && e->ref.detail)
		row->syscall = e->ref.detail;
	if (!(kind->columns & STK_EV_FILLS_BLOCK))
		return;
	row->op = e->ref.detail == STK_RES_BLOCK_READ ? "read" : e->ref.detail == STK_RES_BLOCK_WRITE ? "write" : NULL;
	if (e->dev || e->bytes) {
		row->device = device_name(k, e->dev, dev, dev_len);
		row->bytes = (int64_t)e->bytes;
		row->has_bytes = true;
	}
}

/* A row to every writer, with the sink's host. */
static void add_row(struct stk_event_sink *k, uint16_t type, const struct stk_ev_row *in)
{
	struct stk_ev_row hosted = *in;
	const struct stk_ev_row *row = &hosted;

	hosted.host = k->host;
	for (size_t i = 0; i < k->n_writers; i++)
		if (stk_ev_writer_add(k->writers[i], row))
			fail(k, "writing an event failed");
	uint64_t lost = k->series ? stk_ev_series_lost(k->series) : 0;

	if (k->series && stk_ev_series_add(k->series, type, row))
		fail(k, stk_ev_series_error(k->series));
	/* a row a full disk kept out is counted as lost there, not here */
	if (type < STK_EVENT_TYPES && (!k->series || stk_ev_series_lost(k->series) == lost))
		k->rows_of[type]++;
}

static void write_row(struct stk_event_sink *k, const struct stk_event *e)
{
	char label[600], dev[40];
	bool span = e->kind == STK_EVENT_SPAN;
	const struct stk_event_desc *kind = kind_of(k, e->ref.type);
	struct stk_ev_row row = {
		.time = (int64_t)e->time + k->wall_offset, .pid = e->ref.tgid, .tid = e->ref.tid, .cpu = e->cpu,
		.comm = e->ref.comm, .event = span ? "span" : kind->event, .weight = (int64_t)e->weight,
		.unit = span ? "nanoseconds" : kind->unit, .span = span_label(k, e, label, sizeof(label)),
		.state = (char)e->state,
	};

	if (!span && !(row.stack = stack_of(k, e))) {
		fail(k, "out of memory resolving a stack");
		return;
	}
	if (!span)
		kind_columns(k, kind, e, &row, dev, sizeof(dev));
	add_row(k, span ? STK_EVENT_TYPES : e->ref.type, &row);
}

void stk_event_sink_set_host(struct stk_event_sink *k, const char *host)
{
	snprintf(k->host, sizeof(k->host), "%s", host);
}

void stk_event_sink_add_row(struct stk_event_sink *k, uint16_t type, struct stk_ev_row *row)
{
	const struct stk_event_desc *kind;

	if (!k || k->closed || k->err[0])
		return;
	kind = kind_of(k, type);
	row->event = kind->event;
	row->unit = kind->unit;
	add_row(k, type, row);
}

/* Whether e's stack can be resolved now: a stack copy must have been unwound first. */
static bool ready(const struct stk_event_sink *k, const struct stk_event *e)
{
	return !e->ref.copy || !k->dwarf || stk_dwarf_samples_known(k->dwarf, e->ref.copy);
}

static void take(struct stk_event_sink *k, const struct stk_event *e)
{
	if (k->closed || k->err[0])
		return;
	if (e->kind != STK_EVENT_SPAN && !k->final && !ready(k, e) && k->pending.n_waiting < PENDING_MAX &&
	    stk_waitlist_add(&k->pending, e->ref.copy, e) == 0)
		return;
	write_row(k, e);
}

static void write_waiting(void *ctx, const void *e)
{
	write_row(ctx, e);
}

/* Writes the waiting events whose copies were unwound since the last look (all of them when final). */
static void retry_pending(struct stk_event_sink *k, bool final)
{
	size_t unwound = stk_dwarf_samples_unwound(k->dwarf);

	for (; k->unwound_seen < unwound; k->unwound_seen++)
		stk_waitlist_release(&k->pending, stk_dwarf_samples_unwound_id(k->dwarf, k->unwound_seen),
				    write_waiting, k);
	if (final)
		stk_waitlist_release_all(&k->pending, write_waiting, k);
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct stk_event e;

	if (size < sizeof(e))
		return 0;
	struct stk_event_sink *k = ctx;

	memcpy(&e, data, sizeof(e));
	take(k, &e);
	/* handled, and consumed: a negative return only ends this read */
	if (++k->turn_records % 64 == 0 && stk_now_ns(CLOCK_MONOTONIC) > k->turn_end) {
		k->turn_cut = true;
		return -1;
	}
	return 0;
}

/* profile's copies: each sample recorded in the copy table is an event. */
static void on_copy(void *ctx, const struct stk_stack_sample *s, uint64_t copy)
{
	struct stk_event e = {
		.ref = { .copy = copy, .kernel_stack_id = -1, .user_stack_id = -1, .tgid = s->tgid, .tid = s->tid },
		.time = s->time, .weight = s->value, .cpu = s->cpu, .kind = STK_EVENT_CPU,
		.flags = s->span_flags & STK_EVENT_SPAN_VALUE, .span_label = s->span_label, .span_value = s->span_value,
	};

	memcpy(e.ref.comm, s->comm, sizeof(e.ref.comm));
	take(ctx, &e);
}

int stk_event_sink_describe_events(struct stk_event_sink *k, const struct stk_event_source *src, char *err,
				   size_t err_len)
{
	if (!src->n_kinds || src->n_kinds > STK_EVENT_TYPES) {
		snprintf(err, err_len, "%zu kinds of events in one capture (1 to %d)", src->n_kinds, STK_EVENT_TYPES);
		return -1;
	}
	memcpy(k->kinds, src->kinds, src->n_kinds * sizeof(*src->kinds));
	k->n_kinds = src->n_kinds;
	k->per_thread = src->per_thread;
	return 0;
}

int stk_event_sink_connect(struct stk_event_sink *k, struct stk_bpf *skel, const struct stk_event_source *src,
			   const struct stk_stack_resolver *resolver, char *err, size_t err_len)
{
	struct stk_dwarf_samples *dwarf = resolver->copies;

	if (k->rb) {
		ring_buffer__free(k->rb);
		k->rb = NULL;
		k->lost_before += stk_percpu_sum(k->stats, STK_EVSTAT_LOST);
		for (uint32_t t = 0; t < STK_EVENT_TYPES; t++)
			k->lost_before_of[t] += stk_percpu_sum(k->lost, t);
	}
	if (stk_event_sink_describe_events(k, src, err, err_len))
		return -1;
	k->resolver = resolver;
	if (dwarf != k->dwarf)
		k->unwound_seen = 0; /* a new skeleton's copies are numbered from 0 */
	k->dwarf = dwarf;
	k->stats = skel->maps.stk_event_stats;
	k->lost = skel->maps.stk_event_lost;
	stk_dwarf_samples_on_sample(dwarf, on_copy, k);
	k->rb = ring_buffer__new(bpf_map__fd(skel->maps.stk_events), on_record, k, NULL);
	if (!k->rb) {
		snprintf(err, err_len, "reading the event ring buffer failed: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* The timer: every READ_EVERY_NS, or at once after a turn that left records. */
static void arm_timer(struct stk_event_sink *k, long first_ns)
{
	struct itimerspec t = { .it_interval = { 0, READ_EVERY_NS }, .it_value = { 0, first_ns } };

	if (timerfd_settime(k->timer_fd, 0, &t, NULL))
		fail(k, "setting the event timer failed");
}

/* A turn of reading; one cut short comes back once the loop's other descriptors had theirs. */
static void read_turn(struct stk_event_sink *k)
{
	k->turn_end = stk_now_ns(CLOCK_MONOTONIC) + TURN_NS;
	k->turn_cut = false;
	if (k->rb)
		ring_buffer__consume(k->rb);
	if (k->turn_cut)
		arm_timer(k, 1000);
	retry_pending(k, false);
}

/* Now in the events' clock (ns since the epoch): what a series names and times its files by. */
static int64_t wall_now(const struct stk_event_sink *k)
{
	return stk_now_ns(CLOCK_MONOTONIC) + k->wall_offset;
}

static void on_timer(void *ctx)
{
	struct stk_event_sink *k = ctx;
	uint64_t ticks;

	if (read(k->timer_fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		fail(k, "reading the event timer failed");
	read_turn(k);
	if (k->series) {
		stk_ev_series_tick(k->series, wall_now(k));
		series_turned(k);
	}
}

/* SIGHUP: the series' next file now. */
static void on_hangup(void *ctx)
{
	struct stk_event_sink *k = ctx;

	read_turn(k);
	stk_ev_series_rotate(k->series, wall_now(k));
	series_turned(k);
}

/* The producer woke the reader: a quarter of the ring buffer filled. */
static void on_wakeup(void *ctx)
{
	read_turn(ctx);
}

int stk_event_sink_watch(struct stk_event_sink *k, struct stk_run_loop *loop, char *err, size_t err_len)
{
	k->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (k->timer_fd >= 0)
		arm_timer(k, READ_EVERY_NS);
	/* the ring buffer's descriptor is readable while any record waits: only its wakeups count */
	if (k->timer_fd < 0 || k->err[0] || stk_run_loop_add_fd(loop, k->timer_fd, on_timer, k) ||
	    (k->rb && stk_run_loop_add_wakeups(loop, ring_buffer__epoll_fd(k->rb), on_wakeup, k)) ||
	    (k->series && stk_run_loop_on_signal(loop, SIGHUP, on_hangup, k))) {
		snprintf(err, err_len, "watching the event ring buffer failed: %s", strerror(errno));
		return -1;
	}
	return k->series ? stk_ev_series_start(k->series, wall_now(k), err, err_len) : 0;
}

void stk_event_sink_drain(struct stk_event_sink *k, bool final)
{
	if (!k)
		return;
	k->turn_end = INT64_MAX;
	if (k->rb)
		ring_buffer__consume(k->rb);
	retry_pending(k, final);
	k->final |= final;
}

void stk_event_sink_add(struct stk_event_sink *k, const struct stk_event *e)
{
	if (k)
		take(k, e);
}

static char *copy_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void free_description(struct description *d)
{
	free(d->applet);
	free(d->command);
	free(d->title);
	free(d->value_type);
	free(d->value_unit);
	free(d->period_type);
	free(d->period_unit);
	memset(d, 0, sizeof(*d));
}

void stk_event_sink_describe(struct stk_event_sink *k, const char *applet, const char *command,
			     const struct stk_report *r, const struct stk_output_opts *o)
{
	struct description *d = &k->d;
	size_t n = 0;

	free_description(d);
	d->applet = copy_or_null(applet);
	d->command = copy_or_null(command);
	d->title = copy_or_null(r->title);
	d->value_type = copy_or_null(r->value_type);
	d->value_unit = copy_or_null(r->value_unit);
	d->period_type = copy_or_null(r->period_type);
	d->period_unit = copy_or_null(r->period_unit);
	d->period = r->period;
	d->start = r->time_nanos;
	d->duration = r->duration_nanos;
	const bool flags[] = { o->annotate, o->show_tid, o->no_task, o->symbol_offsets, o->delimiter, o->verbose,
			       o->lines };
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (flags[i])
			d->opts[n++] = "atnsdvl"[i];
	d->opts[n] = '\0';
}

uint64_t stk_event_sink_rows(const struct stk_event_sink *k)
{
	if (k && k->series)
		return stk_ev_series_rows(k->series);
	if (!k || !k->n_writers)
		return 0;
	return k->closed ? k->rows : stk_ev_writer_rows(k->writers[0]);
}

uint64_t stk_event_sink_lost_full(const struct stk_event_sink *k)
{
	return k && k->series ? stk_ev_series_lost(k->series) : 0;
}

uint64_t stk_event_sink_lost_full_of(const struct stk_event_sink *k, uint16_t type)
{
	return k && k->series ? stk_ev_series_lost_of(k->series, type) : 0;
}

uint64_t stk_event_sink_lost(const struct stk_event_sink *k)
{
	return k ? k->lost_before + (k->stats ? stk_percpu_sum(k->stats, STK_EVSTAT_LOST) : 0) : 0;
}

uint64_t stk_event_sink_lost_of(const struct stk_event_sink *k, uint16_t type)
{
	if (!k || type >= STK_EVENT_TYPES)
		return 0;
	return k->lost_before_of[type] + (k->lost ? stk_percpu_sum(k->lost, type) : 0);
}

const char *stk_event_sink_kind_name(const struct stk_event_sink *k, uint16_t type)
{
	return k && type < k->n_kinds ? k->kinds[type].event : NULL;
}

uint64_t stk_event_sink_rows_of(const struct stk_event_sink *k, uint16_t type)
{
	return k && type < STK_EVENT_TYPES ? k->rows_of[type] : 0;
}

void stk_event_sink_stacks(const struct stk_event_sink *k, size_t *n, size_t *bytes, uint64_t *renders,
			   uint64_t *forgotten)
{
	*n = k ? k->n_stacks : 0;
	*forgotten = k ? k->stacks_forgotten : 0;
	*bytes = k ? k->kept_bytes : 0;
	*renders = k ? k->renders : 0;
}

static void put_meta(struct stk_ev_writer *w, const char *key, const char *value)
{
	if (value)
		stk_ev_writer_meta(w, key, value);
}

static void put_meta_i64(struct stk_ev_writer *w, const char *key, int64_t value)
{
	char num[32];

	snprintf(num, sizeof(num), "%" PRId64, value);
	stk_ev_writer_meta(w, key, num);
}

/* The kinds the capture records, in ref.type order (the report's value types of a recording of several). */
static size_t recorded_kinds(const struct stk_event_sink *k, uint16_t *types)
{
	size_t n = 0;

	for (uint16_t t = 0; t < k->n_kinds; t++)
		if (k->kinds[t].event)
			types[n++] = t;
	return n;
}

/* stk.kinds: a line per kind recorded (event_schema.h). 0, or -1 when out of memory. */
static int put_kinds(const struct stk_event_sink *k, struct stk_ev_writer *w, const uint16_t *types, size_t n,
		     const struct file_losses *lost)
{
	struct stk_buf b = { 0 };
	int ret;

	for (size_t i = 0; i < n; i++) {
		const struct stk_event_desc *kind = &k->kinds[types[i]];

		stk_buf_printf(&b, "%s%s\t%s\t%s\t%s\t%" PRIu64 "\t%" PRId64 "\t%" PRIu64, i ? "\n" : "", kind->event,
			       kind->unit, kind->value.type, kind->value.unit, kind->divisor ? kind->divisor : 1,
			       kind->sample_ns, lost->of[types[i]]);
	}
	ret = b.oom ? -1 : stk_ev_writer_meta(w, STK_EV_META_KINDS, stk_buf_str(&b));
	stk_buf_free(&b);
	return ret;
}

/* stk.sampled: a line per kind that took one event in N (event_schema.h); nothing when none did. */
static int put_sampled(const struct stk_event_sink *k, struct stk_ev_writer *w, const uint16_t *types, size_t n)
{
	struct stk_buf b = { 0 };
	int ret = 0;

	for (size_t i = 0; i < n; i++) {
		const struct stk_event_desc *kind = &k->kinds[types[i]];

		if (kind->every > 1)
			stk_buf_printf(&b, "%s%s\t%" PRIu64 "\t%s", b.len ? "\n" : "", kind->event, kind->every,
				       kind->taken ? kind->taken : "");
	}
	if (b.len)
		ret = b.oom ? -1 : stk_ev_writer_meta(w, STK_EV_META_SAMPLED, stk_buf_str(&b));
	stk_buf_free(&b);
	return ret;
}

/* The kernel's losses so far: all, and by kind. */
static void kernel_losses(const struct stk_event_sink *k, struct file_losses *l)
{
	l->total = stk_event_sink_lost(k);
	for (uint16_t t = 0; t < STK_EVENT_TYPES; t++)
		l->of[t] = stk_event_sink_lost_of(k, t);
}

/* A file's footer: the capture's description over [start, start + duration), its losses. */
static void describe_file(struct stk_event_sink *k, struct stk_ev_writer *w, int64_t start, int64_t duration,
			  const struct file_losses *lost)
{
	const struct description *d = &k->d;
	uint16_t types[STK_EVENT_TYPES];
	size_t n = recorded_kinds(k, types);
	const struct stk_event_desc *first = n ? &k->kinds[types[0]] : &k->kinds[0];

	put_meta(w, STK_EV_META_COMMAND, d->command ? d->command : "");
	put_meta(w, STK_EV_META_APPLET, d->applet ? d->applet : "stk");
	put_meta(w, STK_EV_META_EVENT, first->event ? first->event : "event");
	if (n > 1 && put_kinds(k, w, types, n, lost))
		fail(k, "out of memory describing the recording");
	if (put_sampled(k, w, types, n))
		fail(k, "out of memory describing the recording");
	put_meta_i64(w, STK_EV_META_LOST, (int64_t)lost->total);
	put_meta_i64(w, STK_EV_META_START, start);
	put_meta_i64(w, STK_EV_META_DURATION, duration);
	put_meta_i64(w, STK_EV_META_PER_THREAD, k->per_thread);
	put_meta_i64(w, STK_EV_META_DIVISOR, (int64_t)(first->divisor ? first->divisor : 1));
	put_meta_i64(w, STK_EV_META_SAMPLE_NS, first->sample_ns);
	put_meta(w, STK_EV_META_TITLE, d->title);
	put_meta(w, STK_EV_META_VALUE_TYPE, d->value_type);
	put_meta(w, STK_EV_META_VALUE_UNIT, d->value_unit);
	put_meta(w, STK_EV_META_PERIOD_TYPE, d->period_type);
	put_meta(w, STK_EV_META_PERIOD_UNIT, d->period_unit);
	put_meta_i64(w, STK_EV_META_PERIOD, d->period);
	put_meta(w, STK_EV_META_OUTPUT, d->opts);
}

/* A file of the series opened: its losses count from here. */
static void series_opened(void *ctx, const struct stk_ev_series_file *f)
{
	struct stk_event_sink *k = ctx;

	(void)f;
	kernel_losses(k, &k->lost_at_open);
}

/* A file of the series described: its own span and losses (the kernel's since it opened, a full disk's before). */
static void series_describe(void *ctx, struct stk_ev_writer *w, const struct stk_ev_series_file *f)
{
	struct stk_event_sink *k = ctx;
	struct file_losses lost;

	kernel_losses(k, &lost);
	lost.total = lost.total - k->lost_at_open.total + f->lost_full;
	for (uint16_t t = 0; t < STK_EVENT_TYPES; t++)
		lost.of[t] = lost.of[t] - k->lost_at_open.of[t] + f->lost_full_of[t];
	describe_file(k, w, f->start, f->now - f->start, &lost);
	put_meta_i64(w, STK_EV_META_LOST_FULL, (int64_t)f->lost_full);
}

int stk_event_sink_series(struct stk_event_sink *k, const char *dir, const struct stk_ev_series_opts *opts,
			  char *err, size_t err_len)
{
	const struct stk_ev_series_hooks hooks = { .opened = series_opened, .describe = series_describe, .ctx = k };

	k->series = stk_ev_series_open(dir, opts, &hooks, err, err_len);
	return k->series ? 0 : -1;
}

int stk_event_sink_close(struct stk_event_sink *k, char *err, size_t err_len)
{
	char why[256];
	int ret = 0;

	if (k->closed) {
		snprintf(err, err_len, "the event log was closed already");
		return -1;
	}
	k->rows = stk_event_sink_rows(k);
	struct file_losses lost;
	kernel_losses(k, &lost);
	if (k->series && stk_ev_series_close(k->series, wall_now(k), why, sizeof(why))) {
		snprintf(err, err_len, "%s", why);
		ret = -1;
	}
	for (size_t i = 0; i < k->n_writers; i++) {
		describe_file(k, k->writers[i], k->d.start, k->d.duration, &lost);
		if (stk_ev_writer_close(k->writers[i], why, sizeof(why)) && !ret) {
			snprintf(err, err_len, "%s", why);
			ret = -1;
		}
		k->writers[i] = NULL;
	}
	k->closed = true;
	if (!ret && k->err[0]) {
		snprintf(err, err_len, "%s", k->err);
		ret = -1;
	}
	return ret;
}

void stk_event_sink_free(struct stk_event_sink *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n_writers; i++)
		stk_ev_writer_free(k->writers[i]);
	stk_ev_series_free(k->series);
	for (size_t i = 0; i < k->n_labels; i++)
		free(k->labels[i]);
	if (k->rb)
		ring_buffer__free(k->rb);
	if (k->timer_fd >= 0)
		close(k->timer_fd);
	stk_byte_arena_free(&k->kept);
	free(k->keys);
	free(k->entries);
	stk_key_index_free(&k->index);
	stk_waitlist_free(&k->pending);
	stk_buf_free(&k->frames);
	stk_folded_scratch_free(k->folded);
	free_description(&k->d);
	free(k);
}
