#include "core/snapshot/frame_names.h"

#include <stdlib.h>

#include "core/base/string_pool.h"

struct stk_frame_names {
	struct stk_string_pool *names; /* by id - BASE */
};

struct stk_frame_names *stk_frame_names_new(void)
{
	struct stk_frame_names *n = calloc(1, sizeof(*n));

	if (n && !(n->names = stk_string_pool_new())) {
		free(n);
		return NULL;
	}
	return n;
}

void stk_frame_names_free(struct stk_frame_names *n)
{
	if (!n)
		return;
	stk_string_pool_free(n->names);
	free(n);
}

uint64_t stk_frame_names_id(struct stk_frame_names *n, const char *name, size_t len)
{
	/* when full, only names already known */
	uint32_t id = stk_string_pool_count(n->names) < STK_FRAME_NAME_MAX ? stk_string_pool_id(n->names, name, len)
									    : stk_string_pool_find(n->names, name, len);

	return id == STK_STRING_NONE ? 0 : STK_FRAME_NAME_BASE + id;
}

const char *stk_frame_names_name(const struct stk_frame_names *n, uint64_t id)
{
	if (!n || id < STK_FRAME_NAME_BASE || id - STK_FRAME_NAME_BASE >= stk_string_pool_count(n->names))
		return NULL;
	return stk_string_pool_strings(n->names)[id - STK_FRAME_NAME_BASE];
}
