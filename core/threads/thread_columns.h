/*
 * The columns of a threadstate sample as text: what -g/-G group by, what
 * the table shows and what the CSV holds. Empty text means "not known".
 */
#ifndef STK_THREAD_COLUMNS_H
#define STK_THREAD_COLUMNS_H

#include <stddef.h>

#include "core/threads/thread_sample.h"

enum stk_tcol {
	STK_TCOL_STATE,
	STK_TCOL_USERNAME,
	STK_TCOL_COMM,
	STK_TCOL_SYSCALL,
	STK_TCOL_WCHAN,
	STK_TCOL_FILENAME,
	STK_TCOL_EXE,
	STK_TCOL_PID,
	STK_TCOL_TID,
	STK_TCOL_KSTACK,
	STK_TCOL_USTACK,
	STK_TCOL_COUNT,
};

const char *stk_tcol_name(enum stk_tcol c);
const char *stk_tcol_description(enum stk_tcol c);
/* The column of a name, or -1. */
int stk_tcol_from_name(const char *name);
/* t's value of column c into buf (NUL-terminated, possibly ""). */
void stk_tcol_value(const struct stk_thread *t, enum stk_tcol c, char *buf, size_t len);
/* The syscall as text: its name, "syscall_NR" for an unnamed number, "" when none or unknown. */
void stk_syscall_text(int32_t nr, char *buf, size_t len);

#endif
