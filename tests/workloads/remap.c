/*
 * Code that moves under a profiler: a library loaded, run, unloaded and
 * loaded again at another address (a block of anonymous memory placed where
 * it was), so mappings a tracer learned go stale mid-capture.
 * Usage: remap LIBRARY [SECONDS]   (default 30); prints "ready PID" when started.
 * The library's lib_entry burns CPU (tests/workloads/burn_lib.c): main ->
 * remap_cycle -> lib_entry -> lib_known_leaf, about 100 ms per load.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* One load of the library: run it for about 100 ms, then unload it. 0, or -1. */
__attribute__((noinline)) int remap_cycle(const char *lib)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	unsigned long (*entry)(unsigned long);
	volatile unsigned long sink = 0;
	double until = now_s() + 0.1;

	if (!h) {
		fprintf(stderr, "remap: %s\n", dlerror());
		return -1;
	}
	*(void **)&entry = dlsym(h, "lib_entry");
	while (entry && now_s() < until)
		sink += entry(sink);
	dlclose(h);
	return entry ? 0 : -1;
}

int main(int argc, char **argv)
{
	double seconds = argc > 2 ? atof(argv[2]) : 30.0, end = now_s() + seconds;
	void *hole = NULL;
	size_t hole_len = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: remap LIBRARY [SECONDS]\n");
		return 2;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (unsigned i = 1; now_s() < end; i++) {
		if (remap_cycle(argv[1]))
			return 1;
		/* the next load lands elsewhere: a block of a changing size takes the place it left */
		if (hole)
			munmap(hole, hole_len);
		hole_len = (size_t)(1 + i % 4) << 14;
		hole = mmap(NULL, hole_len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (hole == MAP_FAILED)
			hole = NULL;
	}
	return 0;
}
