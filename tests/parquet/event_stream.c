#include "tests/parquet/event_stream.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parquet/parquet_writer.h"

const struct stk_pq_column stk_event_columns[EV_COLUMNS] = {
	[EV_TIME] = { "time", STK_PQ_TIMESTAMP_NS, false, false },
	[EV_PID] = { "pid", STK_PQ_INT32, false, false },
	[EV_TID] = { "tid", STK_PQ_INT32, false, false },
	[EV_COMM] = { "comm", STK_PQ_STRING, false, false },
	[EV_CPU] = { "cpu", STK_PQ_INT32, false, false },
	[EV_EVENT] = { "event", STK_PQ_STRING, false, false },
	[EV_WEIGHT] = { "weight", STK_PQ_INT64, false, false },
	[EV_UNIT] = { "unit", STK_PQ_STRING, false, false },
	[EV_STACK] = { "stack", STK_PQ_STRING, false, false },
	[EV_SPAN] = { "span", STK_PQ_STRING, true, false },
};

/* xorshift64*: fast, and the same numbers everywhere */
static uint64_t next_u64(struct event_stream *s)
{
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return s->rng * 0x2545f4914f6cdd1dULL;
}

/* uniform in (0, 1] */
static double next_unit(struct event_stream *s)
{
	return ((double)(next_u64(s) >> 11) + 1) / 9007199254740992.0;
}

static char *make_stack(struct event_stream *s, size_t id, size_t *len)
{
	size_t want = 200 + next_u64(s) % 1801, n = 0;
	char *text = malloc(want + 64);

	if (!text)
		return NULL;
	/* frames like a symbolized stack: root first, distinct per stack */
	n += (size_t)sprintf(text, "[unknown];__libc_start_main;main");
	for (unsigned f = 0; n < want; f++)
		n += (size_t)sprintf(text + n, ";mod%zu::fn_%u_%llx", id % 7, f,
				     (unsigned long long)(next_u64(s) & 0xffffff));
	*len = n;
	return text;
}

int event_stream_init(struct event_stream *s, uint64_t seed)
{
	*s = (struct event_stream){ .rng = seed * 0x9e3779b97f4a7c15ULL | 1, .now = 1767225600LL * 1000000000LL };
	for (size_t i = 0; i < EV_STACKS; i++)
		if (!(s->stack_text[i] = make_stack(s, i, &s->stack_len[i]))) {
			event_stream_free(s);
			return -1;
		}
	for (size_t p = 0; p < EV_THREADS / 10; p++)
		snprintf(s->comm[p], sizeof(s->comm[p]), "worker-%zu", p);
	for (size_t i = 0; i < EV_SPANS; i++)
		snprintf(s->span[i], sizeof(s->span[i]), "span-%016llx", (unsigned long long)next_u64(s));
	return 0;
}

void event_stream_free(struct event_stream *s)
{
	for (size_t i = 0; i < EV_STACKS; i++)
		free(s->stack_text[i]);
	memset(s->stack_text, 0, sizeof(s->stack_text));
}

void event_stream_next(struct event_stream *s, struct event *e)
{
	uint16_t thread = (uint16_t)(next_u64(s) % EV_THREADS);
	double u = next_unit(s);

	/* gaps: exponential, 100 us on average (10,000 events a second) */
	s->now += 1 + (int64_t)(-log(next_unit(s)) * 100000.0);
	/* a thread stays on its CPU 9 times in 10 */
	if (next_u64(s) % 10 == 0)
		s->last_cpu[thread] = (int32_t)(next_u64(s) % 8);
	*e = (struct event){
		.time = s->now,
		.weight = (int64_t)(1000.0 * pow(1e5, next_unit(s))),
		.thread = thread,
		.tid = 4000 + thread * 3,
		.pid = 4000 + (thread / 10) * 30,
		.cpu = s->last_cpu[thread],
		/* popular stacks first: a cube skews toward low ids */
		.stack = (uint16_t)((size_t)(u * u * u * EV_STACKS) % EV_STACKS),
		.span = next_u64(s) % 20 == 0 ? (int16_t)(next_u64(s) % EV_SPANS) : -1,
	};
}

int event_write(struct stk_pq_writer *w, const struct event_stream *s, const struct event *e, bool hash_stacks)
{
	static const char offcpu[] = "offcpu", ns[] = "ns";
	const char *comm = s->comm[e->thread / 10];

	stk_pq_set_int64(w, EV_TIME, e->time);
	stk_pq_set_int32(w, EV_PID, e->pid);
	stk_pq_set_int32(w, EV_TID, e->tid);
	stk_pq_set_string_keyed(w, EV_COMM, (uint64_t)(e->thread / 10), comm, strlen(comm));
	stk_pq_set_int32(w, EV_CPU, e->cpu);
	stk_pq_set_string_keyed(w, EV_EVENT, 0, offcpu, sizeof(offcpu) - 1);
	stk_pq_set_int64(w, EV_WEIGHT, e->weight);
	stk_pq_set_string_keyed(w, EV_UNIT, 0, ns, sizeof(ns) - 1);
	if (hash_stacks)
		stk_pq_set_string(w, EV_STACK, s->stack_text[e->stack], s->stack_len[e->stack]);
	else
		stk_pq_set_string_keyed(w, EV_STACK, e->stack, s->stack_text[e->stack], s->stack_len[e->stack]);
	if (e->span >= 0)
		stk_pq_set_string(w, EV_SPAN, s->span[e->span], strlen(s->span[e->span]));
	return stk_pq_end_row(w);
}
