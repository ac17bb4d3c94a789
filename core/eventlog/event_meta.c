/* A recording's footer as its description, and several as one: see event_meta.h. */
#include "core/eventlog/event_meta.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/eventlog/event_schema.h"

static int parse_i64(const char *s, int64_t *v)
{
	char *end;

	if (!s || !*s)
		return -1;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return errno || *end ? -1 : 0;
}

/* The next tab-separated field of a stk.kinds line (cut in place at *p), or NULL when the line ended. */
static char *next_field(char **p)
{
	char *s = *p, *end;

	if (!s)
		return NULL;
	end = strchr(s, '\t');
	if (end)
		*end++ = '\0';
	*p = end;
	return s;
}

/* stk.kinds, when the recording has several kinds (event_schema.h), into the meta: 0, or -1 with err. */
static int read_kinds(const struct stk_pq_reader *r, struct stk_ev_meta *m, char **kinds_text, char *err,
		      size_t err_len)
{
	const char *text = stk_pq_reader_metadata(r, STK_EV_META_KINDS);
	char *line, *save = NULL;

	if (!text)
		return 0;
	if (!(*kinds_text = strdup(text))) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	m->n_kinds = 0;
	for (line = strtok_r(*kinds_text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *p = line, *fields[7];
		int64_t divisor, sample_ns, lost;
		size_t n = 0;

		while (n < 7 && (fields[n] = next_field(&p)))
			n++;
		if (n != 7 || p || m->n_kinds == STK_EV_MAX_KINDS || parse_i64(fields[4], &divisor) || divisor < 1 ||
		    parse_i64(fields[5], &sample_ns) || sample_ns < 0 || parse_i64(fields[6], &lost) || lost < 0) {
			snprintf(err, err_len, "not an event log stk wrote: footer metadata %s not valid", STK_EV_META_KINDS);
			return -1;
		}
		m->kinds[m->n_kinds++] = (struct stk_ev_kind){
			.event = fields[0], .unit = fields[1], .value = { fields[2], fields[3] },
			.divisor = (uint64_t)divisor, .sample_ns = sample_ns, .lost = (uint64_t)lost,
		};
	}
	if (!m->n_kinds) {
		snprintf(err, err_len, "not an event log stk wrote: footer metadata %s empty", STK_EV_META_KINDS);
		return -1;
	}
	for (size_t i = 0; i < m->n_kinds; i++)
		m->types[i] = m->kinds[i].value;
	if (m->n_kinds > 1) {
		m->report.types = m->types;
		m->report.n_types = m->n_kinds;
	}
	return 0;
}

int stk_ev_meta_read(const struct stk_pq_reader *r, struct stk_ev_meta *m, char **kinds_text, char *err,
		     size_t err_len)
{
	const char *schema = stk_pq_reader_metadata(r, STK_EV_META_SCHEMA);
	const char *opts = stk_pq_reader_metadata(r, STK_EV_META_OUTPUT);
	int64_t events = 0, lost = 0, per_thread = 0, divisor = 1, period = 0;
	const char *bad = NULL;

	if (!schema || (strcmp(schema, STK_EV_SCHEMA) != 0 && strcmp(schema, STK_EV_SCHEMA_1) != 0)) {
		snprintf(err, err_len, "not an stk event log (footer metadata %s is %s%s%s, want \"%s\")",
			 STK_EV_META_SCHEMA, schema ? "\"" : "missing", schema ? schema : "", schema ? "\"" : "",
			 STK_EV_SCHEMA);
		return -1;
	}
#define META_I64(key, var)                                                  \
	if (parse_i64(stk_pq_reader_metadata(r, key), &(var)) && !bad) \
		bad = key;
	META_I64(STK_EV_META_EVENTS, events);
	META_I64(STK_EV_META_START, m->start);
	META_I64(STK_EV_META_DURATION, m->duration);
	META_I64(STK_EV_META_PER_THREAD, per_thread);
	META_I64(STK_EV_META_DIVISOR, divisor);
	META_I64(STK_EV_META_SAMPLE_NS, m->sample_ns);
	META_I64(STK_EV_META_LOST, lost);
	META_I64(STK_EV_META_PERIOD, period);
#undef META_I64
	if (events > 0 && parse_i64(stk_pq_reader_metadata(r, STK_EV_META_FIRST), &m->first) && !bad)
		bad = STK_EV_META_FIRST;
	m->applet = stk_pq_reader_metadata(r, STK_EV_META_APPLET);
	m->event = stk_pq_reader_metadata(r, STK_EV_META_EVENT);
	if (!bad && (!m->applet || !m->event || !opts))
		bad = !m->applet ? STK_EV_META_APPLET : !m->event ? STK_EV_META_EVENT : STK_EV_META_OUTPUT;
	if (!bad && (events != stk_pq_reader_rows(r) || divisor < 1 || per_thread < 0 || per_thread > 1 ||
		     lost < 0 || m->sample_ns < 0))
		bad = events != stk_pq_reader_rows(r) ? STK_EV_META_EVENTS : "stk.*";
	if (bad) {
		snprintf(err, err_len, "not an event log stk wrote: footer metadata %s missing or not valid", bad);
		return -1;
	}
	m->events = (uint64_t)events;
	m->lost = (uint64_t)lost;
	m->per_thread = per_thread == 1;
	m->divisor = (uint64_t)divisor;
	m->command = stk_pq_reader_metadata(r, STK_EV_META_COMMAND);
	m->report = (struct stk_report){
		.value_type = stk_pq_reader_metadata(r, STK_EV_META_VALUE_TYPE),
		.value_unit = stk_pq_reader_metadata(r, STK_EV_META_VALUE_UNIT),
		.period_type = stk_pq_reader_metadata(r, STK_EV_META_PERIOD_TYPE),
		.period_unit = stk_pq_reader_metadata(r, STK_EV_META_PERIOD_UNIT),
		.period = period,
		.time_nanos = m->start,
		.duration_nanos = m->duration,
		.title = stk_pq_reader_metadata(r, STK_EV_META_TITLE),
	};
	m->opts = (struct stk_output_opts){
		.annotate = strchr(opts, 'a') != NULL, .show_tid = strchr(opts, 't') != NULL,
		.no_task = strchr(opts, 'n') != NULL, .symbol_offsets = strchr(opts, 's') != NULL,
		.delimiter = strchr(opts, 'd') != NULL, .verbose = strchr(opts, 'v') != NULL,
		.lines = strchr(opts, 'l') != NULL,
	};
	m->kinds[0] = (struct stk_ev_kind){
		.event = m->event, .value = { m->report.value_type, m->report.value_unit }, .divisor = m->divisor,
		.sample_ns = m->sample_ns, .lost = m->lost,
	};
	m->n_kinds = 1;
	return read_kinds(r, m, kinds_text, err, err_len);
}


/* kind's index among whole's kinds, added at the end when new; -1 past STK_EV_MAX_KINDS. */
static int kind_index(struct stk_ev_meta *whole, const struct stk_ev_kind *kind)
{
	for (size_t i = 0; i < whole->n_kinds; i++)
		if (strcmp(whole->kinds[i].event, kind->event) == 0)
			return (int)i;
	if (whole->n_kinds == STK_EV_MAX_KINDS)
		return -1;
	whole->kinds[whole->n_kinds] = *kind;
	whole->kinds[whole->n_kinds].lost = 0;
	return (int)whole->n_kinds++;
}

void stk_ev_meta_merge(struct stk_ev_meta *whole, const struct stk_ev_meta *parts, size_t n)
{
	int64_t end = INT64_MIN, first = INT64_MAX;

	*whole = parts[0];
	whole->n_kinds = 0;
	whole->events = whole->lost = 0;
	for (size_t i = 0; i < n; i++) {
		const struct stk_ev_meta *p = &parts[i];

		if (p->start < whole->start)
			whole->start = p->start;
		if (p->start + p->duration > end)
			end = p->start + p->duration;
		if (p->events && p->first < first)
			first = p->first;
		whole->events += p->events;
		whole->lost += p->lost;
		if (strcmp(p->applet, whole->applet) != 0)
			whole->applet = "stk";
		for (size_t k = 0; k < p->n_kinds; k++) {
			int at = kind_index(whole, &p->kinds[k]);

			if (at >= 0)
				whole->kinds[at].lost += p->kinds[k].lost;
		}
	}
	whole->first = first == INT64_MAX ? 0 : first;
	whole->duration = end > whole->start ? end - whole->start : 0;
	whole->report.time_nanos = whole->start;
	whole->report.duration_nanos = whole->duration;
	for (size_t i = 0; i < whole->n_kinds; i++)
		whole->types[i] = whole->kinds[i].value;
	whole->report.types = whole->n_kinds > 1 ? whole->types : NULL;
	whole->report.n_types = whole->n_kinds > 1 ? whole->n_kinds : 0;
	whole->report.value_type = whole->kinds[0].value.type;
	whole->report.value_unit = whole->kinds[0].value.unit;
}
