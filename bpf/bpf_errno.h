/* SPDX-License-Identifier: GPL-2.0 */
/* The errno values BPF helpers return that stk's programs tell apart (no libc in BPF). */
#ifndef STK_BPF_ERRNO_H
#define STK_BPF_ERRNO_H

#define STK_ENOENT 2  /* bpf_perf_event_output: user space has not opened this CPU's buffer yet */
#define STK_ENOMEM 12 /* bpf_get_stackid: stack map full */
#define STK_EEXIST 17 /* bpf_get_stackid: hash collision */
#define STK_EFAULT 14 /* bpf_get_stackid: no stack of that kind (a kernel thread's user stack) */
#define STK_ENOSPC 28 /* the kernel unwinder: a chain not kept (its store was full) */

#endif
