#include "core/session/capture.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <unistd.h>

#include "core/bpf/btf_embedded.h"
#include "core/btf/btf_source.h"
#include "core/base/caps.h"
#include "core/base/grow.h"
#include "core/base/log.h"
#include "core/bpf/libbpf_log.h"
#include "core/session/stack_resolve.h"
#include "core/sym/symbolize.h"

int stk_capture_prepare(const char *applet, int verbose, const char *btf_file, struct stk_btf_source *btf)
{
	struct stk_caps caps;

	if (stk_caps_read_self(&caps) || !stk_caps_can_trace(&caps)) {
		stk_error(applet, "needs root (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN); running as "
				  "uid %d without them", (int)geteuid());
		return -1;
	}
	stk_libbpf_set_verbose(verbose);
	if (stk_btf_resolve_here(btf_file, btf)) {
		stk_error(applet, "--btf %s: file not readable", btf_file);
		return -1;
	}
	return 0;
}

int stk_open_outputs(const char *applet, const char *const *paths, size_t n, FILE **files)
{
	for (size_t i = 0; i < n; i++) {
		files[i] = fopen(paths[i], "we");
		if (!files[i]) {
			stk_error(applet, "-o %s: %s", paths[i], strerror(errno));
			return -1;
		}
	}
	return 0;
}

struct stk_symbolizer *stk_symbolizer_for(const char *applet, const struct stk_stack_opts *o, const uint32_t *pids,
					  size_t n_pids)
{
	struct stk_symbolizer_opts so = { .demangle = o->no_args ? STK_DEMANGLE_NO_ARGS : STK_DEMANGLE_FULL,
					  .debuginfod = !o->no_debuginfod, .verbose = o->verbose };
	struct stk_symbolizer *sym = stk_symbolizer_new(&so);

	if (!sym) {
		stk_error(applet, "cannot set up the symbolizer");
		return NULL;
	}
	for (size_t i = 0; i < n_pids; i++)
		stk_symbolizer_add_process(sym, (pid_t)pids[i]);
	return sym;
}

uint64_t stk_percpu_sum(const struct bpf_map *map, uint32_t slot)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *vals, total = 0;

	if (ncpu <= 0 || !(vals = calloc((size_t)ncpu, sizeof(*vals))))
		return 0;
	if (bpf_map__lookup_elem(map, &slot, sizeof(slot), vals, (size_t)ncpu * sizeof(*vals), 0) == 0)
		for (int i = 0; i < ncpu; i++)
			total += vals[i];
	free(vals);
	return total;
}

int64_t stk_now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int stk_percpu_counts_each(int map_fd, size_t key_size, stk_percpu_count_fn fn, void *ctx)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *percpu = ncpu > 0 ? calloc((size_t)ncpu, sizeof(*percpu)) : NULL;
	unsigned char *keys = calloc(2, key_size); /* the current key, then the next */
	void *key = keys, *next = keys + key_size;
	bool first = true;
	int ret = 0;

	if (!percpu || !keys) {
		free(percpu);
		free(keys);
		return -1;
	}
	while (ret == 0 && bpf_map_get_next_key(map_fd, first ? NULL : key, next) == 0) {
		uint64_t total = 0;

		memcpy(key, next, key_size);
		first = false;
		if (bpf_map_lookup_elem(map_fd, key, percpu))
			continue;
		for (int i = 0; i < ncpu; i++)
			total += percpu[i];
		if (total)
			ret = fn(ctx, key, total);
	}
	free(percpu);
	free(keys);
	return ret;
}

struct stk_stack *stk_stack_list_add(struct stk_stack_list *l)
{
	if (stk_grow((void **)&l->stacks, &l->cap, l->n + 1, sizeof(*l->stacks)))
		return NULL;
	memset(&l->stacks[l->n], 0, sizeof(l->stacks[0]));
	return &l->stacks[l->n++];
}

struct stk_stack *stk_stack_list_add_key(struct stk_stack_list *l, const struct stk_counted_key *key,
					 int stack_map_fd, struct stk_symbolizer *sym, uint32_t max_depth,
					 bool user_only, bool kernel_only)
{
	struct stk_stack *st = stk_stack_list_add(l);

	if (!st)
		return NULL;
	st->pid = key->tgid;
	st->tid = key->tid;
	memcpy(st->comm, key->comm, sizeof(st->comm));
	st->comm[sizeof(st->comm) - 1] = '\0';
	st->value = key->value;
	if (!user_only) {
		st->kernel = stk_resolve_stack(stack_map_fd, key->kernel_stack_id, max_depth, true, 0, sym,
					       &st->n_kernel);
		st->kernel_missing = stk_stack_id_missing(key->kernel_stack_id);
	}
	if (!kernel_only && key->tgid) {
		st->user = stk_resolve_stack(stack_map_fd, key->user_stack_id, max_depth, false, (pid_t)key->tgid,
					     sym, &st->n_user);
		st->user_missing = stk_stack_id_missing(key->user_stack_id);
	}
	return st;
}

void stk_stack_list_free(struct stk_stack_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free((void *)l->stacks[i].kernel);
		free((void *)l->stacks[i].user);
	}
	free(l->stacks);
	l->stacks = NULL;
	l->n = l->cap = 0;
}

void stk_report_losses(const struct stk_losses *l)
{
	if (l->collisions)
		fprintf(stderr, "WARNING: %llu stack traces lost to stack map hash collisions; "
			"raise --stack-storage-size (now %llu)\n", (unsigned long long)l->collisions,
			(unsigned long long)l->stack_storage_size);
	if (l->stack_map_full)
		fprintf(stderr, "WARNING: %llu stack traces lost because the stack map was full; "
			"raise --stack-storage-size (now %llu)\n", (unsigned long long)l->stack_map_full,
			(unsigned long long)l->stack_storage_size);
	if (l->counts_full)
		fprintf(stderr, "WARNING: %llu %s lost because the count map (%u unique stacks) was full\n",
			(unsigned long long)l->counts_full, l->unit, l->counts_size);
	if (l->new_process_lost)
		fprintf(stderr, "WARNING: %llu new-process notifications lost; short-lived processes may "
			"show [unknown] frames\n", (unsigned long long)l->new_process_lost);
}

void stk_print_symbolizer_stats(const char *applet, const struct stk_symbolizer *sym)
{
	struct stk_symbolizer_stats st;

	stk_symbolizer_get_stats(sym, &st);
	fprintf(stderr, "%s: symbolizer: %u processes (%u could not be read%s%s), %u files parsed, %u failed\n",
		applet, st.processes, st.processes_failed, st.last_failure[0] ? ", last: " : "",
		st.last_failure, st.files_parsed, st.files_failed);
}

int stk_write_outputs(const char *applet, FILE *const *files, const char *const *paths,
		      const enum stk_format *formats, size_t n, const struct stk_report *report,
		      const struct stk_output_opts *opts)
{
	struct stk_output_opts o = *opts;
	int ret = 0;

	for (size_t i = 0; i < (n ? n : 1); i++) {
		FILE *out = n ? files[i] : stdout;
		if (n)
			o.format = formats[i];
		if (stk_output_write(out, report, &o) || fflush(out)) {
			stk_error(applet, "writing %s failed: %s", n ? paths[i] : "the results", strerror(errno));
			ret = -1;
		}
	}
	return ret;
}
