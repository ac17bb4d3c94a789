/* stk top's window between refreshes (top_window.h): threads under their groups, the host's states. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"
#include "core/threads/thread_columns.h"
#include "core/top/top_window.h"

void stk_top_window_init(struct stk_top_window *w, const struct stk_group_spec *spec)
{
	memset(w, 0, sizeof(*w));
	w->spec = *spec;
}

void stk_top_window_reset(struct stk_top_window *w)
{
	for (size_t i = 0; i < w->n_threads; i++)
		free(w->threads[i].group_key);
	for (size_t i = 0; i < w->n_groups; i++)
		free(w->groups[i].key);
	w->n_threads = w->n_groups = 0;
	w->passes = 0;
	stk_key_index_clear(&w->thread_ix);
}

void stk_top_window_free(struct stk_top_window *w)
{
	stk_top_window_reset(w);
	free(w->threads);
	free(w->groups);
	stk_key_index_free(&w->thread_ix);
	memset(w, 0, sizeof(*w));
}

void stk_top_window_regroup(struct stk_top_window *w, const struct stk_group_spec *spec)
{
	stk_top_window_reset(w);
	w->spec = *spec;
}

void stk_top_group_key(const struct stk_group_spec *spec, const struct stk_thread *t, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < spec->n && at + 1 < len; i++) {
		if (i)
			buf[at++] = STK_TOP_KEY_SEP;
		stk_tcol_value(t, spec->cols[i], buf + at, len - at);
		/* a value never holds the separator: the key splits back into the same values */
		for (char *p = buf + at; *p; p++)
			if (*p == STK_TOP_KEY_SEP)
				*p = ' ';
		at += strlen(buf + at);
	}
	buf[at < len ? at : len - 1] = '\0';
}

void stk_top_key_value(const char *key, size_t i, char *buf, size_t len)
{
	const char *p = key;

	for (; i && p; i--) {
		p = strchr(p, STK_TOP_KEY_SEP);
		if (p)
			p++;
	}
	if (!p) {
		buf[0] = '\0';
		return;
	}
	size_t n = strcspn(p, (const char[]){ STK_TOP_KEY_SEP, '\0' });
	snprintf(buf, len, "%.*s", (int)n, p);
}

static uint64_t thread_hash(uint32_t tid, const char *key)
{
	return stk_hash_u64(tid ^ stk_hash_bytes(key, strlen(key)));
}

static uint64_t thread_hash_of(const void *ctx, size_t i)
{
	const struct stk_top_thread *t = &((const struct stk_top_window *)ctx)->threads[i];

	return thread_hash(t->tid, t->group_key);
}

static void fill_cells(struct stk_top_thread *e, const struct stk_thread *t)
{
	stk_tcol_value(t, STK_TCOL_STATE, e->state, sizeof(e->state));
	stk_tcol_value(t, STK_TCOL_USERNAME, e->user, sizeof(e->user));
	stk_tcol_value(t, STK_TCOL_COMM, e->comm, sizeof(e->comm));
	stk_tcol_value(t, STK_TCOL_SYSCALL, e->syscall, sizeof(e->syscall));
	stk_tcol_value(t, STK_TCOL_WCHAN, e->wchan, sizeof(e->wchan));
}

/* Counts t under key: its entry found or added, its cells the latest sample's. */
static int count_thread(struct stk_top_window *w, const struct stk_thread *t, const char *key)
{
	uint64_t h = thread_hash(t->tid, key);
	struct stk_key_probe p;

	for (int64_t i = stk_key_index_first(&w->thread_ix, h, &p); i >= 0; i = stk_key_index_next(&w->thread_ix, &p)) {
		struct stk_top_thread *e = &w->threads[i];
		if (e->tid == t->tid && strcmp(e->group_key, key) == 0) {
			e->samples++;
			fill_cells(e, t);
			return 0;
		}
	}
	char *copy = strdup(key);
	if (!copy || stk_grow((void **)&w->threads, &w->cap_threads, w->n_threads + 1, sizeof(*w->threads))) {
		free(copy);
		return -1;
	}
	struct stk_top_thread *e = &w->threads[w->n_threads++];
	*e = (struct stk_top_thread){ .tid = t->tid, .tgid = t->tgid, .samples = 1, .group_key = copy };
	fill_cells(e, t);
	if (stk_key_index_put(&w->thread_ix, &p, w->n_threads, thread_hash_of, w)) {
		free(w->threads[--w->n_threads].group_key);
		return -1;
	}
	return 0;
}

int stk_top_window_add(struct stk_top_window *w, const struct stk_thread_batch *b,
		       bool (*filter)(const struct stk_thread *t, void *ctx), void *ctx)
{
	char key[1024];

	memset(w->states, 0, sizeof(w->states));
	w->counted = 0;
	for (size_t i = 0; i < b->n; i++) {
		const struct stk_thread *t = &b->threads[i];

		if (!t->keep || (filter && !filter(t, ctx)))
			continue;
		if ((unsigned)t->state < STK_TSTATE_COUNT)
			w->states[t->state]++;
		w->counted++;
		stk_top_group_key(&w->spec, t, key, sizeof(key));
		if (count_thread(w, t, key))
			return -1;
	}
	w->passes++;
	return 0;
}

static uint64_t group_hash_of(const void *ctx, size_t i)
{
	const char *k = ((const struct stk_top_group *)ctx)[i].key;

	return stk_hash_bytes(k, strlen(k));
}

int stk_top_window_groups(struct stk_top_window *w)
{
	struct stk_key_index ix = { 0 };
	int ret = 0;

	for (size_t i = 0; i < w->n_groups; i++)
		free(w->groups[i].key);
	w->n_groups = 0;
	for (size_t i = 0; i < w->n_threads && !ret; i++) {
		const struct stk_top_thread *t = &w->threads[i];
		uint64_t h = stk_hash_bytes(t->group_key, strlen(t->group_key));
		struct stk_key_probe p;
		int64_t g;

		for (g = stk_key_index_first(&ix, h, &p); g >= 0; g = stk_key_index_next(&ix, &p))
			if (strcmp(w->groups[g].key, t->group_key) == 0)
				break;
		if (g < 0) {
			char *copy = strdup(t->group_key);
			if (!copy || stk_grow((void **)&w->groups, &w->cap_groups, w->n_groups + 1, sizeof(*w->groups))) {
				free(copy);
				ret = -1;
				break;
			}
			w->groups[w->n_groups++] = (struct stk_top_group){ .key = copy };
			if (stk_key_index_put(&ix, &p, w->n_groups, group_hash_of, w->groups)) {
				ret = -1;
				break;
			}
			g = (int64_t)w->n_groups - 1;
		}
		w->groups[g].samples += t->samples;
		w->groups[g].threads++;
	}
	stk_key_index_free(&ix);
	return ret;
}
