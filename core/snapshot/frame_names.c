#include "core/snapshot/frame_names.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"

struct stk_frame_names {
	char **names; /* by id - BASE */
	size_t n, cap;
	uint32_t *slots; /* open addressing over names: index + 1, 0 empty */
	size_t n_slots;
};

static uint64_t hash_of(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return h;
}

static uint32_t *slot_of(const struct stk_frame_names *n, const char *name, size_t len)
{
	size_t i = (size_t)hash_of(name, len) & (n->n_slots - 1);

	while (n->slots[i]) {
		const char *have = n->names[n->slots[i] - 1];
		if (strncmp(have, name, len) == 0 && have[len] == '\0')
			break;
		i = (i + 1) & (n->n_slots - 1);
	}
	return &n->slots[i];
}

static int rehash(struct stk_frame_names *n)
{
	size_t ns = n->n_slots ? n->n_slots * 2 : 256;
	uint32_t *old = n->slots;

	if (!(n->slots = calloc(ns, sizeof(*n->slots)))) {
		n->slots = old;
		return -1;
	}
	n->n_slots = ns;
	for (size_t i = 0; i < n->n; i++)
		*slot_of(n, n->names[i], strlen(n->names[i])) = (uint32_t)i + 1;
	free(old);
	return 0;
}

struct stk_frame_names *stk_frame_names_new(void)
{
	return calloc(1, sizeof(struct stk_frame_names));
}

void stk_frame_names_free(struct stk_frame_names *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n; i++)
		free(n->names[i]);
	free(n->names);
	free(n->slots);
	free(n);
}

uint64_t stk_frame_names_id(struct stk_frame_names *n, const char *name, size_t len)
{
	if ((n->n + 1) * 2 > n->n_slots && rehash(n))
		return 0;
	uint32_t *slot = slot_of(n, name, len);
	if (*slot)
		return STK_FRAME_NAME_BASE + *slot - 1;
	if (n->n == STK_FRAME_NAME_MAX || stk_grow((void **)&n->names, &n->cap, n->n + 1, sizeof(*n->names)))
		return 0;
	if (!(n->names[n->n] = strndup(name, len)))
		return 0;
	*slot = (uint32_t)++n->n;
	return STK_FRAME_NAME_BASE + n->n - 1;
}

const char *stk_frame_names_name(const struct stk_frame_names *n, uint64_t id)
{
	if (!n || id < STK_FRAME_NAME_BASE || id - STK_FRAME_NAME_BASE >= n->n)
		return NULL;
	return n->names[id - STK_FRAME_NAME_BASE];
}
