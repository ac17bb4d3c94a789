#include "core/snapshot/snapshot.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"

struct stk_snap_thread *stk_snap_add(struct stk_snap *s)
{
	if (stk_grow((void **)&s->threads, &s->cap, s->n + 1, sizeof(*s->threads)))
		return NULL;
	struct stk_snap_thread *t = &s->threads[s->n++];
	memset(t, 0, sizeof(*t));
	return t;
}

void stk_snap_thread_clear(struct stk_snap_thread *t)
{
	free(t->kernel);
	free(t->stack);
	memset(t, 0, sizeof(*t));
}

void stk_snap_thread_replace(struct stk_snap_thread *t, struct stk_snap_thread *with)
{
	stk_snap_thread_clear(t);
	*t = *with;
	memset(with, 0, sizeof(*with));
}

void stk_snap_filter(struct stk_snap *s, bool (*drop)(const struct stk_snap_thread *t, void *ctx), void *ctx)
{
	size_t kept = 0;

	for (size_t i = 0; i < s->n; i++) {
		if (drop(&s->threads[i], ctx)) {
			stk_snap_thread_clear(&s->threads[i]);
			continue;
		}
		if (kept != i)
			s->threads[kept] = s->threads[i];
		kept++;
	}
	s->n = kept;
}

void stk_snap_reset(struct stk_snap *s)
{
	for (size_t i = 0; i < s->n; i++)
		stk_snap_thread_clear(&s->threads[i]);
	s->n = 0;
}

void stk_snap_free(struct stk_snap *s)
{
	stk_snap_reset(s);
	free(s->threads);
	s->threads = NULL;
	s->cap = 0;
}
