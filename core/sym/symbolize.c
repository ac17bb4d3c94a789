/*
 * The symbolizer's lifecycle and API (symbolize.h); its state and what each
 * of its files owns: sym_state.h.
 */
#include "core/sym/sym_state.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/base/clock.h"
#include "core/runtime/runtime.h"
#include "core/sym/debuginfod.h"
#include "core/sym/kallsyms.h"




void stk_symbolizer_set_deadline(struct stk_symbolizer *s, long ms_from_now)
{
	s->deadline_ns = ms_from_now > 0 ? stk_now_ns(CLOCK_MONOTONIC) + (int64_t)ms_from_now * 1000000LL : 0;
}

void stk_symbolizer_set_stop(struct stk_symbolizer *s, stk_symbolizer_stop_fn fn, void *ctx)
{
	s->stop_fn = fn;
	s->stop_ctx = ctx;
}

bool stk_symbolizer_stopped(const struct stk_symbolizer *s)
{
	return s->stopped;
}

struct stk_symbolizer *stk_symbolizer_new(const struct stk_symbolizer_opts *opts)
{
	struct stk_symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	if (opts)
		s->opts = *opts;
	s->kallsyms_path = strdup(s->opts.kallsyms_path ? s->opts.kallsyms_path : "/proc/kallsyms");
	s->strings = stk_string_pool_new();
	if (!s->kallsyms_path || !s->strings) {
		free(s->kallsyms_path);
		stk_string_pool_free(s->strings);
		free(s);
		return NULL;
	}
	s->opts.kallsyms_path = s->kallsyms_path;
	sym_file_cache_init(&s->files);
	elf_version(EV_CURRENT);
	return s;
}

void stk_symbolizer_free(struct stk_symbolizer *s)
{
	if (!s)
		return;
	sym_proc_table_free(&s->procs);
	stk_string_pool_free(s->strings);
	sym_file_cache_free(&s->files);
	sym_frame_cache_free(s);
	stk_debuginfod_free(s->debuginfod);
	stk_kallsyms_free(s->ksyms);
	free(s->kallsyms_path);
	free(s);
}

/* ---- the copy unwinder's view of the process table ---- */

static struct stk_process *unwind_process(void *table, pid_t pid)
{
	return stk_symbolizer_process(table, pid);
}

/*
 * A pc outside the mappings: read them again, at most once per 50 ms (a JIT
 * would ask all the time); true when they changed.
 */
static bool unwind_reread(void *table, pid_t pid)
{
	struct stk_symbolizer *s = table;
	struct sym_proc *p = sym_get_proc(s, pid);
	uint64_t generation;

	/* an exited process's pid may be another's by now: its mappings stay as they were */
	if (!p || p->exited || stk_now_ns(CLOCK_MONOTONIC) - p->read_ns < 50000000LL)
		return false;
	generation = p->proc.generation;
	return stk_symbolizer_refresh_process(s, pid) == 0 && p->proc.generation != generation;
}

/* The interpreted frames of the chain r holds, read from tid's memory now. */
static void unwind_interpreted(void *table, pid_t pid, pid_t tid, struct stk_unwind_result *r, const uint64_t *sps,
			       bool whole)
{
	struct sym_proc *p = sym_find_proc(table, pid);

	if (p && !p->err)
		r->n = stk_runtime_splice(&p->proc, tid, r->ips, r->how, sps, r->n, r->max, whole,
					  STK_FRAME_BY_INTERPRETER);
}

struct stk_unwind_source stk_symbolizer_unwind_source(struct stk_symbolizer *s)
{
	return (struct stk_unwind_source){ .table = s, .process = unwind_process, .reread = unwind_reread,
					   .interpreted = unwind_interpreted };
}

void stk_symbolize_user(struct stk_symbolizer *s, pid_t pid, uint64_t addr, struct stk_frame *frame)
{
	sym_resolve_user(s, pid, addr, false, frame);
}

void stk_symbolize_user_caller(struct stk_symbolizer *s, pid_t pid, uint64_t addr, struct stk_frame *frame)
{
	sym_resolve_user(s, pid, addr, true, frame);
}

void stk_symbolize_interpreted(struct stk_symbolizer *s, pid_t pid, uint64_t word, uint64_t aux,
			       struct stk_frame *frame)
{
	struct sym_proc *p = sym_get_proc(s, pid);

	if (p && !p->err) {
		stk_runtime_name(&p->proc, word, aux, frame);
		return;
	}
	stk_runtime_unnamed(word, frame);
}

void stk_symbolizer_name_interpreted(struct stk_symbolizer *s, pid_t pid, const uint64_t *chain, size_t n)
{
	struct sym_proc *p = sym_find_proc(s, pid);

	if (p && !p->err)
		stk_runtime_name_chain(&p->proc, chain, n);
}

/* -v: what a process's jitdump gave. The kernel walk has no tables for JIT code: only user space walks through it. */
static void jitdump_report(const struct sym_proc *sp, const char *applet, FILE *out)
{
	const struct stk_jitdump *d = sp->jitdump;

	if (!d)
		return;
	fprintf(out, "%s: pid %d: jitdump %s: %zu code loads named, %zu ranges with CFI for the user-space walk "
		"(--unwind dwarf; the kernel's walk, the cfi rung, stops at JIT code)%s%s\n", applet, (int)sp->proc.pid,
		sp->jit_path, d->loads, sp->proc.n_jit, d->stop ? "; stopped at " : "", d->stop ? d->stop : "");
}

void stk_symbolizer_runtime_report(const struct stk_symbolizer *s, const char *applet, FILE *out)
{
	for (size_t i = 0; i < s->procs.n; i++) {
		const struct stk_process *p = &s->procs.all[i]->proc;
		const char *note = stk_runtime_note(p);
		struct stk_runtime_stats st;

		jitdump_report(s->procs.all[i], applet, out);
		if (!note)
			continue;
		stk_runtime_get_stats(p, &st);
		fprintf(out, "%s: pid %d: %s", applet, (int)p->pid, note);
		if (st.walks || st.no_thread) {
			fprintf(out, "; %llu interpreted frames read by user space in %llu walks (%llu threads without "
				"a state, %llu stopped early", (unsigned long long)st.frames,
				(unsigned long long)st.walks, (unsigned long long)st.no_thread,
				(unsigned long long)st.stopped);
			for (size_t r = 0; r < STK_RT_STOP_REASONS && st.stops[r].why; r++)
				fprintf(out, "%s%s %llu", r ? ", " : ": ", st.stops[r].why, (unsigned long long)st.stops[r].n);
			fputc(')', out);
		}
		if (st.named || st.unnamed)
			fprintf(out, "; %llu code objects named, %llu not%s%s", (unsigned long long)st.named,
				(unsigned long long)st.unnamed, st.last_unnamed ? ": " : "",
				st.last_unnamed ? st.last_unnamed : "");
		fputc('\n', out);
	}
}

void stk_symbolizer_get_stats(const struct stk_symbolizer *s, struct stk_symbolizer_stats *st)
{
	*st = s->stats;
}
