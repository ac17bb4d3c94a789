/* SPDX-License-Identifier: GPL-2.0 */
/* Types shared by bpf/resources*.bpf.c and cmd/resources.c (the kinds, the configuration; counts are keyed by struct stk_stack_ref). */
#ifndef STK_RESOURCES_TYPES_H
#define STK_RESOURCES_TYPES_H

#include "stack_types.h"

/* What a stack is weighed by (core/resources/kinds.c names them). */
enum stk_res_kind {
	STK_RES_RSS,        /* bytes of resident memory growth */
	STK_RES_FAULTS,     /* page faults */
	STK_RES_BLOCK,      /* bytes of block I/O, by the stack that made the request */
	STK_RES_BLOCK_TIME, /* nanoseconds from issue to completion (microseconds in reports) */
	STK_RES_READ,       /* bytes read by read(2) and its kin, sockets aside */
	STK_RES_WRITE,      /* bytes written by write(2) and its kin, sockets aside */
	STK_RES_SEND,       /* bytes sent on TCP and UDP sockets */
	STK_RES_RECV,       /* bytes received on TCP and UDP sockets */
	STK_RES_SYSCALL,    /* nanoseconds from a system call's entry to its exit (detail: its number + 1) */
	STK_RES_IORQ,       /* a block request from issue to completion, by the stack that made it, one event each */
	STK_RES_KIND_COUNT,
};

/* stk_stack_ref.detail of block kinds */
#define STK_RES_BLOCK_READ 1
#define STK_RES_BLOCK_WRITE 2
/* stk_stack_ref.detail of read, write, send, recv, syscall: the system call's number + 1 (0: not by a system call) */

/* Where a classic tracepoint's record holds the fields stk reads (from tracefs' format files). */
struct stk_res_offsets {
	__u16 rss_mm_id, rss_curr, rss_member, rss_size;
	__u16 getrq_sector, getrq_rwbs;
	__u16 issue_sector, issue_nr_sector, issue_rwbs, issue_dev;
	__u16 done_sector, done_rwbs;
	__u16 sock_family, sock_protocol, sock_ret, sock_flags;
};

/* For user space: the maps of its own (its programs are each source's rungs', core/attach/attach_resources.c). */
#define STK_RES_MAPS { "res_config", "res_facts", "res_every", "res_rss_last", "res_block", "res_sys_start", NULL }

/* res_config (one-entry array map; no global data, so 4.14 loads it). Counts keyed by struct stk_stack_ref, its type the kind. */
struct stk_res_config {
	struct stk_stack_config stack;
	__u32 enabled;          /* bit per enum stk_res_kind asked for */
	__u32 every[STK_RES_KIND_COUNT]; /* take every Nth event of each kind (1: all), its weight times N */
	__u32 fd_types;         /* sys_exit: BTF read the file behind fds (sockets told apart) */
	__u32 sockets_by_syscall; /* sys_exit counts send and recv too (the socket ladder's sys_exit rung) */
	struct stk_res_offsets off;
	__u64 min_latency_ns;   /* syscall, iorq: shorter ones are left out */
};

/* A block request made and not yet completed: who made it, and when it was issued. */
struct stk_res_block_start {
	struct stk_stack_ref ref; /* type left for issue and completion */
	__u64 issued_ns;        /* 0: not issued yet */
	__u64 bytes;            /* as issued */
	__u32 sampled;          /* 0: left out by every-Nth, neither issue nor completion counts it */
	__u32 tid;              /* the thread that made it (ref.tid is 0 unless threads are kept apart) */
	__u32 dev;              /* its device (dev_t), once issued */
	__u32 pad;
};

/* A system call under way (syscall): since when, which. */
struct stk_res_sys_start {
	__u64 ns;
	__u64 nr;
};

/* Slots of res_facts (per-CPU counters beyond bpf/stack_stats.h, for -v and warnings). */
enum stk_res_fact {
	STK_RES_FACT_BLOCK_UNSEEN,    /* a request issued whose making was not seen (before the capture, or a front merge) */
	STK_RES_FACT_BLOCK_FULL,      /* no room for a request in flight: its bytes and time not counted */
	STK_RES_FACT_RSS_BASELINE,    /* an address space's first change: its baseline, not counted */
	STK_RES_FACT_SOCKET_UNKNOWN,  /* sys_exit: a socket of another protocol (or unreadable) left out */
	STK_RES_FACT_COUNT,
};

#endif
