#include "core/snapshot/snap_perf.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <asm/perf_regs.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "core/base/clock.h"

/* The sample fields asked for, in the order the kernel writes them. */
#define SAMPLE_TYPE (PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
/* Task time between samples: the first comes after this much of running. */
#define PERIOD_NS 20000
/* Ring pages per event (a power of two): room for a few samples of the largest stack copy. */
#define RING_PAGES 32
#define MAX_KERNEL_FRAMES 127

#if defined(__x86_64__)
/* perf's x86 registers in the order a sample holds them (ascending bit), as DWARF numbers. */
static const struct {
	int perf, dwarf;
} reg_map[] = {
	{ PERF_REG_X86_AX, 0 },  { PERF_REG_X86_BX, 3 },  { PERF_REG_X86_CX, 2 },  { PERF_REG_X86_DX, 1 },
	{ PERF_REG_X86_SI, 4 },  { PERF_REG_X86_DI, 5 },  { PERF_REG_X86_BP, 6 },  { PERF_REG_X86_SP, 7 },
	{ PERF_REG_X86_IP, 16 }, { PERF_REG_X86_R8, 8 },  { PERF_REG_X86_R9, 9 },  { PERF_REG_X86_R10, 10 },
	{ PERF_REG_X86_R11, 11 }, { PERF_REG_X86_R12, 12 }, { PERF_REG_X86_R13, 13 }, { PERF_REG_X86_R14, 14 },
	{ PERF_REG_X86_R15, 15 },
};
#define N_REGS (sizeof(reg_map) / sizeof(reg_map[0]))
#define REG_DWARF(i) reg_map[i].dwarf
#define REG_PERF(i) reg_map[i].perf
#elif defined(__aarch64__)
/* x0..x30, sp, pc: perf's numbers are the DWARF ones stk uses. */
#define N_REGS 33
#define REG_DWARF(i) (int)(i)
#define REG_PERF(i) (int)(i)
#else
#error "snap_perf: no register mapping for this architecture"
#endif

uint64_t stk_perf_regs_mask(void)
{
	uint64_t mask = 0;

	for (size_t i = 0; i < N_REGS; i++)
		mask |= 1ULL << REG_PERF(i);
	return mask;
}

/* The next u64 of a sample body, or false past its end. */
static bool take_u64(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	if ((size_t)(end - *p) < sizeof(*v))
		return false;
	memcpy(v, *p, sizeof(*v));
	*p += sizeof(*v);
	return true;
}

int stk_perf_sample_parse(const uint8_t *body, size_t len, struct stk_snap_thread *t)
{
	const uint8_t *p = body, *end = body + len;
	uint64_t ids, nr, abi, size, v;

	if (!take_u64(&p, end, &ids) || !take_u64(&p, end, &nr) || nr > (size_t)(end - p) / 8)
		return -1;
	t->tgid = (uint32_t)ids;
	t->tid = (uint32_t)(ids >> 32);
	if (nr && !(t->kernel = calloc(nr, sizeof(*t->kernel))))
		return -1;
	for (uint64_t i = 0; i < nr && take_u64(&p, end, &v); i++)
		if (v < (uint64_t)PERF_CONTEXT_MAX) /* context markers are not frames */
			t->kernel[t->n_kernel++] = v;
	if (!take_u64(&p, end, &abi))
		return -1;
	if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
		/* Registers sorted by perf's number, as the mask orders them. */
		for (int bit = 0; bit < 64; bit++) {
			for (size_t i = 0; i < N_REGS; i++) {
				if (REG_PERF(i) != bit)
					continue;
				if (!take_u64(&p, end, &v))
					return -1;
				t->regs[REG_DWARF(i)] = v;
			}
		}
		t->has_regs = true;
	}
	if (!take_u64(&p, end, &size) || size > (size_t)(end - p))
		return -1;
	const uint8_t *data = p;
	p += size;
	if (size) {
		uint64_t dyn;
		if (!take_u64(&p, end, &dyn))
			return -1;
		if (dyn < size)
			size = dyn;
	}
	if (size && t->has_regs) {
		if (!(t->stack = malloc(size)))
			return -1;
		memcpy(t->stack, data, size);
		t->stack_len = size;
	}
	if (!t->has_regs)
		t->no_user = "a kernel thread, or no user registers in the sample";
	return 0;
}

struct event {
	int fd;
	void *ring;
	size_t ring_len;
};

static void close_event(struct event *e)
{
	if (e->ring && e->ring != MAP_FAILED)
		munmap(e->ring, e->ring_len);
	if (e->fd >= 0)
		close(e->fd);
	e->fd = -1;
	e->ring = NULL;
}

static int open_event(struct event *e, uint32_t tid, uint32_t stack_bytes)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.sample_period = PERIOD_NS,
		.sample_type = SAMPLE_TYPE,
		.sample_regs_user = stk_perf_regs_mask(),
		.sample_stack_user = stack_bytes & ~7u,
		.sample_max_stack = MAX_KERNEL_FRAMES,
		.exclude_callchain_user = 1,
		.exclude_hv = 1,
		.wakeup_events = 1,
	};
	long page = sysconf(_SC_PAGESIZE);

	e->ring = NULL;
	e->fd = (int)syscall(__NR_perf_event_open, &attr, (pid_t)tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (e->fd < 0)
		return -1;
	e->ring_len = (size_t)page * (1 + RING_PAGES);
	e->ring = mmap(NULL, e->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, e->fd, 0);
	if (e->ring == MAP_FAILED) {
		int err = errno;
		close_event(e);
		errno = err;
		return -1;
	}
	return 0;
}

/* The first sample in e's ring into a new record of out. 1 taken, 0 none yet, -1 out of memory. */
static int read_sample(struct event *e, struct stk_snap *out)
{
	struct perf_event_mmap_page *meta = e->ring;
	const uint8_t *data = (const uint8_t *)e->ring + meta->data_offset;
	uint64_t size = meta->data_size, head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = meta->data_tail;
	uint8_t *copy = NULL;
	int ret = 0;

	while (tail < head) {
		struct perf_event_header h;
		for (size_t i = 0; i < sizeof(h); i++)
			((uint8_t *)&h)[i] = data[(tail + i) % size];
		if (h.size < sizeof(h) || h.size > size)
			break;
		if (h.type == PERF_RECORD_SAMPLE) {
			/* A record may wrap around the ring's end: copied out whole. */
			if (!(copy = malloc(h.size)))
				return -1;
			for (size_t i = 0; i < h.size; i++)
				copy[i] = data[(tail + i) % size];
			struct stk_snap_thread *t = stk_snap_add(out);
			if (!t) {
				ret = -1;
			} else if (stk_perf_sample_parse(copy + sizeof(h), h.size - sizeof(h), t)) {
				stk_snap_thread_clear(t);
				out->n--;
			} else {
				t->state = STK_TSTATE_RUN;
				t->how = "perf";
				ret = 1;
			}
			free(copy);
			tail += h.size;
			break;
		}
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	return ret;
}

/* Whether e's thread ran less than the one period a sample needs since e opened: it waited for a CPU. */
static bool never_ran(const struct event *e)
{
	uint64_t ran_ns = 0;

	return read(e->fd, &ran_ns, sizeof(ran_ns)) == (ssize_t)sizeof(ran_ns) && ran_ns < PERIOD_NS;
}

int stk_snap_perf_take(const uint32_t *tids, const uint32_t *tgids, size_t n, uint32_t stack_bytes, long timeout_ms,
		       struct stk_snap *out, bool *sampled, size_t *starved, char *why, size_t len)
{
	struct event *ev = calloc(n ? n : 1, sizeof(*ev));
	struct pollfd *pfd = calloc(n ? n : 1, sizeof(*pfd));
	size_t open = 0, taken = 0;
	int last_err = 0;

	*starved = 0;

	if (!ev || !pfd) {
		free(ev);
		free(pfd);
		snprintf(why, len, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		sampled[i] = false;
		if (open_event(&ev[i], tids[i], stack_bytes)) {
			last_err = errno;
			ev[i].fd = -1;
			continue;
		}
		open++;
	}
	if (n && !open) {
		free(ev);
		free(pfd);
		snprintf(why, len, "perf_event_open(task-clock) failed: %s", strerror(last_err));
		return -1;
	}
	for (int64_t until = stk_now_ns(CLOCK_MONOTONIC) / 1000000 + timeout_ms; open;) {
		long left = (long)(until - stk_now_ns(CLOCK_MONOTONIC) / 1000000);
		if (left <= 0)
			break;
		for (size_t i = 0; i < n; i++)
			pfd[i] = (struct pollfd){ .fd = ev[i].fd, .events = POLLIN };
		if (poll(pfd, n, (int)left) < 0 && errno != EINTR)
			break;
		for (size_t i = 0; i < n; i++) {
			if (ev[i].fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP)))
				continue;
			int got = read_sample(&ev[i], out);
			if (got > 0) {
				/* The sample's own ids can differ only if the thread is gone and its tid reused. */
				out->threads[out->n - 1].tgid = tgids[i];
				sampled[i] = true;
				taken++;
			}
			if (got || (pfd[i].revents & POLLHUP)) { /* sampled, out of memory, or exited */
				close_event(&ev[i]);
				open--;
			}
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (ev[i].fd >= 0 && never_ran(&ev[i]))
			(*starved)++;
		close_event(&ev[i]);
	}
	free(ev);
	free(pfd);
	return (int)taken;
}
