#include "core/ladder/kfunc_mech.h"

#include <string.h>

static const char *const names[STK_KFUNC_MECH_COUNT] = {
	[STK_KFUNC_FENTRY] = "fentry",
	[STK_KFUNC_KPROBE_MULTI] = "kprobe.multi",
	[STK_KFUNC_KPROBE] = "kprobe",
	[STK_KFUNC_KPROBE_LEGACY] = "kprobe_legacy",
};

const char *stk_kfunc_mech_name(enum stk_kfunc_mech m)
{
	return m < STK_KFUNC_MECH_COUNT ? names[m] : "?";
}

int stk_kfunc_mech_from_name(const char *name, enum stk_kfunc_mech *m)
{
	for (int i = 0; i < STK_KFUNC_MECH_COUNT; i++) {
		if (strcmp(name, names[i]) == 0) {
			*m = (enum stk_kfunc_mech)i;
			return 0;
		}
	}
	return -1;
}

size_t stk_kfunc_order(size_t n, size_t fentry_max, enum stk_kfunc_mech order[STK_KFUNC_MECH_COUNT])
{
	size_t k = 0;

	if (n > fentry_max) {
		order[k++] = STK_KFUNC_KPROBE_MULTI;
		order[k++] = STK_KFUNC_FENTRY;
	} else {
		order[k++] = STK_KFUNC_FENTRY;
		order[k++] = STK_KFUNC_KPROBE_MULTI;
	}
	order[k++] = STK_KFUNC_KPROBE;
	order[k++] = STK_KFUNC_KPROBE_LEGACY;
	return k;
}
