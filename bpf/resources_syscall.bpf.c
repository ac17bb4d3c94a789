// SPDX-License-Identifier: GPL-2.0
/*
 * stk resources syscall: each system call of a wanted thread from its entry
 * to its exit, weighed by that time under the caller's user stack (the
 * kernel frames at exit say nothing: the call's name stands in for them,
 * detail its number + 1). Calls shorter than the configuration's
 * min_latency_ns are left out here, before any stack is taken; every Nth
 * of the rest is taken. A call still under way when the capture ends is
 * not counted.
 *   raw_tp      sys_enter (regs, id) and sys_exit (regs, ret), 4.17+
 *   tracepoint  raw_syscalls:sys_enter and sys_exit, their records' id
 */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "resources_event.h"

/* A wanted thread entered system call nr: when. */
static __always_inline void call_entered(long nr)
{
	const struct stk_res_config *cfg = stk_res_config_get();
	u64 id = bpf_get_current_pid_tgid();
	u32 tid = (u32)id;
	struct stk_res_sys_start st = { .ns = bpf_ktime_get_ns(), .nr = (u64)nr };

	if (!cfg || !(cfg->enabled & (1u << STK_RES_SYSCALL)) || !tid || nr < 0)
		return;
	if (!stk_thread_wanted(&cfg->stack, (u32)(id >> 32), tid))
		return;
	bpf_map_update_elem(&res_sys_start, &tid, &st, BPF_ANY);
}

/* The current thread's call returned: its time since entry, if it is long enough. */
static __always_inline void call_exited(void *ctx, const int mode)
{
	const struct stk_res_config *cfg = stk_res_config_get();
	u32 tid = (u32)bpf_get_current_pid_tgid();
	struct stk_res_sys_start *sp;
	u64 start, nr, took;

	if (!cfg || !tid)
		return;
	sp = bpf_map_lookup_elem(&res_sys_start, &tid);
	if (!sp)
		return;
	start = sp->ns;
	nr = sp->nr;
	bpf_map_delete_elem(&res_sys_start, &tid);
	took = bpf_ktime_get_ns() - start;
	if (took < cfg->min_latency_ns)
		return;
	stk_res_event(ctx, STK_RES_SYSCALL, took, (u16)(nr + 1), NULL, false, false, start, mode);
}

SEC("raw_tp/sys_enter")
int stk_res_sys_enter_raw_tp(struct bpf_raw_tracepoint_args *ctx)
{
	call_entered((long)ctx->args[1]);
	return 0;
}

static __always_inline int sys_exit_raw(struct bpf_raw_tracepoint_args *ctx, const int mode)
{
	call_exited(ctx, mode);
	return 0;
}
STK_RES_PROGRAMS("raw_tp/sys_exit", stk_res_syscall_raw_tp, struct bpf_raw_tracepoint_args *, sys_exit_raw)

/* raw_syscalls:sys_enter's record: long id at 8 (then the arguments). */
struct sys_enter_record {
	u64 common;
	long id;
};

SEC("tracepoint/raw_syscalls/sys_enter")
int stk_res_sys_enter_tp(struct sys_enter_record *ctx)
{
	call_entered(ctx->id);
	return 0;
}

static __always_inline int sys_exit_record(void *ctx, const int mode)
{
	call_exited(ctx, mode);
	return 0;
}
STK_RES_PROGRAMS("tracepoint/raw_syscalls/sys_exit", stk_res_syscall_tp, void *, sys_exit_record)

char LICENSE[] SEC("license") = "GPL";
