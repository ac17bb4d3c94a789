/* A stack's frames as text and back: see frames_codec.h. */
#include "core/eventlog/frames_codec.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/utf8.h"

#define MAGIC "stk-frames 1"
#define NULL_FIELD "\\N"
/* Fields of a frame line after its kind: flags, 5 numbers, 5 strings, line. */
#define FRAME_FIELDS 12
#define INLINE_FIELDS 3

static void put_str(struct stk_buf *b, const char *s)
{
	stk_buf_put(b, s, strlen(s));
}

/* Whether all eight bytes of w are printable ASCII other than '\\' (none needs escaping). */
static bool plain_word(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	uint64_t del = w ^ (ones * 0x7f), bs = w ^ (ones * '\\');

	/* some byte below 0x20, 0x80 or above, 0x7f, '\\' (the zero-byte test on w, del, bs) */
	return !(((w - ones * 0x20) & ~w & highs) | (w & highs) | ((del - ones) & ~del & highs) |
		 ((bs - ones) & ~bs & highs));
}

static void put_escaped(struct stk_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), run = 0; /* the bytes before i that need no escape, put at once */
	char hex[5];

	for (size_t i = 0; i < len;) {
		uint64_t w;

		/* names and paths are plain ASCII: eight bytes at a time */
		if (i + sizeof(w) <= len && (memcpy(&w, p + i, sizeof(w)), plain_word(w))) {
			run += sizeof(w);
			i += sizeof(w);
			continue;
		}
		/* printable ASCII, the bulk of every name and path, needs no decoding */
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\') {
			run++;
			i++;
			continue;
		}
		size_t n = stk_utf8_seq_len(p + i, len - i);
		bool plain = n > 0 && p[i] != '\\' && p[i] >= 0x20 && p[i] != 0x7f;

		if (plain) {
			run += n;
			i += n;
			continue;
		}
		stk_buf_put(b, p + i - run, run);
		run = 0;
		if (p[i] == '\\') {
			put_str(b, "\\\\");
		} else if (p[i] == '\t') {
			put_str(b, "\\t");
		} else if (p[i] == '\n') {
			put_str(b, "\\n");
		} else {
			snprintf(hex, sizeof(hex), "\\x%02x", p[i]);
			put_str(b, hex);
		}
		i += n ? n : 1;
	}
	stk_buf_put(b, p + len - run, run);
}

static void put_field(struct stk_buf *b, const char *s)
{
	stk_buf_byte(b, '\t');
	if (s)
		put_escaped(b, s);
	else
		put_str(b, NULL_FIELD);
}

/* A tab and v in base 16, written in place (a stack has hundreds of numbers: no printf, no division). */
static void put_hex(struct stk_buf *b, uint64_t v)
{
	size_t digits = 1;
	uint8_t *at;

	while (digits < 16 && v >> (4 * digits))
		digits++;
	if (!(at = stk_buf_reserve(b, digits + 1)))
		return;
	at[0] = '\t';
	for (size_t i = digits; i > 0; i--, v >>= 4)
		at[i] = (uint8_t)"0123456789abcdef"[v & 15];
	b->len += digits + 1;
}

/* A tab and v in base 10. */
static void put_dec(struct stk_buf *b, uint64_t v)
{
	stk_buf_byte(b, '\t');
	stk_buf_dec(b, v);
}

/* in_kernel: the frame is one of the stack's kernel frames (whatever its own kernel flag says). */
static void put_frame(struct stk_buf *b, const struct stk_frame *f, bool in_kernel)
{
	stk_buf_put(b, in_kernel ? "\nk\t" : "\nu\t", 3);
	if (!f->main_exe && !f->synthetic && !f->kernel)
		stk_buf_byte(b, '-');
	if (f->kernel)
		stk_buf_byte(b, 'K');
	if (f->main_exe)
		stk_buf_byte(b, 'm');
	if (f->synthetic)
		stk_buf_byte(b, 's');
	put_hex(b, f->address);
	put_hex(b, f->symbol_offset);
	put_hex(b, f->map_start);
	put_hex(b, f->map_end);
	put_hex(b, f->map_offset);
	put_field(b, f->symbol);
	put_field(b, f->module);
	put_field(b, f->build_id);
	put_field(b, f->found_by);
	put_field(b, f->file);
	put_dec(b, f->line);
	for (size_t i = 0; i < f->n_inlined; i++) {
		put_str(b, "\ni");
		put_field(b, f->inlined[i].symbol);
		put_field(b, f->inlined[i].file);
		put_dec(b, f->inlined[i].line);
	}
}

void stk_frames_encode(struct stk_buf *b, const struct stk_stack *s)
{
	put_str(b, MAGIC);
	put_dec(b, s->kernel_missing);
	put_dec(b, s->user_missing);
	put_field(b, s->unwind_stop);
	for (size_t i = 0; i < s->n_kernel; i++)
		put_frame(b, &s->kernel[i], true);
	for (size_t i = 0; i < s->n_user; i++)
		put_frame(b, &s->user[i], false);
}

struct stk_decoded_frames {
	struct stk_frame *frames;
	struct stk_inline_frame *inlined;
	char *strings;
};

/* The decoder's cursor over the text and its output areas. */
struct decoder {
	const char *p, *end;
	char *out; /* next free byte of the string area */
	char *err;
	size_t err_len;
	size_t line;
};

static int bad(struct decoder *d, const char *why)
{
	snprintf(d->err, d->err_len, "frames line %zu: %s", d->line, why);
	return -1;
}

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The next field (up to TAB, LF or the end) as [*start, *stop); the cursor moves past a TAB only. */
static void next_raw(struct decoder *d, const char **start, const char **stop)
{
	*start = d->p;
	while (d->p < d->end && *d->p != '\t' && *d->p != '\n')
		d->p++;
	*stop = d->p;
}

static int expect_tab(struct decoder *d)
{
	if (d->p >= d->end || *d->p != '\t')
		return bad(d, "too few fields");
	d->p++;
	return 0;
}

static int field_num(struct decoder *d, int base, uint64_t *v)
{
	const char *s, *e;

	if (expect_tab(d))
		return -1;
	next_raw(d, &s, &e);
	if (s == e || e - s > 16)
		return bad(d, "a number expected");
	*v = 0;
	for (; s < e; s++) {
		int h = hex_digit(*s);

		if (h < 0 || h >= base)
			return bad(d, "a number expected");
		*v = *v * (uint64_t)base + (uint64_t)h;
	}
	return 0;
}

/* An escaped string field into the string area (*v NULL for \N). */
static int field_str(struct decoder *d, const char **v)
{
	const char *s, *e;

	if (expect_tab(d))
		return -1;
	next_raw(d, &s, &e);
	if (e - s == 2 && memcmp(s, NULL_FIELD, 2) == 0) {
		*v = NULL;
		return 0;
	}
	*v = d->out;
	while (s < e) {
		if (*s != '\\') {
			*d->out++ = *s++;
			continue;
		}
		if (e - s >= 2 && (s[1] == '\\' || s[1] == 't' || s[1] == 'n')) {
			*d->out++ = s[1] == 't' ? '\t' : s[1] == 'n' ? '\n' : '\\';
			s += 2;
		} else if (e - s >= 4 && s[1] == 'x' && hex_digit(s[2]) >= 0 && hex_digit(s[3]) >= 0 &&
			   (hex_digit(s[2]) | hex_digit(s[3])) != 0) {
			*d->out++ = (char)(hex_digit(s[2]) << 4 | hex_digit(s[3]));
			s += 4;
		} else {
			return bad(d, "a bad escape");
		}
	}
	*d->out++ = '\0';
	return 0;
}

static int field_u32(struct decoder *d, int base, uint32_t *v)
{
	uint64_t x;

	if (field_num(d, base, &x))
		return -1;
	if (x > UINT32_MAX)
		return bad(d, "a number out of range");
	*v = (uint32_t)x;
	return 0;
}

static int field_flag(struct decoder *d, bool *v)
{
	uint64_t x;

	if (field_num(d, 10, &x))
		return -1;
	if (x > 1)
		return bad(d, "0 or 1 expected");
	*v = x == 1;
	return 0;
}

/* Moves to the start of the next line: 1, 0 at the end, -1 when fields are left over. */
static int next_line(struct decoder *d)
{
	if (d->p < d->end && *d->p != '\n')
		return bad(d, "too many fields");
	if (d->p >= d->end)
		return 0;
	d->p++;
	d->line++;
	return 1;
}

static int frame_flags(struct decoder *d, struct stk_frame *f)
{
	const char *s, *e;

	next_raw(d, &s, &e);
	if (e - s == 1 && *s == '-')
		return 0;
	if (s == e)
		return bad(d, "no flags");
	for (; s < e; s++) {
		if (*s == 'm' && !f->main_exe)
			f->main_exe = true;
		else if (*s == 's' && !f->synthetic)
			f->synthetic = true;
		else if (*s == 'K' && !f->kernel)
			f->kernel = true;
		else
			return bad(d, "unknown flags");
	}
	return 0;
}

static int decode_frame(struct decoder *d, struct stk_frame *f)
{
	if (expect_tab(d) || frame_flags(d, f) || field_num(d, 16, &f->address) ||
	    field_num(d, 16, &f->symbol_offset) || field_num(d, 16, &f->map_start) || field_num(d, 16, &f->map_end) ||
	    field_num(d, 16, &f->map_offset) || field_str(d, &f->symbol) || field_str(d, &f->module) ||
	    field_str(d, &f->build_id) || field_str(d, &f->found_by) || field_str(d, &f->file) ||
	    field_u32(d, 10, &f->line))
		return -1;
	return 0;
}

static int decode_inline(struct decoder *d, struct stk_inline_frame *in)
{
	if (field_str(d, &in->symbol) || field_str(d, &in->file) || field_u32(d, 10, &in->line))
		return -1;
	if (!in->symbol)
		return bad(d, "an inlined function without a name");
	return 0;
}

/* The lines' kinds in order: frames kernel first, an inline line only after a frame. */
static int decode_lines(struct decoder *d, struct stk_stack *st, struct stk_decoded_frames *o, size_t max)
{
	size_t n = 0, n_in = 0, n_kernel = 0;
	struct stk_frame *last = NULL;
	int more;

	while ((more = next_line(d)) > 0) {
		char kind = d->p < d->end ? *d->p++ : '\0';

		if (kind == 'i') {
			if (!last || n_in >= max)
				return bad(d, last ? "too many inlined functions" : "an inlined function before any frame");
			if (decode_inline(d, &o->inlined[n_in]))
				return -1;
			if (!last->n_inlined)
				last->inlined = &o->inlined[n_in];
			last->n_inlined++;
			n_in++;
			continue;
		}
		if ((kind != 'k' && kind != 'u') || n >= max || n >= STK_FRAMES_MAX)
			return bad(d, n >= max || n >= STK_FRAMES_MAX ? "too many frames" : "an unknown line");
		if (kind == 'k' && n > n_kernel)
			return bad(d, "a kernel frame after user frames");
		last = &o->frames[n++];
		if (decode_frame(d, last))
			return -1;
		n_kernel += kind == 'k';
	}
	if (more < 0)
		return -1;
	st->kernel = n_kernel ? o->frames : NULL;
	st->n_kernel = n_kernel;
	st->user = n > n_kernel ? o->frames + n_kernel : NULL;
	st->n_user = n - n_kernel;
	return 0;
}

int stk_frames_decode(const char *text, size_t len, struct stk_stack *st, struct stk_decoded_frames **owner,
		      char *err, size_t err_len)
{
	struct decoder d = { .p = text, .end = text + len, .err = err, .err_len = err_len, .line = 1 };
	size_t lines = 1, strings;
	struct stk_decoded_frames *o;
	int ret;

	*owner = NULL;
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	if (lines > STK_FRAMES_INLINED_MAX) {
		snprintf(err, err_len, "frames: %zu lines, more than %d", lines, STK_FRAMES_INLINED_MAX);
		return -1;
	}
	/* unescaping never lengthens a string; each field adds one NUL */
	strings = len + lines * (FRAME_FIELDS + 1) + 16;
	o = calloc(1, sizeof(*o) + lines * (sizeof(*o->frames) + sizeof(*o->inlined)) + strings);
	if (!o) {
		snprintf(err, err_len, "frames: out of memory");
		return -1;
	}
	o->frames = (struct stk_frame *)(o + 1);
	o->inlined = (struct stk_inline_frame *)(o->frames + lines);
	o->strings = (char *)(o->inlined + lines);
	d.out = o->strings;
	if (len < sizeof(MAGIC) - 1 || memcmp(text, MAGIC, sizeof(MAGIC) - 1) != 0) {
		snprintf(err, err_len, "frames: not stk's frames text");
		free(o);
		return -1;
	}
	d.p += sizeof(MAGIC) - 1;
	ret = field_flag(&d, &st->kernel_missing) || field_flag(&d, &st->user_missing) ||
	      field_str(&d, &st->unwind_stop) || decode_lines(&d, st, o, lines) ? -1 : 0;
	if (ret) {
		free(o);
		st->kernel = st->user = NULL;
		st->n_kernel = st->n_user = 0;
		st->unwind_stop = NULL;
		return -1;
	}
	*owner = o;
	return 0;
}

void stk_frames_free(struct stk_decoded_frames *owner)
{
	free(owner);
}
