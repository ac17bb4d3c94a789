/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user registers a DWARF unwinder starts from, per architecture, in
 * DWARF register numbering (user space hands them to libdw as they are).
 * Adding an architecture means: STK_UREGS_N, STK_UREG_SP, STK_UREG_PC,
 * stk_uregs_from(), stk_regs_user_mode() and STK_THREAD_SIZE.
 */
#ifndef STK_USER_REGS_H
#define STK_USER_REGS_H

#if defined(__TARGET_ARCH_x86) || defined(__x86_64__)
/* rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip (x86_64 DWARF 0..16) */
#define STK_UREGS_N 17
#define STK_UREG_SP 7
#define STK_UREG_PC 16
/* Kernel stack size (pt_regs sit at its top before bpf_task_pt_regs); 16 KiB without KASAN. */
#define STK_THREAD_SIZE 16384

#ifdef __bpf__
/* r: a UAPI struct pt_regs lvalue (the perf_event context's regs or a copy). */
#define stk_uregs_from(out, r)                                                             \
	do {                                                                               \
		(out)[0] = (r).rax; (out)[1] = (r).rdx; (out)[2] = (r).rcx; (out)[3] = (r).rbx; \
		(out)[4] = (r).rsi; (out)[5] = (r).rdi; (out)[6] = (r).rbp; (out)[7] = (r).rsp; \
		(out)[8] = (r).r8; (out)[9] = (r).r9; (out)[10] = (r).r10;                \
		(out)[11] = (r).r11; (out)[12] = (r).r12; (out)[13] = (r).r13;             \
		(out)[14] = (r).r14; (out)[15] = (r).r15; (out)[16] = (r).rip;              \
	} while (0)
/* The interrupted code ran in user mode (CPL 3). */
#define stk_regs_user_mode(r) (((r).cs & 3) == 3)
#endif

#else
#error "bpf/user_regs.h: no user register set for this architecture yet"
#endif

#endif
