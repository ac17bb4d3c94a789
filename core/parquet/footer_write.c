/* Encoding the footer (FileMetaData) and page headers with Thrift's compact protocol. */
#include <string.h>

#include "core/parquet/footer.h"
#include "core/parquet/footer_fields.h"
#include "core/parquet/format.h"
#include "core/parquet/thrift_compact.h"

static void schema_elem(struct stk_thrift_writer *w, const struct stk_pq_column *c)
{
	bool string = c->type == STK_PQ_STRING, timestamp = c->type == STK_PQ_TIMESTAMP_NS;

	stk_thrift_elem_struct(w);
	stk_thrift_field_i32(w, SE_TYPE, c->type == STK_PQ_INT32 ? STK_PQ_PHYS_INT32 :
				 string ? STK_PQ_PHYS_BYTE_ARRAY : STK_PQ_PHYS_INT64);
	stk_thrift_field_i32(w, SE_REPETITION, c->nullable ? STK_PQ_OPTIONAL : STK_PQ_REQUIRED);
	stk_thrift_field_binary(w, SE_NAME, c->name, strlen(c->name));
	/* the legacy converted type where one exists: TIMESTAMP_* has none for nanoseconds */
	if (string)
		stk_thrift_field_i32(w, SE_CONVERTED, STK_PQ_CONV_UTF8);
	if (string || timestamp) {
		stk_thrift_field_struct(w, SE_LOGICAL);
		stk_thrift_field_struct(w, string ? STK_PQ_LOGICAL_STRING : STK_PQ_LOGICAL_TIMESTAMP);
		if (timestamp) {
			stk_thrift_field_bool(w, TS_UTC, true);
			stk_thrift_field_struct(w, TS_UNIT);
			stk_thrift_field_struct(w, STK_PQ_UNIT_NANOS);
			stk_thrift_struct_end(w); /* NanoSeconds */
			stk_thrift_struct_end(w); /* TimeUnit */
		}
		stk_thrift_struct_end(w); /* StringType or TimestampType */
		stk_thrift_struct_end(w); /* LogicalType */
	}
	stk_thrift_struct_end(w);
}

static void schema(struct stk_thrift_writer *w, const struct stk_pq_footer_in *in)
{
	static const char root[] = "schema";

	stk_thrift_field_list(w, FMD_SCHEMA, STK_THRIFT_STRUCT, in->n_cols + 1);
	stk_thrift_elem_struct(w);
	stk_thrift_field_binary(w, SE_NAME, root, strlen(root));
	stk_thrift_field_i32(w, SE_NUM_CHILDREN, (int32_t)in->n_cols);
	stk_thrift_struct_end(w);
	for (size_t i = 0; i < in->n_cols; i++)
		schema_elem(w, &in->cols[i]);
}

static void min_max_field(struct stk_thrift_writer *w, int16_t id, int64_t v, bool int32)
{
	uint8_t le[8];

	for (int i = 0; i < 8; i++)
		le[i] = (uint8_t)((uint64_t)v >> (8 * i));
	stk_thrift_field_binary(w, id, le, int32 ? 4 : 8);
}

static void statistics(struct stk_thrift_writer *w, const struct stk_pq_chunk_meta *c)
{
	bool int32 = c->physical == STK_PQ_PHYS_INT32;

	stk_thrift_field_struct(w, CMD_STATISTICS);
	/* signed integers sort the same in the old and the new fields: both, for old readers */
	if (c->has_min_max) {
		min_max_field(w, ST_MAX, c->max, int32);
		min_max_field(w, ST_MIN, c->min, int32);
	}
	stk_thrift_field_i64(w, ST_NULL_COUNT, c->null_count);
	if (c->has_min_max) {
		min_max_field(w, ST_MAX_VALUE, c->max, int32);
		min_max_field(w, ST_MIN_VALUE, c->min, int32);
	}
	stk_thrift_struct_end(w);
}

static void column_chunk(struct stk_thrift_writer *w, const struct stk_pq_chunk_meta *c, const char *name)
{
	int n_enc = __builtin_popcount(c->encodings);

	stk_thrift_elem_struct(w);
	stk_thrift_field_i64(w, CC_FILE_OFFSET, c->dict_page_offset >= 0 ? c->dict_page_offset : c->data_page_offset);
	stk_thrift_field_struct(w, CC_META_DATA);
	stk_thrift_field_i32(w, CMD_TYPE, c->physical);
	stk_thrift_field_list(w, CMD_ENCODINGS, STK_THRIFT_I32, (size_t)n_enc);
	for (int e = 0; e < 32; e++)
		if (c->encodings & 1u << e)
			stk_thrift_elem_i32(w, e);
	stk_thrift_field_list(w, CMD_PATH, STK_THRIFT_BINARY, 1);
	stk_thrift_elem_binary(w, name, strlen(name));
	stk_thrift_field_i32(w, CMD_CODEC, c->codec);
	stk_thrift_field_i64(w, CMD_NUM_VALUES, c->num_values);
	stk_thrift_field_i64(w, CMD_UNCOMPRESSED, c->total_uncompressed);
	stk_thrift_field_i64(w, CMD_COMPRESSED, c->total_compressed);
	stk_thrift_field_i64(w, CMD_DATA_PAGE_OFFSET, c->data_page_offset);
	if (c->dict_page_offset >= 0)
		stk_thrift_field_i64(w, CMD_DICT_PAGE_OFFSET, c->dict_page_offset);
	statistics(w, c);
	stk_thrift_struct_end(w); /* ColumnMetaData */
	stk_thrift_struct_end(w); /* ColumnChunk */
}

static void row_groups(struct stk_thrift_writer *w, const struct stk_pq_footer_in *in)
{
	stk_thrift_field_list(w, FMD_ROW_GROUPS, STK_THRIFT_STRUCT, in->n_groups);
	for (size_t g = 0; g < in->n_groups; g++) {
		const struct stk_pq_group_meta *rg = &in->groups[g];

		stk_thrift_elem_struct(w);
		stk_thrift_field_list(w, RG_COLUMNS, STK_THRIFT_STRUCT, rg->n_chunks);
		for (size_t c = 0; c < rg->n_chunks; c++)
			column_chunk(w, &rg->chunks[c], in->cols[c].name);
		stk_thrift_field_i64(w, RG_TOTAL_BYTE_SIZE, rg->total_byte_size);
		stk_thrift_field_i64(w, RG_NUM_ROWS, rg->num_rows);
		stk_thrift_field_i64(w, RG_FILE_OFFSET, rg->file_offset);
		stk_thrift_field_i64(w, RG_TOTAL_COMPRESSED, rg->total_compressed);
		stk_thrift_struct_end(w);
	}
}

int stk_pq_footer_encode(struct stk_buf *out, const struct stk_pq_footer_in *in)
{
	struct stk_thrift_writer w;
	const char *created_by = in->created_by ? in->created_by : "stk";

	stk_thrift_writer_init(&w, out);
	stk_thrift_field_i32(&w, FMD_VERSION, 2);
	schema(&w, in);
	stk_thrift_field_i64(&w, FMD_NUM_ROWS, in->num_rows);
	row_groups(&w, in);
	if (in->n_kv) {
		stk_thrift_field_list(&w, FMD_KV, STK_THRIFT_STRUCT, in->n_kv);
		for (size_t i = 0; i < in->n_kv; i++) {
			stk_thrift_elem_struct(&w);
			stk_thrift_field_binary(&w, KV_KEY, in->kv[2 * i], strlen(in->kv[2 * i]));
			stk_thrift_field_binary(&w, KV_VALUE, in->kv[2 * i + 1], strlen(in->kv[2 * i + 1]));
			stk_thrift_struct_end(&w);
		}
	}
	stk_thrift_field_binary(&w, FMD_CREATED_BY, created_by, strlen(created_by));
	/* min_value/max_value follow each type's own order (signed for integers) */
	stk_thrift_field_list(&w, FMD_COLUMN_ORDERS, STK_THRIFT_STRUCT, in->n_cols);
	for (size_t i = 0; i < in->n_cols; i++) {
		stk_thrift_elem_struct(&w);
		stk_thrift_field_struct(&w, ORDER_TYPE_DEFINED);
		stk_thrift_struct_end(&w);
		stk_thrift_struct_end(&w);
	}
	stk_thrift_struct_end(&w);
	return out->oom ? -1 : 0;
}

void stk_pq_page_header_encode(struct stk_buf *out, const struct stk_pq_page_header *h)
{
	struct stk_thrift_writer w;
	bool dict = h->type == STK_PQ_PAGE_DICTIONARY;

	stk_thrift_writer_init(&w, out);
	stk_thrift_field_i32(&w, PH_TYPE, h->type);
	stk_thrift_field_i32(&w, PH_UNCOMPRESSED, h->uncompressed_size);
	stk_thrift_field_i32(&w, PH_COMPRESSED, h->compressed_size);
	stk_thrift_field_struct(&w, dict ? PH_DICT : PH_DATA);
	stk_thrift_field_i32(&w, dict ? DICT_NUM_VALUES : DPH_NUM_VALUES, h->num_values);
	stk_thrift_field_i32(&w, dict ? DICT_ENCODING : DPH_ENCODING, h->encoding);
	if (!dict) {
		stk_thrift_field_i32(&w, DPH_DEF_ENCODING, STK_PQ_ENC_RLE);
		stk_thrift_field_i32(&w, DPH_REP_ENCODING, STK_PQ_ENC_RLE);
	}
	stk_thrift_struct_end(&w);
	stk_thrift_struct_end(&w);
}
