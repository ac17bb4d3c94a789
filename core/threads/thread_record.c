#include "core/threads/thread_record.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/threads/csv_writer.h"
#include "core/threads/thread_columns.h"
#include "core/threads/thread_idmap.h"

struct stk_thread_record {
	struct stk_csv_writer *samples, *stacks;
	struct stk_idmap *written; /* stacks in the current stacks file: low 32 bits -> full hash */
	int64_t hour;              /* of the current files */
};

struct stk_thread_record *stk_thread_record_new(const char *dir, char *err, size_t len)
{
	struct stk_thread_record *r = calloc(1, sizeof(*r));

	if (!r) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	r->hour = -1;
	mkdir(dir, 0750); /* one level, like the systemd unit's LogsDirectory; errors show below */
	if (!(r->samples = stk_csv_writer_new(dir, "samples", STK_SAMPLES_HEADER, err, len)) ||
	    !(r->stacks = stk_csv_writer_new(dir, "stacks", STK_STACKS_HEADER, err, len))) {
		stk_thread_record_free(r);
		return NULL;
	}
	return r;
}

void stk_thread_record_free(struct stk_thread_record *r)
{
	if (!r)
		return;
	stk_csv_writer_free(r->samples);
	stk_csv_writer_free(r->stacks);
	stk_idmap_free(r->written);
	free(r);
}

void stk_format_iso_utc(int64_t wall_ns, char *buf, size_t len)
{
	time_t secs = (time_t)(wall_ns / 1000000000);
	struct tm tm;
	char date[32];

	gmtime_r(&secs, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%06dZ", date, (int)(wall_ns / 1000 % 1000000));
}

static int write_stack(struct stk_thread_record *r, const char *folded, const char *kind, int64_t wall_ns,
		       char *hash_text, size_t hlen, char *err, size_t len)
{
	uint64_t hash;
	bool created;

	hash_text[0] = '\0';
	if (!folded)
		return 0;
	hash = stk_stack_hash(folded);
	snprintf(hash_text, hlen, "%016" PRIx64, hash);
	uint64_t *seen = stk_idmap_get(r->written, (uint32_t)hash);
	if (seen && *seen == hash)
		return 0;
	const char *fields[] = { hash_text, kind, folded };
	if (stk_csv_write_row(r->stacks, wall_ns, fields, 3, err, len) < 0)
		return -1;
	if ((seen = stk_idmap_put(r->written, (uint32_t)hash, &created)))
		*seen = hash;
	return 0;
}

int stk_thread_record_write(struct stk_thread_record *r, const struct stk_thread *t, int64_t wall_ns, char *err,
			    size_t len)
{
	char time_text[80], tid[16], pid[16], syscall[32], syscall_us[24], args[6][24], kstack[20], ustack[20];
	int64_t hour = wall_ns / 1000000000 / 3600;

	if (hour != r->hour) { /* a new hour's stacks file holds every stack its samples use */
		stk_idmap_free(r->written);
		r->hour = hour;
		if (!(r->written = stk_idmap_new(sizeof(uint64_t), NULL))) {
			snprintf(err, len, "out of memory");
			return -1;
		}
	}
	if (write_stack(r, t->kstack, "kernel", wall_ns, kstack, sizeof(kstack), err, len) ||
	    write_stack(r, t->ustack, "user", wall_ns, ustack, sizeof(ustack), err, len))
		return -1;
	stk_format_iso_utc(wall_ns, time_text, sizeof(time_text));
	snprintf(tid, sizeof(tid), "%u", t->tid);
	snprintf(pid, sizeof(pid), "%u", t->tgid);
	stk_syscall_text(t->syscall, syscall, sizeof(syscall));
	syscall_us[0] = '\0';
	if (t->syscall >= 0 && t->syscall_ns >= 0)
		snprintf(syscall_us, sizeof(syscall_us), "%lld", (long long)(t->syscall_ns / 1000));
	for (int i = 0; i < 6; i++) {
		if (t->syscall >= 0)
			snprintf(args[i], sizeof(args[i]), "0x%" PRIx64, t->args[i]);
		else
			args[i][0] = '\0';
	}
	const char *fields[] = {
		time_text, tid, pid, stk_tstate_name(t->state), t->username ? t->username : "", t->comm,
		t->exe ? t->exe : "", syscall, syscall_us, t->filename, t->wchan,
		args[0], args[1], args[2], args[3], args[4], args[5], kstack, ustack,
	};
	return stk_csv_write_row(r->samples, wall_ns, fields, sizeof(fields) / sizeof(fields[0]), err, len) < 0 ? -1
														    : 0;
}
