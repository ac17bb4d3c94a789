/* CFI tables built on a thread of their own: see table_builder.h. */
#include "core/unwind/table_builder.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "core/base/grow.h"
#include "core/unwind/cfi_guard.h"

struct job {
	struct stk_file *file;
	char name[96];
	int fd;      /* owned; -1: image */
	void *image; /* owned copy */
	size_t size;
};

struct stk_table_builder {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake; /* a job, a taken result, or the stop */
	struct stk_cfi_table_limits lim;
	atomic_bool stop;
	int ready_fd;
	/* under lock */
	struct job *jobs; /* FIFO */
	size_t n_jobs, cap_jobs;
	bool building;
	struct stk_table_built *done; /* FIFO of finished jobs not taken yet */
	size_t n_done, cap_done, done_bytes;
};

static size_t table_bytes(const struct stk_table_built *r)
{
	return r->ok ? r->table.n_rows * sizeof(*r->table.rows) + (r->table.n_pages + 1) * sizeof(*r->table.pages) : 0;
}

/* Room for another finished table: the caller may be busy for a while, the builder goes on meanwhile. */
static bool done_has_room(const struct stk_table_builder *b)
{
	return !b->n_done || b->done_bytes < STK_TABLE_BUILDER_DONE_BYTES;
}

static void job_release(struct job *j)
{
	if (j->fd >= 0)
		close(j->fd);
	free(j->image);
}

static bool stop_requested(void *ctx)
{
	struct stk_table_builder *b = ctx;

	return atomic_load(&b->stop);
}

/* j's table into out (the thread's work: nothing here is shared). */
static void build(struct stk_table_builder *b, struct job *j, struct stk_table_built *out)
{
	Elf *e = j->fd >= 0 ? elf_begin(j->fd, ELF_C_READ, NULL) : elf_memory(j->image, j->size);
	struct stk_cfi_guard guard;

	memset(out, 0, sizeof(*out));
	out->file = j->file;
	snprintf(out->name, sizeof(out->name), "%s", j->name);
	if (!e || elf_kind(e) != ELF_K_ELF)
		snprintf(out->why, sizeof(out->why), "not an ELF file");
	else if (stk_cfi_guard_scan(e, &guard))
		snprintf(out->why, sizeof(out->why), "out of memory");
	else {
		/* failed, the table keeps its stats (the CPU time spent) and nothing else */
		out->ok = stk_cfi_table_build(e, &guard, &b->lim, &out->table, out->why, sizeof(out->why)) == 0;
		stk_cfi_guard_free(&guard);
	}
	if (e)
		elf_end(e);
}

static void *run(void *arg)
{
	struct stk_table_builder *b = arg;

	pthread_mutex_lock(&b->lock);
	for (;;) {
		struct job j;
		struct stk_table_built out;
		uint64_t one = 1;

		while (!atomic_load(&b->stop) && (!b->n_jobs || !done_has_room(b)))
			pthread_cond_wait(&b->wake, &b->lock);
		if (atomic_load(&b->stop))
			break;
		j = b->jobs[0];
		memmove(b->jobs, b->jobs + 1, (b->n_jobs - 1) * sizeof(*b->jobs));
		b->n_jobs--;
		b->building = true;
		pthread_mutex_unlock(&b->lock);
		build(b, &j, &out);
		job_release(&j);
		pthread_mutex_lock(&b->lock);
		b->building = false;
		if (atomic_load(&b->stop)) {
			if (out.ok)
				stk_cfi_table_free(&out.table);
			break;
		}
		/* its slot was reserved when the job was queued */
		b->done[b->n_done++] = out;
		b->done_bytes += table_bytes(&out);
		if (write(b->ready_fd, &one, sizeof(one)) < 0) {
			/* the counter is already set: the caller reads it on take */
		}
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

struct stk_table_builder *stk_table_builder_new(const struct stk_cfi_table_limits *lim)
{
	struct stk_table_builder *b = calloc(1, sizeof(*b));
	sigset_t all, old;
	int err;

	if (!b)
		return NULL;
	b->lim = *lim;
	b->lim.stop = stop_requested;
	b->lim.stop_ctx = b;
	atomic_init(&b->stop, false);
	b->ready_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (b->ready_fd < 0) {
		free(b);
		return NULL;
	}
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->wake, NULL);
	/* signals stay with the thread that runs the loop */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&b->thread, NULL, run, b);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pthread_cond_destroy(&b->wake);
		pthread_mutex_destroy(&b->lock);
		close(b->ready_fd);
		free(b);
		errno = err;
		return NULL;
	}
	return b;
}

int stk_table_builder_submit(struct stk_table_builder *b, struct stk_file *file, const char *name, int fd,
			     const void *image, size_t size)
{
	struct job j = { .file = file, .fd = -1 };

	snprintf(j.name, sizeof(j.name), "%s", name ? name : "?");
	if (fd >= 0) {
		if ((j.fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0)
			return -1;
	} else if (!image || !size || !(j.image = malloc(size))) {
		errno = image && size ? ENOMEM : EINVAL;
		return -1;
	} else {
		memcpy(j.image, image, size);
		j.size = size;
	}
	pthread_mutex_lock(&b->lock);
	/* a finished slot for every job queued or under way, so a finished table always has one */
	if (stk_grow((void **)&b->jobs, &b->cap_jobs, b->n_jobs + 1, sizeof(*b->jobs)) ||
	    stk_grow((void **)&b->done, &b->cap_done, b->n_done + b->n_jobs + 2, sizeof(*b->done))) {
		pthread_mutex_unlock(&b->lock);
		job_release(&j);
		errno = ENOMEM;
		return -1;
	}
	b->jobs[b->n_jobs++] = j;
	pthread_cond_signal(&b->wake);
	pthread_mutex_unlock(&b->lock);
	return 0;
}

int stk_table_builder_fd(const struct stk_table_builder *b)
{
	return b->ready_fd;
}

bool stk_table_builder_take(struct stk_table_builder *b, struct stk_table_built *out)
{
	uint64_t count;
	bool got;

	pthread_mutex_lock(&b->lock);
	got = b->n_done > 0;
	if (got) {
		*out = b->done[0];
		b->done_bytes -= table_bytes(out);
		memmove(b->done, b->done + 1, (b->n_done - 1) * sizeof(*b->done));
		/* the eventfd stays readable while finished jobs wait */
		if (!--b->n_done && read(b->ready_fd, &count, sizeof(count)) < 0) {
			/* not readable: nothing to reset */
		}
		pthread_cond_signal(&b->wake);
	}
	pthread_mutex_unlock(&b->lock);
	return got;
}

size_t stk_table_builder_pending(struct stk_table_builder *b)
{
	size_t n;

	pthread_mutex_lock(&b->lock);
	n = b->n_jobs + (b->building ? 1 : 0);
	pthread_mutex_unlock(&b->lock);
	return n;
}

void stk_table_builder_free(struct stk_table_builder *b)
{
	if (!b)
		return;
	pthread_mutex_lock(&b->lock);
	atomic_store(&b->stop, true);
	pthread_cond_signal(&b->wake);
	pthread_mutex_unlock(&b->lock);
	pthread_join(b->thread, NULL);
	for (size_t i = 0; i < b->n_jobs; i++)
		job_release(&b->jobs[i]);
	free(b->jobs);
	for (size_t i = 0; i < b->n_done; i++)
		if (b->done[i].ok)
			stk_cfi_table_free(&b->done[i].table);
	free(b->done);
	pthread_cond_destroy(&b->wake);
	pthread_mutex_destroy(&b->lock);
	close(b->ready_fd);
	free(b);
}
