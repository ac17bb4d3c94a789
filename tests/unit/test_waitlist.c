/* core/base/waitlist.c: records kept per key, released by key in arrival order, slots reused. */
#include "harness.h"
#include "core/base/waitlist.h"

struct rec {
	uint64_t time;
	char pad[40]; /* records are copied whole */
};

struct seen {
	uint64_t time[16];
	size_t n;
};

static void note(void *ctx, const void *elem)
{
	const struct rec *r = elem;
	struct seen *s = ctx;

	if (s->n < 16)
		s->time[s->n] = r->time;
	s->n++;
}

static void add(struct test_ctx *t, struct stk_waitlist *w, uint64_t key, uint64_t time)
{
	struct rec r = { .time = time };

	CHECK(t, stk_waitlist_add(w, key, &r) == 0);
}

static void released_by_key_in_order(struct test_ctx *t)
{
	struct stk_waitlist w;
	struct seen s = { 0 };

	stk_waitlist_init(&w, sizeof(struct rec));
	add(t, &w, 7, 1);
	add(t, &w, 9, 2);
	add(t, &w, 7, 3);
	add(t, &w, 7, 4);
	CHECK(t, w.n_waiting == 4);
	stk_waitlist_release(&w, 7, note, &s);
	CHECK(t, s.n == 3 && s.time[0] == 1 && s.time[1] == 3 && s.time[2] == 4);
	CHECK(t, w.n_waiting == 1);
	/* released once: the same key again finds nothing, nor does one never added */
	stk_waitlist_release(&w, 7, note, &s);
	stk_waitlist_release(&w, 12345, note, &s);
	CHECK(t, s.n == 3);
	/* a freed slot is reused; the new record still comes after the older one of its key */
	add(t, &w, 9, 5);
	CHECK(t, w.n_slots == 4);
	stk_waitlist_release(&w, 9, note, &s);
	CHECK(t, s.n == 5 && s.time[3] == 2 && s.time[4] == 5);
	/* empty: the keys are forgotten, the memory kept */
	CHECK(t, w.n_waiting == 0 && w.n_keys == 0 && w.n_slots == 0);
	stk_waitlist_free(&w);
}

static void release_all_empties(struct test_ctx *t)
{
	struct stk_waitlist w;
	struct seen s = { 0 };

	stk_waitlist_init(&w, sizeof(struct rec));
	for (uint64_t i = 0; i < 1000; i++)
		add(t, &w, i % 10, i);
	stk_waitlist_release(&w, 3, note, &s);
	CHECK(t, s.n == 100 && s.time[0] == 3 && s.time[1] == 13);
	stk_waitlist_release_all(&w, note, &s);
	CHECK(t, s.n == 1000 && w.n_waiting == 0);
	stk_waitlist_release_all(&w, note, &s);
	CHECK(t, s.n == 1000);
	add(t, &w, 3, 2000);
	stk_waitlist_release(&w, 3, note, &s);
	CHECK(t, s.n == 1001 && s.time[15] == 153);
	stk_waitlist_free(&w);
}

const struct test_case waitlist_tests[] = {
	{ "released_by_key_in_order", released_by_key_in_order },
	{ "release_all_empties", release_all_empties },
	{ NULL, NULL },
};
