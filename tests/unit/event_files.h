/* Event logs for the unit tests: the footer keys every file needs. */
#ifndef STK_TEST_EVENT_FILES_H
#define STK_TEST_EVENT_FILES_H

#include <stdint.h>

struct stk_ev_writer;

/* The keys the reader refuses a file without: applet, event "cpu", start and duration (ns), the rest zero. */
void ev_required_meta(struct stk_ev_writer *w, const char *applet, int64_t start, int64_t duration);

#endif
