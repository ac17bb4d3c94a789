/*
 * The numbers of the Parquet format that stk writes and reads (the enums of
 * the format's Thrift definition), and the limits the reader holds every
 * file to. Internal to core/parquet/.
 */
#ifndef STK_PQ_FORMAT_H
#define STK_PQ_FORMAT_H

#define STK_PQ_MAGIC "PAR1"
#define STK_PQ_MAGIC_LEN 4

enum stk_pq_physical {
	STK_PQ_PHYS_INT32 = 1,
	STK_PQ_PHYS_INT64 = 2,
	STK_PQ_PHYS_BYTE_ARRAY = 6,
};

enum stk_pq_repetition {
	STK_PQ_REQUIRED = 0,
	STK_PQ_OPTIONAL = 1,
};

enum stk_pq_converted {
	STK_PQ_CONV_UTF8 = 0,
	STK_PQ_CONV_INT_32 = 17,
	STK_PQ_CONV_INT_64 = 18,
};

/* Field ids of the LogicalType union and of TimeUnit. */
enum {
	STK_PQ_LOGICAL_STRING = 1,
	STK_PQ_LOGICAL_TIMESTAMP = 8,
	STK_PQ_LOGICAL_INTEGER = 10,
	STK_PQ_UNIT_MILLIS = 1,
	STK_PQ_UNIT_MICROS = 2,
	STK_PQ_UNIT_NANOS = 3,
};

enum stk_pq_encoding {
	STK_PQ_ENC_PLAIN = 0,
	STK_PQ_ENC_PLAIN_DICTIONARY = 2,
	STK_PQ_ENC_RLE = 3,
	STK_PQ_ENC_BIT_PACKED = 4,
	STK_PQ_ENC_DELTA_BINARY_PACKED = 5,
	STK_PQ_ENC_RLE_DICTIONARY = 8,
};

enum stk_pq_codec {
	STK_PQ_CODEC_UNCOMPRESSED = 0,
	STK_PQ_CODEC_GZIP = 2,
};

enum stk_pq_page_type {
	STK_PQ_PAGE_DATA = 0,
	STK_PQ_PAGE_INDEX = 1,
	STK_PQ_PAGE_DICTIONARY = 2,
	STK_PQ_PAGE_DATA_V2 = 3,
};

/*
 * Limits. A page holds at most STK_PQ_MAX_PAGE_VALUES values and
 * STK_PQ_MAX_PAGE_BYTES bytes uncompressed (the writer's dictionary page too:
 * a row group ends before its dictionaries reach it); the footer is at most
 * STK_PQ_MAX_FOOTER_BYTES. The reader refuses anything larger, so a file can
 * never make it allocate more than a few pages' worth.
 */
#define STK_PQ_MAX_PAGE_VALUES (1u << 17)
#define STK_PQ_MAX_PAGE_BYTES (64u << 20)
#define STK_PQ_MAX_FOOTER_BYTES (64u << 20)
#define STK_PQ_MAX_COLUMNS 64
/* deflate expands at most ~1032:1; a page claiming more is lying. */
#define STK_PQ_GZIP_MAX_RATIO 1032u
/* A PageHeader is a few dozen bytes; stk reads at most this much for one. */
#define STK_PQ_MAX_PAGE_HEADER 4096

#endif
