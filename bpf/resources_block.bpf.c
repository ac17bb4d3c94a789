// SPDX-License-Identifier: GPL-2.0
/*
 * stk resources block, block-time and iorq: a request's stacks are taken where it
 * is made (block:block_getrq, in the thread that submitted the bio: the
 * writer of O_DIRECT, the reader, the flusher kworker of writeback, jbd2),
 * kept by start sector and direction until it is issued to the driver
 * (block_rq_issue: its bytes, reads and writes apart) and completed
 * (block_rq_complete: the time from issue; iorq sends each request as an
 * event with its device and bytes). Issue and completion often run
 * elsewhere (kblockd, an interrupt), so their own stacks would say nothing
 * of who asked. Flushes and discards are not counted.
 *   raw_tp      5.11+ arguments (the request queue argument went in 5.11):
 *               getrq(bio), rq_issue(rq), rq_complete(rq, error, bytes),
 *               read with CO-RE
 *   tracepoint  the records' sector, nr_sector and rwbs, where tracefs says
 */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "resources_event.h"

#define REQ_OP_MASK 0xff
#define REQ_OP_READ 0
#define REQ_OP_WRITE 1
#define SECTOR_SHIFT 9
#define RWBS_READ 8 /* bytes of rwbs read: enough for "FWFSM" and the like */

/* The key of a request in flight: its start sector and direction. */
static __always_inline u64 request_key(u64 sector, u32 dir)
{
	return sector << 1 | (dir == STK_RES_BLOCK_WRITE);
}

static __always_inline u32 dir_of_op(u32 op)
{
	op &= REQ_OP_MASK;
	return op == REQ_OP_READ ? STK_RES_BLOCK_READ : op == REQ_OP_WRITE ? STK_RES_BLOCK_WRITE : 0;
}

/* rwbs: an 'F' (preflush) may come first, then R, W, D (discard), F (flush) or N. */
static __always_inline u32 dir_of_rwbs(const char *rwbs)
{
	char c = rwbs[0] == 'F' && (rwbs[1] == 'R' || rwbs[1] == 'W') ? rwbs[1] : rwbs[0];

	return c == 'R' ? STK_RES_BLOCK_READ : c == 'W' ? STK_RES_BLOCK_WRITE : 0;
}

#define BLOCK_KINDS ((1u << STK_RES_BLOCK) | (1u << STK_RES_BLOCK_TIME) | (1u << STK_RES_IORQ))

/* The kind whose every-Nth decides which requests are taken (block, block-time and iorq share them). */
static __always_inline u32 sampling_kind(const struct stk_res_config *cfg)
{
	if (cfg->enabled & (1u << STK_RES_BLOCK))
		return STK_RES_BLOCK;
	return cfg->enabled & (1u << STK_RES_BLOCK_TIME) ? STK_RES_BLOCK_TIME : STK_RES_IORQ;
}

static __always_inline bool block_wanted(const struct stk_res_config *cfg)
{
	return cfg->enabled & BLOCK_KINDS;
}

/* A request made by the current thread: its stacks, kept until the request completes. */
static __always_inline void request_made(void *ctx, u64 sector, u32 dir, const int mode)
{
	const struct stk_res_config *cfg = stk_res_config_get();
	struct stk_res_block_start st = {};
	u64 key = request_key(sector, dir);
	u32 tid;

	if (!cfg || !dir || !block_wanted(cfg) || !stk_res_task(cfg, &st.ref, &tid))
		return;
	st.tid = tid;
	st.sampled = stk_res_sampled(cfg, sampling_kind(cfg));
	if (st.sampled) {
		st.ref.detail = (u16)dir;
		stk_res_stacks(ctx, cfg, &st.ref, tid, NULL, true, mode);
	}
	if (bpf_map_update_elem(&res_block, &key, &st, BPF_ANY))
		stk_res_fact(STK_RES_FACT_BLOCK_FULL);
}

/* Issued to the driver: its bytes under the maker's stacks (once: a requeued request comes again). */
static __always_inline void request_issued(void *ctx, u64 sector, u32 dir, u64 bytes, u32 dev)
{
	const struct stk_res_config *cfg = stk_res_config_get();
	u64 key = request_key(sector, dir);
	struct stk_res_block_start *st;
	struct stk_stack_ref k;

	if (!cfg || !dir || !block_wanted(cfg))
		return;
	st = bpf_map_lookup_elem(&res_block, &key);
	if (!st) {
		/* made before the capture, or merged in front of another; with -p/-t: another's */
		if (!cfg->stack.filter_pids && !cfg->stack.filter_tids)
			stk_res_fact(STK_RES_FACT_BLOCK_UNSEEN);
		return;
	}
	if (st->issued_ns)
		return;
	st->issued_ns = bpf_ktime_get_ns();
	st->bytes = bytes;
	st->dev = dev;
	if (!st->sampled || !(cfg->enabled & (1u << STK_RES_BLOCK)))
		return;
	k = st->ref;
	k.type = (u16)(cfg->stack.type + STK_RES_BLOCK);
	const struct stk_res_weighed w = { .weight = stk_res_scaled(cfg, STK_RES_BLOCK, bytes), .tid = st->tid };

	stk_res_count(ctx, &k, &w);
}

/* Completed: the time since issue under the maker's stacks (block-time, iorq); the request is forgotten. */
static __always_inline void request_done(void *ctx, u64 sector, u32 dir)
{
	const struct stk_res_config *cfg = stk_res_config_get();
	u64 key = request_key(sector, dir), now = bpf_ktime_get_ns(), took;
	struct stk_res_block_start *st;
	struct stk_stack_ref k;

	if (!cfg || !dir)
		return;
	st = bpf_map_lookup_elem(&res_block, &key);
	if (!st)
		return;
	took = now - st->issued_ns;
	struct stk_res_weighed w = { .start = st->issued_ns, .tid = st->tid };

	if (st->issued_ns && st->sampled && (cfg->enabled & (1u << STK_RES_BLOCK_TIME))) {
		k = st->ref;
		k.type = (u16)(cfg->stack.type + STK_RES_BLOCK_TIME);
		w.weight = stk_res_scaled(cfg, STK_RES_BLOCK_TIME, took);
		stk_res_count(ctx, &k, &w);
	}
	/* one event per request, from issue, with its device and bytes */
	if (st->issued_ns && st->sampled && (cfg->enabled & (1u << STK_RES_IORQ)) && took >= cfg->min_latency_ns) {
		k = st->ref;
		k.type = (u16)(cfg->stack.type + STK_RES_IORQ);
		w.weight = stk_res_scaled(cfg, STK_RES_IORQ, took);
		w.dev = st->dev;
		w.bytes = st->bytes;
		stk_res_count(ctx, &k, &w);
	}
	bpf_map_delete_elem(&res_block, &key);
}

/* A request's device: its disk's whole-device number (the disk from the queue from 5.15, rq_disk before). */
static __always_inline u32 request_dev(struct request *rq)
{
	struct gendisk *disk;

	if (bpf_core_field_exists(rq->q->disk))
		disk = BPF_CORE_READ(rq, q, disk);
	else
		disk = BPF_CORE_READ(rq, rq_disk);
	return disk ? BPF_CORE_READ(disk, part0, bd_dev) : 0;
}

/* --- raw_tp (5.11+): the bio and the request, read with CO-RE --- */

static __always_inline int getrq_raw(struct bpf_raw_tracepoint_args *ctx, const int mode)
{
	struct bio *bio = (struct bio *)ctx->args[0];

	request_made(ctx, BPF_CORE_READ(bio, bi_iter.bi_sector), dir_of_op(BPF_CORE_READ(bio, bi_opf)), mode);
	return 0;
}
STK_RES_PROGRAMS("raw_tp/block_getrq", stk_res_getrq_raw_tp, struct bpf_raw_tracepoint_args *, getrq_raw)

SEC("raw_tp/block_rq_issue")
int stk_res_issue_raw_tp(struct bpf_raw_tracepoint_args *ctx)
{
	struct request *rq = (struct request *)ctx->args[0];

	request_issued(ctx, BPF_CORE_READ(rq, __sector), dir_of_op(BPF_CORE_READ(rq, cmd_flags)),
		       BPF_CORE_READ(rq, __data_len), request_dev(rq));
	return 0;
}

SEC("raw_tp/block_rq_complete")
int stk_res_done_raw_tp(struct bpf_raw_tracepoint_args *ctx)
{
	struct request *rq = (struct request *)ctx->args[0];

	request_done(ctx, BPF_CORE_READ(rq, __sector), dir_of_op(BPF_CORE_READ(rq, cmd_flags)));
	return 0;
}

/* --- tracepoint: the records, fields where the format files say --- */

static __always_inline u32 record_dir(void *ctx, u16 rwbs_off)
{
	char rwbs[RWBS_READ] = {};

	stk_res_read(rwbs, sizeof(rwbs), (const char *)ctx + rwbs_off);
	return dir_of_rwbs(rwbs);
}

static __always_inline u64 record_u64(void *ctx, u16 off)
{
	u64 v = 0;

	stk_res_read(&v, sizeof(v), (const char *)ctx + off);
	return v;
}

static __always_inline int getrq_record(void *ctx, const int mode)
{
	const struct stk_res_config *cfg = stk_res_config_get();

	if (cfg)
		request_made(ctx, record_u64(ctx, cfg->off.getrq_sector), record_dir(ctx, cfg->off.getrq_rwbs), mode);
	return 0;
}
STK_RES_PROGRAMS("tracepoint/block/block_getrq", stk_res_getrq_tp, void *, getrq_record)

SEC("tracepoint/block/block_rq_issue")
int stk_res_issue_tp(void *ctx)
{
	const struct stk_res_config *cfg = stk_res_config_get();
	u32 nr_sector = 0, dev = 0;

	if (!cfg)
		return 0;
	stk_res_read(&nr_sector, sizeof(nr_sector), (const char *)ctx + cfg->off.issue_nr_sector);
	stk_res_read(&dev, sizeof(dev), (const char *)ctx + cfg->off.issue_dev);
	request_issued(ctx, record_u64(ctx, cfg->off.issue_sector), record_dir(ctx, cfg->off.issue_rwbs),
		       (u64)nr_sector << SECTOR_SHIFT, dev);
	return 0;
}

SEC("tracepoint/block/block_rq_complete")
int stk_res_done_tp(void *ctx)
{
	const struct stk_res_config *cfg = stk_res_config_get();

	if (cfg)
		request_done(ctx, record_u64(ctx, cfg->off.done_sector), record_dir(ctx, cfg->off.done_rwbs));
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
