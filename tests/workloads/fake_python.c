/*
 * A hostile "Python" (tests/integration/test_python.sh): it exports what
 * stk looks for in an interpreter (_PyRuntime in .PyRuntime,
 * _PyEval_EvalFrameDefault, Py_Version, PyCode_Type) and lays out, in
 * CPython 3.11's shape, an interpreter state built to hurt a reader: its
 * interpreter and thread lists in cycles, one plain thread (py_root ->
 * py_mid -> py_leaf: the kernel matrix's check), and one thread per trap,
 * each running in _PyEval_EvalFrameDefault (on CPU 5 ms, off 5 ms) over frames
 * that are a cycle, 100,000 deep, a name claiming 2^40 characters, a file
 * name of a megabyte, a pointer into unmapped memory, a code object there,
 * a line table claiming a terabyte, and frames rewritten under the reader
 * all the time; and, while it runs, a thread made every 50 ms that lives
 * 30 ms on no list (the kernel walk looks for its state on the thread list,
 * a cycle, and must stop). Built with VERSION=0x030c01f0 it claims 3.12 (which stk
 * must name and skip); with 0x030d00f0, 3.13 whose _Py_DebugOffsets lie.
 * Prints "ready" once every thread runs; runs until killed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef VERSION
#define VERSION 0x030b02f0
#endif

/* CPython 3.11's offsets (core/runtime/python_layout.c's table) */
#define RT_INTERP_HEAD 40
#define IS_NEXT 0
#define IS_THREADS_HEAD 16
#define TS_NEXT 8
#define TS_CFRAME 56
#define TS_NATIVE_TID 160
#define CF_CURRENT 8
#define FR_CODE 32
#define FR_PREVIOUS 48
#define FR_INSTR 56
#define FR_ENTRY 68
#define FR_SIZE 80
#define CO_TYPE 8
#define CO_FIRSTLINENO 72
#define CO_FILENAME 112
#define CO_QUALNAME 128
#define CO_LINETABLE 136
#define CO_CODE 184
#define CO_SIZE 256
#define STR_LENGTH 16
#define STR_STATE 32
#define STR_DATA 48

unsigned char _PyRuntime[4096] __attribute__((section(".PyRuntime"), aligned(64)));
const unsigned long Py_Version = VERSION;
unsigned char PyCode_Type[512];

static unsigned char interp[256];
static volatile uint64_t spins;

static void put(void *at, size_t off, uint64_t v)
{
	memcpy((unsigned char *)at + off, &v, sizeof(v));
}

static void *zalloc(size_t n)
{
	void *p = calloc(1, n);

	if (!p)
		abort();
	return p;
}

/* A compact ASCII str of text, claiming claimed characters. */
static void *str(const char *text, size_t len, uint64_t claimed)
{
	unsigned char *s = zalloc(STR_DATA + len + 1);

	put(s, STR_LENGTH, claimed);
	put(s, STR_STATE, 1u << 2 | 1u << 5 | 1u << 6);
	memcpy(s + STR_DATA, text, len);
	return s;
}

static void *code(const char *name)
{
	unsigned char *c = zalloc(CO_SIZE);
	unsigned char *table = zalloc(64);

	put(c, CO_TYPE, (uint64_t)(uintptr_t)PyCode_Type);
	put(c, CO_QUALNAME, (uint64_t)(uintptr_t)str(name, strlen(name), strlen(name)));
	put(c, CO_FILENAME, (uint64_t)(uintptr_t)str("/fake.py", 8, 8));
	put(c, CO_FIRSTLINENO, 7);
	put(table, 16, 2);
	table[32] = 0xf8; /* one entry, line + 0 */
	table[33] = 0x00;
	put(c, CO_LINETABLE, (uint64_t)(uintptr_t)table);
	return c;
}

static void *frame(void *co, void *previous)
{
	unsigned char *f = zalloc(FR_SIZE);

	put(f, FR_CODE, (uint64_t)(uintptr_t)co);
	put(f, FR_PREVIOUS, (uint64_t)(uintptr_t)previous);
	put(f, FR_INSTR, (uint64_t)(uintptr_t)co + CO_CODE);
	return f;
}

struct trap {
	const char *name;
	void *(*frames)(void);
	unsigned char *tstate;
	int changing;
	long lifetime_ms; /* 0: runs for ever */
	void *first; /* the frame the eval loop runs */
};

static void *plain_frames(void)
{
	unsigned char *root = frame(code("py_root"), NULL);

	root[FR_ENTRY] = 1; /* the first frame the eval loop ran */
	return frame(code("py_leaf"), frame(code("py_mid"), root));
}

static void *cycle_frames(void)
{
	void *a = frame(code("cycle_a"), NULL), *b = frame(code("cycle_b"), NULL), *c = frame(code("cycle_c"), NULL);

	put(a, FR_PREVIOUS, (uint64_t)(uintptr_t)b);
	put(b, FR_PREVIOUS, (uint64_t)(uintptr_t)c);
	put(c, FR_PREVIOUS, (uint64_t)(uintptr_t)a);
	return a;
}

static void *deep_frames(void)
{
	void *co = code("deep_fn"), *f = NULL;

	for (int i = 0; i < 100000; i++)
		f = frame(co, f);
	return f;
}

static void *huge_frames(void)
{
	size_t n = 1u << 20;
	char *big = malloc(n);
	unsigned char *co = code("x");

	if (!big)
		abort();
	memset(big, 'F', n);
	put(co, CO_QUALNAME, (uint64_t)(uintptr_t)str(big, 65536, 1ull << 40));
	put(co, CO_FILENAME, (uint64_t)(uintptr_t)str(big, n, n));
	/* a line table claiming a terabyte */
	put((void *)(uintptr_t)*(uint64_t *)(co + CO_LINETABLE), 16, 1ull << 40);
	free(big);
	return frame(co, NULL);
}

static void *unmapped_frames(void)
{
	/* below every mapping: never readable */
	return frame(code("before_unmapped"), (void *)(uintptr_t)0x1000);
}

static void *bad_code_frames(void)
{
	return frame((void *)(uintptr_t)0x2000, frame(code("after_bad_code"), NULL));
}

static unsigned char *changing[64];

static void *changing_frames(void)
{
	void *co = code("changing_fn");

	for (int i = 0; i < 64; i++)
		changing[i] = frame(co, i ? changing[i - 1] : NULL);
	return changing[63];
}

static struct trap traps[] = {
	{ .name = "plain", .frames = plain_frames },
	{ .name = "cycle", .frames = cycle_frames },
	{ .name = "deep", .frames = deep_frames },
	{ .name = "huge", .frames = huge_frames },
	{ .name = "unmapped", .frames = unmapped_frames },
	{ .name = "badcode", .frames = bad_code_frames },
	{ .name = "changing", .frames = changing_frames, .changing = 1 },
};
#define N_TRAPS (sizeof(traps) / sizeof(traps[0]))

/* The frames change under the reader: previous pointers set to another frame, into one, or anywhere. */
static void mutate(unsigned *seed)
{
	unsigned char *f = changing[rand_r(seed) % 64];
	uint64_t to = (uint64_t)(uintptr_t)changing[rand_r(seed) % 64];

	switch (rand_r(seed) % 3) {
	case 0: put(f, FR_PREVIOUS, to); break;
	case 1: put(f, FR_PREVIOUS, to + (uint64_t)(rand_r(seed) % 96)); break;
	default: put(f, FR_PREVIOUS, (uint64_t)rand_r(seed) << 16); break;
	}
}

__attribute__((noinline)) void *_PyEval_EvalFrameDefault(struct trap *t)
{
	unsigned seed = 1;
	/* 3.11 keeps the run's _PyCFrame on the eval loop's stack: stk finds the loop's frame by it */
	unsigned char cframe[32] = { 0 };
	struct timespec born;

	put(cframe, CF_CURRENT, (uint64_t)(uintptr_t)t->first);
	put(t->tstate, TS_CFRAME, (uint64_t)(uintptr_t)cframe);
	clock_gettime(CLOCK_MONOTONIC, &born);

	for (;;) {
		struct timespec start, now, pause = { 0, 5000000 };

		clock_gettime(CLOCK_MONOTONIC, &start);
		do {
			/* most of the time in the loop itself, not in the vDSO's clock: arm64's vDSO has
			 * no CFI, and a no-frame-pointer caller's frames are lost from samples there */
			for (int i = 0; i < 2000; i++)
				spins++;
			if (t->changing)
				mutate(&seed);
			clock_gettime(CLOCK_MONOTONIC, &now);
		} while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) < 5000000L);
		nanosleep(&pause, NULL);
		__asm__ volatile("" ::: "memory");
		if (t->lifetime_ms && (now.tv_sec - born.tv_sec) * 1000L + (now.tv_nsec - born.tv_nsec) / 1000000L >=
					      t->lifetime_ms)
			return NULL;
	}
	return NULL;
}

static pthread_barrier_t started;

static void *run(void *arg)
{
	struct trap *t = arg;

	prctl(PR_SET_NAME, t->name);
	put(t->tstate, TS_NATIVE_TID, (uint64_t)syscall(SYS_gettid));
	t->first = t->frames();
	pthread_barrier_wait(&started);
	return _PyEval_EvalFrameDefault(t);
}

/* A thread made late, whose state is on no list (the list is a cycle): one at a time, its frames made once. */
static struct trap late = { .name = "late", .frames = plain_frames, .lifetime_ms = 30 };

static void *late_run(void *arg)
{
	struct trap *t = arg;

	prctl(PR_SET_NAME, t->name);
	put(t->tstate, TS_NATIVE_TID, (uint64_t)syscall(SYS_gettid));
	return _PyEval_EvalFrameDefault(t);
}

int main(void)
{
	pthread_t th;
	struct timespec between = { 0, 20000000 };

	/* a lying _Py_DebugOffsets at _PyRuntime's start, for the 3.13 build */
	memcpy(_PyRuntime, "xdebugpy", 8);
	put(_PyRuntime, 8, VERSION);
	for (int i = 3; i < 120; i++)
		put(_PyRuntime, (size_t)i * 8, 0xfffffff0ull - (uint64_t)i);
	put(_PyRuntime, RT_INTERP_HEAD, (uint64_t)(uintptr_t)interp);
	put(interp, IS_NEXT, (uint64_t)(uintptr_t)interp); /* the interpreters in a cycle */
	for (size_t i = 0; i < N_TRAPS; i++) {
		traps[i].tstate = zalloc(512);
		if (i)
			put(traps[i - 1].tstate, TS_NEXT, (uint64_t)(uintptr_t)traps[i].tstate);
	}
	put(traps[N_TRAPS - 1].tstate, TS_NEXT, (uint64_t)(uintptr_t)traps[0].tstate); /* the threads too */
	put(interp, IS_THREADS_HEAD, (uint64_t)(uintptr_t)traps[0].tstate);
	pthread_barrier_init(&started, NULL, N_TRAPS + 1);
	for (size_t i = 0; i < N_TRAPS; i++)
		if (pthread_create(&th, NULL, run, &traps[i]))
			return 1;
	pthread_barrier_wait(&started);
	late.tstate = zalloc(512);
	late.first = late.frames();
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		if (pthread_create(&th, NULL, late_run, &late) == 0)
			pthread_join(th, NULL);
		nanosleep(&between, NULL);
	}
}
