/* A growable list of owned strings, with sorting and de-duplication. */
#ifndef STK_NAME_LIST_H
#define STK_NAME_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct stk_name_list {
	char **names;
	size_t n, cap;
};

/* Appends a copy of name (n bytes, or all of it when n is (size_t)-1). 0 or -1. */
int stk_name_list_add(struct stk_name_list *l, const char *name, size_t n);
/* Sorts and drops duplicates. */
void stk_name_list_sort_unique(struct stk_name_list *l);
/* After sort_unique: whether name is in the list. */
bool stk_name_list_contains(const struct stk_name_list *l, const char *name);
void stk_name_list_free(struct stk_name_list *l);

#endif
