/*
 * Which user-stack unwinding this kernel gets (`stk info`): dwarf needs BTF
 * (its CO-RE reads of the task) and bpf_get_stack; the helpers it prefers
 * (bpf_task_pt_regs, bpf_probe_read_user, bpf_loop) each have an older path.
 */
#ifndef STK_UNWIND_PATH_H
#define STK_UNWIND_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* One line after "unwind: ". have_get_stack: the bpf_get_stack feature probe's result. */
void stk_unwind_path_describe(bool have_btf, bool have_get_stack, char *buf, size_t len);

#endif
