#include "core/ladder/sched_mech.h"

#include <stdio.h>
#include <string.h>

static const char *const names[STK_SCHED_MECH_COUNT] = {
	[STK_SCHED_TP_BTF] = "tp_btf",
	[STK_SCHED_RAW_TP] = "raw_tp",
	[STK_SCHED_TRACEPOINT] = "tracepoint",
	[STK_SCHED_KPROBE] = "kprobe",
};

const char *stk_sched_mech_name(enum stk_sched_mech m)
{
	return m < STK_SCHED_MECH_COUNT ? names[m] : "?";
}

int stk_sched_mech_from_name(const char *name, enum stk_sched_mech *m)
{
	for (int i = 0; i < STK_SCHED_MECH_COUNT; i++) {
		if (strcmp(name, names[i]) == 0) {
			*m = (enum stk_sched_mech)i;
			return 0;
		}
	}
	return -1;
}

#define FUNC "finish_task_switch"

int stk_find_finish_task_switch(FILE *kallsyms, char *buf, size_t len)
{
	char line[512], sym[256], type;
	int found = 0;

	while (fgets(line, sizeof(line), kallsyms)) {
		if (sscanf(line, "%*s %c %255s", &type, sym) != 2)
			continue;
		if (type != 't' && type != 'T')
			continue;
		if (strcmp(sym, FUNC) == 0) {
			snprintf(buf, len, "%s", sym);
			return 0; /* the exact name wins over clones */
		}
		/* "finish_task_switch.isra.0", ".constprop.0", ...; not "finish_task_switch_foo" */
		if (!found && strncmp(sym, FUNC ".", sizeof(FUNC)) == 0) {
			snprintf(buf, len, "%s", sym);
			found = 1;
		}
	}
	return found ? 0 : -1;
}
