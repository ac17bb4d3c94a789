/* Event logs for the unit tests (event_files.h). */
#include <inttypes.h>
#include <stdio.h>

#include "event_files.h"
#include "core/eventlog/event_schema.h"
#include "core/eventlog/event_writer.h"

void ev_required_meta(struct stk_ev_writer *w, const char *applet, int64_t start, int64_t duration)
{
	char num[32];

	stk_ev_writer_meta(w, STK_EV_META_APPLET, applet);
	stk_ev_writer_meta(w, STK_EV_META_EVENT, "cpu");
	snprintf(num, sizeof(num), "%" PRId64, start);
	stk_ev_writer_meta(w, STK_EV_META_START, num);
	snprintf(num, sizeof(num), "%" PRId64, duration);
	stk_ev_writer_meta(w, STK_EV_META_DURATION, num);
	stk_ev_writer_meta(w, STK_EV_META_PER_THREAD, "0");
	stk_ev_writer_meta(w, STK_EV_META_DIVISOR, "1");
	stk_ev_writer_meta(w, STK_EV_META_SAMPLE_NS, "0");
	stk_ev_writer_meta(w, STK_EV_META_LOST, "0");
	stk_ev_writer_meta(w, STK_EV_META_PERIOD, "0");
	stk_ev_writer_meta(w, STK_EV_META_OUTPUT, "");
}
