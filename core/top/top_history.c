/* Each thread's last minute of states (top_history.h). */
#include <string.h>
#include <stdlib.h>

#include "core/base/grow.h"
#include "core/top/top_history.h"

void stk_top_history_init(struct stk_top_history *h)
{
	memset(h, 0, sizeof(*h));
	h->ix = (struct stk_key_index){ .key_size = sizeof(uint32_t), .stride = sizeof(*h->threads) };
}

void stk_top_history_free(struct stk_top_history *h)
{
	free(h->threads);
	stk_key_index_free(&h->ix);
	memset(h, 0, sizeof(*h));
}

char stk_top_state_letter(enum stk_tstate s)
{
	static const char letters[STK_TSTATE_COUNT] = {
		[STK_TSTATE_RUN] = 'R', [STK_TSTATE_RUNQ] = 'Q', [STK_TSTATE_SLEEP] = 'S', [STK_TSTATE_DISK] = 'D',
		[STK_TSTATE_STOPPED] = 'T', [STK_TSTATE_ZOMBIE] = 'Z', [STK_TSTATE_IDLE] = 'I',
	};
	return (unsigned)s < STK_TSTATE_COUNT ? letters[s] : '?';
}

/* t's state in its second; the seconds since it was last seen are cleared on the way. */
static int remember(struct stk_top_history *h, const struct stk_thread *t, int64_t sec)
{
	struct stk_top_thread_history key = { .tid = t->tid };
	int64_t i = stk_key_index_find(&h->ix, h->threads, &key);

	if (i < 0) {
		if (stk_grow((void **)&h->threads, &h->cap, h->n + 1, sizeof(*h->threads)))
			return -1;
		h->threads[h->n] = (struct stk_top_thread_history){ .tid = t->tid, .last_sec = sec };
		if (stk_key_index_add(&h->ix, h->threads, h->n + 1))
			return -1;
		i = (int64_t)h->n++;
	}
	struct stk_top_thread_history *e = &h->threads[i];
	for (int64_t s = e->last_sec + 1; s < sec && s <= e->last_sec + STK_TOP_HISTORY_SECS; s++)
		e->states[s % STK_TOP_HISTORY_SECS] = '\0';
	e->states[sec % STK_TOP_HISTORY_SECS] = stk_top_state_letter(t->state);
	e->last_sec = sec;
	return 0;
}

static uint64_t tid_hash(const void *ctx, size_t i)
{
	const struct stk_top_thread_history *e = &((const struct stk_top_thread_history *)ctx)[i];

	return stk_hash_bytes(&e->tid, sizeof(e->tid));
}

int stk_top_history_add(struct stk_top_history *h, const struct stk_thread_batch *b, int64_t sec)
{
	size_t kept = 0;

	for (size_t i = 0; i < b->n; i++)
		if (remember(h, &b->threads[i], sec))
			return -1;
	for (size_t i = 0; i < h->n; i++)
		if (h->threads[i].last_sec + STK_TOP_HISTORY_SECS > sec)
			h->threads[kept++] = h->threads[i];
	if (kept == h->n)
		return 0;
	h->n = kept;
	return stk_key_index_rebuild(&h->ix, kept, tid_hash, h->threads);
}

bool stk_top_history_line(const struct stk_top_history *h, uint32_t tid, int64_t now_sec, char *buf, size_t len)
{
	struct stk_top_thread_history key = { .tid = tid };
	int64_t i = stk_key_index_find(&h->ix, h->threads, &key);
	size_t at = 0;

	if (!len)
		return false;
	buf[0] = '\0';
	if (i < 0)
		return false;
	const struct stk_top_thread_history *e = &h->threads[i];
	for (int64_t s = now_sec - STK_TOP_HISTORY_SECS + 1; s <= now_sec && at + 1 < len; s++) {
		bool known = s >= 0 && s <= e->last_sec && s > e->last_sec - STK_TOP_HISTORY_SECS;
		char c = known ? e->states[s % STK_TOP_HISTORY_SECS] : '\0';
		buf[at++] = c ? c : '.';
	}
	buf[at] = '\0';
	return true;
}
