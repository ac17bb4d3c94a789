/* _Py_DebugOffsets as a process publishes them (it may lie): a layout, or a refusal; a layout the kernel walk can take. */
#include "tests/fuzz/fuzz.h"

#include "core/runtime/python.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t versions[] = { 0x030d00f0, 0x030d05f0, 0x030e0af0, 0x030f00a0, 0x030b02f0 };
	struct stk_py_layout l;
	struct stk_rt_proc kl;
	char why[256];
	void *proc;

	if (size < 1)
		return 0;
	if (stk_py_layout_published_read(data + 1, size - 1, versions[data[0] % 5], &l, why, sizeof(why)))
		return 0;
	if ((proc = stk_python_proc(&l, 0x1000, 0x2000))) {
		stk_runtime_python.kernel_layout(proc, &kl);
		stk_runtime_python.free_proc(proc);
	}
	return 0;
}
