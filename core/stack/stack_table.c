#include "core/stack/stack_table.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"
#include "core/base/key_index.h"
#include "core/stack/stack.h"

struct entry {
	struct stk_raw_stack s; /* owns its arrays */
	uint64_t hash;
};

struct stk_stack_table {
	struct entry *entries;
	size_t n, cap;
	struct stk_key_index index; /* over entries, by hash */
};

/* The whole content's hash: the task and the chain's ends, then the frames, each part folded in. */
static uint64_t hash_of(const struct stk_raw_stack *s)
{
	struct {
		uint64_t task, n_kernel, n_user, stop, flags;
		char comm[16];
	} head = { (uint64_t)s->tgid << 32 | s->tid, s->n_kernel, s->n_user, (uintptr_t)s->stop,
		   (uint64_t)s->kernel_lost << 1 | (s->user_how != NULL), { 0 } };
	uint64_t h;

	memcpy(head.comm, s->comm, strnlen(s->comm, sizeof(s->comm))); /* what follows a NUL does not count */
	h = stk_hash_bytes(&head, sizeof(head));
	h = stk_hash_u64(h ^ stk_hash_bytes(s->kernel, s->n_kernel * sizeof(*s->kernel)));
	h = stk_hash_u64(h ^ stk_hash_bytes(s->user, s->n_user * sizeof(*s->user)));
	return s->user_how ? stk_hash_u64(h ^ stk_hash_bytes(s->user_how, s->n_user)) : h;
}

static uint64_t entry_hash(const void *ctx, size_t i)
{
	return ((const struct stk_stack_table *)ctx)->entries[i].hash;
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

static void free_entry(struct entry *e)
{
	free((void *)e->s.kernel);
	free((void *)e->s.user);
	free((void *)e->s.user_how);
}

void stk_stack_table_free(struct stk_stack_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free_entry(&t->entries[i]);
	free(t->entries);
	stk_key_index_free(&t->index);
	free(t);
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
	struct stk_key_probe probe;
	uint64_t h;
	struct entry *e;

	if (!norm.n_user)
		norm.user_how = NULL;
	h = hash_of(s);
	for (int64_t i = stk_key_index_first(&t->index, h, &probe); i >= 0; i = stk_key_index_next(&t->index, &probe)) {
		e = &t->entries[i];
		if (e->hash == h && same(&e->s, s)) {
			e->s.value += s->value;
			*at = (size_t)i;
			return 0;
		}
	}
	if (stk_grow((void **)&t->entries, &t->cap, t->n + 1, sizeof(*t->entries)))
		return -1;
	e = &t->entries[t->n];
	e->s = *s;
	e->s.kernel = dup_bytes(s->kernel, s->n_kernel * sizeof(*s->kernel));
	e->s.user = dup_bytes(s->user, s->n_user * sizeof(*s->user));
	e->s.user_how = s->user_how ? dup_bytes(s->user_how, s->n_user) : NULL;
	if ((s->n_kernel && !e->s.kernel) || (s->n_user && !e->s.user) || (s->user_how && s->n_user && !e->s.user_how)) {
		free_entry(e);
		return -1;
	}
	e->hash = h;
	if (stk_key_index_put(&t->index, &probe, t->n + 1, entry_hash, t)) {
		free_entry(e);
		return -1;
	}
	*at = t->n++;
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

size_t stk_stack_table_retain(struct stk_stack_table *t, size_t *where)
{
	size_t kept = 0, n = t->n;

	for (size_t i = 0; i < n; i++) {
		if (!where[i]) {
			free_entry(&t->entries[i]);
			continue;
		}
		t->entries[kept] = t->entries[i];
		where[i] = ++kept;
	}
	t->n = kept;
	/* fewer entries in the same slots: placing them again allocates nothing */
	(void)stk_key_index_rebuild(&t->index, kept, entry_hash, t);
	return n - kept;
}

void stk_raw_stack_task(const struct stk_raw_stack *raw, struct stk_stack *st)
{
	st->pid = raw->tgid;
	st->tid = raw->tid;
	memcpy(st->comm, raw->comm, sizeof(st->comm));
	st->comm[sizeof(st->comm) - 1] = '\0';
	st->value = raw->value;
}
