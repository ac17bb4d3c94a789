/* threadstate's stacks as text: addresses taken by BPF, named and folded. */
#ifndef STK_STACK_FOLD_H
#define STK_STACK_FOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stk_symbolizer;

/*
 * Folds addresses (leaf first) into "root;...;leaf" when fold (else NULL);
 * pid 0 means kernel addresses, whose wchan-like frame goes to wchan (may be NULL).
 */
char *stk_fold_addrs(struct stk_symbolizer *sym, uint32_t pid, const unsigned long long *addrs, size_t n, bool fold,
		     char *wchan, size_t wchan_len);

/*
 * The innermost n frames of a folded "root;...;leaf" stack, leaf first and
 * comma-separated as pt-pmp prints them, with ",..." when callers are left
 * out, into buf ("" for NULL).
 */
void stk_fold_innermost(const char *folded, size_t n, char *buf, size_t len);

#endif
