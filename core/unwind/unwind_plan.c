/* Which rung takes user stacks in this run: see unwind_plan.h. */
#include "core/unwind/unwind_plan.h"

#include <stdio.h>
#include <string.h>

static const char *const rung_names[STK_UNWIND_RUNG_COUNT] = {
	[STK_UNWIND_CFI] = STK_UNWIND_CFI_NAME,
	[STK_UNWIND_DWARF] = STK_UNWIND_DWARF_NAME,
	[STK_UNWIND_FP] = STK_UNWIND_FP_NAME,
};

const char *stk_unwind_rung_name(enum stk_unwind_rung r)
{
	return (unsigned)r < STK_UNWIND_RUNG_COUNT ? rung_names[r] : "?";
}

const char *stk_unwind_program_suffix(enum stk_unwind_rung r)
{
	return r == STK_UNWIND_CFI ? "_cfi" : r == STK_UNWIND_DWARF ? "_dwarf" : NULL;
}

int stk_unwind_rung_from_name(const char *name, enum stk_unwind_rung *r)
{
	for (int i = 0; i < STK_UNWIND_RUNG_COUNT; i++)
		if (strcmp(name, rung_names[i]) == 0) {
			*r = (enum stk_unwind_rung)i;
			return 0;
		}
	return -1;
}

const char *stk_unwind_rung_missing(enum stk_unwind_rung r, const struct stk_unwind_facts *f, bool hashes)
{
	if (r == STK_UNWIND_FP)
		return NULL;
	if (!f->arch)
		return "x86_64 or aarch64 (no user register set for this architecture)";
	if (!f->btf)
		return "kernel BTF (none found; see --btf)";
	if (r == STK_UNWIND_CFI)
		return f->bpf_loop ? NULL : "bpf_loop (kernel 5.17)";
	if (!f->get_stack)
		return "bpf_get_stack (kernel 4.18)";
	if (hashes && !f->bounded_loops)
		return "bounded BPF loops (kernel 5.3)";
	return NULL;
}

int stk_unwind_plan_make(const struct stk_unwind_want *want, const struct stk_unwind_facts *f,
			 struct stk_unwind_plan *out, char *err, size_t len)
{
	size_t used = 0;

	memset(out, 0, sizeof(*out));
	err[0] = '\0';
	if (want->given) {
		const char *missing = stk_unwind_rung_missing(want->rung, f, want->hashes);

		if (want->rung < want->top) {
			snprintf(err, len, "--unwind %s: this applet takes %s at best", stk_unwind_rung_name(want->rung),
				 stk_unwind_rung_name(want->top));
			return -1;
		}
		if (missing) {
			snprintf(err, len, "--unwind %s needs %s; use --unwind %s", stk_unwind_rung_name(want->rung),
				 missing, stk_unwind_rung_name(want->rung == STK_UNWIND_CFI ? STK_UNWIND_DWARF : STK_UNWIND_FP));
			return -1;
		}
		out->rung = want->rung;
		return 0;
	}
	for (int i = 0; i < STK_UNWIND_RUNG_COUNT; i++) {
		enum stk_unwind_rung r = (enum stk_unwind_rung)i;
		const char *missing = stk_unwind_rung_missing(r, f, want->hashes);

		if (r < want->top)
			continue;
		if (!missing) {
			out->rung = r;
			return 0;
		}
		if (used < sizeof(out->passed_over))
			used += (size_t)snprintf(out->passed_over + used, sizeof(out->passed_over) - used,
						 "%s%s needs %s", used ? "; " : "", rung_names[r], missing);
	}
	out->rung = STK_UNWIND_FP; /* fp has no needs: not reached */
	return 0;
}
