#include "core/stack/stack_trim.h"

#include <string.h>

/* Prefixes of the functions between a traced event and the BPF program. */
static const char *const tracing_prefixes[] = {
	"bpf_prog_", "bpf_trace_run", "__bpf_trace_", "__traceiter_", "perf_trace_",
	"perf_tp_event", "trace_call_bpf", "bpf_get_stack", "__bpf_get_stack",
	"trace_event_raw_event_", "bpf_dispatcher_", "kprobe_", "__kprobe_", "aggr_pre_handler",
	"opt_pre_handler", "optimized_callback", "kprobe_ftrace_handler", "ftrace_", "fprobe_",
	"rethook_", "arch_rethook_", "exc_int3", "asm_exc_int3", "do_int3", "int3",
	"bpf_trampoline_", "__bpf_prog_", "perf_syscall_",
	NULL,
};

bool stk_is_tracing_frame(const char *symbol)
{
	if (!symbol)
		return false;
	for (const char *const *p = tracing_prefixes; *p; p++)
		if (strncmp(symbol, *p, strlen(*p)) == 0)
			return true;
	return false;
}

size_t stk_tracing_prefix(const struct stk_frame *frames, size_t n)
{
	size_t i = 0;
	bool any = false;

	for (; i < n; i++) {
		if (stk_is_tracing_frame(frames[i].symbol))
			any = true;
		else if (frames[i].symbol)
			break; /* the first real frame */
	}
	/* Unresolved frames (JITed programs without kallsyms) go only along with tracing frames. */
	size_t skip = any && i < n ? i : 0;

	/* Classic tracepoints on older kernels (5.10) report the traced
	 * function's return address twice: from the saved caller regs and
	 * again unwound. A real leaf ip never equals its caller's return address. */
	if (skip + 1 < n && frames[skip].address && frames[skip].address == frames[skip + 1].address)
		skip++;
	return skip;
}

void stk_trim_tracing(struct stk_stack *st)
{
	stk_trim_to_target(st, NULL);
}

/* How far down a kernel-function stack its traced function may sit (below trampoline frames). */
#define TARGET_FRAME_DEPTH 4

void stk_trim_to_target(struct stk_stack *st, const struct stk_name_list *targets)
{
	struct stk_frame *f = (struct stk_frame *)st->kernel;
	size_t skip = f ? stk_tracing_prefix(f, st->n_kernel) : 0;

	for (size_t i = 0; f && targets && i < st->n_kernel && i < TARGET_FRAME_DEPTH; i++) {
		if (f[i].symbol && stk_name_list_contains(targets, f[i].symbol)) {
			skip = i;
			break;
		}
	}
	if (skip) {
		memmove(f, f + skip, (st->n_kernel - skip) * sizeof(*f));
		st->n_kernel -= skip;
	}
}
