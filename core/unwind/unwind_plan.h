/*
 * How user stacks are taken in one run, decided once from the rungs below
 * (best first: cfi > dwarf > fp; the "user stacks" ladder of
 * core/ladder/ladder.c lists them in this order, by these names) and what
 * this kernel and build offer, then passed by value to everything that needs it:
 *   cfi    the kernel walks the stack with CFI tables user space built
 *          (core/unwind/unwind_tables.c); samples it cannot walk yet take dwarf
 *   dwarf  registers and a copy of the stack, unwound in user space with libdw
 *   fp     the kernel's frame-pointer walk (bpf_get_stackid)
 * A rung the user asked for (--unwind) that cannot work is an error; the
 * default climbs down and says why (-v).
 */
#ifndef STK_UNWIND_PLAN_H
#define STK_UNWIND_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The rungs, best first. */
enum stk_unwind_rung {
	STK_UNWIND_CFI,   /* the kernel walks the stack with CFI tables */
	STK_UNWIND_DWARF, /* a stack copy unwound in user space with libdw */
	STK_UNWIND_FP,    /* the kernel's frame-pointer walk */
	STK_UNWIND_RUNG_COUNT,
};
/* Their names (-v, --unwind, `stk info`), for the ladder's table too. */
#define STK_UNWIND_CFI_NAME "cfi"
#define STK_UNWIND_DWARF_NAME "dwarf"
#define STK_UNWIND_FP_NAME "fp"

/* What the kernel and the build offer (core/bpf/unwind_facts.c finds them). */
struct stk_unwind_facts {
	bool arch;          /* bpf/user_regs.h knows this architecture (x86_64, aarch64) */
	bool btf;           /* kernel BTF from some source: CO-RE reads of the task */
	bool get_stack;     /* bpf_get_stack (4.18) */
	bool bounded_loops; /* 5.3: hashing a stack copy in the kernel */
	bool bpf_loop;      /* bpf_loop (5.17): the kernel walk */
};

struct stk_unwind_plan {
	enum stk_unwind_rung rung;
	char passed_over[256]; /* "cfi: needs ...; " for each rung above the one taken ("" none) */
};

const char *stk_unwind_rung_name(enum stk_unwind_rung r);
/*
 * A stack applet builds each program once per rung, named NAME (frame
 * pointers), NAME_dwarf and NAME_cfi: the suffix of r's ("_dwarf", "_cfi"),
 * NULL for frame pointers.
 */
const char *stk_unwind_program_suffix(enum stk_unwind_rung r);
/* The rung named name ("cfi", "dwarf", "fp"). 0, or -1. */
int stk_unwind_rung_from_name(const char *name, enum stk_unwind_rung *r);

/*
 * Why rung r cannot run here (NULL: it can). hashes: the applet hashes
 * stack copies in the kernel (offcputime, stackcount, threadstate), which
 * the dwarf rung then needs bounded loops for.
 */
const char *stk_unwind_rung_missing(enum stk_unwind_rung r, const struct stk_unwind_facts *f, bool hashes);

/* What one run asks of the plan. */
struct stk_unwind_want {
	enum stk_unwind_rung rung; /* --unwind */
	bool given;                /* --unwind was given: that rung or an error */
	bool hashes;               /* the applet hashes stack copies in the kernel (see above) */
	enum stk_unwind_rung top;  /* the best rung the applet implements */
};

/*
 * The plan: the rung asked for (given), or the first that works from the
 * applet's top. 0, or -1 with err when the one asked for cannot work here.
 */
int stk_unwind_plan_make(const struct stk_unwind_want *want, const struct stk_unwind_facts *f,
			 struct stk_unwind_plan *out, char *err, size_t len);

#endif
