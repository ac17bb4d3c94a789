/* Summing a recording into stacks: see event_totals.h. */
#include "core/eventlog/event_totals.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"

struct totals_ctx {
	struct stk_ev_totals *t;
	const struct stk_ev_meta *meta;
	bool by_span;
	int type_of[STK_EV_MAX_KINDS]; /* each kind's value type in the report (stk_ev_kinds_kept) */
	size_t n_types;
};

/* What tells two entries apart. */
struct entry_key {
	uint32_t pid, tid, stack, span, kind;
	char comm[16];
};

struct adder {
	struct totals_ctx *c;
	struct entry_key *keys; /* per entry */
	size_t cap_keys;
	struct stk_key_index index;
};

/* 0, or 1 when out of memory (ends the walk). */
static int add_event(void *ctx, const struct stk_ev_event *ev)
{
	struct adder *a = ctx;
	struct stk_ev_totals *t = a->c->t;
	/* an event of no kind (--event span) is counted as the first kind */
	struct entry_key k = { ev->pid, a->c->meta->per_thread ? ev->tid : 0, ev->stack, STK_STRING_NONE,
			       ev->kind == UINT32_MAX ? 0 : ev->kind, { 0 } };
	int64_t i;

	memcpy(k.comm, ev->comm, sizeof(k.comm));
	if (a->c->by_span && ev->span &&
	    (k.span = stk_string_pool_id(t->spans, ev->span, strlen(ev->span))) == STK_STRING_NONE)
		return 1;
	i = stk_key_index_find(&a->index, a->keys, &k);
	if (i < 0) {
		if (t->n >= UINT32_MAX - 1 || stk_grow((void **)&t->stacks, &t->cap, t->n + 1, sizeof(*t->stacks)) ||
		    stk_grow((void **)&t->sums, &t->cap_sums, t->n + 1, sizeof(*t->sums)) ||
		    stk_grow((void **)&t->stack_of, &t->cap_stack_of, t->n + 1, sizeof(*t->stack_of)) ||
		    stk_grow((void **)&a->keys, &a->cap_keys, t->n + 1, sizeof(*a->keys)))
			return 1;
		a->keys[t->n] = k;
		t->sums[t->n] = 0;
		t->stack_of[t->n] = ev->stack;
		if (stk_key_index_add(&a->index, a->keys, ++t->n))
			return 1;
		i = (int64_t)t->n - 1;
	}
	t->sums[i] += (uint64_t)ev->weight;
	return 0;
}

/* The entries as stacks: frames from the file, values divided as the capture did (each kind by its own), empty ones gone. */
static void finish(struct stk_ev_totals *t, const struct entry_key *keys, const struct stk_stack *stacks,
		   const struct totals_ctx *c)
{
	const struct stk_ev_meta *m = c->meta;

	size_t kept = 0;

	for (size_t i = 0; i < t->n; i++) {
		const struct entry_key *k = &keys[i];
		uint64_t value = t->sums[i] / m->kinds[k->kind].divisor;
		struct stk_stack *s = &t->stacks[kept];

		if (value == 0)
			continue;
		*s = k->stack == UINT32_MAX ? (struct stk_stack){ 0 } : stacks[k->stack];
		s->pid = k->pid;
		s->tid = k->tid;
		memcpy(s->comm, k->comm, sizeof(s->comm));
		s->comm[sizeof(s->comm) - 1] = '\0';
		s->value = value;
		s->type = c->n_types > 1 && c->type_of[k->kind] > 0 ? (uint32_t)c->type_of[k->kind] : 0;
		s->span = k->span == STK_STRING_NONE ? NULL : stk_string_pool_strings(t->spans)[k->span];
		t->sums[kept] = t->sums[i];
		t->stack_of[kept] = t->stack_of[i];
		kept++;
	}
	t->n = kept;
}

int stk_ev_totals_read(struct stk_ev_file *f, const struct stk_ev_filter *flt, bool by_span, struct stk_ev_totals *t,
		       char *err, size_t err_len)
{
	struct totals_ctx c = { t, stk_ev_meta(f), by_span, { 0 }, 0 };
	struct stk_value_type types[STK_EV_MAX_KINDS];
	struct adder a = { .c = &c, .index = { .key_size = sizeof(struct entry_key), .stride = sizeof(struct entry_key) } };
	const struct stk_stack *stacks = NULL;
	size_t n_stacks;
	int rc;

	*t = (struct stk_ev_totals){ 0 };
	c.n_types = stk_ev_kinds_kept(c.meta, flt, c.type_of, types);
	rc = (t->spans = stk_string_pool_new()) ? stk_ev_each(f, flt, add_event, &a, err, err_len) : 1;
	if (rc > 0 || (rc == 0 && !(stacks = stk_ev_stacks(f, &n_stacks)))) {
		snprintf(err, err_len, "out of memory");
		rc = -1;
	}
	if (rc == 0)
		finish(t, a.keys, stacks, &c);
	free(a.keys);
	stk_key_index_free(&a.index);
	return rc ? -1 : 0;
}

void stk_ev_totals_free(struct stk_ev_totals *t)
{
	free(t->stacks);
	free(t->sums);
	free(t->stack_of);
	stk_string_pool_free(t->spans);
	*t = (struct stk_ev_totals){ 0 };
}
