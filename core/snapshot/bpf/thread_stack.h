/*
 * One thread's stack right now, as stk pmp takes it (a snapshot that does
 * not stop the thread, its user chain unwound with CFI), for stk top's
 * thread screen: a leading state frame ("[SLEEP pipe_read]"), its kernel
 * frames and its user frames, symbolized, in one stack of the list.
 */
#ifndef STK_THREAD_STACK_H
#define STK_THREAD_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stk_symbolizer;
struct stk_stack_list;

struct stk_thread_stack_request {
	uint32_t tid, tgid;
	uint32_t self_tgid;
	const char *btf_custom_path;
	bool kernel_btf;
};

/* Appends tid's stack to out; sym must keep ELF files. 0, or -1 with err set (the thread exited, ...). */
int stk_thread_stack_take(const struct stk_thread_stack_request *req, struct stk_symbolizer *sym,
			  struct stk_stack_list *out, char *err, size_t len);

#endif
