#include "core/stack/stack_table.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"
#include "core/stack/stack.h"

struct entry {
	struct stk_raw_stack s; /* owns its arrays */
	uint64_t hash;
	size_t next; /* index + 1 of the next entry in the bucket, 0 ends */
};

struct stk_stack_table {
	struct entry *entries;
	size_t n, cap;
	size_t *buckets; /* index + 1 of the first entry, 0: empty */
	size_t n_buckets;
};

/* FNV-1a over bytes, continued from h. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

static uint64_t hash_of(const struct stk_raw_stack *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	uintptr_t stop = (uintptr_t)s->stop;

	h = fnv(h, &s->tgid, sizeof(s->tgid));
	h = fnv(h, &s->tid, sizeof(s->tid));
	h = fnv(h, s->comm, strnlen(s->comm, sizeof(s->comm)));
	h = fnv(h, &s->n_kernel, sizeof(s->n_kernel));
	h = fnv(h, s->kernel, s->n_kernel * sizeof(*s->kernel));
	h = fnv(h, &s->n_user, sizeof(s->n_user));
	h = fnv(h, s->user, s->n_user * sizeof(*s->user));
	if (s->user_how)
		h = fnv(h, s->user_how, s->n_user);
	h = fnv(h, &stop, sizeof(stop));
	return fnv(h, &s->kernel_lost, sizeof(s->kernel_lost));
}

static bool same(const struct stk_raw_stack *a, const struct stk_raw_stack *b)
{
	return a->tgid == b->tgid && a->tid == b->tid && strncmp(a->comm, b->comm, sizeof(a->comm)) == 0 &&
	       a->n_kernel == b->n_kernel && a->n_user == b->n_user && a->stop == b->stop &&
	       a->kernel_lost == b->kernel_lost && !a->user_how == !b->user_how &&
	       (!a->n_kernel || memcmp(a->kernel, b->kernel, a->n_kernel * sizeof(*a->kernel)) == 0) &&
	       (!a->n_user || memcmp(a->user, b->user, a->n_user * sizeof(*a->user)) == 0) &&
	       (!a->user_how || !a->n_user || memcmp(a->user_how, b->user_how, a->n_user) == 0);
}

struct stk_stack_table *stk_stack_table_new(void)
{
	return calloc(1, sizeof(struct stk_stack_table));
}

void stk_stack_table_free(struct stk_stack_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		free((void *)t->entries[i].s.kernel);
		free((void *)t->entries[i].s.user);
		free((void *)t->entries[i].s.user_how);
	}
	free(t->entries);
	free(t->buckets);
	free(t);
}

static int rehash(struct stk_stack_table *t)
{
	size_t nb = t->n_buckets ? t->n_buckets * 2 : 1024;
	size_t *b = calloc(nb, sizeof(*b));

	if (!b)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		size_t at = t->entries[i].hash & (nb - 1);

		t->entries[i].next = b[at];
		b[at] = i + 1;
	}
	free(t->buckets);
	t->buckets = b;
	t->n_buckets = nb;
	return 0;
}

static void *dup_bytes(const void *p, size_t n)
{
	void *d;

	if (!n)
		return NULL;
	if ((d = malloc(n)))
		memcpy(d, p, n);
	return d;
}

int stk_stack_table_add(struct stk_stack_table *t, const struct stk_raw_stack *s)
{
	size_t at;

	return stk_stack_table_add_at(t, s, &at);
}

int stk_stack_table_add_at(struct stk_stack_table *t, const struct stk_raw_stack *key, size_t *at)
{
	struct stk_raw_stack norm = *key;
	const struct stk_raw_stack *s = &norm;
	uint64_t h;
	struct entry *e;

	if (!norm.n_user)
		norm.user_how = NULL;
	h = hash_of(s);

	if (t->n_buckets) {
		for (size_t i = t->buckets[h & (t->n_buckets - 1)]; i; i = t->entries[i - 1].next) {
			e = &t->entries[i - 1];
			if (e->hash == h && same(&e->s, s)) {
				e->s.value += s->value;
				*at = i - 1;
				return 0;
			}
		}
	}
	if (t->n + 1 > t->n_buckets / 2 && rehash(t))
		return -1;
	if (stk_grow((void **)&t->entries, &t->cap, t->n + 1, sizeof(*t->entries)))
		return -1;
	e = &t->entries[t->n];
	e->s = *s;
	e->s.kernel = dup_bytes(s->kernel, s->n_kernel * sizeof(*s->kernel));
	e->s.user = dup_bytes(s->user, s->n_user * sizeof(*s->user));
	e->s.user_how = s->user_how ? dup_bytes(s->user_how, s->n_user) : NULL;
	if ((s->n_kernel && !e->s.kernel) || (s->n_user && !e->s.user) || (s->user_how && s->n_user && !e->s.user_how)) {
		free((void *)e->s.kernel);
		free((void *)e->s.user);
		free((void *)e->s.user_how);
		return -1;
	}
	e->hash = h;
	*at = t->n;
	e->next = t->buckets[h & (t->n_buckets - 1)];
	t->buckets[h & (t->n_buckets - 1)] = ++t->n;
	return 0;
}

size_t stk_stack_table_size(const struct stk_stack_table *t)
{
	return t->n;
}

const struct stk_raw_stack *stk_stack_table_at(const struct stk_stack_table *t, size_t i)
{
	return &t->entries[i].s;
}

void stk_raw_stack_task(const struct stk_raw_stack *raw, struct stk_stack *st)
{
	st->pid = raw->tgid;
	st->tid = raw->tid;
	memcpy(st->comm, raw->comm, sizeof(st->comm));
	st->comm[sizeof(st->comm) - 1] = '\0';
	st->value = raw->value;
}
