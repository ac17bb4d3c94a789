/*
 * Stacks an unwinder must survive: each mode spins on CPU in a state where
 * walking its stack is wrong or endless, and the walk must end with a reason.
 * Usage: bad_stack MODE [SECONDS]   (default 30); prints "ready PID" when started.
 *   badsp    the stack pointer points into unmapped memory while it spins
 *   cfaloop  CFI says the caller's stack pointer is this one and the return
 *            address is this function: an unwinder that trusts it loops
 *   fploop   code without CFI whose frame pointer names itself as its caller
 * Signals are blocked: none may be delivered onto the bad stack.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SPIN 200000000UL

#if defined(__x86_64__)
/* rsp = 0x1000 while rdi counts down; rsp comes back from rbx */
__asm__(".text\n.globl spin_bad_sp\n.type spin_bad_sp,@function\n"
	"spin_bad_sp:\n.cfi_startproc\n"
	"  push %rbx\n.cfi_adjust_cfa_offset 8\n.cfi_offset rbx, -16\n"
	"  mov %rsp, %rbx\n  mov $0x1000, %rsp\n"
	"1: dec %rdi\n  jnz 1b\n"
	"  mov %rbx, %rsp\n  pop %rbx\n.cfi_adjust_cfa_offset -8\n  ret\n"
	".cfi_endproc\n.size spin_bad_sp, .-spin_bad_sp\n");
/* CFA = rsp, return address at CFA - 8, which holds this function's own address */
__asm__(".text\n.globl spin_cfa_loop\n.type spin_cfa_loop,@function\n"
	"spin_cfa_loop:\n.cfi_startproc\n"
	"  lea spin_cfa_loop(%rip), %rax\n  mov %rax, -8(%rsp)\n"
	".cfi_def_cfa rsp, 0\n.cfi_offset rip, -8\n"
	"1: dec %rdi\n  jnz 1b\n"
	".cfi_def_cfa rsp, 8\n.cfi_offset rip, -8\n  ret\n"
	".cfi_endproc\n.size spin_cfa_loop, .-spin_cfa_loop\n");
/* no CFI at all; rbp points at a frame record naming itself and this function */
__asm__(".text\n.globl spin_fp_loop\n.type spin_fp_loop,@function\n"
	"spin_fp_loop:\n"
	"  push %rbp\n  sub $16, %rsp\n  mov %rsp, %rbp\n"
	"  mov %rbp, (%rsp)\n  lea spin_fp_loop(%rip), %rax\n  mov %rax, 8(%rsp)\n"
	"1: dec %rdi\n  jnz 1b\n"
	"  add $16, %rsp\n  pop %rbp\n  ret\n"
	".size spin_fp_loop, .-spin_fp_loop\n");
#elif defined(__aarch64__)
__asm__(".text\n.globl spin_bad_sp\n.type spin_bad_sp,%function\n"
	"spin_bad_sp:\n.cfi_startproc\n"
	"  mov x9, sp\n  mov x10, #0x1000\n  mov sp, x10\n"
	"1: subs x0, x0, #1\n  b.ne 1b\n"
	"  mov sp, x9\n  ret\n"
	".cfi_endproc\n.size spin_bad_sp, .-spin_bad_sp\n");
__asm__(".text\n.globl spin_cfa_loop\n.type spin_cfa_loop,%function\n"
	"spin_cfa_loop:\n.cfi_startproc\n"
	"  adr x9, spin_cfa_loop\n  str x9, [sp, #-8]\n"
	".cfi_def_cfa sp, 0\n.cfi_offset x30, -8\n"
	"1: subs x0, x0, #1\n  b.ne 1b\n"
	".cfi_restore x30\n  ret\n"
	".cfi_endproc\n.size spin_cfa_loop, .-spin_cfa_loop\n");
__asm__(".text\n.globl spin_fp_loop\n.type spin_fp_loop,%function\n"
	"spin_fp_loop:\n"
	"  sub sp, sp, #32\n  stp x29, x30, [sp, #16]\n  mov x29, sp\n"
	"  adr x9, spin_fp_loop\n  stp x29, x9, [sp]\n"
	"1: subs x0, x0, #1\n  b.ne 1b\n"
	"  ldp x29, x30, [sp, #16]\n  add sp, sp, #32\n  ret\n"
	".size spin_fp_loop, .-spin_fp_loop\n");
#else
#error "bad_stack: no assembly for this architecture"
#endif

void spin_bad_sp(unsigned long n);
void spin_cfa_loop(unsigned long n);
void spin_fp_loop(unsigned long n);

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	double seconds = argc > 2 ? atof(argv[2]) : 30.0;
	void (*spin)(unsigned long) = strcmp(mode, "badsp") == 0     ? spin_bad_sp
				      : strcmp(mode, "cfaloop") == 0 ? spin_cfa_loop
				      : strcmp(mode, "fploop") == 0  ? spin_fp_loop
								     : NULL;
	struct timespec t0, now;
	sigset_t all;

	if (!spin) {
		fprintf(stderr, "usage: bad_stack badsp|cfaloop|fploop [SECONDS]\n");
		return 2;
	}
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		spin(SPIN);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	return 0;
}
