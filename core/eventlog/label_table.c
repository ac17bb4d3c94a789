/* String interning: see label_table.h. */
#include "core/eventlog/label_table.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++) /* FNV-1a */
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static size_t find(const struct stk_label_table *t, const char *s)
{
	size_t i = (size_t)hash_str(s) & (t->n_slots - 1);

	while (t->slots[i] && strcmp(t->labels[t->slots[i] - 1], s) != 0)
		i = (i + 1) & (t->n_slots - 1);
	return i;
}

static int rehash(struct stk_label_table *t)
{
	size_t n = t->n_slots ? t->n_slots * 2 : 64;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -1;
	free(t->slots);
	t->slots = slots;
	t->n_slots = n;
	for (size_t i = 0; i < t->n; i++)
		t->slots[find(t, t->labels[i])] = (uint32_t)(i + 1);
	return 0;
}

uint32_t stk_label_id(struct stk_label_table *t, const char *s)
{
	size_t i;
	char *copy;

	if ((t->n + 1) * 2 > t->n_slots && rehash(t))
		return UINT32_MAX;
	i = find(t, s);
	if (t->slots[i])
		return t->slots[i] - 1;
	if (t->n >= UINT32_MAX - 1 || stk_grow((void **)&t->labels, &t->cap, t->n + 1, sizeof(*t->labels)) ||
	    !(copy = strdup(s)))
		return UINT32_MAX;
	t->labels[t->n] = copy;
	t->slots[i] = (uint32_t)++t->n;
	return (uint32_t)(t->n - 1);
}

void stk_label_table_free(struct stk_label_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->labels[i]);
	free(t->labels);
	free(t->slots);
	*t = (struct stk_label_table){ 0 };
}
