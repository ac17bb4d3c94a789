/* Kernel addresses through kallsyms (modules shown as their names): see symbolize.h. */
#include "core/sym/sym_state.h"

#include <stdio.h>
#include <string.h>

#include "core/sym/kallsyms.h"

static void load_kallsyms(struct stk_symbolizer *s)
{
	if (s->ksyms_tried)
		return;
	s->ksyms_tried = 1;
	s->ksyms = stk_kallsyms_load(s->kallsyms_path, s->ksyms_why, sizeof(s->ksyms_why));
	if (!s->ksyms)
		sym_note_failure(s, "%s", s->ksyms_why);
	s->stats.kernel_symbols = (unsigned)stk_kallsyms_count(s->ksyms);
}

int stk_symbolizer_kernel_status(struct stk_symbolizer *s, char *why, size_t len)
{
	load_kallsyms(s);
	if (!s->ksyms) {
		snprintf(why, len, "%s", s->ksyms_why);
		return 0;
	}
	if (stk_kallsyms_hidden(s->ksyms)) {
		snprintf(why, len,
			 "%s shows only zero addresses (hidden by kernel.kptr_restrict or "
			 "missing privileges): kernel frames stay unresolved",
			 s->kallsyms_path);
		return 0;
	}
	if (!stk_kallsyms_count(s->ksyms)) {
		snprintf(why, len, "%s has no kernel text symbols", s->kallsyms_path);
		return 0;
	}
	snprintf(why, len, "%zu kernel text symbols from %s", stk_kallsyms_count(s->ksyms),
		 s->kallsyms_path);
	return 1;
}

void stk_symbolize_kernel(struct stk_symbolizer *s, uint64_t addr, struct stk_frame *frame)
{
	const char *name, *module;
	uint64_t off;

	if (sym_frame_cached(s, 0, 0, addr, false, frame))
		return;
	memset(frame, 0, sizeof(*frame));
	frame->address = addr;
	frame->kernel = true;
	load_kallsyms(s);
	if (stk_kallsyms_lookup(s->ksyms, addr, &name, &off, &module) == 0) {
		frame->symbol = name;
		frame->symbol_offset = off;
		frame->module = module;
	}
	sym_frame_keep(s, 0, 0, addr, false, frame);
}
