/* The options the stack applets share: see stack_opts.h. */
#include "core/options/stack_opts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/dispatch.h"
#include "core/base/options.h"
#include "core/base/sysfs_read.h"
#include "core/eventlog/event_host.h"

void stk_stack_opts_init(struct stk_stack_opts *o, char tid_opt, uint64_t max_depth_limit)
{
	memset(o, 0, sizeof(*o));
	o->tid_opt = tid_opt;
	o->stack_storage_size = STK_STACK_STORAGE_DEFAULT;
	o->max_depth_limit = max_depth_limit;
	o->max_depth = max_depth_limit;
	o->format = STK_FORMAT_TEXT;
	o->unwind = STK_UNWIND_CFI;
	o->stack_bytes = STK_STACK_BYTES_DEFAULT;
	o->cfi_rows = STK_CFI_ROWS_DEFAULT;
	o->cfi_chains = STK_CFI_CHAINS_DEFAULT;
	o->event_buffer_mb = STK_EVENT_BUFFER_DEFAULT;
}

/* --span, --event-buffer and --host. 1 taken, -1 with msg. */
static int event_opt(struct stk_stack_opts *o, int c, const char *arg, char *msg, size_t len)
{
	struct stk_span_spec spec;
	uint64_t v;

	if (c == STK_OPT_HOST) {
		const char *why = stk_ev_host_invalid(arg);

		if (why) {
			snprintf(msg, len, "--host %s: %s", arg, why);
			return -1;
		}
		o->host = arg;
		return 1;
	}
	if (c == STK_OPT_EVENT_BUFFER) {
		if (stk_parse_u64(arg, 1, STK_EVENT_BUFFER_MAX, &v) == 0 && (v & (v - 1)) == 0) {
			o->event_buffer_mb = (uint32_t)v;
			return 1;
		}
		snprintf(msg, len, "--event-buffer %s: expected a power of two from 1 to %u (MiB)", arg,
			 STK_EVENT_BUFFER_MAX);
		return -1;
	}
	if (o->n_spans == STK_SPAN_MAX) {
		snprintf(msg, len, "--span %s: at most %d spans", arg, STK_SPAN_MAX);
		return -1;
	}
	if (stk_span_spec_parse(arg, &spec, msg, len))
		return -1;
	o->spans[o->n_spans++] = arg;
	return 1;
}

static int parse_ids(const char *arg, char opt, const char *what, uint32_t **ids, size_t *n, char *msg,
		     size_t len)
{
	free(*ids);
	*ids = NULL;
	*n = 0;
	if (stk_parse_id_list(arg, ids, n) == 0)
		return 1;
	snprintf(msg, len, "-%c %s: expected %s[,%s...] of positive numbers", opt, arg, what, what);
	return -1;
}

int stk_stack_opt(struct stk_stack_opts *o, int c, const char *arg, char *msg, size_t len)
{
	char names[128];

	if (c == 'p')
		return parse_ids(arg, 'p', "PID", &o->pids, &o->n_pids, msg, len);
	if (c == o->tid_opt)
		return parse_ids(arg, o->tid_opt, "TID", &o->tids, &o->n_tids, msg, len);
	switch (c) {
	case 'U': o->user_only = true; return 1;
	case 'K': o->kernel_only = true; return 1;
	case 'd': o->delimiter = true; return 1;
	case 'v': o->verbose = true; return 1;
	case 'f':
		o->format = STK_FORMAT_FOLDED;
		o->format_given = true;
		return 1;
	case STK_OPT_STACK_STORAGE:
		if (stk_parse_u64(arg, 1, 1u << 24, &o->stack_storage_size) == 0)
			return 1;
		snprintf(msg, len, "--stack-storage-size %s: expected 1 to 16777216", arg);
		return -1;
	case STK_OPT_MAX_DEPTH:
		if (stk_parse_u64(arg, 1, o->max_depth_limit, &o->max_depth) == 0)
			return 1;
		snprintf(msg, len, "--perf-max-stack-depth %s: expected 1 to %llu (kernel.perf_event_max_stack)",
			 arg, (unsigned long long)o->max_depth_limit);
		return -1;
	case 'o':
		if (o->n_outputs < STK_MAX_OUTPUTS) {
			o->output_paths[o->n_outputs++] = arg;
			return 1;
		}
		snprintf(msg, len, "-o %s: at most %d output files", arg, STK_MAX_OUTPUTS);
		return -1;
	case STK_OPT_FORMAT:
		if (stk_format_from_name(arg, &o->format) == 0) {
			o->format_given = true;
			return 1;
		}
		stk_format_join(names, sizeof(names), stk_formats_offered(STK_OFFER_ALL), false, ", ", " or ");
		snprintf(msg, len, "--format %s: expected %s", arg, names);
		return -1;
	case STK_OPT_NO_ARGS: o->no_args = true; return 1;
	case STK_OPT_BTF: o->btf_file = arg; return 1;
	case STK_OPT_UNWIND:
		for (int r = 0; r < STK_UNWIND_RUNG_COUNT; r++) {
			const struct stk_rung *rung = stk_rung_by_id(STK_ATTACH_USER_STACKS, r);

			if (rung && strcmp(arg, rung->name) == 0) {
				o->unwind = (enum stk_unwind_rung)r;
				o->unwind_given = true;
				return 1;
			}
		}
		stk_ladder_names(STK_ATTACH_USER_STACKS, names, sizeof(names));
		snprintf(msg, len, "--unwind %s: expected %s", arg, names);
		return -1;
	case STK_OPT_STACK_BYTES: {
		uint64_t v;

		if (stk_parse_u64(arg, STK_STACK_BYTES_MIN, STK_STACK_BYTES_MAX, &v) == 0 && v % 1024 == 0) {
			o->stack_bytes = (uint32_t)v;
			return 1;
		}
		snprintf(msg, len, "--stack-bytes %s: expected a multiple of 1024 from %d to %d", arg,
			 STK_STACK_BYTES_MIN, STK_STACK_BYTES_MAX);
		return -1;
	}
	case STK_OPT_NO_DEBUGINFOD: o->no_debuginfod = true; return 1;
	case STK_OPT_LINES: o->lines = true; return 1;
	case STK_OPT_NO_INLINE: o->no_inline = true; return 1;
	case STK_OPT_SPAN:
	case STK_OPT_EVENT_BUFFER:
	case STK_OPT_HOST: return event_opt(o, c, arg, msg, len);
	case STK_OPT_CFI_ROWS:
	case STK_OPT_CFI_CHAINS: {
		uint64_t v;

		if (stk_parse_u64(arg, 16, 1u << 26, &v) == 0) {
			*(c == STK_OPT_CFI_ROWS ? &o->cfi_rows : &o->cfi_chains) = (uint32_t)v;
			return 1;
		}
		snprintf(msg, len, "--%s %s: expected a whole number from 16 to 67108864",
			 c == STK_OPT_CFI_ROWS ? "cfi-rows" : "cfi-chains", arg);
		return -1;
	}
	default: return 0;
	}
}

/* Whether an output shows span labels. */
static bool shows_spans(const struct stk_stack_opts *o)
{
	const enum stk_format *f = o->n_outputs ? o->output_formats : &o->format;

	for (size_t i = 0; i < (o->n_outputs ? o->n_outputs : 1); i++)
		if (stk_format_shows_spans(f[i]))
			return true;
	return false;
}

int stk_stack_opts_finish(struct stk_stack_opts *o, int optind, char *msg, size_t len)
{
	char pid_opt[] = "-p", tid_opt[] = { '-', o->tid_opt, '\0' };
	int argc = o->argc;
	char **argv = o->argv;

	if (optind < argc) {
		if (stk_parse_seconds(argv[optind], &o->duration_ms)) {
			snprintf(msg, len, "duration %s: expected a positive number of seconds", argv[optind]);
			return -1;
		}
		if (optind + 1 < argc) {
			snprintf(msg, len, "unexpected argument '%s'", argv[optind + 1]);
			return -1;
		}
	}
	if (o->user_only && o->kernel_only) {
		snprintf(msg, len, "-U and -K are mutually exclusive");
		return -1;
	}
	if (stk_resolve_output_formats(o->output_paths, o->output_formats, o->n_outputs, o->format_given,
				       o->format, msg, len))
		return -1;
	if (o->n_spans && !shows_spans(o)) {
		stk_format_set logs = stk_formats_from(STK_FROM_RECORDING);
		char first[64], rest[128];

		/* the event log first: it is what spans are for */
		stk_format_join(first, sizeof(first), logs, true, ", ", " or ");
		stk_format_join(rest, sizeof(rest), stk_formats_showing_spans() & ~logs, true, ", ", " or ");
		snprintf(msg, len, "--span labels events: add an output that shows them (-o FILE%s, %s)", first, rest);
		return -1;
	}
	return stk_check_targets(o->pids, o->n_pids, pid_opt, o->tids, o->n_tids, tid_opt, msg, len);
}

void stk_stack_opts_free(struct stk_stack_opts *o)
{
	free(o->pids);
	free(o->tids);
	o->pids = o->tids = NULL;
	o->n_pids = o->n_tids = 0;
}

void stk_stack_opts_begin(struct stk_stack_opts *o, const char *applet, const struct stk_invocation *inv, char tid_opt)
{
	long max_stack = 127;

	stk_read_long("/proc/sys/kernel/perf_event_max_stack", &max_stack);
	stk_stack_opts_init(o, tid_opt, (uint64_t)max_stack);
	o->applet = applet;
	o->command = inv->command;
	o->argc = inv->argc;
	o->argv = inv->argv;
	opterr = 0;
	optind = 1;
}

int stk_stack_getopt(struct stk_stack_opts *o, const char *shortopts, const struct option *longopts, const char *own,
		     char *msg, size_t len)
{
	int c;

	while ((c = getopt_long(o->argc, o->argv, shortopts, longopts, NULL)) != -1) {
		if (c == ':' || c == '?') {
			stk_getopt_problem(c, o->applet, o->argv, msg, len);
			return STK_OPT_BAD;
		}
		int taken = c > 0 && c < 256 && own && strchr(own, c) ? 0 : stk_stack_opt(o, c, optarg, msg, len);
		if (taken < 0)
			return STK_OPT_BAD;
		if (!taken)
			return c;
	}
	return -1;
}

const char *stk_stack_opts_whose(const struct stk_stack_opts *o)
{
	return o->n_pids ? "the given processes" : o->n_tids ? "the given threads" : "all threads";
}

const char *stk_stack_opts_which(const struct stk_stack_opts *o)
{
	return o->user_only ? "user" : o->kernel_only ? "kernel" : "user + kernel";
}

/* Greedy word wrap: lead, then text's words up to width columns, each next line at lead's indent. */
static void print_wrapped(FILE *out, const char *lead, const char *text, size_t width)
{
	size_t indent = strlen(lead), col = indent;

	fputs(lead, out);
	for (const char *w = text; *w;) {
		size_t n = strcspn(w, " ");

		if (col > indent && col + 1 + n > width) {
			fprintf(out, "\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', out);
			col++;
		}
		fwrite(w, 1, n, out);
		col += n;
		w += n;
		w += strspn(w, " ");
	}
	fputc('\n', out);
}

/* Each offer's lines as its applets' help has always read: how wide, and how -o says it repeats. */
static const struct {
	size_t width;
	const char *repeats;
} output_help_style[] = {
	[STK_OFFER_ALL] = { 98, "repeatable" },
	[STK_OFFER_TOTALS] = { 80, "may be repeated" },
	[STK_OFFER_RENDERED] = { 98, "repeatable" },
};

void stk_output_help(FILE *out, enum stk_format_offer offer, enum stk_format deflt)
{
	stk_format_set set = stk_formats_offered(offer);
	size_t width = output_help_style[offer].width;
	char list[256], text[512];

	stk_format_join(list, sizeof(list), set, true, " ", " ");
	snprintf(text, sizeof(text), "write there; format from --format or the extension (%s); %s", list,
		 output_help_style[offer].repeats);
	print_wrapped(out, "  -o, --output FILE           ", text, width);
	if (deflt == STK_FORMAT_TEXT) {
		stk_format_join(text, sizeof(text), set, false, ", ", " or ");
	} else {
		stk_format_join(list, sizeof(list), set & ~STK_FORMAT_BIT(deflt), false, ", ", " or ");
		snprintf(text, sizeof(text), "%s (default), %s", stk_format_name(deflt), list);
	}
	print_wrapped(out, "      --format FMT            ", text, width);
}

void stk_stack_opts_print_until(const struct stk_stack_opts *o)
{
	if (o->duration_ms)
		printf(" for %.3g secs.\n", (double)o->duration_ms / 1000.0);
	else
		printf("... Hit Ctrl-C to end.\n");
	fflush(stdout);
}
