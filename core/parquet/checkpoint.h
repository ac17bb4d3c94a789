/*
 * A checkpoint: what a writer of a file that must survive a crash (stk
 * record's series) writes after each row group, so that the file can be
 * completed later up to its last whole row group (parquet_salvage.h).
 * Parquet readers never see it: they find row groups by the offsets in the
 * footer, and bytes between row groups are allowed (writers pad there).
 *
 *   [row group bytes][META][u32 META length][u64 previous end][u32 CRC]["STKC"]
 *
 * META is a FileMetaData (footer.h) of the row groups since the previous
 * checkpoint (one, or none: a checkpoint may only refresh the metadata),
 * with the file's key/value metadata as it was then. "previous end" is the
 * offset just past the previous checkpoint (4, past the leading magic, for
 * the first): the checkpoints chain back to the start. The CRC-32 covers
 * every byte from the previous end up to the CRC itself, so a checkpoint
 * whose row group did not reach the disk (power lost before the sync) is
 * refused. All numbers little-endian. Internal to core/parquet/.
 */
#ifndef STK_PQ_CHECKPOINT_H
#define STK_PQ_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/byte_buf.h"

#define STK_PQ_CKPT_MAGIC "STKC"
/* The bytes after META: length, previous end, CRC, magic. */
#define STK_PQ_CKPT_TRAILER 20

/* zlib's CRC-32 of [p, p + n) continued from crc (0 to start), for any n. */
uint32_t stk_crc32(uint32_t crc, const void *p, size_t n);

/*
 * Appends META's trailer to out (which holds META, meta_len bytes, at its
 * end): crc is the CRC-32 of the row group bytes before META, continued
 * here over META and the trailer's first fields.
 */
void stk_pq_ckpt_trailer(struct stk_buf *out, size_t meta_len, int64_t prev_end, uint32_t crc);

/* A trailer's fields, read from its STK_PQ_CKPT_TRAILER bytes. */
struct stk_pq_ckpt_trailer {
	uint32_t meta_len;
	int64_t prev_end;
	uint32_t crc;
};
/* 0, or -1 when p does not end in the magic. */
int stk_pq_ckpt_trailer_read(const uint8_t *p, struct stk_pq_ckpt_trailer *t);

#endif
