/*
 * threadstate's recording (-o DIR): one CSV row per kept thread per sample
 * in DIR/samples-YYYY-MM-DD-HH.csv, and each kernel or user stack once per
 * hour file in DIR/stacks-YYYY-MM-DD-HH.csv, referred to by its hash.
 *
 * samples: time,tid,pid,state,username,comm,exe,syscall,syscall_us,
 *          filename,wchan,arg0,arg1,arg2,arg3,arg4,arg5,kstack,ustack
 * stacks:  hash,kind,frames   (kind kernel|user; frames "root;...;leaf")
 */
#ifndef STK_THREAD_RECORD_H
#define STK_THREAD_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "core/threads/thread_sample.h"

#define STK_SAMPLES_HEADER                                                                                 \
	"time,tid,pid,state,username,comm,exe,syscall,syscall_us,filename,wchan,arg0,arg1,arg2,arg3,arg4," \
	"arg5,kstack,ustack"
#define STK_STACKS_HEADER "hash,kind,frames"

struct stk_thread_record;

/* NULL with err set (DIR missing, not a directory, not writable). */
struct stk_thread_record *stk_thread_record_new(const char *dir, char *err, size_t len);
/* Appends t sampled at wall_ns (and its stacks not yet in this hour's file). 0, or -1 with err set. */
int stk_thread_record_write(struct stk_thread_record *r, const struct stk_thread *t, int64_t wall_ns, char *err,
			    size_t len);
void stk_thread_record_free(struct stk_thread_record *r);

/* "2026-11-22T01:30:05.123456Z" */
void stk_format_iso_utc(int64_t wall_ns, char *buf, size_t len);

#endif
