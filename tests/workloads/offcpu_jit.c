/*
 * Blocks from code without CFI, as a JIT's frames are, for the kernel
 * walk's kept walks (bpf/unwind_memo.h): jit_nap() (CFI) naps 2 ms, called
 * from a stub copied into anonymous executable memory that set the frame
 * pointer to a "frame record" on main's stack before the call, so the walk
 * reaches the stub's frame by CFI and must guess its caller from that
 * record. Three rounds in four the record is data that changes every round
 * (its return address in no mapping: the guess leads nowhere, and the
 * chain ends at the stub); every fourth its return address is inside
 * guessed_caller(), so the guess leads on. A kept walk that ended on a
 * failed guess may stand in only while the guess still fails.
 * Usage: offcpu_jit ROUNDS GO_FILE. Prints "ready PID", waits for GO_FILE,
 * then at the end "nowhere N onward N".
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
/* push rbp; mov rbp, rdi; call *rsi; pop rbp; ret */
static const unsigned char stub[] = { 0x55, 0x48, 0x89, 0xfd, 0xff, 0xd6, 0x5d, 0xc3 };
#elif defined(__aarch64__)
/* stp x29, x30, [sp, #-16]!; mov x29, x0; blr x1; ldp x29, x30, [sp], #16; ret */
static const unsigned char stub[] = { 0xfd, 0x7b, 0xbf, 0xa9, 0xfd, 0x03, 0x00, 0xaa, 0x20, 0x00, 0x3f, 0xd6,
				      0xfd, 0x7b, 0xc1, 0xa8, 0xc0, 0x03, 0x5f, 0xd6 };
#else
#error "offcpu_jit: no stub for this architecture"
#endif

typedef void (*stub_fn)(uint64_t *record, void (*callee)(void));

__attribute__((noinline)) static void jit_nap(void)
{
	struct timespec ts = { .tv_nsec = 2 * 1000000L };

	nanosleep(&ts, NULL);
	__asm__ volatile("" ::: "memory");
}

/* Never called: a return address inside it sends the guess on. */
__attribute__((noinline, used)) static int guessed_caller(int x)
{
	return x * 7 + 3;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 1000, nowhere = 0, onward = 0;
	const char *go = argc > 2 ? argv[2] : NULL;
	size_t len = (size_t)sysconf(_SC_PAGESIZE);
	unsigned char *code = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	volatile uint64_t record[4]; /* on main's stack: above the stub's frame, as a caller's record is */
	stub_fn call;

	if (code == MAP_FAILED)
		return 1;
	memcpy(code, stub, sizeof(stub));
	if (mprotect(code, len, PROT_READ | PROT_EXEC))
		return 1;
	__builtin___clear_cache((char *)code, (char *)code + sizeof(stub));
	call = (stub_fn)(uintptr_t)code;
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (go && access(go, F_OK))
		usleep(10000);
	for (long i = 0; i < rounds; i++) {
		if (i % 4 == 3) {
			record[0] = 0;
			record[1] = (uint64_t)(uintptr_t)guessed_caller + 4;
			onward++;
		} else {
			/* data: a frame pointer and a "return address" in no mapping, other every round */
			record[0] = 0x1000 + 16 * (uint64_t)i;
			record[1] = 0x2000 + 16 * (uint64_t)i;
			nowhere++;
		}
		call((uint64_t *)record, jit_nap);
	}
	printf("nowhere %ld onward %ld\n", nowhere, onward);
	return 0;
}
