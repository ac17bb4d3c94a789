/*
 * A process's interpreter state (threads, frames, code objects, names, line
 * tables) as any bytes: an image of memory at a fixed address, walked and
 * named with 3.11's layout or 3.13's. Every walk ends (cycles, budgets,
 * unmapped pointers), every name is bounded.
 */
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "core/runtime/python.h"
#include "../unit/python_offsets.h"

#define BASE 0x10000000ull

/* The first 8 states, then the walk is told to stop. */
static bool each_thread(void *ctx, uint32_t tid, uint64_t state)
{
	uint64_t *states = ctx;

	(void)tid;
	if (states[0] < 8)
		states[1 + states[0]++] = state;
	return states[0] >= 8;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stk_mem_image img = { BASE, data, size };
	struct stk_mem m = stk_mem_of_image(&img);
	struct stk_py_layout l;
	uint64_t states[9] = { 0 }, words[256];
	char why[256], name[STK_RT_NAME_MAX], file[STK_RT_NAME_MAX];
	void *proc;

	if (size < 8)
		return 0;
	if (data[0] & 1 ? stk_py_layout_published_read(py313_debug_offsets, sizeof(py313_debug_offsets), 0x030d00f0,
							 &l, why, sizeof(why))
			: stk_py_layout_table(0x030b02f0, &l, why, sizeof(why)))
		return 0;
	/* _PyRuntime at the image's start, PyCode_Type checked or not */
	if (!(proc = stk_python_proc(&l, BASE, data[1] & 1 ? 0 : BASE + 8)))
		return 0;
	stk_runtime_python.threads(proc, &m, each_thread, states);
	for (uint64_t i = 0; i < states[0]; i++) {
		struct stk_rt_cursor c = { .state = states[1 + i] };

		stk_mem_budget(&m, 1u << 20);
		/* a few eval-loop runs, each as far as it goes */
		for (int run = 0; run < 4 && !c.stop; run++) {
			uint64_t mark;
			size_t n = stk_runtime_python.walk_run(proc, &m, &c, words, 256, &mark);

			for (size_t w = 0; w + 1 < n; w += 2) {
				struct stk_rt_code code;
				const char *no;

				if (stk_runtime_python.name_code(proc, &m, words[w] & STK_RT_ADDR_MASK, (uint32_t)words[w + 1],
								 name, file, &code, &no) == 0) {
					if (strlen(name) >= STK_RT_NAME_MAX || strlen(file) >= STK_RT_NAME_MAX)
						__builtin_trap();
					stk_runtime_python.line(&code, (uint32_t)(words[w + 1] >> 32) & 0xffffff);
					free(code.table);
				}
			}
			if (!n)
				break;
		}
	}
	stk_runtime_python.free_proc(proc);
	return 0;
}
