#include "core/ladder/climb.h"

#include <stdio.h>
#include <string.h>

static void passed_over(struct stk_climb *c, const char *name, const char *why)
{
	size_t used = strlen(c->tried);
	int w = snprintf(c->tried + used, sizeof(c->tried) - used, "%s%s: %s", used ? "; " : "", name, why);

	if (w < 0 || (size_t)w >= sizeof(c->tried) - used) /* cut at a whole entry, never mid-word */
		c->tried[used] = '\0';
}

int stk_climb(struct stk_climb *c, const struct stk_rung *const *order, size_t n, const char *none_msg, char *err,
	      size_t errlen)
{
	char why[512];

	c->chosen = NULL;
	c->tried[0] = '\0';
	if (c->forced && !stk_rung_by_name(c->cls, c->forced)) {
		char names[128];
		stk_ladder_names(c->cls, names, sizeof(names));
		snprintf(err, errlen, "%s %s: expected %s", c->forced_opt, c->forced, names);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct stk_rung *r = order[i];

		if (c->forced && strcmp(r->name, c->forced) != 0)
			continue;
		why[0] = '\0';
		if (c->attempt(c->ctx, r, why, sizeof(why)) == 0) {
			c->chosen = r;
			return 0;
		}
		if (c->forced) {
			snprintf(err, errlen, "%s %s: not available here: %s", c->forced_opt, r->name, why);
			return -1;
		}
		passed_over(c, r->name, why);
	}
	snprintf(err, errlen, "%s (%s)", none_msg, c->tried);
	return -1;
}

int stk_climb_all(struct stk_climb *c, const char *none_msg, char *err, size_t errlen)
{
	const struct stk_rung *order[8];
	size_t n = stk_ladder_order(c->cls, 0, 0, order, sizeof(order) / sizeof(order[0]));

	return stk_climb(c, order, n, none_msg, err, errlen);
}

const char *stk_climb_passed_over(const char *tried, char *buf, size_t len)
{
	if (tried && tried[0])
		snprintf(buf, len, " (passed over: %s)", tried);
	else if (len)
		buf[0] = '\0';
	return buf;
}
