/*
 * stk top: what is every thread doing, live, in a navigable full-screen
 * view. Threadstate's sampling (core/threads/bpf/threads_source.c picks the
 * task iterator, the tracepoint state map or /proc) feeds a window of
 * threads under their groups (core/top/top_window.h) that is drawn every
 * -d seconds as a table of average active threads (core/top/top_screens.h,
 * core/terminal/terminal.h). Enter goes from a group to its threads and
 * from a thread to its stack now (pmp's snapshot, which does not stop it)
 * and its last minute of states; Esc goes back. Given a recording (stk
 * record's series, threadstate -o FILE.parquet), the same screens step
 * through its thread states instead (core/top/top_replay.h).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/base/caps.h"
#include "core/base/clock.h"
#include "core/base/dispatch.h"
#include "core/base/log.h"
#include "core/base/options.h"
#include "core/base/run_loop.h"
#include "core/eventlog/time_arg.h"
#include "core/btf/btf_source.h"
#include "core/session/session.h"
#include "core/session/stack_list.h"
#include "core/snapshot/bpf/thread_stack.h"
#include "core/sym/symbolize.h"
#include "core/terminal/terminal.h"
#include "core/threads/bpf/threads_source.h"
#include "core/threads/thread_columns.h"
#include "core/threads/thread_select.h"
#include "core/threads/thread_table.h"
#include "core/top/host_cpu.h"
#include "core/top/top_history.h"
#include "core/top/top_replay.h"
#include "core/top/top_screens.h"
#include "core/top/top_window.h"
#include "core/view/view_table.h"

#define APPLET "top"
#define DEFAULT_GROUP "state,username,comm,syscall,wchan"
#define KEYS_GROUPS "Enter threads  / search  f filter  g group  </> sort  I invert  a all  q quit"
#define KEYS_THREADS "Enter stack  Esc back  / search  </> sort  I invert  q quit"
#define KEYS_THREAD "r take again  Esc back  / search  q quit"
#define KEYS_REPLAY_GROUPS "<- -> step  t time  Enter threads  / search  f filter  g group  </> sort  q quit"
#define KEYS_REPLAY_THREADS "<- -> step  t time  Enter states  Esc back  / search  </> sort  q quit"
#define KEYS_REPLAY_THREAD "<- -> step  t time  Esc back  q quit"

struct top_config {
	uint32_t *pids;
	size_t n_pids;
	const char *cgroup;
	double hz;
	long delay_ms, duration_ms;
	struct stk_group_spec group;
	const char *btf_file;
	int source; /* enum stk_tsource, or -1 */
	bool all;
	char *const *recording; /* replay: files, directories, globs (argv's) */
	size_t n_recording;
};

enum top_screen { SCREEN_GROUPS, SCREEN_THREADS, SCREEN_THREAD };
enum top_prompt { PROMPT_NONE, PROMPT_SEARCH, PROMPT_FILTER, PROMPT_GROUP, PROMPT_TIME };

/* Everything a run owns, released in teardown(). */
struct top_run {
	struct top_config cfg;
	struct stk_session session; /* BTF and privileges */
	struct stk_symbolizer *sym;
	struct stk_thread_sampler *source;
	struct stk_thread_selector *select;
	struct stk_thread_batch batch;
	struct stk_run_loop *loop;
	struct stk_term *term;
	/* the window being filled, and the one the screens show (a group opened lists its threads from it) */
	struct stk_top_window window, shown;
	struct stk_top_history history;
	struct stk_host_cpu cpu;
	struct stk_top_replay replay; /* a recording's states instead of the host's */
	bool replaying;
	int64_t step_from;            /* replay: the step shown is [step_from, step_from + delay) */
	struct stk_vtable groups, threads, stack;
	enum top_screen screen;
	char group_key[1024];            /* the group whose threads are listed */
	char group_title[256];
	uint32_t tid, tgid;              /* the thread shown */
	char thread_title[256], thread_line[256];
	struct stk_stack_list stack_list;
	char stack_note[512];
	int filter_col;                  /* -1: none */
	char filter_value[128];
	enum top_prompt prompt;
	char input[128];
	char message[256];
	char host_line[256], cpu_line[256];
	int64_t next_refresh, last_wall, last_sec;
	char error[1024]; /* why the view ended early: said once the terminal is back */
	bool can_bpf;
};

static void print_help(void)
{
	printf("usage: stk top [options] [RECORDING...]\n\n"
	       "What every thread is doing, live: a full-screen table of average active threads\n"
	       "by state, user, command, syscall and wait channel, refreshed every second.\n"
	       "Enter on a group lists its threads, Enter on a thread shows its stack now (taken\n"
	       "without stopping it) and its last minute of states; Esc goes back; q quits.\n"
	       "Given a recording (files, a directory of stk record's series, globs), the same view\n"
	       "steps through its thread states: left and right move by -d seconds, t jumps to a time.\n\n"
	       "  -p, --pid PID[,PID...]   only these processes (host PIDs)\n"
	       "      --cgroup PATH        only threads in this cgroup\n"
	       "  -F, --frequency HZ       sample passes per second (default 1)\n"
	       "  -d, --delay SECS         seconds between refreshes (default 1)\n"
	       "  -g, --group COLS         group by these columns (default " DEFAULT_GROUP ")\n"
	       "  -a, --all                count sleeping threads too, not only active ones\n"
	       "      --duration SECS      quit after SECS seconds\n"
	       "      --source S           task_iter, tracepoint_state or proc instead of the first that works\n"
	       "      --btf FILE           kernel BTF to use\n"
	       "  -h, --help               this help\n\n"
	       "Keys: arrows, PgUp/PgDn, Home/End move; Enter opens; Esc goes back; / searches the rows;\n"
	       "f filters threads by COLUMN=VALUE (e.g. comm=mysqld, pid=42, state=DISK); g regroups;\n"
	       "< and > sort by the previous or next column, I inverts; a counts sleeping threads too;\n"
	       "r takes a thread's stack again; q quits. NO_COLOR=1 draws without colours.\n"
	       "stdout must be a terminal: for tables in a file or a pipe use stk threadstate.\n");
}

enum long_only { OPT_CGROUP = 1000, OPT_SOURCE, OPT_BTF, OPT_DURATION };

#define usage_error(...) STK_USAGE_ERROR(APPLET, __VA_ARGS__)

static int parse_args(void *arg, const struct stk_invocation *inv)
{
	struct top_config *cfg = &((struct top_run *)arg)->cfg;
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "cgroup", required_argument, NULL, OPT_CGROUP },
		{ "frequency", required_argument, NULL, 'F' },
		{ "delay", required_argument, NULL, 'd' },
		{ "group", required_argument, NULL, 'g' },
		{ "all", no_argument, NULL, 'a' },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "source", required_argument, NULL, OPT_SOURCE },
		{ "btf", required_argument, NULL, OPT_BTF },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	char msg[512], err[128], *end;
	enum stk_tsource src;
	int c;

	cfg->hz = 1;
	cfg->delay_ms = 1000;
	cfg->source = -1;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(inv->argc, inv->argv, ":p:F:d:g:ah", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			free(cfg->pids);
			cfg->pids = NULL;
			if (stk_parse_id_list(optarg, &cfg->pids, &cfg->n_pids))
				return usage_error("-p %s: expected PID[,PID...] of positive numbers", optarg);
			break;
		case OPT_CGROUP: cfg->cgroup = optarg; break;
		case 'F':
			cfg->hz = strtod(optarg, &end);
			if (end == optarg || *end || !(cfg->hz > 0 && cfg->hz <= 100))
				return usage_error("-F %s: expected a frequency in Hz, above 0 and at most 100", optarg);
			break;
		case 'd':
			if (stk_parse_seconds(optarg, &cfg->delay_ms) || cfg->delay_ms < 100)
				return usage_error("-d %s: expected a number of seconds, at least 0.1", optarg);
			break;
		case 'g':
			cfg->group.n = 0;
			if (stk_group_spec_add(&cfg->group, optarg, err, sizeof(err)))
				return usage_error("-g %s: %s", optarg, err);
			break;
		case 'a': cfg->all = true; break;
		case OPT_DURATION:
			if (stk_parse_seconds(optarg, &cfg->duration_ms))
				return usage_error("--duration %s: expected a positive number of seconds", optarg);
			break;
		case OPT_SOURCE:
			if (stk_tsource_from_name(optarg, &src))
				return usage_error("--source %s: expected task_iter, tracepoint_state or proc", optarg);
			cfg->source = (int)src;
			break;
		case OPT_BTF: cfg->btf_file = optarg; break;
		case 'h': print_help(); return 1;
		default: return usage_error("%s", stk_getopt_problem(c, APPLET, inv->argv, msg, sizeof(msg)));
		}
	}
	cfg->recording = inv->argv + optind;
	cfg->n_recording = (size_t)(inv->argc - optind);
	if (cfg->n_recording && (cfg->n_pids || cfg->cgroup || cfg->source >= 0 || cfg->btf_file))
		return usage_error("%s: a recording is replayed as it was captured (-p, --cgroup, --source and --btf "
				   "are for the live view; f filters)", inv->argv[optind]);
	if (!cfg->group.n)
		stk_group_spec_add(&cfg->group, DEFAULT_GROUP, err, sizeof(err));
	if (cfg->n_pids && stk_check_targets(cfg->pids, cfg->n_pids, "-p", NULL, 0, "-t", msg, sizeof(msg)))
		return usage_error("%s", msg);
	if (cfg->cgroup && stk_check_cgroup_dir(cfg->cgroup, msg, sizeof(msg)))
		return usage_error("--cgroup %s: %s", cfg->cgroup, msg);
	/* the terminal last: a bad option is said as such wherever the output goes */
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
		return usage_error("%s is not a terminal: stk top draws a full screen; for tables in a file or a pipe "
				   "use stk threadstate", isatty(STDOUT_FILENO) ? "stdin" : "stdout");
	return 0;
}

/* The thread source for cfg.all (sleeping threads' details only when they are shown: they are most). 0, or -1. */
static int open_tsource(struct top_run *run, char *err, size_t len)
{
	const struct top_config *cfg = &run->cfg;
	const struct stk_tsource_request req = {
		.pids = cfg->pids,
		.n_pids = cfg->n_pids,
		.self_tgid = (uint32_t)getpid(),
		.all = cfg->all,
		.btf_custom_path = run->can_bpf ? stk_session_btf_path(&run->session) : NULL,
		.kernel_btf = run->session.btf.kernel_btf,
		.forced = !run->can_bpf ? stk_tsource_name(STK_TSOURCE_PROC)
			  : cfg->source >= 0 ? stk_tsource_name(cfg->source) : NULL,
		.sym = run->sym,
	};

	run->source = stk_tsource_open(&req, err, len);
	return run->source ? 0 : -1;
}

static int open_source(struct top_run *run)
{
	struct top_config *cfg = &run->cfg;
	struct stk_caps caps;
	char err[1024];

	run->can_bpf = stk_caps_read_self(&caps) == 0 && stk_caps_can_trace(&caps);
	if (cfg->source >= 0 && cfg->source != STK_TSOURCE_PROC && !run->can_bpf) {
		stk_error(APPLET, "--source %s needs root (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN)",
			  stk_tsource_name(cfg->source));
		return -1;
	}
	if (run->can_bpf && cfg->source != STK_TSOURCE_PROC &&
	    stk_session_open_bpf(&run->session, APPLET, 0, cfg->btf_file))
		return -1;
	if (open_tsource(run, err, sizeof(err))) {
		stk_error(APPLET, "%s", err);
		return -1;
	}
	return 0;
}

static int new_selector(struct top_run *run)
{
	const struct stk_thread_select_opts sel = { .cgroup = run->cfg.cgroup, .all = run->cfg.all };

	stk_thread_selector_free(run->select);
	run->select = stk_thread_selector_new(&sel, run->sym);
	return run->select ? 0 : -1;
}

static void on_keys(void *ctx);
static void on_resize(void *ctx);
static void replay_at(struct top_run *run, int64_t from);
static void replay_goto(struct top_run *run);

static int setup(void *arg)
{
	struct top_run *run = arg;
	struct top_config *cfg = &run->cfg;
	char err[512];
	const struct stk_symbolizer_opts so = { .keep_elf = true }; /* a thread's stack is unwound with CFI */

	run->filter_col = -1;
	stk_top_window_init(&run->window, &cfg->group);
	stk_top_window_init(&run->shown, &cfg->group);
	stk_top_history_init(&run->history);
	stk_top_groups_init(&run->groups, &cfg->group);
	stk_top_threads_init(&run->threads);
	stk_top_stack_init(&run->stack);
	if (!(run->sym = stk_symbolizer_new(&so)) || new_selector(run)) {
		stk_error(APPLET, "out of memory");
		return -1;
	}
	run->replaying = cfg->n_recording > 0;
	if (run->replaying ? stk_top_replay_open(&run->replay, APPLET, cfg->recording, cfg->n_recording)
			   : open_source(run))
		return -1;
	long period_ms = run->replaying ? 0 : (long)(1000.0 / cfg->hz + 0.5); /* replay: keys only */
	run->loop = stk_run_loop_new(cfg->duration_ms, run->replaying || period_ms ? period_ms : 1, err, sizeof(err));
	if (!run->loop) {
		stk_error(APPLET, "%s", err);
		return -1;
	}
	run->term = stk_term_open(err, sizeof(err));
	if (!run->term) {
		stk_error(APPLET, "%s", err);
		return -1;
	}
	if (stk_run_loop_add_fd(run->loop, stk_term_fd(run->term), on_keys, run) ||
	    stk_run_loop_on_signal(run->loop, SIGWINCH, on_resize, run)) {
		stk_error(APPLET, "watching the terminal: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static void teardown(void *arg)
{
	struct top_run *run = arg;

	stk_term_close(run->term); /* first: whatever follows may print */
	stk_run_loop_free(run->loop);
	stk_tsource_free(run->source);
	stk_thread_selector_free(run->select);
	stk_thread_batch_free(&run->batch);
	stk_stack_list_free(&run->stack_list);
	stk_vtable_free(&run->groups);
	stk_vtable_free(&run->threads);
	stk_vtable_free(&run->stack);
	stk_top_window_free(&run->window);
	stk_top_window_free(&run->shown);
	stk_top_history_free(&run->history);
	if (run->replaying)
		stk_top_replay_close(&run->replay);
	if (run->sym)
		stk_symbolizer_free(run->sym);
	stk_session_close(&run->session);
	free(run->cfg.pids);
}

/* The view's filter: COLUMN=VALUE on the thread's own values. */
static bool filter_thread(const struct stk_thread *t, void *ctx)
{
	const struct top_run *run = ctx;
	char value[STK_THREAD_FILE_LEN];

	stk_tcol_value(t, (enum stk_tcol)run->filter_col, value, sizeof(value));
	return strcmp(value, run->filter_value) == 0;
}

static const char *source_name(const struct top_run *run)
{
	return run->source ? stk_tsource_name(stk_tsource_kind(run->source)) : "no source";
}

static struct stk_vtable *current_table(struct top_run *run)
{
	switch (run->screen) {
	case SCREEN_THREADS: return &run->threads;
	case SCREEN_THREAD: return &run->stack;
	default: return &run->groups;
	}
}

static void draw(struct top_run *run)
{
	char title[256], when[64], state[512], status[320];
	struct stk_screen s = { .n_head = 0 };
	struct stk_vtable *tb = current_table(run);

	stk_format_utc(run->last_wall, when, sizeof(when));
	if (run->replaying) {
		char first[64], end[64];

		stk_format_utc(run->replay.first, first, sizeof(first));
		stk_format_utc(run->replay.end, end, sizeof(end));
		snprintf(title, sizeof(title), "stk top  replay  %s UTC + %g s   (recorded %s to %s)", when,
			 (double)run->cfg.delay_ms / 1000.0, first, end + 11);
	} else {
		snprintf(title, sizeof(title), "stk top  %s UTC  %s, %g Hz, every %g s%s", when, source_name(run),
			 run->cfg.hz, (double)run->cfg.delay_ms / 1000.0,
			 run->cfg.all ? ", all threads" : ", active threads");
	}
	s.head[s.n_head++] = title;
	s.head[s.n_head++] = run->host_line;
	snprintf(state, sizeof(state), "%s%s%s%s%s%s", run->cpu_line,
		 run->filter_col >= 0 ? "   filter " : "", run->filter_col >= 0 ? stk_tcol_name(run->filter_col) : "",
		 run->filter_col >= 0 ? "=" : "", run->filter_col >= 0 ? run->filter_value : "",
		 tb->search[0] ? "   (searching)" : "");
	s.head[s.n_head++] = state;
	if (run->screen == SCREEN_THREADS) {
		s.head[s.n_head++] = run->group_title;
	} else if (run->screen == SCREEN_THREAD) {
		s.head[s.n_head++] = run->thread_title;
		s.head[s.n_head++] = run->thread_line;
		s.head[s.n_head++] = run->stack_note;
	}
	s.table = tb;
	s.empty = run->screen == SCREEN_GROUPS ? "no active thread in this interval (a: count sleeping ones too)"
		  : run->screen == SCREEN_THREADS ? "none of this group's threads in this interval" : "no stack";
	if (run->replaying)
		s.keys = run->screen == SCREEN_GROUPS	 ? KEYS_REPLAY_GROUPS
			 : run->screen == SCREEN_THREADS ? KEYS_REPLAY_THREADS : KEYS_REPLAY_THREAD;
	else
		s.keys = run->screen == SCREEN_GROUPS ? KEYS_GROUPS : run->screen == SCREEN_THREADS ? KEYS_THREADS : KEYS_THREAD;
	if (run->prompt != PROMPT_NONE) {
		static const char *const labels[] = { "", "search: ", "filter COLUMN=VALUE (empty: none): ",
						      "group by COLUMNS: ", "go to (HH:MM[:SS], SECONDS from the start, DATE TIME): " };
		snprintf(status, sizeof(status), "%s%s", labels[run->prompt], run->input);
		s.status = status;
		s.status_is_prompt = true;
	} else if (run->message[0]) {
		s.status = run->message;
	} else if (tb->search[0]) {
		snprintf(status, sizeof(status), "rows with \"%s\": %zu of %zu (Esc shows all)", tb->search, tb->n_shown,
			 tb->n_rows);
		s.status = status;
	}
	stk_term_draw(run->term, &s);
}

static void thread_lines(struct top_run *run)
{
	char hist[STK_TOP_HISTORY_SECS + 1];

	if (!stk_top_history_line(&run->history, run->tid, run->last_sec, hist, sizeof(hist)))
		snprintf(hist, sizeof(hist), "(not seen)");
	snprintf(run->thread_line, sizeof(run->thread_line), "last minute  %s  now  (R run, Q runq, S sleep, D disk, "
		 "T stopped, I idle, . not sampled)", hist);
}

/* Tables from the window just ended, then a new window. */
static int refresh(struct top_run *run)
{
	struct stk_top_window done = run->shown;

	/* the window just filled is shown; the one shown before is emptied and filled next */
	run->shown = run->window;
	run->window = done;
	stk_top_window_reset(&run->window);
	if (stk_top_groups_fill(&run->groups, &run->shown) ||
	    (run->screen != SCREEN_GROUPS && stk_top_threads_fill(&run->threads, &run->shown, run->group_key)))
		return -1;
	stk_top_host_line(&run->shown, !run->replaying, run->host_line, sizeof(run->host_line));
	if (run->replaying)
		snprintf(run->cpu_line, sizeof(run->cpu_line), "%" PRIu64 " sample passes in this step",
			 run->shown.passes);
	else
		stk_host_cpu_line(&run->cpu, run->cpu_line, sizeof(run->cpu_line));
	if (run->screen == SCREEN_THREAD)
		thread_lines(run);
	return 0;
}

static int sample_pass(struct top_run *run)
{
	struct stk_thread_batch *b = &run->batch;

	stk_thread_batch_reset(b);
	if (stk_tsource_sample(run->source, b)) {
		snprintf(run->message, sizeof(run->message), "a sample pass failed: %s", strerror(errno));
		return 0;
	}
	stk_thread_select(run->select, b);
	run->last_wall = b->wall_ns;
	run->last_sec = b->mono_ns / 1000000000;
	if (stk_top_history_add(&run->history, b, run->last_sec) ||
	    stk_top_window_add(&run->window, b, run->filter_col >= 0 ? filter_thread : NULL, run))
		return -1;
	return 0;
}

static void open_group(struct top_run *run)
{
	const struct stk_vt_row *r = stk_vtable_selected(&run->groups);
	char values[768] = "";
	size_t at = 0;

	if (!r)
		return;
	snprintf(run->group_key, sizeof(run->group_key), "%s", r->key);
	for (size_t c = 2; c < run->groups.n_cols && at < sizeof(values); c++)
		at += (size_t)snprintf(values + at, sizeof(values) - at, "%s%s=%s", c > 2 ? "  " : "",
				       run->groups.cols[c].title, r->cells[c][0] ? r->cells[c] : "-");
	snprintf(run->group_title, sizeof(run->group_title), "threads of  %s", values);
	/* the window behind the groups was reset: its threads are the groups table's last fill */
	run->screen = SCREEN_THREADS;
	run->threads.sel = 0;
	free(run->threads.sel_key);
	run->threads.sel_key = NULL;
	stk_vtable_search(&run->threads, "");
}

static void take_stack(struct top_run *run)
{
	const struct stk_thread_stack_request req = {
		.tid = run->tid, .tgid = run->tgid, .self_tgid = (uint32_t)getpid(),
		.btf_custom_path = run->can_bpf ? stk_session_btf_path(&run->session) : NULL,
		.kernel_btf = run->session.btf.kernel_btf,
	};
	char err[512], when[64];

	snprintf(run->stack_note, sizeof(run->stack_note), "taking the stack of thread %" PRIu32 "...", run->tid);
	stk_vtable_clear(&run->stack);
	draw(run);
	stk_stack_list_free(&run->stack_list);
	if (stk_thread_stack_take(&req, run->sym, &run->stack_list, err, sizeof(err))) {
		snprintf(run->stack_note, sizeof(run->stack_note), "no stack: %.400s", err);
		stk_vtable_finish(&run->stack);
		return;
	}
	stk_format_utc(stk_now_ns(CLOCK_REALTIME), when, sizeof(when));
	const struct stk_stack *s = run->stack_list.n ? &run->stack_list.stacks[0] : NULL;
	snprintf(run->stack_note, sizeof(run->stack_note), "stack at %s UTC: %zu kernel and %zu user frames%s%s%s", when,
		 s ? s->n_kernel : 0, s ? s->n_user : 0, s && s->unwind_stop ? " (the chain ended: " : "",
		 s && s->unwind_stop ? s->unwind_stop : "", s && s->unwind_stop ? ")" : "");
	if (stk_top_stack_fill(&run->stack, &run->stack_list))
		snprintf(run->stack_note, sizeof(run->stack_note), "out of memory");
}

static void open_thread(struct top_run *run)
{
	const struct stk_vt_row *r = stk_vtable_selected(&run->threads);

	if (!r)
		return;
	run->tid = (uint32_t)r->values[0];
	run->tgid = (uint32_t)r->values[1];
	snprintf(run->thread_title, sizeof(run->thread_title), "thread %" PRIu32 " of process %" PRIu32
		 "  %s  %s  user %s  syscall %s  wchan %s", run->tid, run->tgid, r->cells[5], r->cells[3], r->cells[4],
		 r->cells[6][0] ? r->cells[6] : "-", r->cells[7][0] ? r->cells[7] : "-");
	run->screen = SCREEN_THREAD;
	run->stack.sel = run->stack.top = 0;
	stk_vtable_search(&run->stack, "");
	thread_lines(run);
	if (!run->replaying) {
		take_stack(run);
		return;
	}
	stk_vtable_clear(&run->stack);
	stk_vtable_finish(&run->stack);
	snprintf(run->stack_note, sizeof(run->stack_note), "a recording's thread states hold no stacks "
		 "(stk top on the live host takes them)");
}

static void go_back(struct top_run *run)
{
	struct stk_vtable *tb = current_table(run);

	if (tb->search[0]) { /* Esc first drops a search */
		stk_vtable_search(tb, "");
		return;
	}
	if (run->screen == SCREEN_THREAD)
		run->screen = SCREEN_THREADS;
	else if (run->screen == SCREEN_THREADS)
		run->screen = SCREEN_GROUPS;
}

static void apply_filter(struct top_run *run)
{
	char *eq = strchr(run->input, '=');
	int col;

	if (!run->input[0]) {
		run->filter_col = -1;
		snprintf(run->message, sizeof(run->message), "filter off");
		return;
	}
	if (eq)
		*eq = '\0';
	col = eq ? stk_tcol_from_name(run->input) : -1;
	if (col < 0) {
		snprintf(run->message, sizeof(run->message), "filter: expected COLUMN=VALUE with a column of: state, "
			 "username, comm, syscall, wchan, filename, exe, pid, tid");
		return;
	}
	run->filter_col = col;
	snprintf(run->filter_value, sizeof(run->filter_value), "%s", eq + 1);
	snprintf(run->message, sizeof(run->message), "filter %s=%s from the next refresh", stk_tcol_name(col), eq + 1);
}

static void apply_group(struct top_run *run)
{
	struct stk_group_spec spec = { 0 };
	char err[128];

	if (stk_group_spec_add(&spec, run->input, err, sizeof(err))) {
		snprintf(run->message, sizeof(run->message), "group by: %s", err);
		return;
	}
	run->cfg.group = spec;
	stk_top_window_regroup(&run->window, &spec);
	stk_top_window_regroup(&run->shown, &spec);
	stk_top_groups_init(&run->groups, &spec);
	run->screen = SCREEN_GROUPS;
	snprintf(run->message, sizeof(run->message), "grouped by %s from the next refresh", run->input);
}

/* A key while a prompt is open: edits the line; Enter takes it, Esc drops it. */
static void prompt_key(struct top_run *run, int key)
{
	size_t n = strlen(run->input);
	enum top_prompt p = run->prompt;

	if (key == STK_KEY_ESC) {
		run->prompt = PROMPT_NONE;
		if (p == PROMPT_SEARCH)
			stk_vtable_search(current_table(run), "");
		return;
	}
	if (key == STK_KEY_ENTER) {
		run->prompt = PROMPT_NONE;
		if (p == PROMPT_FILTER)
			apply_filter(run);
		else if (p == PROMPT_GROUP)
			apply_group(run);
		else if (p == PROMPT_TIME)
			replay_goto(run);
		if (run->replaying && (p == PROMPT_FILTER || p == PROMPT_GROUP))
			replay_at(run, run->step_from); /* the step read again under the new rule */
		return;
	}
	if (key == STK_KEY_BACKSPACE && n)
		run->input[n - 1] = '\0';
	else if (key >= 0x20 && key < 0x7f && n + 1 < sizeof(run->input))
		run->input[n] = (char)key, run->input[n + 1] = '\0';
	if (p == PROMPT_SEARCH) /* the rows narrow as the text is typed */
		stk_vtable_search(current_table(run), run->input);
}

static void open_prompt(struct top_run *run, enum top_prompt p)
{
	run->prompt = p;
	run->input[0] = '\0';
}

/* Replay: the step at from (kept within the recording) read and drawn. */
static void replay_at(struct top_run *run, int64_t from)
{
	int64_t step = run->cfg.delay_ms * 1000000;
	char err[512] = "";

	if (from > run->replay.end - step)
		from = run->replay.end - step;
	if (from < run->replay.first)
		from = run->replay.first;
	run->step_from = from;
	run->last_wall = from;
	run->last_sec = (from + step) / 1000000000 - 1;
	stk_top_window_reset(&run->window);
	if (stk_top_replay_read(&run->replay, from, from + step, &run->window, &run->history,
				run->filter_col >= 0 ? filter_thread : NULL, run, err, sizeof(err))) {
		snprintf(run->error, sizeof(run->error), "%s", err);
		stk_run_loop_request_stop(run->loop);
		return;
	}
	if (refresh(run)) {
		snprintf(run->error, sizeof(run->error), "out of memory");
		stk_run_loop_request_stop(run->loop);
	}
}

static void replay_goto(struct top_run *run)
{
	char err[256];
	int64_t at;

	if (stk_time_arg_parse(run->input, run->replay.first, &at, err, sizeof(err))) {
		snprintf(run->message, sizeof(run->message), "%s", err);
		return;
	}
	replay_at(run, at);
}

/* Sleeping threads counted too, or not: a source and a selector for that (the source's BPF loaded again). */
static void toggle_all(struct top_run *run)
{
	run->cfg.all = !run->cfg.all;
	stk_tsource_free(run->source);
	run->source = NULL;
	if (open_tsource(run, run->error, sizeof(run->error)) || new_selector(run)) {
		if (!run->error[0])
			snprintf(run->error, sizeof(run->error), "out of memory");
		stk_run_loop_request_stop(run->loop);
		return;
	}
	stk_top_window_reset(&run->window);
}

static void handle_key(struct top_run *run, int key)
{
	struct stk_vtable *tb = current_table(run);
	size_t rows = stk_term_table_rows(run->term, run->screen == SCREEN_GROUPS ? 3 : run->screen == SCREEN_THREADS ? 4 : 6);

	if (run->prompt != PROMPT_NONE) {
		prompt_key(run, key);
		return;
	}
	run->message[0] = '\0';
	switch (key) {
	case 'q': case 'Q': stk_run_loop_request_stop(run->loop); break;
	case STK_KEY_UP: case 'k': stk_vtable_move(tb, -1, rows); break;
	case STK_KEY_DOWN: case 'j': stk_vtable_move(tb, 1, rows); break;
	case STK_KEY_PGUP: stk_vtable_move(tb, -(long)rows, rows); break;
	case STK_KEY_PGDN: case ' ': stk_vtable_move(tb, (long)rows, rows); break;
	case STK_KEY_HOME: stk_vtable_home(tb, false, rows); break;
	case STK_KEY_END: stk_vtable_home(tb, true, rows); break;
	case '<': stk_vtable_sort(tb, tb->sort_col ? tb->sort_col - 1 : tb->n_cols - 1); break;
	case '>': stk_vtable_sort(tb, (tb->sort_col + 1) % tb->n_cols); break;
	case 'I': stk_vtable_sort(tb, tb->sort_col); break;
	case '/': open_prompt(run, PROMPT_SEARCH); break;
	case 'f': open_prompt(run, PROMPT_FILTER); break;
	case 'g': open_prompt(run, PROMPT_GROUP); break;
	case 'a':
		if (run->replaying)
			snprintf(run->message, sizeof(run->message), "a recording holds the threads its capture kept");
		else
			toggle_all(run);
		break;
	case 'r':
		if (run->screen == SCREEN_THREAD && !run->replaying)
			take_stack(run);
		break;
	case 't':
		if (run->replaying)
			open_prompt(run, PROMPT_TIME);
		break;
	case STK_KEY_LEFT:
	case STK_KEY_RIGHT:
		if (run->replaying) {
			replay_at(run, run->step_from + (key == STK_KEY_LEFT ? -1 : 1) * run->cfg.delay_ms * 1000000);
			break;
		}
		if (key == STK_KEY_LEFT) {
			go_back(run);
			break;
		}
		__attribute__((fallthrough)); /* right opens, as Enter */
	case STK_KEY_ENTER:
		if (run->screen == SCREEN_GROUPS)
			open_group(run);
		else if (run->screen == SCREEN_THREADS)
			open_thread(run);
		break;
	case STK_KEY_ESC: case STK_KEY_BACKSPACE: go_back(run); break;
	default: break;
	}
	if (run->screen == SCREEN_THREADS && key == STK_KEY_ENTER)
		stk_top_threads_fill(&run->threads, &run->shown, run->group_key);
}

static void on_keys(void *ctx)
{
	struct top_run *run = ctx;
	int key;

	while ((key = stk_term_key(run->term)) != STK_KEY_NONE)
		handle_key(run, key);
	draw(run);
}

static void on_resize(void *ctx)
{
	struct top_run *run = ctx;

	stk_term_resized(run->term);
	draw(run);
}

static int run_view(void *arg)
{
	struct top_run *run = arg;

	stk_host_cpu_init(&run->cpu);
	run->next_refresh = stk_now_ns(CLOCK_MONOTONIC);
	if (run->replaying) { /* keys move it: the loop only waits for them */
		replay_at(run, run->replay.first);
		draw(run);
		while (!run->error[0] && stk_run_loop_wait(run->loop) == STK_RUN_INTERVAL)
			;
	}
	for (; !run->replaying;) {
		if (sample_pass(run)) {
			snprintf(run->error, sizeof(run->error), "out of memory");
			break;
		}
		int64_t now = stk_now_ns(CLOCK_MONOTONIC);
		if (now >= run->next_refresh) {
			if (refresh(run)) {
				snprintf(run->error, sizeof(run->error), "out of memory");
				break;
			}
			draw(run);
			while (run->next_refresh <= now)
				run->next_refresh += run->cfg.delay_ms * 1000000;
		}
		enum stk_run_event ev = stk_run_loop_wait(run->loop);
		if (ev != STK_RUN_INTERVAL || run->error[0])
			break;
	}
	stk_term_close(run->term);
	run->term = NULL;
	if (run->error[0]) {
		stk_error(APPLET, "%s", run->error);
		return 1;
	}
	return 0;
}

static const struct stk_applet_steps steps = {
	.parse = parse_args, .setup = setup, .capture = run_view, .teardown = teardown,
};

STK_APPLET(top, .name = "top", .summary = "what is every thread doing, live? (a navigable full-screen view)",
	   .steps = &steps, .run_size = sizeof(struct top_run), .bare_link = false, .rank = 42);
