/* What the output formats share: frame naming, deterministic ordering of stacks, root-first paths. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"
#include "core/output/output_internal.h"

void stk_put_comm(struct stk_buf *b, const struct stk_stack *s)
{
	size_t n = strnlen(s->comm, sizeof(s->comm));

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s->comm[i];

		stk_buf_putc(b, c < 0x20 || c == 0x7f ? '?' : (char)c);
	}
}

void stk_frame_name_text(struct stk_buf *b, const struct stk_frame *f, const struct stk_output_opts *o)
{
	stk_buf_puts(b, f->symbol ? f->symbol : STK_UNKNOWN_SYMBOL);
	if (f->symbol && (o->symbol_offsets || o->verbose))
		stk_buf_printf(b, "+0x%" PRIx64, f->symbol_offset);
	/* bcc names kernel-module functions "func [module]" even without -v */
	if (f->kernel && f->module)
		stk_buf_printf(b, " [%s]", f->module);
	if (o->verbose) {
		stk_buf_printf(b, " (0x%" PRIx64, f->address);
		if (!f->kernel && f->module)
			stk_buf_printf(b, " %s", f->module);
		else if (f->kernel && !f->module)
			stk_buf_puts(b, " [kernel.kallsyms]");
		if (f->found_by)
			stk_buf_printf(b, " %s", f->found_by);
		stk_buf_putc(b, ')');
	}
}

void stk_frame_name_plain(struct stk_buf *b, const struct stk_frame *f, const struct stk_output_opts *o)
{
	stk_buf_puts(b, f->symbol ? f->symbol : STK_UNKNOWN_SYMBOL);
	if (f->kernel && o->annotate)
		stk_buf_puts(b, "_[k]");
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_frames_by_name(const struct stk_frame *a, size_t na, const struct stk_frame *b, size_t nb)
{
	for (size_t i = 0; i < na && i < nb; i++) {
		int c = strcmp(a[i].symbol ? a[i].symbol : STK_UNKNOWN_SYMBOL,
			       b[i].symbol ? b[i].symbol : STK_UNKNOWN_SYMBOL);

		if (c || (c = cmp_str(a[i].module, b[i].module)))
			return c;
	}
	return cmp_u64(na, nb);
}

static int cmp_frames_by_address(const struct stk_frame *a, const struct stk_frame *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int c = cmp_u64(a[i].address, b[i].address);

		if (c)
			return c;
	}
	return 0;
}

int stk_stack_cmp(const struct stk_stack *a, const struct stk_stack *b)
{
	int c;

	if ((c = cmp_u64(a->value, b->value)) || (c = strncmp(a->comm, b->comm, sizeof(a->comm))) ||
	    (c = cmp_u64(a->pid, b->pid)) || (c = cmp_u64(a->tid, b->tid)) ||
	    (c = cmp_u64(a->kernel_missing, b->kernel_missing)) ||
	    (c = cmp_u64(a->user_missing, b->user_missing)) ||
	    (c = cmp_frames_by_name(a->kernel, a->n_kernel, b->kernel, b->n_kernel)) ||
	    (c = cmp_frames_by_name(a->user, a->n_user, b->user, b->n_user)) ||
	    (c = cmp_frames_by_address(a->kernel, b->kernel, a->n_kernel)))
		return c;
	return cmp_frames_by_address(a->user, b->user, a->n_user);
}

static int cmp_stack_ptrs(const void *a, const void *b)
{
	return stk_stack_cmp(*(const struct stk_stack *const *)a, *(const struct stk_stack *const *)b);
}

const struct stk_stack **stk_sorted_stacks(const struct stk_report *r)
{
	const struct stk_stack **v;

	if (!r->n_stacks)
		return NULL;
	v = calloc(r->n_stacks, sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < r->n_stacks; i++)
		v[i] = &r->stacks[i];
	qsort(v, r->n_stacks, sizeof(*v), cmp_stack_ptrs);
	return v;
}

/* Starts a new element; its name is appended to p->names by the caller. */
static int path_push(struct stk_path *p, enum stk_elem_kind kind)
{
	if (p->n && !p->names.oom)
		stk_buf_putc(&p->names, '\0'); /* ends the previous name */
	if (p->n == p->cap) {
		/* two arrays of one capacity: each grows from it alike */
		size_t cap[2] = { p->cap, p->cap };

		if (stk_grow((void **)&p->offset, &cap[0], p->n + 1, sizeof(*p->offset)) ||
		    stk_grow((void **)&p->kind, &cap[1], p->n + 1, sizeof(*p->kind)))
			return -1;
		p->cap = cap[0];
	}
	p->offset[p->n] = p->names.len;
	p->kind[p->n++] = kind;
	return 0;
}

int stk_path_build(struct stk_path *p, const struct stk_stack *s, const struct stk_output_opts *o)
{
	bool delim = o->delimiter && s->n_user && s->n_kernel && !s->user_missing && !s->kernel_missing;

	p->n = 0;
	stk_buf_reset(&p->names);
	stk_buf_putn(&p->names, "", 0); /* names.data is never NULL, even for an empty comm */
	if (path_push(p, STK_ELEM_TASK))
		return -1;
	stk_put_comm(&p->names, s);
	if (o->show_tid)
		stk_buf_printf(&p->names, " (%" PRIu32 "/%" PRIu32 ")", s->pid, s->tid);
	if (s->user_missing) {
		if (path_push(p, STK_ELEM_MISSED))
			return -1;
		stk_buf_puts(&p->names, STK_MISSED_USER);
	} else {
		for (size_t i = s->n_user; i-- > 0;) {
			if (path_push(p, STK_ELEM_USER))
				return -1;
			stk_frame_name_plain(&p->names, &s->user[i], o);
			/* then the functions inlined into it, outermost first */
			for (size_t k = s->user[i].n_inlined; k-- > 0;) {
				if (path_push(p, STK_ELEM_USER))
					return -1;
				stk_buf_puts(&p->names, s->user[i].inlined[k].symbol);
			}
		}
	}
	if (delim) {
		if (path_push(p, STK_ELEM_DELIM))
			return -1;
		stk_buf_putc(&p->names, '-');
	}
	if (s->kernel_missing) {
		if (path_push(p, STK_ELEM_MISSED))
			return -1;
		stk_buf_puts(&p->names, STK_MISSED_KERNEL);
	} else {
		for (size_t i = s->n_kernel; i-- > 0;) {
			if (path_push(p, STK_ELEM_KERNEL))
				return -1;
			stk_frame_name_plain(&p->names, &s->kernel[i], o);
		}
	}
	/* the final name's NUL is the buffer's own terminator */
	return p->names.oom ? -1 : 0;
}

void stk_path_free(struct stk_path *p)
{
	stk_buf_free(&p->names);
	free(p->offset);
	free(p->kind);
	*p = (struct stk_path){ 0 };
}
