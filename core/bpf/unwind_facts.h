/*
 * What this kernel offers the user-stack rungs (core/unwind/unwind_plan.h):
 * helper probes (bpf_loop, bpf_get_stack) and the kernel version, for the
 * plan every stack applet makes and for `stk info`.
 */
#ifndef STK_UNWIND_FACTS_H
#define STK_UNWIND_FACTS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/unwind/unwind_plan.h"

void stk_unwind_facts_here(bool have_btf, struct stk_unwind_facts *f);
/* One line after "unwind: ": the rung the default takes, and how its reads are made. */
void stk_unwind_facts_describe(const struct stk_unwind_facts *f, char *buf, size_t len);

#endif
