/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user registers a DWARF unwinder starts from, per architecture, in
 * DWARF register numbering (user space hands them to libdw as they are).
 * Adding an architecture means: STK_UREGS_N, STK_UREG_SP, STK_UREG_PC, STK_UREG_FP,
 * STK_UREG_LR,
 * stk_uregs_t, stk_uregs_from(), stk_regs_user_mode(), stk_uregs_sp() (and _pc, _fp, _lr), STK_THREAD_SIZE and
 * STK_TASK_PT_REGS_SIZE (0: no path before bpf_task_pt_regs).
 */
#ifndef STK_USER_REGS_H
#define STK_USER_REGS_H

#ifdef __bpf__
/*
 * Ends a branch that read the event's registers from ctx, where another
 * branch reads the same fields from memory: without it the compiler may
 * merge the two into loads through one pointer that is either, and the
 * verifier refuses ctx read through a computed pointer.
 */
#define STK_CTX_READS_END() asm volatile("" ::: "memory")
#endif

#if defined(__TARGET_ARCH_x86) || (!defined(__bpf__) && defined(__x86_64__))
/* rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip (x86_64 DWARF 0..16) */
#define STK_UREGS_N 17
#define STK_UREG_SP 7
#define STK_UREG_PC 16
#define STK_UREG_FP 6  /* rbp */
#define STK_UREG_LR (-1) /* none: calls push the return address */
/* Kernel stack size (pt_regs sit at its top before bpf_task_pt_regs); 16 KiB without KASAN. */
#define STK_THREAD_SIZE 16384

#ifdef __bpf__
/* The user registers as the kernel saves them (UAPI layout). */
typedef struct pt_regs stk_uregs_t;
#define stk_uregs_from(out, r)                                                                 \
	do {                                                                                   \
		(out)[0] = (r).rax; (out)[1] = (r).rdx; (out)[2] = (r).rcx; (out)[3] = (r).rbx; \
		(out)[4] = (r).rsi; (out)[5] = (r).rdi; (out)[6] = (r).rbp; (out)[7] = (r).rsp; \
		(out)[8] = (r).r8; (out)[9] = (r).r9; (out)[10] = (r).r10;                    \
		(out)[11] = (r).r11; (out)[12] = (r).r12; (out)[13] = (r).r13;                 \
		(out)[14] = (r).r14; (out)[15] = (r).r15; (out)[16] = (r).rip;                 \
	} while (0)
/* The interrupted code ran in user mode (CPL 3). */
#define stk_regs_user_mode(r) (((r).cs & 3) == 3)
#define stk_uregs_sp(r) ((r).rsp)
#define stk_uregs_pc(r) ((r).rip)
#define stk_uregs_fp(r) ((r).rbp)
#define stk_uregs_lr(r) 0ULL
/* pt_regs below the top of task->stack (kernels before bpf_task_pt_regs): its size is the UAPI one. */
#define STK_TASK_PT_REGS_SIZE sizeof(struct pt_regs)
#endif

#elif defined(__TARGET_ARCH_arm64) || (!defined(__bpf__) && defined(__aarch64__))
/* x0..x30 sp pc (arm64 DWARF 0..31, then the pc; libdw takes the pc apart) */
#define STK_UREGS_N 33
#define STK_UREG_SP 31
#define STK_UREG_PC 32
#define STK_UREG_FP 29 /* x29 */
#define STK_UREG_LR 30 /* x30 */
#define STK_THREAD_SIZE 16384

#ifdef __bpf__
/*
 * The kernel's pt_regs starts with this UAPI layout. Unrolled: r may be a
 * perf_event context, whose fields the verifier lets a program read only at
 * constant offsets.
 */
typedef struct user_pt_regs stk_uregs_t;
#define stk_uregs_from(out, r)                                   \
	do {                                                     \
		_Pragma("unroll")                                \
		for (int i_ = 0; i_ < 31; i_++)                  \
			(out)[i_] = (r).regs[i_];                \
		(out)[31] = (r).sp;                              \
		(out)[32] = (r).pc;                              \
	} while (0)
/* PSTATE.M == EL0t */
#define stk_regs_user_mode(r) (((r).pstate & 0xf) == 0)
#define stk_uregs_sp(r) ((r).sp)
#define stk_uregs_pc(r) ((r).pc)
#define stk_uregs_fp(r) ((r).regs[29])
#define stk_uregs_lr(r) ((r).regs[30])
/* The kernel's pt_regs is larger than the UAPI part and changes size across versions: CO-RE gives its size. */
#define STK_TASK_PT_REGS_SIZE bpf_core_type_size(struct pt_regs___stk_arm64)
#endif

#else
#error "bpf/user_regs.h: no user register set for this architecture yet"
#endif

#endif
