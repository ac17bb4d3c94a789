/*
 * Reading a thread's /proc/PID/task/TID files for threadstate: small-file
 * reads and the parsers of stat, syscall, stack and schedstat (the parsers
 * take text so they are unit-tested on fixed strings).
 */
#ifndef STK_THREAD_PROCFS_H
#define STK_THREAD_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Reads up to len-1 bytes of path, NUL-terminated. Bytes read, or -1. */
long stk_read_small_file(const char *path, char *buf, size_t len);

/* /proc/.../stat: comm (between the outer parentheses), state letter, flags. 0 or -1. */
int stk_parse_task_stat(const char *text, char comm[16], char *state, unsigned long *flags);
/*
 * /proc/.../syscall: "NR ARG0..ARG5 SP PC" -> nr and args; "-1 SP PC" -> STK_TSYS_NONE;
 * "running" (or anything else) -> STK_TSYS_UNKNOWN. Returns *nr.
 */
int32_t stk_parse_task_syscall(const char *text, uint64_t args[6], int32_t *nr);
/*
 * /proc/.../syscall's user stack pointer and program counter, its last two
 * fields ("NR ARG0..ARG5 SP PC" or "-1 SP PC"). 0, or -1 for "running" or
 * anything else.
 */
int stk_parse_task_syscall_sp_pc(const char *text, uint64_t *sp, uint64_t *pc);
/* /proc/.../status: voluntary_ctxt_switches + nonvoluntary_ctxt_switches. 0, or -1 when absent. */
int stk_parse_status_switches(const char *text, uint64_t *switches);
/* /proc/.../stack's function names, leaf first: at most max (start, length) spans of text. Returns the count. */
size_t stk_parse_proc_stack(const char *text, const char **names, size_t *lens, size_t max);
/*
 * /proc/.../stack ("[<0>] do_nanosleep+0x6d/0x1a0" per line, leaf first) ->
 * a newly allocated folded "root;...;leaf" of function names (NULL when
 * empty or out of memory); wchan receives the stack's wchan-like function.
 */
char *stk_fold_proc_stack(const char *text, char *wchan, size_t wchan_len);
/* /proc/.../schedstat: time on CPU and time waiting on a run queue, ns. 0 or -1. */
int stk_parse_schedstat(const char *text, uint64_t *run_ns, uint64_t *wait_ns);

/*
 * RUN or RUNQ for a thread /proc shows as R, from its schedstat times at
 * successive samples. Zeroed before the thread's first sample.
 */
struct stk_run_split {
	uint64_t run_ns, wait_ns; /* schedstat at the previous sample */
	double credit;            /* on-CPU share not yet paid out as RUN samples */
	bool valid;
};
/* True (RUN) or false (RUNQ) for a sample with these schedstat times. */
bool stk_run_split_on_cpu(struct stk_run_split *s, uint64_t run_ns, uint64_t wait_ns);

#endif
