/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmp's thread snapshot, shared by bpf/pmp.bpf.c and user space
 * (core/snapshot/bpf/snap_iter.c): the configuration and the record the
 * sleepable task iterator writes per thread, followed by the copied user
 * stack (stack_bytes of it, padded to 8 bytes).
 */
#ifndef STK_PMP_TYPES_H
#define STK_PMP_TYPES_H

#include <linux/types.h>

#include "user_regs.h"

#define STK_PMP_COMM_LEN 16
/* Kernel frames kept per thread. */
#define STK_PMP_KSTACK_MAX 64
/*
 * User stack copied per thread at most: a thread's record must fit in the
 * iterator's seq_file buffer (8 pages), or the whole read fails with E2BIG.
 */
#define STK_PMP_STACK_MAX 24576

/* Which threads a pass writes. */
#define STK_PMP_FILTER_ALL 0
#define STK_PMP_FILTER_TGIDS 1 /* those whose tgid is a key of pmp_filter */
#define STK_PMP_FILTER_TIDS 2  /* those whose tid is */
#define STK_PMP_FILTER_MAX 65536

/* Record flags. */
#define STK_PMP_F_KTHREAD 0x1
#define STK_PMP_F_ON_CPU 0x2     /* running now: registers stale, the stack changing */
#define STK_PMP_F_REGS 0x4       /* regs[] are the user registers saved at kernel entry */
#define STK_PMP_F_RACED 0x8      /* it ran while its stack was copied: the copy is not one moment */
#define STK_PMP_F_COPY_FAULT 0x10 /* the stack could not be copied */
#define STK_PMP_F_NO_VMA 0x20    /* its stack pointer is in no mapping */

struct stk_pmp_config {
	__u32 skip_tgid;   /* stk itself */
	__u32 filter;      /* STK_PMP_FILTER_* */
	__u32 stack_bytes; /* user stack copied per thread, at most STK_PMP_STACK_MAX */
	__u32 pad;
};

struct stk_pmp_record {
	__u32 size;        /* bytes of this record with its stack, a multiple of 8 */
	__u32 tid, tgid;
	__u32 flags;
	__u32 state;       /* task_struct __state / state */
	__u32 exit_state;
	__s32 kstack_bytes; /* bpf_get_task_stack's result: bytes, or a negative error */
	__u32 stack_bytes;  /* user stack copied from regs[STK_UREG_SP] up */
	__u64 switches;     /* nvcsw + nivcsw before the copy */
	__u64 stack_end;    /* end of the mapping holding the stack pointer */
	char comm[STK_PMP_COMM_LEN];
	__u64 regs[STK_UREGS_N];
	__u64 kstack[STK_PMP_KSTACK_MAX];
};

#endif
