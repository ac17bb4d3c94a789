/* A file with checkpoints completed up to its last good one: see parquet_salvage.h. */
#include "core/parquet/parquet_salvage.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/byte_buf.h"
#include "core/parquet/checkpoint.h"
#include "core/parquet/footer.h"
#include "core/parquet/format.h"
#include "core/parquet/schema_match.h"

/* Read at a time, looking for checkpoints or summing a CRC. */
#define BLOCK (64u << 10)
/*
 * Candidates (the magic's bytes) that turn out not to be good checkpoints,
 * at most: a real file has one torn tail; a file made to look otherwise
 * must not make the search quadratic.
 */
#define MAX_BAD_CANDIDATES 64

struct scan {
	int fd;
	const struct stk_pq_column *cols;
	size_t n;
	/* which of cols the file has (an added one may be missing: a file of an older writer), and how many */
	bool present[STK_PQ_MAX_COLUMNS];
	size_t n_present;
	bool seen_schema; /* present is the first good checkpoint's: every other must have the same */
	uint8_t *buf; /* BLOCK bytes */
	int64_t size;
	char *err;
	size_t err_len;
	bool io_failed;
};

static int read_at(struct scan *sc, void *p, size_t n, int64_t off)
{
	ssize_t got = pread(sc->fd, p, n, (off_t)off);

	if (got == (ssize_t)n)
		return 0;
	if (got < 0) {
		snprintf(sc->err, sc->err_len, "reading the file: %s", strerror(errno));
		sc->io_failed = true;
	}
	return -1;
}

/* The CRC-32 of the file's bytes [from, to), or -1 (io_failed says whether the read failed). */
static int crc_range(struct scan *sc, int64_t from, int64_t to, uint32_t *crc)
{
	*crc = 0;
	while (from < to) {
		size_t n = to - from > BLOCK ? BLOCK : (size_t)(to - from);

		if (read_at(sc, sc->buf, n, from) < 0)
			return -1;
		*crc = stk_crc32(*crc, sc->buf, n);
		from += (int64_t)n;
	}
	return 0;
}

/* The last position p < limit where the magic starts (p + 4 <= limit), at or after `floor`; -1: none. */
static int64_t find_magic(struct scan *sc, int64_t limit, int64_t floor)
{
	while (limit - floor >= 4) {
		int64_t from = limit - BLOCK > floor ? limit - BLOCK : floor;
		size_t n = (size_t)(limit - from);

		if (read_at(sc, sc->buf, n, from) < 0)
			return -1;
		for (size_t i = n - 4 + 1; i-- > 0;)
			if (memcmp(sc->buf + i, STK_PQ_CKPT_MAGIC, 4) == 0)
				return from + (int64_t)i;
		if (from == floor)
			break;
		limit = from + 3; /* a magic across the block's edge */
	}
	return -1;
}

/* One checkpoint found good: where it starts and ends, its row groups' metadata. */
struct ckpt {
	int64_t prev_end, end;
	struct stk_pq_footer f;
	uint8_t *meta;
};

static void ckpt_free(struct ckpt *c)
{
	stk_pq_footer_free(&c->f);
	free(c->meta);
	memset(c, 0, sizeof(*c));
}

/* Whether the chunk lies inside [lo, hi) with its pages where a writer puts them. */
static bool chunk_inside(const struct stk_pq_chunk_meta *m, int64_t lo, int64_t hi)
{
	int64_t start = m->dict_page_offset >= 0 ? m->dict_page_offset : m->data_page_offset;

	return start >= lo && start < hi && m->total_compressed > 0 && m->total_compressed <= hi - start &&
	       m->data_page_offset >= start && m->data_page_offset < start + m->total_compressed && m->num_values >= 0;
}

/*
 * Whether the META's schema is cols in their order, but for added columns
 * it may lack (a file of an older writer), each nullable as cols says; the
 * columns it has into present, and how many into *m.
 */
static bool schema_fits(const struct scan *sc, const struct ckpt *c, bool *present, size_t *m)
{
	size_t leaf[STK_PQ_MAX_COLUMNS];
	bool optional[STK_PQ_MAX_COLUMNS];
	char why[128];

	*m = 0;
	if (c->f.n_schema < 2 || c->f.n_schema > sc->n + 1 ||
	    stk_pq_schema_match(&c->f, sc->cols, sc->n, leaf, optional, why, sizeof(why)) < 0)
		return false;
	for (size_t i = 0; i < sc->n; i++) {
		present[i] = leaf[i] != STK_PQ_NO_LEAF;
		if (present[i] && (leaf[i] != (*m)++ || optional[i] != sc->cols[i].nullable))
			return false;
	}
	return *m == c->f.n_schema - 1;
}

/* The decoded META fits the columns and the bytes it covers. */
static bool meta_fits(struct scan *sc, struct ckpt *c, int64_t meta_at)
{
	bool present[STK_PQ_MAX_COLUMNS];
	size_t m;

	if (c->f.num_rows < 0 || !schema_fits(sc, c, present, &m))
		return false;
	if (sc->seen_schema && (m != sc->n_present || memcmp(present, sc->present, sc->n * sizeof(*present))))
		return false;
	int64_t rows = 0;
	for (size_t g = 0; g < c->f.n_groups; g++) {
		const struct stk_pq_group_meta *gm = &c->f.groups[g];

		if (gm->n_chunks != m || gm->num_rows <= 0 || gm->num_rows > INT64_MAX - rows)
			return false;
		rows += gm->num_rows;
		for (size_t i = 0; i < m; i++)
			if (!chunk_inside(&gm->chunks[i], c->prev_end, meta_at) ||
			    gm->chunks[i].num_values != gm->num_rows)
				return false;
	}
	if (rows != c->f.num_rows)
		return false;
	if (!sc->seen_schema) {
		memcpy(sc->present, present, sc->n * sizeof(*present));
		sc->n_present = m;
		sc->seen_schema = true;
	}
	return true;
}

/*
 * Whether the magic at p ends a good checkpoint: its fields in range, its
 * previous end a checkpoint's end (or the start), its CRC, its META. 1 (c
 * filled), 0 (not one), -1 (a read failed).
 */
static int checkpoint_at(struct scan *sc, int64_t p, struct ckpt *c)
{
	uint8_t tail[STK_PQ_CKPT_TRAILER], magic[4];
	struct stk_pq_ckpt_trailer t;
	const char *why;
	int64_t meta_at;
	uint32_t crc;

	memset(c, 0, sizeof(*c));
	if (p + 4 - STK_PQ_CKPT_TRAILER < STK_PQ_MAGIC_LEN + 1)
		return 0;
	if (read_at(sc, tail, sizeof(tail), p + 4 - STK_PQ_CKPT_TRAILER) < 0)
		return sc->io_failed ? -1 : 0;
	if (stk_pq_ckpt_trailer_read(tail, &t) < 0 || t.meta_len == 0 || t.meta_len > STK_PQ_MAX_FOOTER_BYTES)
		return 0;
	meta_at = p + 4 - STK_PQ_CKPT_TRAILER - (int64_t)t.meta_len;
	if (meta_at < STK_PQ_MAGIC_LEN || t.prev_end < STK_PQ_MAGIC_LEN || t.prev_end > meta_at)
		return 0;
	if (t.prev_end > STK_PQ_MAGIC_LEN &&
	    (read_at(sc, magic, 4, t.prev_end - 4) < 0 || memcmp(magic, STK_PQ_CKPT_MAGIC, 4) != 0))
		return sc->io_failed ? -1 : 0;
	if (crc_range(sc, t.prev_end, p - 4, &crc) < 0)
		return sc->io_failed ? -1 : 0;
	if (crc != t.crc)
		return 0;
	c->prev_end = t.prev_end;
	c->end = p + 4;
	if (!(c->meta = malloc(t.meta_len))) {
		snprintf(sc->err, sc->err_len, "out of memory");
		sc->io_failed = true;
		return -1;
	}
	if (read_at(sc, c->meta, t.meta_len, meta_at) < 0 ||
	    stk_pq_footer_decode(c->meta, t.meta_len, &c->f, &why) < 0 || !meta_fits(sc, c, meta_at)) {
		ckpt_free(c);
		return sc->io_failed ? -1 : 0;
	}
	return 1;
}

/* The chain of good checkpoints from the last one back to the start, into *chain (newest first). */
static int find_chain(struct scan *sc, struct ckpt **chain, size_t *n)
{
	int64_t limit = sc->size;
	size_t cap = 0, bad = 0;

	*chain = NULL;
	*n = 0;
	for (;;) {
		struct ckpt c;
		int64_t p = find_magic(sc, limit, STK_PQ_MAGIC_LEN);
		int rc;

		if (p < 0)
			break;
		rc = checkpoint_at(sc, p, &c);
		if (rc < 0)
			return -1;
		if (rc == 0) {
			/* not good: the chain so far leads to it, so it is no chain; look before it */
			for (size_t i = 0; i < *n; i++)
				ckpt_free(&(*chain)[i]);
			*n = 0;
			sc->seen_schema = false;
			if (++bad > MAX_BAD_CANDIDATES)
				break;
			limit = p + 3;
			continue;
		}
		if (*n == cap) {
			struct ckpt *more = realloc(*chain, (cap = cap ? 2 * cap : 16) * sizeof(*more));

			if (!more) {
				ckpt_free(&c);
				snprintf(sc->err, sc->err_len, "out of memory");
				return -1;
			}
			*chain = more;
		}
		(*chain)[(*n)++] = c;
		if (c.prev_end == STK_PQ_MAGIC_LEN)
			return 0;
		/* the previous checkpoint's magic ends at prev_end (checked): it must be good too */
		limit = c.prev_end;
	}
	if (!sc->io_failed)
		snprintf(sc->err, sc->err_len, "no checkpoint to recover from (not a file stk record was writing, "
			 "or damaged from its start)");
	return -1;
}

/* The groups of chain (newest first) into s, oldest first. */
static int take_groups(struct scan *sc, struct ckpt *chain, size_t n, struct stk_pq_salvage *s)
{
	size_t total = 0, at = 0;

	for (size_t i = 0; i < n; i++)
		total += chain[i].f.n_groups;
	if (total && !(s->groups = calloc(total, sizeof(*s->groups))))
		return -1;
	if (!(s->min = calloc(sc->n, sizeof(*s->min))) || !(s->max = calloc(sc->n, sizeof(*s->max))) ||
	    !(s->has_range = calloc(sc->n, sizeof(*s->has_range))))
		return -1;
	for (size_t c = 0; c < sc->n; c++)
		s->has_range[c] = total > 0 && sc->present[c];
	for (size_t i = n; i-- > 0;) {
		for (size_t g = 0; g < chain[i].f.n_groups; g++) {
			const struct stk_pq_group_meta *in = &chain[i].f.groups[g];
			struct stk_pq_group_meta *out = &s->groups[at++];

			*out = *in;
			if (!(out->chunks = calloc(sc->n_present, sizeof(*out->chunks))))
				return -1;
			s->n_groups++;
			out->total_byte_size = out->total_compressed = 0;
			/* chunk k is the file's k-th column: cols[c] for the k-th c present */
			for (size_t c = 0, k = 0; c < sc->n; c++) {
				if (!sc->present[c])
					continue;
				struct stk_pq_chunk_meta *m = &out->chunks[k];

				*m = in->chunks[k++];
				m->path = NULL;
				m->path_len = 0;
				out->total_byte_size += m->total_uncompressed;
				out->total_compressed += m->total_compressed;
				if (!m->has_min_max) {
					s->has_range[c] = false;
				} else if (at == 1) { /* the first group */
					s->min[c] = m->min;
					s->max[c] = m->max;
				} else {
					s->min[c] = m->min < s->min[c] ? m->min : s->min[c];
					s->max[c] = m->max > s->max[c] ? m->max : s->max[c];
				}
			}
			out->file_offset = out->chunks[0].dict_page_offset >= 0 ? out->chunks[0].dict_page_offset
										: out->chunks[0].data_page_offset;
			s->rows += out->num_rows;
		}
	}
	return 0;
}

/* The newest checkpoint's metadata, copied. */
static int take_kv(const struct ckpt *c, struct stk_pq_salvage *s)
{
	if (!c->f.n_kv)
		return 0;
	if (!(s->kv = calloc(2 * c->f.n_kv, sizeof(*s->kv))))
		return -1;
	for (size_t i = 0; i < c->f.n_kv; i++) {
		const struct stk_pq_kv *kv = &c->f.kv[i];

		if (!kv->value)
			continue;
		s->kv[2 * s->n_kv] = strndup((const char *)kv->key, kv->key_len);
		s->kv[2 * s->n_kv + 1] = strndup((const char *)kv->value, kv->value_len);
		s->n_kv++;
		if (!s->kv[2 * s->n_kv - 2] || !s->kv[2 * s->n_kv - 1])
			return -1;
	}
	return 0;
}

int stk_pq_salvage_read(int fd, const struct stk_pq_column *cols, size_t n, struct stk_pq_salvage *s, char *err,
			size_t err_len)
{
	struct scan sc = { .fd = fd, .cols = cols, .n = n, .err = err, .err_len = err_len };
	uint8_t head[STK_PQ_MAGIC_LEN];
	struct ckpt *chain = NULL;
	size_t n_chain = 0;
	struct stat st;
	int ret = -1;

	memset(s, 0, sizeof(*s));
	if (n == 0 || n > STK_PQ_MAX_COLUMNS) {
		snprintf(err, err_len, "a schema of %zu columns", n);
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, err_len, "%s", errno ? strerror(errno) : "not a regular file");
		return -1;
	}
	sc.size = s->size = st.st_size;
	if (!(sc.buf = malloc(BLOCK))) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	if (read_at(&sc, head, sizeof(head), 0) < 0 || memcmp(head, STK_PQ_MAGIC, STK_PQ_MAGIC_LEN) != 0) {
		if (!sc.io_failed)
			snprintf(err, err_len, "not a Parquet file (no leading magic)");
	} else if (find_chain(&sc, &chain, &n_chain) == 0) {
		s->end = chain[0].end;
		s->checkpoints = n_chain;
		s->n_present = sc.n_present;
		if ((s->present = malloc(n * sizeof(*s->present))))
			memcpy(s->present, sc.present, n * sizeof(*s->present));
		if (s->present && take_groups(&sc, chain, n_chain, s) == 0 && take_kv(&chain[0], s) == 0)
			ret = 0;
		else
			snprintf(err, err_len, "out of memory");
	}
	for (size_t i = 0; i < n_chain; i++)
		ckpt_free(&chain[i]);
	free(chain);
	free(sc.buf);
	if (ret)
		stk_pq_salvage_free(s);
	return ret;
}

const char *stk_pq_salvage_metadata(const struct stk_pq_salvage *s, const char *key)
{
	for (size_t i = 0; i < s->n_kv; i++)
		if (strcmp(s->kv[2 * i], key) == 0)
			return s->kv[2 * i + 1];
	return NULL;
}

int stk_pq_salvage_write(int fd, const struct stk_pq_salvage *s, const struct stk_pq_column *cols, size_t n,
			 const char *const *kv, size_t n_kv, char *err, size_t err_len)
{
	struct stk_pq_column file_cols[STK_PQ_MAX_COLUMNS];
	struct stk_buf b = { 0 };
	size_t m = 0;
	int ret = -1;

	/* the file's own columns: those of cols it has */
	for (size_t i = 0; i < n && i < STK_PQ_MAX_COLUMNS; i++)
		if (s->present && s->present[i])
			file_cols[m++] = cols[i];
	const struct stk_pq_footer_in in = {
		.cols = file_cols, .n_cols = m, .groups = s->groups, .n_groups = s->n_groups, .num_rows = s->rows,
		.kv = kv ? kv : (const char *const *)s->kv, .n_kv = kv ? n_kv : s->n_kv,
	};

	if (stk_pq_footer_encode(&b, &in) < 0 || b.len > STK_PQ_MAX_FOOTER_BYTES) {
		snprintf(err, err_len, "the footer is too large or memory ran out");
		goto out;
	}
	stk_buf_le32(&b, (uint32_t)b.len);
	stk_buf_put(&b, STK_PQ_MAGIC, STK_PQ_MAGIC_LEN);
	if (b.oom) {
		snprintf(err, err_len, "out of memory");
		goto out;
	}
	if (ftruncate(fd, (off_t)s->end) || pwrite(fd, b.data, b.len, (off_t)s->end) != (ssize_t)b.len || fsync(fd)) {
		snprintf(err, err_len, "writing the footer: %s", errno ? strerror(errno) : "short write");
		goto out;
	}
	ret = 0;
out:
	stk_buf_free(&b);
	return ret;
}

void stk_pq_salvage_free(struct stk_pq_salvage *s)
{
	for (size_t g = 0; g < s->n_groups; g++)
		free(s->groups[g].chunks);
	free(s->groups);
	for (size_t i = 0; i < 2 * s->n_kv; i++)
		free(s->kv[i]);
	free(s->kv);
	free(s->min);
	free(s->max);
	free(s->has_range);
	free(s->present);
	memset(s, 0, sizeof(*s));
}
