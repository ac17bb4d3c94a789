/* A session's outputs made from its recording: see event_outputs.h. */
#include "core/session/event_outputs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/libbpf.h>

#include "core/attach/attach_span.h"
#include "core/base/log.h"
#include "core/base/safe_output.h"
#include "core/eventlog/event_render.h"
#include "core/session/event_sink.h"

struct stk_event_outputs {
	struct stk_event_sink *sink;
	struct stk_span_targets *spans;
	FILE *temp;     /* the recording when no -o file is Parquet (no name, gone at exit) */
	int source_fd;  /* where the rendered outputs read the recording (ours: closed at free) */
	bool any_parquet_file;
	bool all;       /* every output is made from the recording */
	bool series;    /* the recording is a series of files (-o DIR/): nothing is rendered from it */
};

bool stk_output_from_events(const struct stk_stack_opts *o, enum stk_format f)
{
	return stk_format_needs_events(f) || (stk_format_shows_spans(f) && o->n_spans > 0);
}

bool stk_event_outputs_made(const struct stk_event_outputs *eo, const struct stk_stack_opts *o, enum stk_format f)
{
	return eo && (eo->all || stk_output_from_events(o, f));
}

bool stk_wants_events(const struct stk_stack_opts *o)
{
	if (o->n_spans || (!o->n_outputs && stk_format_needs_events(o->format)))
		return true;
	for (size_t i = 0; i < o->n_outputs; i++)
		if (stk_format_needs_events(o->output_formats[i]))
			return true;
	return false;
}

bool stk_events_possible_here(bool has_btf)
{
	return has_btf && libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) == 1;
}

/* A file no one else can see or open, for the recording (the rendered outputs read it back). */
static FILE *temp_file(void)
{
	const char *dir = getenv("TMPDIR");
	char path[PATH_MAX];
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(path, sizeof(path), "%s/stk-events-XXXXXX", dir);
		fd = mkostemp(path, O_CLOEXEC);
		if (fd >= 0)
			unlink(path);
	}
	FILE *f = fd >= 0 ? fdopen(fd, "w+") : NULL;
	if (!f && fd >= 0)
		close(fd);
	return f;
}

/* A read-only descriptor of the regular file out writes (-o files are opened write-only), or -1. */
static int reopen_for_reading(FILE *out)
{
	char path[64];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fileno(out));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* The streams event rows go to, and where the rendered outputs read them. 0, or -1 with err. */
static int pick_streams(struct stk_event_outputs *eo, const struct stk_stack_opts *o,
			struct stk_output_file *const *outs, FILE **streams, size_t *n, char *err, size_t err_len)
{
	bool rendered = !o->n_outputs && stk_event_outputs_made(eo, o, o->format) && o->format != STK_FORMAT_PARQUET;

	*n = 0;
	eo->source_fd = -1;
	if (!o->n_outputs && o->format == STK_FORMAT_PARQUET)
		streams[(*n)++] = stdout;
	for (size_t i = 0; i < o->n_outputs; i++) {
		if (o->output_formats[i] == STK_FORMAT_PARQUET) {
			streams[(*n)++] = stk_safe_output_stream(outs[i]);
			if (eo->source_fd < 0)
				eo->source_fd = reopen_for_reading(stk_safe_output_stream(outs[i]));
			eo->any_parquet_file = true;
		} else if (stk_event_outputs_made(eo, o, o->output_formats[i])) {
			rendered = true;
		}
	}
	if (rendered && eo->source_fd < 0) {
		if (!(eo->temp = temp_file())) {
			snprintf(err, err_len, "cannot create a file for the recording in %s: %s",
				 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", strerror(errno));
			return -1;
		}
		streams[(*n)++] = eo->temp;
		eo->source_fd = dup(fileno(eo->temp));
	}
	/* --span alone labels pprof only: the recording still needs a place */
	if (!*n) {
		if (!(eo->temp = temp_file())) {
			snprintf(err, err_len, "cannot create a file for the recording: %s", strerror(errno));
			return -1;
		}
		streams[(*n)++] = eo->temp;
		eo->source_fd = dup(fileno(eo->temp));
	}
	return 0;
}

struct stk_event_outputs *stk_event_outputs_open(const struct stk_stack_opts *o, const struct stk_event_where *where,
						 bool has_btf, uint32_t pid, bool all, char *err, size_t err_len)
{
	struct stk_span_spec specs[STK_SPAN_MAX];
	FILE *streams[STK_MAX_OUTPUTS + 1];
	struct stk_event_outputs *eo;
	size_t n;

	if (!stk_events_possible_here(has_btf)) {
		snprintf(err, err_len, "recording events (-o FILE.parquet, the speedscope and trace formats, --span) "
			 "needs the BPF ring buffer (Linux 5.8) and the kernel's BTF; this kernel has %s",
			 has_btf ? "no ring buffer" : "no BTF stk can find");
		return NULL;
	}
	for (size_t i = 0; i < o->n_spans; i++)
		if (stk_span_spec_parse(o->spans[i], &specs[i], err, err_len))
			return NULL;
	if (!(eo = calloc(1, sizeof(*eo)))) {
		snprintf(err, err_len, "out of memory");
		return NULL;
	}
	eo->source_fd = -1;
	eo->all = all;
	eo->series = where->series_dir != NULL;
	n = 0;
	if ((o->n_spans && !(eo->spans = stk_span_find(specs, o->n_spans, (pid_t)pid, err, err_len))) ||
	    (!eo->series && pick_streams(eo, o, where->outs, streams, &n, err, err_len)) ||
	    !(eo->sink = stk_event_sink_new(streams, n, specs, o->n_spans, err, err_len)) ||
	    (eo->series && stk_event_sink_series(eo->sink, where->series_dir, where->series, err, err_len))) {
		stk_event_outputs_free(eo);
		return NULL;
	}
	if (o->host)
		stk_event_sink_set_host(eo->sink, o->host);
	return eo;
}

struct stk_event_sink *stk_event_outputs_sink(const struct stk_event_outputs *eo)
{
	return eo ? eo->sink : NULL;
}

const char *const *stk_event_outputs_programs(const struct stk_event_outputs *eo)
{
	return eo && eo->spans ? stk_span_programs(eo->spans) : NULL;
}

bool stk_event_outputs_usdt(const struct stk_event_outputs *eo)
{
	return eo && eo->spans && stk_span_usdt(eo->spans);
}

int stk_event_outputs_attach(struct stk_event_outputs *eo, struct stk_bpf *skel, char *err, size_t err_len)
{
	return eo && eo->spans ? stk_span_attach(eo->spans, skel, err, err_len) : 0;
}

void stk_event_outputs_detach(struct stk_event_outputs *eo)
{
	if (eo && eo->spans)
		stk_span_detach(eo->spans);
}

/* One output rendered from the recording into out. 0, or -1 after printing why. */
static int render(const struct stk_event_outputs *eo, const char *applet, enum stk_format f, FILE *out,
		  const char *name)
{
	struct stk_ev_filter all;
	char err[512];

	stk_ev_filter_all(&all);
	if (stk_ev_render(eo->source_fd, &all, f, out, err, sizeof(err))) {
		stk_error(applet, "writing %s from the recording: %s", name, err);
		return -1;
	}
	return 0;
}

/* A recording of several kinds: each one's rows and losses (-v, or where any was lost). */
static void say_kinds(const struct stk_event_outputs *eo, const char *applet, bool verbose)
{
	const char *names[STK_EVENT_TYPES];
	size_t n = 0;

	for (uint16_t t = 0; t < STK_EVENT_TYPES; t++)
		if ((names[t] = stk_event_sink_kind_name(eo->sink, t)))
			n++;
	for (uint16_t t = 0; n > 1 && t < STK_EVENT_TYPES; t++) {
		uint64_t lost = stk_event_sink_lost_of(eo->sink, t), full = stk_event_sink_lost_full_of(eo->sink, t);

		if (names[t] && (verbose || lost || full))
			fprintf(stderr, "%s: %s: %" PRIu64 " events, %" PRIu64 " lost%s\n", applet, names[t],
				stk_event_sink_rows_of(eo->sink, t), lost + full, full ? " (some to a full disk)" : "");
	}
}

static void say_counts(const struct stk_event_outputs *eo, const char *applet, const struct stk_stack_opts *o)
{
	uint64_t rows = stk_event_sink_rows(eo->sink), lost = stk_event_sink_lost(eo->sink);
	uint64_t full = stk_event_sink_lost_full(eo->sink);

	fprintf(stderr, "%s: %" PRIu64 " events recorded%s\n", applet, rows,
		lost || full ? "" : ", none lost");
	if (full)
		fprintf(stderr, "WARNING: %" PRIu64 " events lost while the disk was full\n", full);
	say_kinds(eo, applet, o->verbose);
	if (o->verbose) {
		size_t n, bytes;
		uint64_t renders, forgotten;

		stk_event_sink_stacks(eo->sink, &n, &bytes, &renders, &forgotten);
		fprintf(stderr, "%s: %zu distinct stacks in the recording (rendered %" PRIu64 " times; %" PRIu64
			" let go at checkpoints), %.1f MB of their text and frames kept\n", applet, n, renders, forgotten,
			(double)bytes / 1e6);
	}
	if (lost)
		fprintf(stderr, "WARNING: %" PRIu64 " events lost: the event ring buffer was full (its reader short of "
			"CPU); raise --event-buffer (now %u MiB)\n", lost, o->event_buffer_mb);
}

int stk_event_outputs_finish(struct stk_event_outputs *eo, const char *applet, const struct stk_stack_opts *o,
			     struct stk_output_file *const *outs)
{
	char err[PATH_MAX + 256];
	int ret = 0;

	if (stk_event_sink_close(eo->sink, err, sizeof(err))) {
		stk_error(applet, "writing the event log: %s", err);
		return -1;
	}
	for (size_t i = 0; i < o->n_outputs; i++) {
		enum stk_format f = o->output_formats[i];

		if (!stk_event_outputs_made(eo, o, f))
			continue;
		if (f != STK_FORMAT_PARQUET &&
		    render(eo, applet, f, stk_safe_output_stream(outs[i]), o->output_paths[i])) {
			ret = -1;
			continue;
		}
		if (stk_safe_output_commit(outs[i], err, sizeof(err))) {
			stk_error(applet, "writing %s", err);
			ret = -1;
		}
	}
	if (!eo->series && !o->n_outputs && o->format != STK_FORMAT_PARQUET &&
	    stk_event_outputs_made(eo, o, o->format) && render(eo, applet, o->format, stdout, "the results"))
		ret = -1;
	say_counts(eo, applet, o);
	return ret;
}

void stk_event_outputs_free(struct stk_event_outputs *eo)
{
	if (!eo)
		return;
	stk_event_sink_free(eo->sink);
	stk_span_targets_free(eo->spans);
	if (eo->temp)
		fclose(eo->temp);
	if (eo->source_fd >= 0)
		close(eo->source_fd);
	free(eo);
}
