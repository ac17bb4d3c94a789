/*
 * A stand-in for a JIT: spins in code it copied into anonymous executable
 * memory, the frames a perf map (/tmp/perf-PID.map) names.
 * Usage: jit_spin [SECONDS]   (default 30). Prints "ready PID CODE_ADDRESS".
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__x86_64__)
static const unsigned char spin[] = { 0xeb, 0xfe };             /* jmp . */
#elif defined(__aarch64__)
static const unsigned char spin[] = { 0x00, 0x00, 0x00, 0x14 }; /* b . */
#else
#error "jit_spin: no spin instruction for this architecture"
#endif

int main(int argc, char **argv)
{
	unsigned seconds = argc > 1 ? (unsigned)atoi(argv[1]) : 30;
	size_t len = (size_t)sysconf(_SC_PAGESIZE);
	unsigned char *code = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (code == MAP_FAILED)
		return 1;
	memcpy(code, spin, sizeof(spin));
	if (mprotect(code, len, PROT_READ | PROT_EXEC))
		return 1;
	__builtin___clear_cache((char *)code, (char *)code + sizeof(spin));
	printf("ready %d %lx\n", (int)getpid(), (unsigned long)(uintptr_t)code);
	fflush(stdout);
	alarm(seconds); /* the default action ends the spin */
	((void (*)(void))code)();
	return 0;
}
