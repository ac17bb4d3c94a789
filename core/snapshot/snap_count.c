#include "core/snapshot/snap_count.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/snapshot/frame_names.h"
#include "core/stack/stack_table.h"
#include "core/sym/symbolize.h"

#define MAX_KERNEL 128

struct stk_snap_counter {
	struct stk_snap_count_opts o;
	struct stk_frame_names *names;
	struct stk_symbolizer *sym;
	struct stk_stack_table *table;
	uint64_t kernel[MAX_KERNEL + 1]; /* the state frame, then the kernel frames */
	uint64_t no_user; /* the frame that stands for a missing user stack */
};

struct stk_snap_counter *stk_snap_counter_new(const struct stk_snap_count_opts *o, struct stk_frame_names *names,
					      struct stk_symbolizer *sym)
{
	struct stk_snap_counter *c = calloc(1, sizeof(*c));

	if (!c || !(c->table = stk_stack_table_new())) {
		free(c);
		return NULL;
	}
	c->o = *o;
	c->names = names;
	c->sym = sym;
	return c;
}

void stk_snap_counter_free(struct stk_snap_counter *c)
{
	if (!c)
		return;
	stk_stack_table_free(c->table);
	free(c);
}

/* The name of a kernel frame: interned, or from kallsyms; NULL when unknown. */
static const char *kernel_name(struct stk_snap_counter *c, uint64_t id_or_addr)
{
	const char *name = stk_frame_names_name(c->names, id_or_addr);
	struct stk_frame f = { 0 };

	if (name || !c->sym)
		return name;
	stk_symbolize_kernel(c->sym, id_or_addr, &f);
	return f.symbol;
}

void stk_snap_wchan(struct stk_snap_counter *c, const struct stk_snap_thread *t, char *buf, size_t len)
{
	const char *names[MAX_KERNEL];
	size_t n = t->n_kernel < MAX_KERNEL ? t->n_kernel : MAX_KERNEL;

	for (size_t i = 0; i < n; i++)
		names[i] = kernel_name(c, t->kernel[i]);
	snprintf(buf, len, "%s", stk_wchan_from_frames(names, n));
}

void stk_snap_state_text(enum stk_tstate state, const char *wchan, char *buf, size_t len)
{
	snprintf(buf, len, "[%s%s%s]", stk_tstate_name(state), wchan && wchan[0] ? " " : "", wchan ? wchan : "");
}

int stk_snap_count(struct stk_snap_counter *c, const struct stk_snap_thread *t, const uint64_t *user, size_t n_user,
		   const char *stop)
{
	struct stk_raw_stack raw = { .tgid = t->tgid, .tid = c->o.per_thread ? t->tid : 0, .value = 1, .stop = stop };
	size_t nk = 0;

	memcpy(raw.comm, t->comm, sizeof(raw.comm));
	if (c->o.state_frame) {
		char wchan[64], text[96];

		stk_snap_wchan(c, t, wchan, sizeof(wchan));
		stk_snap_state_text(t->state, wchan, text, sizeof(text));
		if (!(c->kernel[nk] = stk_frame_names_id(c->names, text, strlen(text))))
			return -1;
		nk++;
	}
	for (size_t i = 0; !c->o.user_only && i < t->n_kernel && nk < MAX_KERNEL + 1; i++)
		c->kernel[nk++] = t->kernel[i];
	raw.kernel = c->kernel;
	raw.n_kernel = nk;
	if (!c->o.kernel_only) {
		raw.user = user;
		raw.n_user = n_user;
	}
	/* A user thread without a user stack says why in its place. */
	if (!c->o.kernel_only && !n_user && !t->kthread) {
		char text[160];

		snprintf(text, sizeof(text), "[no user stack: %s]", stop ? stop : "unknown");
		if (!(c->no_user = stk_frame_names_id(c->names, text, strlen(text))))
			return -1;
		raw.user = &c->no_user;
		raw.n_user = 1;
	}
	return stk_stack_table_add(c->table, &raw);
}

size_t stk_snap_counter_size(const struct stk_snap_counter *c)
{
	return stk_stack_table_size(c->table);
}

uint64_t stk_snap_counter_value(const struct stk_snap_counter *c, size_t i)
{
	return stk_stack_table_at(c->table, i)->value;
}

/* Kernel frames: names for the interned ids, kallsyms for addresses. */
static struct stk_frame *kernel_frames(struct stk_snap_counter *c, const struct stk_raw_stack *raw)
{
	struct stk_frame *f = raw->n_kernel ? calloc(raw->n_kernel, sizeof(*f)) : NULL;

	for (size_t i = 0; f && i < raw->n_kernel; i++) {
		const char *name = stk_frame_names_name(c->names, raw->kernel[i]);

		if (name)
			f[i] = (struct stk_frame){ .symbol = name, .kernel = true };
		else
			stk_symbolize_kernel(c->sym, raw->kernel[i], &f[i]);
	}
	return f;
}

int stk_snap_counter_collect(struct stk_snap_counter *c, struct stk_stack *(*add)(void *ctx), void *ctx)
{
	for (size_t i = 0; i < stk_stack_table_size(c->table); i++) {
		const struct stk_raw_stack *raw = stk_stack_table_at(c->table, i);
		struct stk_stack *st = add(ctx);

		if (!st)
			return -1;
		stk_raw_stack_task(raw, st);
		st->unwind_stop = raw->stop;
		if (raw->n_kernel && !(st->kernel = kernel_frames(c, raw)))
			return -1;
		st->n_kernel = raw->n_kernel;
		const char *why = raw->n_user == 1 ? stk_frame_names_name(c->names, raw->user[0]) : NULL;
		struct stk_frame *named;
		if (why && (named = calloc(1, sizeof(*named)))) {
			named->symbol = why;
			st->user = named;
			st->n_user = 1;
		} else if (!why) {
			st->user = stk_symbolize_ips(c->sym, raw->user, raw->n_user, false, (pid_t)raw->tgid, &st->n_user);
		}
		if (raw->n_user && !st->user)
			return -1;
	}
	return 0;
}
