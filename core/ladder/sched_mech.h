/*
 * The sched_switch mechanisms of offcputime, cheapest first, and the pure
 * helpers core/attach/attach_sched.c uses to pick and attach one.
 */
#ifndef STK_SCHED_MECH_H
#define STK_SCHED_MECH_H

#include <stddef.h>
#include <stdio.h>

enum stk_sched_mech {
	STK_SCHED_TP_BTF,     /* tp_btf/sched_switch (5.5+, kernel BTF) */
	STK_SCHED_RAW_TP,     /* raw_tp/sched_switch (4.17+) */
	STK_SCHED_TRACEPOINT, /* sched:sched_switch classic record (no BTF needed) */
	STK_SCHED_KPROBE,     /* kprobe on finish_task_switch (kernel BTF for CO-RE) */
	STK_SCHED_MECH_COUNT,
};

const char *stk_sched_mech_name(enum stk_sched_mech m);
/* "tp_btf", "raw_tp", "tracepoint", "kprobe" -> m. 0, or -1 if unknown. */
int stk_sched_mech_from_name(const char *name, enum stk_sched_mech *m);

/*
 * Finds the text symbol for finish_task_switch in kallsyms text: the exact
 * name, else a compiler clone ("finish_task_switch.isra.0"). 0 with the name
 * in buf, -1 when there is none.
 */
int stk_find_finish_task_switch(FILE *kallsyms, char *buf, size_t len);

#endif
