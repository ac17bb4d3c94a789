#include "harness.h"
#include "core/stack/stack_trim.h"

#define N(a) (sizeof(a) / sizeof(a[0]))

static void drops_tracing_prefix(struct test_ctx *t)
{
	/* tp_btf/raw_tp on 6.x: program, bpf_trace_run, tracepoint glue, then the scheduler */
	const struct stk_frame raw[] = {
		{ .symbol = "bpf_prog_6deef7357e7b4530_stk_offcpu_raw_tp" }, { .symbol = "bpf_trace_run3" },
		{ .symbol = "__bpf_trace_sched_switch" }, { .symbol = "__traceiter_sched_switch" },
		{ .symbol = "__schedule" }, { .symbol = "schedule" },
	};
	/* the classic tracepoint goes through perf */
	const struct stk_frame tp[] = {
		{ .symbol = "perf_trace_sched_switch" }, { .symbol = "__schedule" }, { .symbol = "schedule" },
	};
	/* JITed programs without kallsyms entries are unresolved */
	const struct stk_frame jit[] = {
		{ .symbol = NULL }, { .symbol = "bpf_trace_run4" }, { .symbol = NULL }, { .symbol = "__schedule" },
	};

	CHECK(t, stk_tracing_prefix(raw, N(raw)) == 4);
	CHECK(t, stk_tracing_prefix(tp, N(tp)) == 1);
	CHECK(t, stk_tracing_prefix(jit, N(jit)) == 3);
}

static void drops_repeated_leaf(struct test_ctx *t)
{
	/* sched:sched_switch through perf on 5.10: __schedule's return address twice */
	const struct stk_frame tp510[] = {
		{ .symbol = "__schedule", .address = 0xffffffffb9eb19e6 },
		{ .symbol = "__schedule", .address = 0xffffffffb9eb19e6 },
		{ .symbol = "schedule", .address = 0xffffffffb9eb1d56 },
	};
	const struct stk_frame after_tracing[] = {
		{ .symbol = "perf_trace_sched_switch", .address = 0x10 },
		{ .symbol = "__schedule", .address = 0x20 },
		{ .symbol = "__schedule", .address = 0x20 },
		{ .symbol = "schedule", .address = 0x30 },
	};
	/* recursion: same function, different addresses, all kept */
	const struct stk_frame recursive[] = {
		{ .symbol = "walk", .address = 0x40 }, { .symbol = "walk", .address = 0x48 },
		{ .symbol = "walk", .address = 0x48 },
	};

	CHECK(t, stk_tracing_prefix(tp510, N(tp510)) == 1);
	CHECK(t, stk_tracing_prefix(after_tracing, N(after_tracing)) == 2);
	CHECK(t, stk_tracing_prefix(recursive, N(recursive)) == 0);
}

static void keeps_real_stacks(struct test_ctx *t)
{
	const struct stk_frame plain[] = { { .symbol = "__schedule" }, { .symbol = "bpf_trace_run1" } };
	const struct stk_frame unknown_first[] = { { .symbol = NULL }, { .symbol = "__schedule" } };
	const struct stk_frame only_tracing[] = { { .symbol = "bpf_prog_x" }, { .symbol = "bpf_trace_run2" } };

	CHECK(t, stk_tracing_prefix(plain, N(plain)) == 0); /* only leading frames go */
	CHECK(t, stk_tracing_prefix(unknown_first, N(unknown_first)) == 0);
	CHECK(t, stk_tracing_prefix(only_tracing, N(only_tracing)) == 0); /* never empty a stack */
	CHECK(t, stk_tracing_prefix(NULL, 0) == 0);
	CHECK(t, stk_is_tracing_frame("__traceiter_sched_switch"));
	CHECK(t, !stk_is_tracing_frame("schedule"));
	/* fentry's trampoline, and the syscall tracepoints' perf handler */
	CHECK(t, stk_is_tracing_frame("bpf_trampoline_6442484490"));
	CHECK(t, stk_is_tracing_frame("perf_syscall_enter"));
	CHECK(t, !stk_is_tracing_frame(NULL));
}

const struct test_case stack_trim_tests[] = {
	{ "stack_trim_drops_tracing_prefix", drops_tracing_prefix },
	{ "stack_trim_drops_repeated_leaf", drops_repeated_leaf },
	{ "stack_trim_keeps_real_stacks", keeps_real_stacks },
	{ NULL, NULL },
};
