/*
 * The options every stack-collecting applet (profile, offcputime, stackcount)
 * shares, parsed in one place so they mean and say the same everywhere:
 * -p, the thread option (-L or -t), -U, -K, -d, -f, -v, --stack-storage-size,
 * --perf-max-stack-depth, -o, --format, --no-args, --btf, --unwind,
 * --stack-bytes and the trailing
 * [duration]. An applet lists STK_STACK_LONGOPTS in its getopt table, hands
 * every getopt result to stk_stack_opt() first, and calls stk_stack_opts_finish()
 * after the loop.
 */
#ifndef STK_STACK_OPTS_H
#define STK_STACK_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/ladder/ladder.h"
#include "core/output/output.h"
#include "core/probe/span_spec.h"

/* One capture can be written in several formats at once (-o a.svg -o a.pb.gz). */
#define STK_MAX_OUTPUTS 8

/* getopt codes of the shared long-only options; an applet numbers its own from STK_OPT_APPLET. */
enum stk_stack_long_opt {
	STK_OPT_STACK_STORAGE = 1000,
	STK_OPT_MAX_DEPTH,
	STK_OPT_FORMAT,
	STK_OPT_NO_ARGS,
	STK_OPT_BTF,
	STK_OPT_UNWIND,
	STK_OPT_STACK_BYTES,
	STK_OPT_NO_DEBUGINFOD,
	STK_OPT_LINES,
	STK_OPT_NO_INLINE,
	STK_OPT_CFI_ROWS,
	STK_OPT_CFI_CHAINS,
	STK_OPT_SPAN,
	STK_OPT_EVENT_BUFFER,
	STK_OPT_HOST,
	STK_OPT_APPLET = 1100,
};

/* Symbol options (debuginfod, source lines), shared by every stack applet. */
#define STK_SYMBOL_LONGOPTS                                                            \
	{ "no-debuginfod", no_argument, NULL, STK_OPT_NO_DEBUGINFOD },                 \
	{ "lines", no_argument, NULL, STK_OPT_LINES },                                 \
	{ "no-inline", no_argument, NULL, STK_OPT_NO_INLINE }
/* Their help lines. */
#define STK_SYMBOL_HELP                                                                                   \
	"      --no-debuginfod         never fetch debug files from $DEBUGINFOD_URLS\n"                  \
	"      --lines                 source file:line of every frame (text), inlined frames marked\n"      \
	"      --no-inline             no frames for functions inlined into others (as perf's --no-inline)\n"

/* How user stacks are taken, shared by every stack applet: the options and their help lines. */
#define STK_UNWIND_LONGOPTS                                                            \
	{ "unwind", required_argument, NULL, STK_OPT_UNWIND },                         \
	{ "stack-bytes", required_argument, NULL, STK_OPT_STACK_BYTES },               \
	{ "cfi-rows", required_argument, NULL, STK_OPT_CFI_ROWS },                     \
	{ "cfi-chains", required_argument, NULL, STK_OPT_CFI_CHAINS }
#define STK_UNWIND_HELP                                                                                     \
	"      --unwind cfi|dwarf|fp   user stacks: CFI walked in the kernel (default where it runs), a\n"    \
	"                              stack copy unwound with libdw, or frame pointers\n"                  \
	"      --stack-bytes N         stack copied per event for dwarf (and cfi's first samples) (default 8192)\n" \
	"      --cfi-rows N            rows of CFI the kernel's tables hold (default 2097152, 16 bytes each)\n" \
	"      --cfi-chains N          chain store: chunks of 32 frames it holds (default 32768)\n"

/*
 * The help lines of the stack choices every stack applet but stackcount
 * words alike (-U, -K, -d, -f, the stack map's size, the depth, how user
 * stacks are taken): one %d, STK_STACK_STORAGE_DEFAULT.
 */
#define STK_STACK_CHOICES_HELP                                                                               \
	"  -U, --user-stacks-only      only user stacks\n"                                                   \
	"  -K, --kernel-stacks-only    only kernel stacks\n"                                                 \
	"  -d, --delimited             '--' (text) / '-' (folded) between kernel and user frames\n"          \
	"  -f, --folded                folded output for flamegraph.pl (same as --format folded)\n"          \
	"      --stack-storage-size N  unique stacks the stack map holds (default %d)\n"                     \
	"      --perf-max-stack-depth N  frames kept per stack (default kernel.perf_event_max_stack)\n"      \
	STK_UNWIND_HELP

/* The event log's options (-o FILE.parquet, timelines, spans): the options and their help lines. */
#define STK_EVENT_LONGOPTS                                                             \
	{ "span", required_argument, NULL, STK_OPT_SPAN },                             \
	{ "event-buffer", required_argument, NULL, STK_OPT_EVENT_BUFFER },           \
	{ "host", required_argument, NULL, STK_OPT_HOST }
#define STK_EVENT_HELP                                                                                      \
	"      --span LIB:FUNC[:argN]  label events between FUNC's entry and return FUNC (or FUNC=argN);\n"   \
	"                              u:LIB:PROVIDER:START,END for a USDT pair; repeatable (event outputs)\n" \
	"      --event-buffer MB       the ring buffer events pass through (default 8)\n"                      \
	"      --host NAME             the event log's host column (default: this host's name)\n"

/* The shared getopt_long entries but -p, the thread option and -d (stackcount has no thread option, and -d is its own). */
#define STK_STACK_COMMON_LONGOPTS                                                      \
	{ "user-stacks-only", no_argument, NULL, 'U' },                                \
	{ "kernel-stacks-only", no_argument, NULL, 'K' },                              \
	{ "folded", no_argument, NULL, 'f' },                                          \
	{ "stack-storage-size", required_argument, NULL, STK_OPT_STACK_STORAGE },      \
	{ "perf-max-stack-depth", required_argument, NULL, STK_OPT_MAX_DEPTH },        \
	{ "output", required_argument, NULL, 'o' },                                    \
	{ "format", required_argument, NULL, STK_OPT_FORMAT },                         \
	{ "no-args", no_argument, NULL, STK_OPT_NO_ARGS },                             \
	{ "btf", required_argument, NULL, STK_OPT_BTF },                               \
	STK_UNWIND_LONGOPTS,                                                           \
	STK_SYMBOL_LONGOPTS,                                                           \
	STK_EVENT_LONGOPTS,                                                            \
	{ "verbose", no_argument, NULL, 'v' },                                         \
	{ "help", no_argument, NULL, 'h' }
/* The shared getopt_long entries; TID_LETTER is the applet's thread option. */
#define STK_STACK_LONGOPTS(TID_LETTER)                                                 \
	{ "pid", required_argument, NULL, 'p' },                                       \
	{ "tid", required_argument, NULL, TID_LETTER },                                \
	{ "delimited", no_argument, NULL, 'd' },                                       \
	STK_STACK_COMMON_LONGOPTS
/* The shared short options for the getopt string (without the thread option). */
#define STK_STACK_SHORTOPTS "p:UKdfo:vh"

/* --stack-storage-size's default: stacks the frame-pointer stack map holds. */
#define STK_STACK_STORAGE_DEFAULT 16384
/* --stack-bytes: bounds and default (perf record --call-graph dwarf copies 8 KiB too). */
#define STK_STACK_BYTES_MIN 1024
#define STK_STACK_BYTES_MAX 32768
#define STK_STACK_BYTES_DEFAULT 8192
/* The kernel unwinder's map sizes (core/bpf/unwind_maps.c says what they cost). */
#define STK_CFI_ROWS_DEFAULT (2u << 20)
#define STK_CFI_CHAINS_DEFAULT 32768u
/* --event-buffer, in MiB (a power of two: the ring buffer's size). */
#define STK_EVENT_BUFFER_DEFAULT 8u
#define STK_EVENT_BUFFER_MAX 1024u

struct stk_stack_opts {
	const char *applet;      /* its name, for messages */
	const char *command;     /* the command line as typed (the invocation's; what recordings say of themselves) */
	int argc;                /* the applet's arguments (the invocation's) */
	char **argv;
	char tid_opt;            /* the thread option's letter: 'L' (profile) or 't' */
	uint32_t *pids, *tids;   /* owned; stk_stack_opts_free() */
	size_t n_pids, n_tids;
	bool user_only, kernel_only, delimiter, verbose, no_args, format_given;
	bool no_debuginfod, lines, no_inline;
	uint64_t stack_storage_size, max_depth;
	uint64_t max_depth_limit; /* kernel.perf_event_max_stack */
	const char *btf_file;
	const char *output_paths[STK_MAX_OUTPUTS];
	enum stk_format output_formats[STK_MAX_OUTPUTS];
	size_t n_outputs;
	enum stk_format format;
	long duration_ms;        /* 0: until Ctrl-C or SIGTERM */
	enum stk_unwind_rung unwind; /* --unwind: the rung asked for (core/unwind/unwind_plan.h decides) */
	bool unwind_given;
	uint32_t stack_bytes;    /* user stack copied per event with --unwind dwarf */
	uint32_t cfi_rows;       /* --cfi-rows: the kernel unwinder's row capacity */
	uint32_t cfi_chains;     /* --cfi-chains: its chain store's chunks */
	const char *spans[STK_SPAN_MAX]; /* --span, as given (checked by stk_span_spec_parse) */
	size_t n_spans;
	uint32_t event_buffer_mb; /* --event-buffer */
	const char *host;         /* --host (checked), or NULL: this host's name */
	const char *cgroup_path;  /* --cgroup, where the applet offers it (profile, record): a cgroup v2 directory */
};

/* Defaults: text format, all frames the kernel allows (max_depth_limit). */
void stk_stack_opts_init(struct stk_stack_opts *o, char tid_opt, uint64_t max_depth_limit);
/*
 * One getopt_long result. 1: a shared option, taken; 0: not a shared option
 * (the applet handles it); -1: a bad value, msg says which and why.
 * 'h', ':' and unknown options are left to the applet.
 */
int stk_stack_opt(struct stk_stack_opts *o, int c, const char *arg, char *msg, size_t len);
/*
 * After the getopt loop: the optional trailing duration (argv[optind]), -U
 * with -K, the format of every -o, and the -p / thread targets. 0, or -1
 * with msg.
 */
int stk_stack_opts_finish(struct stk_stack_opts *o, int optind, char *msg, size_t len);
void stk_stack_opts_free(struct stk_stack_opts *o);

/* stk_stack_getopt()'s result for a bad value of a shared option (msg says which). */
#define STK_OPT_BAD (-2)
/*
 * Before the getopt loop: stk_stack_opts_init with this kernel's
 * perf_event_max_stack for applet run as inv, and getopt reset to argv[1]
 * with its own errors off.
 */
struct stk_invocation;
void stk_stack_opts_begin(struct stk_stack_opts *o, const char *applet, const struct stk_invocation *inv, char tid_opt);
/*
 * getopt_long over the invocation's arguments (shortopts starting with ':')
 * that takes the shared options itself and returns the next one that is the
 * applet's own ('h' included), -1 at the end, or STK_OPT_BAD with msg (a bad
 * value, a missing argument, an unknown option). Letters in own are the
 * applet's even where a shared option has them (stackcount's -d).
 */
int stk_stack_getopt(struct stk_stack_opts *o, const char *shortopts, const struct option *longopts, const char *own,
		     char *msg, size_t len);
/* For a stack applet's header line: whose stacks ("the given processes", "all threads") and which ("user + kernel"). */
const char *stk_stack_opts_whose(const struct stk_stack_opts *o);
const char *stk_stack_opts_which(const struct stk_stack_opts *o);
/*
 * The -o and --format lines of an applet's help, made from the format table:
 * the offered formats' suffixes and names. deflt, the applet's default
 * format, is listed first as "NAME (default)" unless it is text (every
 * other applet's, said nowhere).
 */
void stk_output_help(FILE *out, enum stk_format_offer offer, enum stk_format deflt);
/* The end of a stack applet's header line: " for N secs." or "... Hit Ctrl-C to end.", flushed. */
void stk_stack_opts_print_until(const struct stk_stack_opts *o);

#endif
