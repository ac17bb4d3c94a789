/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-CPU loss and event counters every stack program keeps (stk_stats,
 * bpf/stack_maps.h), shared by BPF and user space so that one report
 * (core/session/session.c) speaks for every applet.
 */
#ifndef STK_STACK_STATS_H
#define STK_STACK_STATS_H

enum stk_stack_stat {
	STK_STAT_KSTACK_COLLISION, /* -EEXIST: stack map hash collision */
	STK_STAT_KSTACK_FULL,      /* -ENOMEM: stack map full */
	STK_STAT_USTACK_COLLISION,
	STK_STAT_USTACK_FULL,
	STK_STAT_COUNTS_FULL,      /* the count map had no room for a new key */
	STK_STAT_NEW_PROCESS_LOST, /* a new-process announcement was dropped */
	STK_STAT_START_FULL,       /* offcputime: start map full, a block went unmeasured */
	STK_STAT_SAMPLES_LOST,     /* --unwind dwarf: a sample not sent (perf buffer full) */
	STK_STAT_SAMPLES_SENT,     /* --unwind dwarf, hashed: samples of new content sent */
	STK_STAT_SENT_FULL,        /* --unwind dwarf, hashed: the sent-hash map full, samples re-sent */
	STK_STAT_COUNT,
};

#endif
