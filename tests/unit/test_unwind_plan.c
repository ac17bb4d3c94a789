/* core/unwind/unwind_plan.c: which rung each kernel gets, and what --unwind may ask. */
#include "harness.h"
#include "core/ladder/ladder.h"
#include "core/unwind/unwind_plan.h"

static const struct stk_unwind_facts everything = { true, true, true, true, true };

static void default_climbs(struct test_ctx *t)
{
	struct stk_unwind_want want = { .rung = STK_UNWIND_CFI, .top = STK_UNWIND_CFI };
	struct stk_unwind_facts f = everything;
	struct stk_unwind_plan p;
	char err[256];

	CHECK(t, stk_unwind_plan_make(&want, &f, &p, err, sizeof(err)) == 0 && p.rung == STK_UNWIND_CFI);
	CHECK_STR(t, p.passed_over, "");
	f.bpf_loop = false; /* 5.10 */
	CHECK(t, stk_unwind_plan_make(&want, &f, &p, err, sizeof(err)) == 0 && p.rung == STK_UNWIND_DWARF);
	CHECK_STR(t, p.passed_over, "cfi needs bpf_loop (kernel 5.17)");
	f.btf = false;
	CHECK(t, stk_unwind_plan_make(&want, &f, &p, err, sizeof(err)) == 0 && p.rung == STK_UNWIND_FP);
	CHECK(t, strstr(p.passed_over, "cfi needs kernel BTF") && strstr(p.passed_over, "; dwarf needs kernel BTF"));
	/* hashing applets need bounded loops for dwarf (5.3) */
	f = everything;
	f.bpf_loop = false;
	f.bounded_loops = false;
	want.hashes = true;
	CHECK(t, stk_unwind_plan_make(&want, &f, &p, err, sizeof(err)) == 0 && p.rung == STK_UNWIND_FP);
	CHECK(t, strstr(p.passed_over, "bounded BPF loops") != NULL);
	/* an applet whose best is dwarf never considers cfi */
	want = (struct stk_unwind_want){ .rung = STK_UNWIND_CFI, .top = STK_UNWIND_DWARF };
	CHECK(t, stk_unwind_plan_make(&want, &everything, &p, err, sizeof(err)) == 0 && p.rung == STK_UNWIND_DWARF);
	CHECK_STR(t, p.passed_over, "");
}

static void asked_for(struct test_ctx *t)
{
	struct stk_unwind_want want = { .rung = STK_UNWIND_CFI, .given = true, .top = STK_UNWIND_CFI };
	struct stk_unwind_facts f = everything;
	struct stk_unwind_plan p;
	char err[256];

	f.bpf_loop = false;
	CHECK(t, stk_unwind_plan_make(&want, &f, &p, err, sizeof(err)) == -1);
	CHECK_STR(t, err, "--unwind cfi needs bpf_loop (kernel 5.17); use --unwind dwarf");
	want.rung = STK_UNWIND_FP;
	CHECK(t, stk_unwind_plan_make(&want, &f, &p, err, sizeof(err)) == 0 && p.rung == STK_UNWIND_FP);
	want = (struct stk_unwind_want){ .rung = STK_UNWIND_CFI, .given = true, .top = STK_UNWIND_DWARF };
	CHECK(t, stk_unwind_plan_make(&want, &everything, &p, err, sizeof(err)) == -1);
	CHECK_STR(t, err, "--unwind cfi: this applet takes dwarf at best");
	f = everything;
	f.arch = false;
	want = (struct stk_unwind_want){ .rung = STK_UNWIND_DWARF, .given = true, .top = STK_UNWIND_CFI };
	CHECK(t, stk_unwind_plan_make(&want, &f, &p, err, sizeof(err)) == -1);
	CHECK(t, strstr(err, "x86_64 or aarch64") != NULL);
}

static void names(struct test_ctx *t)
{
	enum stk_unwind_rung r;

	CHECK_STR(t, stk_unwind_rung_name(STK_UNWIND_CFI), "cfi");
	CHECK_STR(t, stk_unwind_rung_name(STK_UNWIND_FP), "fp");
	CHECK(t, stk_unwind_rung_from_name("dwarf", &r) == 0 && r == STK_UNWIND_DWARF);
	CHECK(t, stk_unwind_rung_from_name("lbr", &r) == -1);
}

/* stk info's "user stacks" ladder lists the plan's rungs: same names, ids, order. */
static void ladder_agrees(struct test_ctx *t)
{
	const struct stk_ladder *l = stk_ladder_for(STK_ATTACH_USER_STACKS);

	CHECK(t, l->n == STK_UNWIND_RUNG_COUNT);
	for (size_t i = 0; i < l->n && i < STK_UNWIND_RUNG_COUNT; i++) {
		CHECK(t, l->rungs[i].id == (int)i);
		CHECK_STR(t, l->rungs[i].name, stk_unwind_rung_name((enum stk_unwind_rung)i));
	}
}

const struct test_case unwind_plan_tests[] = {
	{ "default_climbs", default_climbs },
	{ "asked_for", asked_for },
	{ "names", names },
	{ "ladder_agrees", ladder_agrees },
	{ NULL, NULL },
};
