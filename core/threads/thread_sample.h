/*
 * One sample of what threads are doing: the record every threadstate source
 * (task iterator, tracepoint state map, /proc) fills the same way, and the
 * batch a sample pass produces. Fields a source cannot know stay empty
 * (syscall STK_TSYS_UNKNOWN, syscall_ns -1, "" strings, hash 0).
 */
#ifndef STK_THREAD_SAMPLE_H
#define STK_THREAD_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum stk_tstate {
	STK_TSTATE_RUN,     /* on a CPU */
	STK_TSTATE_RUNQ,    /* runnable, waiting for a CPU */
	STK_TSTATE_SLEEP,   /* interruptible sleep */
	STK_TSTATE_DISK,    /* uninterruptible (D) */
	STK_TSTATE_STOPPED, /* stopped or traced */
	STK_TSTATE_ZOMBIE,  /* exiting or dead, not reaped */
	STK_TSTATE_IDLE,    /* kernel threads idling (TASK_IDLE, parked) */
	STK_TSTATE_COUNT,
};

#define STK_TSYS_NONE (-1)    /* not in a syscall */
#define STK_TSYS_UNKNOWN (-2) /* the source cannot tell */

#define STK_THREAD_COMM_LEN 16
#define STK_THREAD_WCHAN_LEN 64
#define STK_THREAD_FILE_LEN 256

struct stk_thread {
	uint32_t tid, tgid;
	enum stk_tstate state;
	bool kthread;
	char comm[STK_THREAD_COMM_LEN];
	int32_t syscall;      /* number, or STK_TSYS_NONE / STK_TSYS_UNKNOWN */
	uint64_t args[6];
	int64_t syscall_ns;   /* time in the current syscall so far, -1 unknown */
	char wchan[STK_THREAD_WCHAN_LEN]; /* kernel function it waits in */
	char *kstack;         /* folded "root;...;leaf", owned by the batch, or NULL */
	char *ustack;
	/* Kernel stack addresses (leaf first) a BPF source took, not yet symbolized;
	   borrowed from the source, valid until its next pass. */
	const unsigned long long *kaddrs; /* the BPF side's __u64 */
	size_t n_kaddrs;
	/* Filled for kept threads by core/threads/thread_enrich.c. */
	char filename[STK_THREAD_FILE_LEN]; /* file behind the fd argument */
	const char *exe;      /* owned by the enrich cache, valid until its next pass */
	const char *username;
	bool keep;
};

struct stk_thread_batch {
	struct stk_thread *threads;
	size_t n, cap;
	int64_t wall_ns; /* CLOCK_REALTIME when the pass started */
	int64_t mono_ns; /* CLOCK_MONOTONIC, same moment */
};

/* A zeroed new record (syscall unknown, syscall_ns -1), or NULL when out of memory. */
struct stk_thread *stk_thread_batch_add(struct stk_thread_batch *b);
/* Empties the batch (frees the stack strings), keeping its memory. */
void stk_thread_batch_reset(struct stk_thread_batch *b);
void stk_thread_batch_free(struct stk_thread_batch *b);

/* "RUN", "RUNQ", "SLEEP", "DISK", "STOPPED", "ZOMBIE", "IDLE". */
const char *stk_tstate_name(enum stk_tstate s);
/* The state a name of stk_tstate_name gives: 0, or -1 for another name. */
int stk_tstate_from_name(const char *name, enum stk_tstate *s);
/* A task's state from the kernel's task_struct (__state or state, exit_state, on_cpu), as BPF reads them. */
enum stk_tstate stk_tstate_from_task(uint32_t state, uint32_t exit_state, bool on_cpu);
/* A /proc state letter (R S D T t Z X I P W K) as a state; R gives RUN. -1 when unknown. */
int stk_tstate_from_letter(char c, enum stk_tstate *s);

/*
 * The wchan-like function of a kernel stack (leaf first): the first frame
 * that is not the scheduler's own waiting machinery (schedule, __schedule,
 * schedule_timeout, io_schedule, ...). "" when every frame is.
 */
const char *stk_wchan_from_frames(const char *const *leaf_first, size_t n);
/* True for the scheduler's own frames skipped by stk_wchan_from_frames. */
bool stk_is_sched_frame(const char *name);

/* 64-bit FNV-1a of a folded stack; never 0 (0 means "no stack"). */
uint64_t stk_stack_hash(const char *folded);

#endif
