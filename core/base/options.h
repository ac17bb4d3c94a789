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
/* Seconds, possibly fractional ("2", "0.5"), > 0 -> milliseconds. 0 or -1. */
int stk_parse_seconds(const char *text, long *ms);
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
/*
 * getopt_long's own complaints as one line into msg: ':' an option without
 * its argument, anything else an unknown option (see 'stk APPLET --help').
 * argv and optind as getopt_long left them. Returns msg.
 */
const char *stk_getopt_problem(int c, const char *applet, char **argv, char *msg, size_t len);

#endif
