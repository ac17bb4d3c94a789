#include "core/snapshot/snap_ptrace.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <elf.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>

#include "bpf/user_regs.h"

int stk_ptrace_stop(pid_t tid, char *why, size_t len)
{
	int status;

	if (ptrace(PTRACE_SEIZE, tid, NULL, NULL)) {
		snprintf(why, len, "PTRACE_SEIZE failed: %s", strerror(errno));
		return -1;
	}
	if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL)) {
		snprintf(why, len, "PTRACE_INTERRUPT failed: %s", strerror(errno));
		ptrace(PTRACE_DETACH, tid, NULL, NULL);
		return -1;
	}
	while (waitpid(tid, &status, __WALL) < 0) {
		if (errno != EINTR) {
			snprintf(why, len, "waiting for it to stop failed: %s", strerror(errno));
			ptrace(PTRACE_DETACH, tid, NULL, NULL);
			return -1;
		}
	}
	if (!WIFSTOPPED(status)) {
		snprintf(why, len, "it exited");
		return -1;
	}
	return 0;
}

int stk_ptrace_regs(pid_t tid, uint64_t *regs, size_t n)
{
	struct user_regs_struct u;
	struct iovec iov = { &u, sizeof(u) };

	if (n < STK_UREGS_N || ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRSTATUS, &iov))
		return -1;
#if defined(__x86_64__)
	const uint64_t dwarf[STK_UREGS_N] = { u.rax, u.rdx, u.rcx, u.rbx, u.rsi, u.rdi, u.rbp, u.rsp, u.r8,
					      u.r9, u.r10, u.r11, u.r12, u.r13, u.r14, u.r15, u.rip };
#elif defined(__aarch64__)
	uint64_t dwarf[STK_UREGS_N];
	for (int i = 0; i < 31; i++)
		dwarf[i] = u.regs[i];
	dwarf[31] = u.sp;
	dwarf[32] = u.pc;
#else
#error "snap_ptrace: no register mapping for this architecture"
#endif
	memcpy(regs, dwarf, sizeof(dwarf));
	return 0;
}

void stk_ptrace_resume(pid_t tid)
{
	ptrace(PTRACE_DETACH, tid, NULL, NULL);
}
