/* --unwind dwarf samples -> unwinder -> exact-content table: see dwarf_samples.h. */
#include "core/session/dwarf_samples.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/runtime_types.h"
#include "bpf/stack_sample.h"
#include "core/base/byte_buf.h"
#include "core/base/clock.h"
#include "core/base/grow.h"
#include "core/base/key_index.h"
#include "core/base/kernel_release.h"
#include "core/base/log.h"
#include "core/base/run_loop.h"
#include "core/session/stack_list.h"
#include "core/options/stack_opts.h"
#include "core/stack/stack_table.h"
#include "core/unwind/unwind_dwarf.h"
#include "core/sym/symbolize.h"

/*
 * Pages per CPU: 250 to 1,000 samples of 8 KiB stack each before user space
 * must read (a system-wide offcputime sends a burst of new stacks when it
 * starts; 1,000 UDP datagrams sent on a 2-CPU VM, where the workload's
 * threads leave the reader short of CPU, overflowed 512 pages). Few CPUs get
 * the most, within SAMPLE_BYTES_ALL in all; many CPUs get the least each.
 */
#define SAMPLE_PAGES_MIN 512
#define SAMPLE_PAGES_MAX 2048
#define SAMPLE_BYTES_ALL (32u << 20)
#define MAX_FRAMES 1024
/*
 * Samples wait in user memory for unwinding (a few ms each on slow CPUs), so
 * the kernel buffer is emptied at memcpy speed and a burst of new stacks is
 * not dropped while earlier ones unwind: up to this many bytes (about 7,000
 * samples of 8 KiB stack), and at most UNWIND_SLICE_NS of unwinding before
 * the run loop gets to look at its signals and timers again.
 */
#define PENDING_ROOM_BYTES (64u << 20)
/* Below the room: the sample that reaches the limit (a header, at most a 64 KiB copy) still fits. */
#define PENDING_MAX_BYTES (PENDING_ROOM_BYTES - (1u << 20))
#define UNWIND_SLICE_NS 50000000LL
/*
 * The queue is one buffer, used first in first out and reused: copies of
 * their own (8 KiB to 33 KiB each) were mapped and unmapped by the
 * allocator every few samples (faults were 5% of stk's time recording
 * MariaDB; under emulation, page-table changes took most of a walk's time).
 * Each copy follows its size, padded to 8 bytes for the sample's u64 fields.
 */
struct pending_head {
	uint64_t size;
};

/*
 * A copy's id (by_hash: the content hash the kernel counted it under), the
 * table entry it unwound to, and the last generation (see
 * stk_dwarf_samples_forget_unused) an event looked it up in.
 */
struct copy_ref {
	uint64_t id;
	uint64_t entry;
	uint64_t seen;
};

struct stk_dwarf_samples {
	struct stk_dwarf_opts opts;
	struct copy_ref *unwound; /* by_hash: the copies unwound, in that order, findable by id through by_id */
	size_t n_unwound, cap_unwound;
	struct stk_key_index by_id;
	uint64_t missing; /* by_hash: counted hashes whose sample never arrived */
	int sent_fd;         /* by_hash: the kernel's set of hashes sent (stk_sent; the skeleton's), or -1 */
	uint64_t generation; /* by_hash: stk_dwarf_samples_forget_unused calls so far */
	uint64_t forgotten;  /* by_hash: copies they let go */
	struct perf_buffer *buf;
	struct stk_symbolizer *sym;
	struct stk_unwinder *unwinder;
	struct stk_stack_table *table;
	uint64_t lost, samples, unwind_ns;
	uint64_t buffer_lost; /* the kernel found the buffer full (profile counts those by frame pointers) */
	struct stk_run_loop *loop; /* its signals end unwinding early; NULL until watched */
	int64_t deadline_ns;       /* past it, queued samples are not unwound; 0: none */
	const char *deadline_why;
	uint64_t not_unwound;
	const char *not_unwound_why;
	struct stk_buf pending; /* queued copies from pending_at to pending.len */
	size_t pending_at;
	int pending_fd; /* eventfd, readable while samples wait: the run loop comes back for them */
	void (*on_sample)(void *ctx, const struct stk_stack_sample *s, uint64_t copy);
	void *on_sample_ctx;
	uint64_t ips[MAX_FRAMES];
	uint8_t how[MAX_FRAMES];
};

/* by_hash: the copy sent with id unwound to entry (a copy sent again: its id finds the newer). 0, or -1. */
static int remember_copy(struct stk_dwarf_samples *d, uint64_t id, size_t entry)
{
	if (stk_grow((void **)&d->unwound, &d->cap_unwound, d->n_unwound + 1, sizeof(*d->unwound)))
		return -1;
	d->unwound[d->n_unwound++] = (struct copy_ref){ id, entry, d->generation };
	if (stk_key_index_add(&d->by_id, d->unwound, d->n_unwound)) {
		d->n_unwound--;
		return -1;
	}
	return 0;
}

static const char signal_stop[] = "not unwound: SIGINT/SIGTERM asked for the results at once";

/* The leaf alone (the captured pc), where the sample is not unwound: why. */
static void leaf_only(struct stk_dwarf_samples *d, const struct stk_unwind_input *in, struct stk_unwind_result *r,
		      const char *why)
{
	r->n = 0;
	if (in->regs && r->max) {
		r->ips[0] = in->regs[in->n_regs - 1];
		if (r->how)
			r->how[0] = STK_FRAME_BY_REGS;
		r->n = 1;
	}
	r->stop = why;
	d->not_unwound++;
	d->not_unwound_why = why;
}

/*
 * Pending uretprobes put their trampoline's address where return addresses
 * were: the real ones go back into the copy, innermost (lowest address)
 * first, so CFI finds the callers (a --span function's, or anyone's).
 */
static void undo_uretprobes(struct stk_stack_sample *s)
{
	uint32_t n = s->n_uretprobe < STK_SAMPLE_URETPROBES ? s->n_uretprobe : STK_SAMPLE_URETPROBES, k = 0;

	for (uint32_t off = 0; k < n && off + sizeof(uint64_t) <= s->user_bytes; off += sizeof(uint64_t)) {
		uint64_t word;

		memcpy(&word, s->stack + off, sizeof(word));
		if (word == s->uretprobe_trampoline) {
			memcpy(s->stack + off, &s->uretprobe_ret[k], sizeof(word));
			k++;
		}
	}
}

/* Unwinds one sample (or, when why is set, keeps its leaf only) and records it in the table. */
static void record_sample(struct stk_dwarf_samples *d, void *data, uint32_t size, const char *why)
{
	struct stk_stack_sample *s = data;
	struct stk_raw_stack raw = { 0 };
	struct stk_unwind_result r = { .ips = d->ips, .how = d->opts.verbose ? d->how : NULL };

	if (size < STK_SAMPLE_FIXED || s->user_bytes > size - STK_SAMPLE_FIXED || s->n_kernel > STK_SAMPLE_KSTACK_MAX) {
		d->lost++;
		return;
	}
	d->samples++;
	if (s->n_uretprobe && s->uretprobe_trampoline)
		undo_uretprobes(s);
	raw.tgid = s->tgid;
	raw.tid = d->opts.per_thread ? s->tid : 0;
	memcpy(raw.comm, s->comm, sizeof(raw.comm));
	raw.value = s->value;
	raw.kernel_lost = (s->flags & STK_SAMPLE_KERNEL_LOST) != 0;
	if (!d->opts.user_only) {
		raw.kernel = (const uint64_t *)s->kernel;
		raw.n_kernel = s->n_kernel;
	}
	if (!d->opts.kernel_only && s->tgid) {
		struct stk_unwind_input in = {
			.pid = (pid_t)s->tgid, .tid = (pid_t)s->tid,
			.regs = (s->flags & STK_SAMPLE_USER_REGS) ? (const uint64_t *)s->regs : NULL, .n_regs = STK_UREGS_N,
			.sp = s->regs[STK_UREG_SP], .stack = s->stack, .stack_len = s->user_bytes,
		};

		r.max = d->opts.max_depth < MAX_FRAMES ? d->opts.max_depth : MAX_FRAMES;
		if (why) {
			leaf_only(d, &in, &r, why);
		} else {
			int64_t t0 = stk_now_ns(CLOCK_THREAD_CPUTIME_ID);

			stk_unwind(d->unwinder, &in, &r);
			d->unwind_ns += (uint64_t)(stk_now_ns(CLOCK_THREAD_CPUTIME_ID) - t0);
		}
		raw.user = r.ips;
		raw.n_user = r.n;
		raw.user_how = r.how;
		raw.stop = r.stop;
	}
	if (d->opts.by_hash) {
		size_t at;

		raw.tid = 0;
		raw.value = 0;
		if (stk_stack_table_add_at(d->table, &raw, &at) || remember_copy(d, s->content_hash, at))
			d->lost++;
		return;
	}
	size_t at;
	if (stk_stack_table_add_at(d->table, &raw, &at))
		d->lost++;
	else if (d->on_sample)
		d->on_sample(d->on_sample_ctx, s, (uint64_t)at + 1);
}

/* The perf buffer's callback: a copy joins the queue (the data is only valid until it returns). */
static void on_sample(void *ctx, int cpu, void *data, __u32 size)
{
	struct stk_dwarf_samples *d = ctx;
	size_t need = sizeof(struct pending_head) + ((size + 7u) & ~(size_t)7);
	struct pending_head head = { size };
	uint8_t *at;

	(void)cpu;
	if (d->pending.len - d->pending_at + size > PENDING_MAX_BYTES) {
		d->lost++;
		return;
	}
	/* the unwound copies' room goes to the next ones before the buffer grows */
	if (d->pending_at && d->pending.cap - d->pending.len < need) {
		memmove(d->pending.data, d->pending.data + d->pending_at, d->pending.len - d->pending_at);
		d->pending.len -= d->pending_at;
		d->pending_at = 0;
	}
	if (!(at = stk_buf_reserve(&d->pending, need))) {
		d->pending.oom = false; /* what is queued stays; this one is lost */
		d->lost++;
		return;
	}
	memcpy(at, &head, sizeof(head));
	memcpy(at + sizeof(head), data, size);
	d->pending.len += need;
}

static bool have_pending(const struct stk_dwarf_samples *d)
{
	return d->pending_at < d->pending.len;
}

static void record_first_pending(struct stk_dwarf_samples *d, const char *why)
{
	struct pending_head head;
	uint8_t *data = d->pending.data + d->pending_at + sizeof(head);

	memcpy(&head, d->pending.data + d->pending_at, sizeof(head));
	d->pending_at += sizeof(head) + ((head.size + 7u) & ~(size_t)7);
	record_sample(d, data, (uint32_t)head.size, why);
	if (d->pending_at == d->pending.len)
		d->pending.len = d->pending_at = 0; /* all unwound: the buffer starts over */
}

static void on_lost(void *ctx, int cpu, __u64 count)
{
	struct stk_dwarf_samples *d = ctx;

	(void)cpu;
	d->buffer_lost += count;
}

/*
 * Empties the kernel buffer, then unwinds queued samples for one time slice,
 * emptying the buffer again after each. Samples left over keep pending_fd
 * readable, so the loop calls back after its other events.
 */
static void consume(void *ctx)
{
	struct stk_dwarf_samples *d = ctx;
	int64_t until = stk_now_ns(CLOCK_MONOTONIC) + UNWIND_SLICE_NS;
	uint64_t one = 1;

	perf_buffer__consume(d->buf);
	/* A signal ends the turn: the loop then reports it, and the session drains the rest. */
	while (have_pending(d) && stk_now_ns(CLOCK_MONOTONIC) < until && !(d->loop && stk_run_loop_stop_requested(d->loop))) {
		record_first_pending(d, NULL);
		perf_buffer__consume(d->buf);
	}
	if (d->pending_fd < 0)
		return;
	if (have_pending(d)) {
		if (write(d->pending_fd, &one, sizeof(one)) < 0)
			return; /* the counter is already set */
	} else if (read(d->pending_fd, &one, sizeof(one)) < 0) {
		return; /* it was not set */
	}
}

/* The sample buffer's pages per CPU: a power of two from SAMPLE_PAGES_MIN to SAMPLE_PAGES_MAX. */
static size_t sample_pages(void)
{
	int ncpu = libbpf_num_possible_cpus();
	size_t pages = SAMPLE_PAGES_MAX;
	long page = sysconf(_SC_PAGESIZE);

	if (ncpu < 1 || page < 1)
		return SAMPLE_PAGES_MIN;
	while (pages > SAMPLE_PAGES_MIN && pages * (size_t)page * (size_t)ncpu > SAMPLE_BYTES_ALL)
		pages /= 2;
	return pages;
}

struct stk_dwarf_samples *stk_dwarf_samples_start(const char *applet, const struct bpf_map *map,
						  const struct bpf_map *sent, struct stk_symbolizer *sym,
						  struct stk_run_loop *loop, const struct stk_dwarf_opts *o)
{
	struct stk_dwarf_samples *d = calloc(1, sizeof(*d));
	/* the symbolizer's process table: it keeps the unwinder's session per process */
	struct stk_unwind_source src = stk_symbolizer_unwind_source(sym);

	if (d)
		d->pending_fd = d->sent_fd = -1;
	if (!d || !(d->table = stk_stack_table_new()) || !(d->unwinder = stk_unwinder_new(&src))) {
		stk_error(applet, "out of memory");
		stk_dwarf_samples_free(d);
		return NULL;
	}
	d->opts = *o;
	d->sym = sym;
	d->by_id = (struct stk_key_index){ .key_size = sizeof(uint64_t), .stride = sizeof(struct copy_ref) };
	if (o->by_hash && sent)
		d->sent_fd = bpf_map__fd(sent);
	d->pending_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (d->pending_fd < 0) {
		stk_error(applet, "creating the sample queue's eventfd failed: %s", strerror(errno));
		stk_dwarf_samples_free(d);
		return NULL;
	}
	/*
	 * The queue's whole room at once: address space only until samples
	 * touch it, and growing never copies what waits (a copy of megabytes,
	 * and faults on fresh pages, while the kernel buffer fills: an
	 * allocator without mremap lost samples so on a 2-CPU VM). Without
	 * the room (a host that does not overcommit) the queue grows as needed.
	 */
	if (!stk_buf_reserve(&d->pending, PENDING_ROOM_BYTES))
		d->pending.oom = false;
	/* Without CAP_IPC_LOCK the pages count against RLIMIT_MEMLOCK (EPERM past it): fewer then. */
	for (size_t pages = sample_pages();; pages /= 2) {
		d->buf = perf_buffer__new(bpf_map__fd(map), pages, on_sample, on_lost, d, NULL);
		if (d->buf || errno != EPERM || pages <= SAMPLE_PAGES_MIN)
			break;
	}
	if (!d->buf) {
		stk_error(applet, "creating the sample buffer failed: %s", strerror(errno));
		stk_dwarf_samples_free(d);
		return NULL;
	}
	if (loop && stk_dwarf_samples_watch(applet, d, loop)) {
		stk_dwarf_samples_free(d);
		return NULL;
	}
	return d;
}

int stk_dwarf_samples_watch(const char *applet, struct stk_dwarf_samples *d, struct stk_run_loop *loop)
{
	if (stk_run_loop_add_fd(loop, perf_buffer__epoll_fd(d->buf), consume, d) ||
	    stk_run_loop_add_fd(loop, d->pending_fd, consume, d)) {
		stk_error(applet, "watching the sample buffer failed");
		return -1;
	}
	d->loop = loop;
	return 0;
}

void stk_dwarf_samples_set_deadline(struct stk_dwarf_samples *d, int64_t deadline_ns, const char *why)
{
	if (!d)
		return;
	d->deadline_ns = deadline_ns;
	d->deadline_why = why;
}

/* Why the next queued sample is not unwound, or NULL: it is. */
static const char *drain_stop(struct stk_dwarf_samples *d)
{
	if (d->deadline_ns && stk_now_ns(CLOCK_MONOTONIC) >= d->deadline_ns)
		return d->deadline_why;
	return d->loop && stk_run_loop_stop_requested(d->loop) ? signal_stop : NULL;
}

void stk_dwarf_samples_drain(struct stk_dwarf_samples *d)
{
	const char *why = NULL;

	if (!d)
		return;
	perf_buffer__consume(d->buf);
	/* Once stopped, the rest keep their leaf: counted, and quick. */
	while (have_pending(d)) {
		if (!why)
			why = drain_stop(d);
		record_first_pending(d, why);
	}
}

uint64_t stk_dwarf_samples_not_unwound(const struct stk_dwarf_samples *d, const char **why)
{
	if (why)
		*why = d ? d->not_unwound_why : NULL;
	return d ? d->not_unwound : 0;
}

/* Frames of ips (*got of them), each saying how it was found (-v) when how is given. */
static struct stk_frame *symbolize(struct stk_symbolizer *sym, const uint64_t *ips, const uint8_t *how, size_t n,
				   bool kernel, pid_t pid, size_t *got)
{
	struct stk_frame *f = stk_symbolize_ips(sym, ips, n, kernel, pid, got);

	/* an interpreted frame is two words (bpf/runtime_types.h) */
	for (size_t i = 0, w = 0; f && how && i < *got && w < n; i++) {
		f[i].found_by = stk_unwind_how_name((enum stk_unwind_how)how[w]);
		w += kernel ? 1 : stk_rt_entry_words(ips[w], w + 1 < n, w + 1 < n ? ips[w + 1] : 0);
	}
	return f;
}

/* The raw stack of the copy id names, or NULL when none arrived; by_hash, the copy counts as needed now. */
static const struct stk_raw_stack *raw_of(struct stk_dwarf_samples *d, uint64_t id)
{
	if (!d->opts.by_hash)
		return id && id <= stk_stack_table_size(d->table) ? stk_stack_table_at(d->table, id - 1) : NULL;
	int64_t at = stk_key_index_find(&d->by_id, d->unwound, &id);
	if (at < 0)
		return NULL;
	d->unwound[at].seen = d->generation;
	return stk_stack_table_at(d->table, d->unwound[at].entry);
}

/* st's frames, named, and how its user chain ended, from raw. */
static void take_frames(struct stk_dwarf_samples *d, struct stk_stack *st, const struct stk_raw_stack *raw)
{
	st->kernel_missing = raw->kernel_lost;
	st->kernel = symbolize(d->sym, raw->kernel, NULL, raw->n_kernel, true, 0, &st->n_kernel);
	st->user = symbolize(d->sym, raw->user, raw->user_how, raw->n_user, false, (pid_t)raw->tgid, &st->n_user);
	st->unwind_stop = raw->stop;
}

/* Entry i of the table as it was counted: its task, value and frames. */
static struct stk_stack *add_entry(struct stk_dwarf_samples *d, struct stk_stack_list *l, size_t entry)
{
	const struct stk_raw_stack *raw = stk_stack_table_at(d->table, entry);
	struct stk_stack *st = stk_stack_list_add(l);

	if (!st)
		return NULL;
	stk_raw_stack_task(raw, st);
	take_frames(d, st, raw);
	return st;
}

int stk_dwarf_samples_collect(struct stk_dwarf_samples *d, struct stk_stack_list *l)
{
	size_t n = stk_stack_table_size(d->table);

	for (size_t i = 0; i < n; i++)
		if (!add_entry(d, l, i))
			return -1;
	return 0;
}

void stk_dwarf_samples_on_sample(struct stk_dwarf_samples *d,
				 void (*fn)(void *ctx, const struct stk_stack_sample *s, uint64_t copy), void *ctx)
{
	if (!d)
		return;
	d->on_sample = fn;
	d->on_sample_ctx = ctx;
}

size_t stk_dwarf_samples_unwound(const struct stk_dwarf_samples *d)
{
	return d ? d->n_unwound : 0;
}

uint64_t stk_dwarf_samples_unwound_id(const struct stk_dwarf_samples *d, size_t i)
{
	return d && i < d->n_unwound ? d->unwound[i].id : 0;
}

bool stk_dwarf_samples_known(struct stk_dwarf_samples *d, uint64_t copy)
{
	return d && raw_of(d, copy) != NULL;
}

struct stk_stack *stk_dwarf_samples_add(struct stk_dwarf_samples *d, struct stk_stack_list *l, uint64_t copy,
					uint32_t tgid, uint32_t tid, const char *comm, uint64_t value)
{
	const struct stk_raw_stack *raw = raw_of(d, copy);
	struct stk_stack *st = stk_stack_list_add(l);

	if (!st)
		return NULL;
	st->pid = tgid;
	st->tid = tid;
	memcpy(st->comm, comm, sizeof(st->comm));
	st->comm[sizeof(st->comm) - 1] = '\0';
	st->value = value;
	if (!raw) {
		d->missing++;
		st->kernel_missing = !d->opts.user_only;
		st->user_missing = !d->opts.kernel_only && tgid;
		return st;
	}
	take_frames(d, st, raw);
	return st;
}

int stk_dwarf_samples_user_frames(struct stk_dwarf_samples *d, uint64_t copy, const uint64_t **ips,
				  size_t *n)
{
	const struct stk_raw_stack *raw = raw_of(d, copy);

	if (!raw)
		return -1;
	*ips = raw->user;
	*n = raw->n_user;
	return 0;
}

/*
 * A copy not looked up for a whole generation leaves the kernel's sent set
 * but stays one more (an event the kernel wrote before the delete may still
 * be read); one not looked up in that one either goes. A copy sent again
 * (the set was full, or after the delete) stands for the ones before it.
 */
static bool still_needed(struct stk_dwarf_samples *d, size_t i)
{
	struct copy_ref *c = &d->unwound[i];

	if (stk_key_index_find(&d->by_id, d->unwound, &c->id) != (int64_t)i)
		return false;
	if (d->generation - c->seen >= 2)
		return false;
	/* the error is ENOENT: deleted the generation before, or the set was full when it came */
	if (d->generation - c->seen == 1 && d->sent_fd >= 0)
		(void)bpf_map_delete_elem(d->sent_fd, &c->id);
	return true;
}

size_t stk_dwarf_samples_forget_unused(struct stk_dwarf_samples *d)
{
	size_t n_entries, kept = 0, before;
	size_t *where;

	if (!d || !d->opts.by_hash)
		return 0;
	n_entries = stk_stack_table_size(d->table);
	/* out of memory: everything stays until the next call */
	if (!(where = calloc(n_entries ? n_entries : 1, sizeof(*where))))
		return 0;
	for (size_t i = 0; i < d->n_unwound; i++)
		if (still_needed(d, i))
			where[d->unwound[i].entry] = 1;
		else
			d->unwound[i].entry = UINT64_MAX;
	stk_stack_table_retain(d->table, where);
	for (size_t i = 0; i < d->n_unwound; i++) {
		struct copy_ref c = d->unwound[i];

		if (c.entry == UINT64_MAX)
			continue;
		c.entry = where[c.entry] - 1;
		d->unwound[kept++] = c;
	}
	free(where);
	before = d->n_unwound;
	d->n_unwound = kept;
	/* fewer ids in the same slots: adding them again allocates nothing */
	stk_key_index_clear(&d->by_id);
	for (size_t i = 0; i < kept; i++)
		(void)stk_key_index_add(&d->by_id, d->unwound, i + 1);
	d->forgotten += before - kept;
	d->generation++;
	return before - kept;
}

uint64_t stk_dwarf_samples_forgotten(const struct stk_dwarf_samples *d)
{
	return d ? d->forgotten : 0;
}

bool stk_dwarf_samples_by_hash(const struct stk_dwarf_samples *d)
{
	return d && d->opts.by_hash;
}

uint64_t stk_dwarf_samples_missing(const struct stk_dwarf_samples *d)
{
	return d ? d->missing : 0;
}

uint64_t stk_dwarf_samples_lost(const struct stk_dwarf_samples *d)
{
	return d ? d->lost : 0;
}

uint64_t stk_dwarf_samples_buffer_full(const struct stk_dwarf_samples *d)
{
	return d ? d->buffer_lost : 0;
}

void stk_dwarf_samples_stats(const struct stk_dwarf_samples *d, uint64_t *samples, uint64_t *unwind_ns)
{
	*samples = d ? d->samples : 0;
	*unwind_ns = d ? d->unwind_ns : 0;
}

void stk_dwarf_samples_free(struct stk_dwarf_samples *d)
{
	if (!d)
		return;
	if (d->buf)
		perf_buffer__free(d->buf);
	stk_buf_free(&d->pending);
	if (d->pending_fd >= 0)
		close(d->pending_fd);
	stk_unwinder_free(d->unwinder);
	stk_stack_table_free(d->table);
	stk_key_index_free(&d->by_id);
	free(d->unwound);
	free(d);
}
