/*
 * Each thread's last minute of states, one letter a second (the latest
 * sample of that second), for stk top's thread screen: kept across
 * refreshes, and forgotten a minute after the thread was last seen, so
 * threads that come and go do not pile up.
 */
#ifndef STK_TOP_HISTORY_H
#define STK_TOP_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/key_index.h"
#include "core/threads/thread_sample.h"

#define STK_TOP_HISTORY_SECS 60

struct stk_top_thread_history {
	uint32_t tid;
	uint32_t pad; /* zeroed: the tid is a fixed-size key */
	int64_t last_sec;
	char states[STK_TOP_HISTORY_SECS]; /* by second modulo 60; '\0': not sampled then */
};

struct stk_top_history {
	struct stk_top_thread_history *threads;
	size_t n, cap;
	struct stk_key_index ix; /* by tid */
};

void stk_top_history_init(struct stk_top_history *h);
void stk_top_history_free(struct stk_top_history *h);
/* Writes every thread of a pass (at monotonic second sec), then forgets those a minute gone. 0, or -1 out of memory. */
int stk_top_history_add(struct stk_top_history *h, const struct stk_thread_batch *b, int64_t sec);
/* tid's last minute up to now_sec, oldest first, a letter a second ('.' not sampled); false: not known. */
bool stk_top_history_line(const struct stk_top_history *h, uint32_t tid, int64_t now_sec, char *buf, size_t len);
/* The letter a state shows as: R Q S D T Z I. */
char stk_top_state_letter(enum stk_tstate s);

#endif
