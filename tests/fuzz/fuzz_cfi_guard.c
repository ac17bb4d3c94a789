/*
 * libFuzzer target for the CFI guard (core/unwind/cfi_guard.c), asserting
 * on cost, not only on crashes: what the guard lets through, libdw must run
 * cheaply. The input is one CFI section: its first byte picks the machine
 * (bit 0: aarch64, else x86_64) and the section (bit 1: .debug_frame, else
 * .eh_frame), the rest is the section's bytes, put in a small ELF file
 * (tests/fuzz/cfi_elf.h). The guard scans it; then at every FDE start and
 * across .text, each address the guard accepts is looked up with libdw
 * (dwarf_cfi_addrframe, which runs the CIE's and the FDE's instructions).
 * Aborts when the scan or one lookup takes over MAX_CPU_MS of CPU, or a
 * lookup's heap peaks over MAX_HEAP_BYTES above where it began: unguarded,
 * the seeds of tests/fuzz/corpus/cfi_guard (register 4,000,000 copied 30
 * times) cost libdw a gigabyte and minutes.
 */
#include <elfutils/libdw.h>
#include <sanitizer/allocator_interface.h>
#include <stdio.h>
#include <time.h>

#include "core/unwind/cfi_ranges.h"
#include "core/unwind/cfi_guard.h"
#include "tests/fuzz/cfi_elf.h"
#include "tests/fuzz/fuzz.h"

#define MAX_CPU_MS 250
#define MAX_HEAP_BYTES (8u << 20)
#define MAX_LOOKUPS 256

/* The heap as the sanitizer's hooks see it: the one place a hook can write to. */
static struct {
	size_t live, peak;
} heap;

static void on_malloc(const volatile void *p, size_t size)
{
	(void)p;
	heap.live += size;
	if (heap.live > heap.peak)
		heap.peak = heap.live;
}

static void on_free(const volatile void *p)
{
	size_t size = __sanitizer_get_allocated_size((const void *)p);

	heap.live = size < heap.live ? heap.live - size : 0;
}

static double cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void check_cost(const char *what, uint64_t addr, double ms, size_t bytes)
{
	if (ms > MAX_CPU_MS || bytes > MAX_HEAP_BYTES) {
		fprintf(stderr, "fuzz_cfi_guard: %s at 0x%llx took %.1f ms and %zu heap bytes\n", what,
			(unsigned long long)addr, ms, bytes);
		abort();
	}
}

/* libdw's frame at addr, when the guard lets it run: within the bounds. */
static void lookup(Dwarf_CFI *cfi, const struct stk_cfi_guard *g, uint64_t addr)
{
	Dwarf_Frame *frame = NULL;
	size_t base;
	double t0;

	if (stk_cfi_guard_check(g, addr))
		return;
	base = heap.peak = heap.live;
	t0 = cpu_ms();
	if (dwarf_cfi_addrframe(cfi, addr, &frame) == 0)
		free(frame);
	check_cost("libdw's lookup", addr, cpu_ms() - t0, heap.peak - base);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool hooked;
	struct cfi_bytes c = { 0 };
	struct cfi_elf_spec spec = { 0 };
	struct stk_cfi_guard g;
	struct stk_cfi_ranges ranges = { 0 };
	Dwarf *dw = NULL;
	Dwarf_CFI *cfi;
	Elf *e;
	int fd;
	double t0;

	if (size < 2)
		return 0;
	if (!hooked)
		hooked = __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free) != 0;
	c.eh = !(data[0] & 2);
	cfi_put(&c, data + 1, size - 1);
	spec.machine = data[0] & 1 ? EM_AARCH64 : EM_X86_64;
	if (c.eh)
		spec.eh = &c;
	else
		spec.debug = &c;
	if (c.oom || !(e = cfi_elf_open(&spec, &fd))) {
		free(c.b);
		return 0;
	}
	t0 = cpu_ms();
	stk_cfi_guard_scan(e, &g);
	check_cost("the guard's scan", 0, cpu_ms() - t0, 0);
	for (size_t i = 0; i < g.n_refused; i++)
		if (g.refused[i].start >= g.refused[i].end || (i && g.refused[i].start < g.refused[i - 1].end))
			abort(); /* refused ranges are sorted, disjoint, not empty */
	cfi = c.eh ? dwarf_getcfi_elf(e) : ((dw = dwarf_begin_elf(e, DWARF_C_READ, NULL)) ? dwarf_getcfi(dw) : NULL);
	if (cfi) {
		size_t n = 0;

		if (stk_cfi_ranges_read(e, &ranges) == 0)
			for (size_t i = 0; i < ranges.n && n < MAX_LOOKUPS; i++, n++)
				lookup(cfi, &g, ranges.ranges[i].start);
		for (uint64_t a = CFI_TEXT_VADDR; a < CFI_TEXT_VADDR + CFI_TEXT_SIZE && n < MAX_LOOKUPS; a += 64, n++)
			lookup(cfi, &g, a);
	}
	stk_cfi_ranges_free(&ranges);
	if (dw)
		dwarf_end(dw);
	else if (cfi)
		dwarf_cfi_end(cfi);
	stk_cfi_guard_free(&g);
	elf_end(e);
	close(fd);
	free(c.b);
	return 0;
}
