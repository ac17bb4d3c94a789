/* Distinct strings (span labels, interval names) numbered in the order first seen, each copied once. */
#ifndef STK_LABEL_TABLE_H
#define STK_LABEL_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct stk_label_table {
	char **labels; /* index -> the string */
	size_t n, cap;
	uint32_t *slots; /* open addressing: index + 1, 0 free */
	size_t n_slots;
};

/* s's index (added when new), or UINT32_MAX when out of memory. */
uint32_t stk_label_id(struct stk_label_table *t, const char *s);
void stk_label_table_free(struct stk_label_table *t);

#endif
