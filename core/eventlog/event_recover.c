/* An unfinished event log file made whole: see event_recover.h. */
#include "core/eventlog/event_recover.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/eventlog/event_reader.h"
#include "core/eventlog/event_schema.h"
#include "core/parquet/parquet_salvage.h"

static int64_t meta_i64(const struct stk_pq_salvage *s, const char *key, int64_t otherwise)
{
	const char *v = stk_pq_salvage_metadata(s, key);
	char *end;
	long long n;

	if (!v || !*v)
		return otherwise;
	errno = 0;
	n = strtoll(v, &end, 10);
	return errno || *end ? otherwise : (int64_t)n;
}

/* A whole file: what its footer says. 1, 0 when it is not whole. */
static int whole(int fd, struct stk_ev_recovered *out)
{
	char err[256];
	struct stk_ev_file *f = stk_ev_open(fd, err, sizeof(err));

	if (!f)
		return 0;
	const struct stk_ev_meta *m = stk_ev_meta(f);
	*out = (struct stk_ev_recovered){
		.was_whole = true, .rows = m->events, .first = m->events ? m->first : INT64_MAX,
		.start = m->start, .end = m->start + m->duration,
	};
	stk_ev_close(f);
	return 1;
}

/*
 * The checkpoint's keys with the writer's own corrected (rows, first time)
 * and the recovery said, as pairs in kv (pointing into s and nums). The
 * number of pairs.
 */
static size_t corrected(const struct stk_pq_salvage *s, const struct stk_ev_recovered *r, const char **kv,
			char nums[3][160])
{
	size_t n = 0;

	for (size_t i = 0; i < s->n_kv; i++) {
		const char *key = s->kv[2 * i];

		if (strcmp(key, STK_EV_META_EVENTS) && strcmp(key, STK_EV_META_FIRST) &&
		    strcmp(key, STK_EV_META_RECOVERED)) {
			kv[2 * n] = key;
			kv[2 * n++ + 1] = s->kv[2 * i + 1];
		}
	}
	snprintf(nums[0], sizeof(nums[0]), "%" PRIu64, r->rows);
	kv[2 * n] = STK_EV_META_EVENTS;
	kv[2 * n++ + 1] = nums[0];
	if (r->rows) {
		snprintf(nums[1], sizeof(nums[1]), "%" PRId64, r->first);
		kv[2 * n] = STK_EV_META_FIRST;
		kv[2 * n++ + 1] = nums[1];
	}
	snprintf(nums[2], sizeof(nums[2]), "%zu row groups kept, %" PRId64 " bytes after the last checkpoint cut",
		 r->groups, r->dropped);
	kv[2 * n] = STK_EV_META_RECOVERED;
	kv[2 * n++ + 1] = nums[2];
	return n;
}

int stk_ev_recover(int fd, struct stk_ev_recovered *out, char *err, size_t err_len)
{
	struct stk_pq_salvage s;
	char nums[3][160];
	const char **kv;
	size_t n;
	int ret = -1;

	if (whole(fd, out))
		return 0;
	if (stk_pq_salvage_read(fd, stk_ev_columns, STK_EV_COLS, &s, err, err_len))
		return -1;
	if (!stk_pq_salvage_metadata(&s, STK_EV_META_SCHEMA)) {
		snprintf(err, err_len, "its checkpoints say no %s: not an event log stk was writing",
			 STK_EV_META_SCHEMA);
		stk_pq_salvage_free(&s);
		return -1;
	}
	int64_t start = meta_i64(&s, STK_EV_META_START, 0);
	*out = (struct stk_ev_recovered){
		.rows = (uint64_t)s.rows, .groups = s.n_groups, .dropped = s.size - s.end,
		.first = s.rows && s.has_range[STK_EV_TIME] ? s.min[STK_EV_TIME] : INT64_MAX,
		.start = start, .end = start + meta_i64(&s, STK_EV_META_DURATION, 0),
	};
	if (!(kv = calloc(2 * (s.n_kv + 3), sizeof(*kv)))) {
		snprintf(err, err_len, "out of memory");
	} else {
		n = corrected(&s, out, kv, nums);
		ret = stk_pq_salvage_write(fd, &s, stk_ev_columns, STK_EV_COLS, kv, n, err, err_len);
	}
	free(kv);
	stk_pq_salvage_free(&s);
	/* what was written must read as any recording does */
	if (ret == 0 && !whole(fd, &(struct stk_ev_recovered){ 0 })) {
		snprintf(err, err_len, "the file made whole does not read back as an event log");
		ret = -1;
	}
	return ret;
}
