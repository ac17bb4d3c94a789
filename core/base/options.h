/* Parsing helpers for the options every applet shares. */
#ifndef STK_OPTIONS_H
#define STK_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>


/* "123,456" -> newly allocated array of positive ids (caller frees). 0 or -1. */
int stk_parse_id_list(const char *text, uint32_t **ids, size_t *n);
/* A whole decimal number in [min, max]. 0 or -1. */
int stk_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *value);
/*
 * Calls fn with each comma-separated item of list (its first byte and
 * length, not NUL-terminated; empty ones too), in order: 0, or the first
 * nonzero fn returned.
 */
int stk_each_item(const char *list, int (*fn)(void *ctx, const char *item, size_t n), void *ctx);
/*
 * An -e item "KIND" or "KIND:N" of n bytes: the name's length, whether :N
 * is there (*has_n) and N into *v. 0, or -1 when N is not a number from 1 to max.
 */
int stk_kind_item(const char *item, size_t n, size_t *name_len, bool *has_n, uint64_t max, uint64_t *v);
/* stk_each_item over -e KIND[:N],...: an empty item is refused (msg says so), fn takes each other. 0 or -1. */
int stk_each_kind(const char *spec, int (*fn)(void *ctx, const char *item, size_t n, char *msg, size_t len), void *ctx,
		  char *msg, size_t len);
/* Seconds, possibly fractional ("2", "0.5"), > 0 -> milliseconds. 0 or -1. */
int stk_parse_seconds(const char *text, long *ms);
/* A time with a unit ("500ms", "10s", "10m", "1h", "2d"; a bare number is seconds), > 0 -> ns. 0 or -1. */
int stk_parse_duration(const char *text, int64_t *ns);
/* A size with a unit ("512", "64K", "100M", "2G", "1T": powers of 1024), > 0 -> bytes. 0 or -1. */
int stk_parse_size(const char *text, uint64_t *bytes);
/* 0 when /proc/ID (a process, or with tid a thread of any process) exists. */
int stk_check_pid_exists(uint32_t pid);
int stk_check_tid_exists(uint32_t tid);

/*
 * The process and thread filters of a stack applet (pid_opt/tid_opt name the
 * options in messages, e.g. "-p", "-L"): stk must run in the host's PID
 * namespace (BPF sees host PIDs) and every id must exist. 0, or -1 with a
 * one-line reason in msg.
 */
int stk_check_targets(const uint32_t *pids, size_t n_pids, const char *pid_opt, const uint32_t *tids,
		      size_t n_tids, const char *tid_opt, char *msg, size_t len);
/* A --cgroup directory (v2 cgroup.threads or v1 tasks readable): 0, or -1 with "not a cgroup directory ..." in msg. */
int stk_check_cgroup_dir(const char *dir, char *msg, size_t len);
/*
 * getopt_long's own complaints as one line into msg: ':' an option without
 * its argument, anything else an unknown option (see 'stk APPLET --help').
 * argv and optind as getopt_long left them. Returns msg.
 */
const char *stk_getopt_problem(int c, const char *applet, char **argv, char *msg, size_t len);

#endif
