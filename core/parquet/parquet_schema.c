#include "core/parquet/parquet_schema.h"

const char *stk_pq_type_name(enum stk_pq_type type)
{
	switch (type) {
	case STK_PQ_INT32:
		return "INT32";
	case STK_PQ_INT64:
		return "INT64";
	case STK_PQ_TIMESTAMP_NS:
		return "TIMESTAMP";
	case STK_PQ_STRING:
		return "STRING";
	}
	return "unknown";
}
