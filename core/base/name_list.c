#include "core/base/name_list.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"

int stk_name_list_add(struct stk_name_list *l, const char *name, size_t n)
{
	char *copy;

	if (n == (size_t)-1)
		n = strlen(name);
	if (stk_grow((void **)&l->names, &l->cap, l->n + 1, sizeof(*l->names)) || !(copy = strndup(name, n)))
		return -1;
	l->names[l->n++] = copy;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void stk_name_list_sort_unique(struct stk_name_list *l)
{
	size_t kept = 0;

	if (!l->n)
		return;
	qsort(l->names, l->n, sizeof(*l->names), cmp_names);
	for (size_t i = 1; i < l->n; i++) {
		if (strcmp(l->names[i], l->names[kept]) == 0)
			free(l->names[i]);
		else
			l->names[++kept] = l->names[i];
	}
	l->n = kept + 1;
}

bool stk_name_list_contains(const struct stk_name_list *l, const char *name)
{
	return l->n && bsearch(&name, l->names, l->n, sizeof(*l->names), cmp_names) != NULL;
}

void stk_name_list_free(struct stk_name_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->names[i]);
	free(l->names);
	l->names = NULL;
	l->n = l->cap = 0;
}
