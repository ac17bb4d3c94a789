/* pprof: a gzipped perftools.profiles.Profile (profile.proto) encoded by hand.
 * Strings are numbered by a string pool; mappings, functions and locations
 * are deduplicated through hash indexes keyed by up to five integers. A report of several
 * value types (stk resources) has a sample type each, and stacks with the
 * same locations and labels become one sample carrying a value per type. */
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"
#include "core/base/gzip.h"
#include "core/base/key_index.h"
#include "core/base/string_pool.h"
#include "core/output/output_formats.h"
#include "core/output/output_internal.h"

/* profile.proto field numbers */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10, PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3,
	LABEL_KEY = 1, LABEL_STR = 2, LABEL_NUM = 3,
	MAPPING_ID = 1, MAPPING_MEMORY_START = 2, MAPPING_MEMORY_LIMIT = 3, MAPPING_FILE_OFFSET = 4,
	MAPPING_FILENAME = 5, MAPPING_BUILD_ID = 6, MAPPING_HAS_FUNCTIONS = 7,
	LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1, LINE_LINE = 2,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4,
};

#define KERNEL_FILENAME "[kernel.kallsyms]"

struct key {
	uint64_t k[5];
};

/* Keys numbered 1..n in the order first seen. */
struct keytab {
	struct key *keys;
	size_t n, cap;
	struct stk_key_index index;
};

/* A sample of a report with several value types, kept until every stack is seen. */
struct typed_sample {
	uint8_t *ids; /* packed location ids */
	size_t ids_len;
	char *comm;
	uint32_t pid, tid;
	uint64_t *values; /* one per value type */
};

struct typed_samples {
	struct typed_sample *v;
	size_t n, cap;
	struct stk_key_index index;
	size_t n_types;
};

struct pprof {
	struct stk_string_pool *strings; /* the string table */
	struct typed_samples typed;
	struct keytab mappings, functions, locations;
	struct stk_buf mapping_msgs, function_msgs, location_msgs, sample_msgs;
	struct stk_buf msg, sub, ids; /* scratch */
	uint64_t kernel_mapping, kernel_lo, kernel_hi;
	/* per mapping id - 1: some location in it has no name from a symbol table, so
	 * HasFunctions stays false and pprof re-symbolizes it (PPROF_BINARY_PATH) */
	bool *unnamed;
	size_t unnamed_cap;
	bool oom;
};

/* The id of k (1-based); *added tells whether it is new. 0 on allocation failure. */
static uint64_t keytab_id(struct keytab *t, const struct key *k, bool *added)
{
	int64_t known = stk_key_index_find(&t->index, t->keys, k);

	*added = false;
	if (known >= 0)
		return (uint64_t)known + 1;
	if (stk_grow((void **)&t->keys, &t->cap, t->n + 1, sizeof(*t->keys)))
		return 0;
	t->keys[t->n] = *k;
	if (stk_key_index_add(&t->index, t->keys, t->n + 1))
		return 0;
	*added = true;
	return ++t->n;
}

/* The string table index of s; -1 on allocation failure. */
static int64_t str_id(struct pprof *pp, const char *s)
{
	uint32_t id = stk_string_pool_id(pp->strings, s, strlen(s));

	if (id != STK_STRING_NONE)
		return id;
	pp->oom = true;
	return -1;
}

static uint64_t mapping_id(struct pprof *pp, const struct stk_frame *f)
{
	const char *file = f->module ? f->module : "";
	const char *build_id = f->build_id ? f->build_id : "";
	struct key k = { { (uint64_t)str_id(pp, file), f->map_start, f->map_end, f->map_offset,
			   (uint64_t)str_id(pp, build_id) } };
	bool added;
	uint64_t id = keytab_id(&pp->mappings, &k, &added);

	if (!id || stk_grow((void **)&pp->unnamed, &pp->unnamed_cap, id, sizeof(*pp->unnamed))) {
		pp->oom = true;
		return 0;
	}
	if (added)
		pp->unnamed[id - 1] = false;
	if (!f->symbol || f->synthetic)
		pp->unnamed[id - 1] = true;
	return id;
}

/* The mapping of the executable with the most weight: pprof calls mapping 1 the main binary. */
static void add_main_mapping(struct pprof *pp, const struct stk_report *r)
{
	/* a few candidates are plenty: -p names one process, a whole-host capture has its heavy ones */
	enum { MAX_EXES = 32 };
	const struct stk_frame *exes[MAX_EXES];
	uint64_t weight[MAX_EXES];
	size_t n = 0, best = 0;

	for (size_t i = 0; i < r->n_stacks; i++) {
		const struct stk_stack *s = &r->stacks[i];
		size_t e;

		for (size_t j = 0; j < s->n_user; j++) {
			const struct stk_frame *f = &s->user[j];

			if (!f->main_exe || !f->module)
				continue;
			for (e = 0; e < n && strcmp(exes[e]->module, f->module); e++)
				;
			if (e == n && n < MAX_EXES) {
				exes[n] = f;
				weight[n++] = 0;
			}
			if (e < n)
				weight[e] += s->value;
			break;
		}
	}
	if (!n)
		return;
	for (size_t e = 1; e < n; e++)
		if (weight[e] > weight[best])
			best = e;
	mapping_id(pp, exes[best]);
}

/* The one mapping every kernel frame (vmlinux and modules) points at. */
static void add_kernel_mapping(struct pprof *pp, const struct stk_report *r)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	struct key k = { { 0, 0, 0, 0, UINT64_MAX } }; /* UINT64_MAX: no user mapping has this key */
	bool added;

	for (size_t i = 0; i < r->n_stacks; i++) {
		for (size_t j = 0; j < r->stacks[i].n_kernel; j++) {
			uint64_t a = r->stacks[i].kernel[j].address;

			lo = a < lo ? a : lo;
			hi = a > hi ? a : hi;
		}
	}
	if (lo > hi)
		return; /* no kernel frames */
	k.k[0] = (uint64_t)str_id(pp, KERNEL_FILENAME);
	pp->kernel_mapping = keytab_id(&pp->mappings, &k, &added);
	if (!pp->kernel_mapping ||
	    stk_grow((void **)&pp->unnamed, &pp->unnamed_cap, pp->kernel_mapping, sizeof(*pp->unnamed))) {
		pp->oom = true;
		pp->kernel_mapping = 0;
		return;
	}
	pp->unnamed[pp->kernel_mapping - 1] = false;
	pp->kernel_lo = lo;
	pp->kernel_hi = hi == UINT64_MAX ? hi : hi + 1;
}

/* Every mapping's message, in id order, once all locations are known. */
static void emit_mappings(struct pprof *pp)
{
	for (size_t i = 0; i < pp->mappings.n; i++) {
		const struct key *k = &pp->mappings.keys[i];
		uint64_t id = i + 1;

		pp->msg.len = 0;
		stk_pb_uint(&pp->msg, MAPPING_ID, id);
		if (id == pp->kernel_mapping) {
			stk_pb_uint(&pp->msg, MAPPING_MEMORY_START, pp->kernel_lo);
			stk_pb_uint(&pp->msg, MAPPING_MEMORY_LIMIT, pp->kernel_hi);
			stk_pb_int(&pp->msg, MAPPING_FILENAME, (int64_t)k->k[0]);
		} else {
			stk_pb_uint(&pp->msg, MAPPING_MEMORY_START, k->k[1]);
			stk_pb_uint(&pp->msg, MAPPING_MEMORY_LIMIT, k->k[2]);
			stk_pb_uint(&pp->msg, MAPPING_FILE_OFFSET, k->k[3]);
			stk_pb_int(&pp->msg, MAPPING_FILENAME, (int64_t)k->k[0]);
			stk_pb_int(&pp->msg, MAPPING_BUILD_ID, (int64_t)k->k[4]);
		}
		if (!pp->unnamed[i])
			stk_pb_uint(&pp->msg, MAPPING_HAS_FUNCTIONS, 1);
		stk_pb_sub(&pp->mapping_msgs, PROFILE_MAPPING, &pp->msg);
	}
}

static uint64_t function_id(struct pprof *pp, const char *name, const char *filename)
{
	struct key k = { { (uint64_t)str_id(pp, name), (uint64_t)str_id(pp, filename), 0, 0, 0 } };
	bool added;
	uint64_t id = keytab_id(&pp->functions, &k, &added);

	if (!id)
		pp->oom = true;
	if (!added)
		return id;
	pp->msg.len = 0;
	stk_pb_uint(&pp->msg, FUNCTION_ID, id);
	stk_pb_int(&pp->msg, FUNCTION_NAME, (int64_t)k.k[0]);
	stk_pb_int(&pp->msg, FUNCTION_SYSTEM_NAME, (int64_t)k.k[0]);
	stk_pb_int(&pp->msg, FUNCTION_FILENAME, (int64_t)k.k[1]);
	stk_pb_sub(&pp->function_msgs, PROFILE_FUNCTION, &pp->msg);
	return id;
}

/* A location for (mapping, address, function); function 0 means no Line. Frames with
 * inlined functions carry one Line each, innermost first, the function they were
 * inlined into last (pprof's order). */
static uint64_t location_id(struct pprof *pp, uint64_t mapping, uint64_t address, uint64_t function,
			    const struct stk_frame *f)
{
	struct key k = { { mapping, address, function, f ? f->n_inlined : 0, 0 } };
	const char *module = f && f->module ? f->module : "";
	uint64_t inline_ids[64];
	size_t n_inline = f && f->n_inlined < 64 ? f->n_inlined : f ? 64 : 0;
	bool added;
	uint64_t id;

	/* function ids first: msg and sub are reused by the function table */
	for (size_t i = 0; i < n_inline; i++)
		inline_ids[i] = function_id(pp, f->inlined[i].symbol, f->inlined[i].file ? f->inlined[i].file : module);
	id = keytab_id(&pp->locations, &k, &added);
	if (!id)
		pp->oom = true;
	if (!added)
		return id;
	pp->msg.len = 0;
	stk_pb_uint(&pp->msg, LOCATION_ID, id);
	stk_pb_uint(&pp->msg, LOCATION_MAPPING_ID, mapping);
	stk_pb_uint(&pp->msg, LOCATION_ADDRESS, address);
	for (size_t i = 0; i < n_inline; i++) {
		pp->sub.len = 0;
		stk_pb_uint(&pp->sub, LINE_FUNCTION_ID, inline_ids[i]);
		stk_pb_int(&pp->sub, LINE_LINE, f->inlined[i].line);
		stk_pb_sub(&pp->msg, LOCATION_LINE, &pp->sub);
	}
	if (function) {
		pp->sub.len = 0;
		stk_pb_uint(&pp->sub, LINE_FUNCTION_ID, function);
		if (f)
			stk_pb_int(&pp->sub, LINE_LINE, f->line);
		stk_pb_sub(&pp->msg, LOCATION_LINE, &pp->sub);
	}
	stk_pb_sub(&pp->location_msgs, PROFILE_LOCATION, &pp->msg);
	return id;
}

static uint64_t frame_location(struct pprof *pp, const struct stk_frame *f)
{
	uint64_t mapping = f->kernel ? pp->kernel_mapping : mapping_id(pp, f);
	const char *file = f->module ? f->module : f->kernel ? KERNEL_FILENAME : "";
	uint64_t function = f->symbol ? function_id(pp, f->symbol, f->file ? f->file : file) : 0;

	return location_id(pp, mapping, f->address, function, f);
}

static uint64_t missed_location(struct pprof *pp, const char *what)
{
	return location_id(pp, 0, 0, function_id(pp, what, ""), NULL);
}

static void add_label(struct pprof *pp, const char *key, const char *str, int64_t num)
{
	pp->sub.len = 0;
	stk_pb_int(&pp->sub, LABEL_KEY, str_id(pp, key));
	if (str)
		stk_pb_int(&pp->sub, LABEL_STR, str_id(pp, str));
	else
		stk_pb_int(&pp->sub, LABEL_NUM, num);
	stk_pb_sub(&pp->msg, SAMPLE_LABEL, &pp->sub);
}

/* A typed sample's key: its locations, comm, pid and tid, each part hashed and folded in. */
static uint64_t typed_hash(const uint8_t *ids, size_t ids_len, const char *comm, uint32_t pid, uint32_t tid)
{
	uint64_t h = stk_hash_bytes(ids, ids_len);

	h = stk_hash_u64(h ^ stk_hash_bytes(comm, strlen(comm)));
	return stk_hash_u64(h ^ ((uint64_t)pid << 32 | tid));
}

static uint64_t typed_entry_hash(const void *ctx, size_t i)
{
	const struct typed_sample *e = &((const struct typed_samples *)ctx)->v[i];

	return typed_hash(e->ids, e->ids_len, e->comm, e->pid, e->tid);
}

/* Adds value as type to the sample with these locations (pp->ids) and labels, made when new. */
static void add_typed(struct pprof *pp, const char *comm, uint32_t pid, uint32_t tid, uint32_t type, uint64_t value)
{
	struct typed_samples *t = &pp->typed;
	struct typed_sample *e;
	struct stk_key_probe probe;

	for (int64_t i = stk_key_index_first(&t->index, typed_hash(pp->ids.data, pp->ids.len, comm, pid, tid), &probe);
	     i >= 0; i = stk_key_index_next(&t->index, &probe)) {
		e = &t->v[i];
		if (e->pid == pid && e->tid == tid && e->ids_len == pp->ids.len && strcmp(e->comm, comm) == 0 &&
		    (!e->ids_len || memcmp(e->ids, pp->ids.data, e->ids_len) == 0)) {
			e->values[type] += value;
			return;
		}
	}
	if (stk_grow((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v)))
		goto oom;
	e = &t->v[t->n];
	*e = (struct typed_sample){ .pid = pid, .tid = tid, .ids_len = pp->ids.len };
	e->comm = strdup(comm);
	e->values = calloc(t->n_types, sizeof(*e->values));
	e->ids = malloc(pp->ids.len ? pp->ids.len : 1);
	if (!e->comm || !e->values || !e->ids) {
		free(e->comm);
		free(e->values);
		free(e->ids);
		goto oom;
	}
	if (pp->ids.len)
		memcpy(e->ids, pp->ids.data, pp->ids.len);
	e->values[type] = value;
	if (stk_key_index_put(&t->index, &probe, t->n + 1, typed_entry_hash, t)) {
		free(e->comm);
		free(e->values);
		free(e->ids);
		goto oom;
	}
	t->n++;
	return;
oom:
	pp->oom = true;
}

static void put_labels(struct pprof *pp, const char *comm, uint32_t pid, uint32_t tid)
{
	add_label(pp, "comm", comm, 0);
	add_label(pp, "pid", NULL, pid);
	add_label(pp, "tid", NULL, tid);
}

/* The typed samples' messages, in the order their stacks first came. */
static void emit_typed(struct pprof *pp)
{
	for (size_t i = 0; i < pp->typed.n; i++) {
		const struct typed_sample *e = &pp->typed.v[i];

		pp->msg.len = 0;
		pp->ids.len = 0;
		stk_buf_put(&pp->ids, e->ids, e->ids_len);
		stk_pb_sub(&pp->msg, SAMPLE_LOCATION_ID, &pp->ids); /* packed */
		pp->sub.len = 0;
		for (size_t k = 0; k < pp->typed.n_types; k++)
			stk_buf_uleb(&pp->sub, e->values[k]);
		stk_pb_sub(&pp->msg, SAMPLE_VALUE, &pp->sub); /* packed */
		put_labels(pp, e->comm, e->pid, e->tid);
		stk_pb_sub(&pp->sample_msgs, PROFILE_SAMPLE, &pp->msg);
	}
}

static void add_sample(struct pprof *pp, const struct stk_stack *s, bool diff)
{
	struct stk_buf comm = { 0 };
	/* a difference: the value less its base, as int64 (pprof's values are signed; -diff_base makes the same) */
	uint64_t value = diff ? s->value - s->base : s->value;

	/* location ids first, as msg is reused by the location tables */
	pp->ids.len = 0;
	if (s->kernel_missing)
		stk_buf_uleb(&pp->ids, missed_location(pp, STK_MISSED_KERNEL));
	for (size_t i = 0; i < s->n_kernel && !s->kernel_missing; i++)
		stk_buf_uleb(&pp->ids, frame_location(pp, &s->kernel[i]));
	if (s->user_missing)
		stk_buf_uleb(&pp->ids, missed_location(pp, STK_MISSED_USER));
	for (size_t i = 0; i < s->n_user && !s->user_missing; i++)
		stk_buf_uleb(&pp->ids, frame_location(pp, &s->user[i]));

	stk_put_comm(&comm, s);
	if (comm.oom)
		pp->oom = true;
	if (pp->typed.n_types > 1) {
		add_typed(pp, stk_buf_str(&comm), s->pid, s->tid, s->type < pp->typed.n_types ? s->type : 0, value);
		stk_buf_free(&comm);
		return;
	}
	pp->msg.len = 0;
	stk_pb_sub(&pp->msg, SAMPLE_LOCATION_ID, &pp->ids); /* packed */
	pp->sub.len = 0;
	stk_buf_uleb(&pp->sub, value);
	stk_pb_sub(&pp->msg, SAMPLE_VALUE, &pp->sub); /* packed */
	put_labels(pp, stk_buf_str(&comm), s->pid, s->tid);
	if (s->span)
		add_label(pp, "span", s->span, 0);
	stk_buf_free(&comm);
	stk_pb_sub(&pp->sample_msgs, PROFILE_SAMPLE, &pp->msg);
}

static void add_value_type(struct pprof *pp, struct stk_buf *out, uint32_t field, const char *type,
			   const char *unit)
{
	struct stk_buf vt = { 0 };

	stk_pb_int(&vt, VALUE_TYPE_TYPE, str_id(pp, type));
	stk_pb_int(&vt, VALUE_TYPE_UNIT, str_id(pp, unit));
	stk_pb_sub(out, field, &vt);
	stk_buf_free(&vt);
}

static void pprof_free(struct pprof *pp)
{
	stk_string_pool_free(pp->strings);
	free(pp->unnamed);
	for (size_t i = 0; i < pp->typed.n; i++) {
		free(pp->typed.v[i].ids);
		free(pp->typed.v[i].comm);
		free(pp->typed.v[i].values);
	}
	free(pp->typed.v);
	stk_key_index_free(&pp->typed.index);
	struct keytab *tabs[] = { &pp->mappings, &pp->functions, &pp->locations };
	for (size_t i = 0; i < sizeof(tabs) / sizeof(tabs[0]); i++) {
		free(tabs[i]->keys);
		stk_key_index_free(&tabs[i]->index);
	}
	struct stk_buf *pbs[] = { &pp->mapping_msgs, &pp->function_msgs, &pp->location_msgs,
				 &pp->sample_msgs, &pp->msg, &pp->sub, &pp->ids };
	for (size_t i = 0; i < sizeof(pbs) / sizeof(pbs[0]); i++)
		stk_buf_free(pbs[i]);
}

static bool any_oom(const struct pprof *pp, const struct stk_buf *profile)
{
	return pp->oom || profile->oom || pp->mapping_msgs.oom || pp->function_msgs.oom ||
	       pp->location_msgs.oom || pp->sample_msgs.oom || pp->msg.oom || pp->sub.oom || pp->ids.oom;
}

int stk_output_pprof(FILE *out, const struct stk_report *r, const struct stk_output_opts *o)
{
	struct pprof pp = { 0 };
	struct stk_buf profile = { 0 }, gz = { 0 };
	struct stk_deflater z;
	int ret = -1;

	(void)o;
	struct keytab *tabs[] = { &pp.mappings, &pp.functions, &pp.locations };
	for (size_t i = 0; i < sizeof(tabs) / sizeof(tabs[0]); i++)
		tabs[i]->index = (struct stk_key_index){ .key_size = sizeof(struct key), .stride = sizeof(struct key) };
	if (!(pp.strings = stk_string_pool_new()))
		return -1;
	str_id(&pp, ""); /* string_table[0] must be "" */
	pp.typed.n_types = stk_report_n_types(r);
	for (uint32_t k = 0; k < pp.typed.n_types; k++) {
		struct stk_value_type vt = stk_report_type(r, k);

		add_value_type(&pp, &profile, PROFILE_SAMPLE_TYPE, vt.type, vt.unit);
	}
	add_main_mapping(&pp, r);
	add_kernel_mapping(&pp, r);
	for (size_t i = 0; i < r->n_stacks; i++)
		add_sample(&pp, &r->stacks[i], r->diff);
	emit_typed(&pp);
	emit_mappings(&pp);
	if (r->period_type) {
		add_value_type(&pp, &profile, PROFILE_PERIOD_TYPE, r->period_type,
			       r->period_unit ? r->period_unit : "");
		stk_pb_int(&profile, PROFILE_PERIOD, r->period);
	}
	stk_pb_int(&profile, PROFILE_TIME_NANOS, r->time_nanos);
	stk_pb_int(&profile, PROFILE_DURATION_NANOS, r->duration_nanos);
	/* the tables' messages are already framed: append them as they are */
	stk_buf_put(&profile, pp.sample_msgs.data, pp.sample_msgs.len);
	stk_buf_put(&profile, pp.mapping_msgs.data, pp.mapping_msgs.len);
	stk_buf_put(&profile, pp.location_msgs.data, pp.location_msgs.len);
	stk_buf_put(&profile, pp.function_msgs.data, pp.function_msgs.len);
	for (size_t i = 0; i < stk_string_pool_count(pp.strings); i++)
		stk_pb_string(&profile, PROFILE_STRING_TABLE, stk_string_pool_strings(pp.strings)[i]);
	if (!any_oom(&pp, &profile) && stk_deflater_init(&z, Z_DEFAULT_COMPRESSION) == 0) {
		if (stk_gzip(&z, &gz, profile.data, profile.len) == 0 && stk_write_all(out, gz.data, gz.len) == 0)
			ret = stk_finish_stream(out);
		stk_deflater_end(&z);
	}
	stk_buf_free(&gz);
	stk_buf_free(&profile);
	pprof_free(&pp);
	return ret;
}
