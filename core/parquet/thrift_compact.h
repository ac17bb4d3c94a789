/*
 * Thrift's compact protocol, the encoding of Parquet's footer and page
 * headers: the writer for what stk emits and a bounded reader that skips
 * fields it does not know. Internal to core/parquet/.
 */
#ifndef STK_PQ_THRIFT_COMPACT_H
#define STK_PQ_THRIFT_COMPACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/byte_buf.h"

/* The compact protocol's type codes (field headers and list headers). */
enum stk_thrift_type {
	STK_THRIFT_STOP = 0,
	STK_THRIFT_TRUE = 1,
	STK_THRIFT_FALSE = 2,
	STK_THRIFT_BYTE = 3,
	STK_THRIFT_I16 = 4,
	STK_THRIFT_I32 = 5,
	STK_THRIFT_I64 = 6,
	STK_THRIFT_DOUBLE = 7,
	STK_THRIFT_BINARY = 8,
	STK_THRIFT_LIST = 9,
	STK_THRIFT_SET = 10,
	STK_THRIFT_MAP = 11,
	STK_THRIFT_STRUCT = 12,
};

/* Structs nest at most this deep, in what stk writes and in what it reads. */
#define STK_THRIFT_MAX_DEPTH 16

/*
 * The writer: fields of a struct go out in increasing id order (the compact
 * protocol stores the difference to the previous id). Errors (too deep, out
 * of memory) set out->oom.
 */
struct stk_thrift_writer {
	struct stk_buf *out;
	int16_t last_id[STK_THRIFT_MAX_DEPTH];
	int depth;
};

void stk_thrift_writer_init(struct stk_thrift_writer *w, struct stk_buf *out);
void stk_thrift_field_i32(struct stk_thrift_writer *w, int16_t id, int32_t v);
void stk_thrift_field_i64(struct stk_thrift_writer *w, int16_t id, int64_t v);
void stk_thrift_field_bool(struct stk_thrift_writer *w, int16_t id, bool v);
void stk_thrift_field_binary(struct stk_thrift_writer *w, int16_t id, const void *p, size_t n);
/* A struct field; its fields follow, then stk_thrift_struct_end. */
void stk_thrift_field_struct(struct stk_thrift_writer *w, int16_t id);
/* A list field of n elements of elem_type; the elements follow. */
void stk_thrift_field_list(struct stk_thrift_writer *w, int16_t id, enum stk_thrift_type elem_type, size_t n);
/* List elements: a struct (fields, then stk_thrift_struct_end), an i32, a binary. */
void stk_thrift_elem_struct(struct stk_thrift_writer *w);
void stk_thrift_elem_i32(struct stk_thrift_writer *w, int32_t v);
void stk_thrift_elem_binary(struct stk_thrift_writer *w, const void *p, size_t n);
/* Ends the innermost struct, or the outermost one (the message) at depth 0. */
void stk_thrift_struct_end(struct stk_thrift_writer *w);

/*
 * The reader over [p, end). Every call returns 0 (or 1 for "a field") on
 * success and -1 on malformed input, with err saying what; after an error
 * every call fails.
 */
struct stk_thrift_reader {
	const uint8_t *p, *end;
	int depth;
	const char *err;
};

/*
 * The next field header of the current struct: 1 with its id and type, 0 at
 * the struct's end (STOP), -1 on error. *last_id is the previous field's id
 * (0 before the first), kept by the caller per struct.
 */
int stk_thrift_next_field(struct stk_thrift_reader *r, int16_t *last_id, int16_t *id, uint8_t *type);
/* Entering a struct value (after its field or list header), for the depth bound. */
int stk_thrift_enter(struct stk_thrift_reader *r);
void stk_thrift_leave(struct stk_thrift_reader *r);
int stk_thrift_read_i64(struct stk_thrift_reader *r, int64_t *v);
/* An i32 (also an enum); values outside int32 are an error. */
int stk_thrift_read_i32(struct stk_thrift_reader *r, int32_t *v);
/* A binary or string: a pointer into the input, valid as long as it is. */
int stk_thrift_read_binary(struct stk_thrift_reader *r, const uint8_t **p, size_t *n);
/* A list header: element type and count (bounded by the bytes left). */
int stk_thrift_read_list(struct stk_thrift_reader *r, uint8_t *elem_type, uint32_t *n);
/* Skips one value of the given type (a field's or a list element's). */
int stk_thrift_skip(struct stk_thrift_reader *r, uint8_t type);
/* Sets err (when not set yet) and returns -1: for a field of the wrong type. */
int stk_thrift_fail(struct stk_thrift_reader *r, const char *err);

#endif
