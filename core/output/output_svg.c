/* A self-contained interactive flame graph: root at the bottom, frames in
 * folded order upward, widths proportional to value (a difference: the
 * compared recording's, coloured by its change from the base). The stacks are sorted
 * as root-first paths, so equal prefixes are adjacent and merge into one
 * tree in a single pass; children end up in name order. A report of several
 * value types (stk resources) gets a frame per type above the root, each an
 * equal share of the width (bytes and microseconds do not add up), its
 * frames proportional to value within it and titled in its unit. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"
#include "core/output/output_formats.h"
#include "core/output/output_internal.h"
#include "core/output/output_svg_script.h"

#define SVG_WIDTH 1200
#define PAD 10 /* left and right margin; the root frame spans between them */
#define FRAME_H 16
#define TOP 36    /* title and controls */
#define BOTTOM 30 /* details line */
#define CHAR_W 7.08
#define MIN_WIDTH 0.1
#define NONE SIZE_MAX

struct node {
	const char *name;
	enum stk_elem_kind kind;
	uint64_t value;
	uint64_t base;  /* a difference: the base's value (stk_report.diff) */
	uint32_t type;  /* the report's value type of the stacks below */
	double weight;  /* width in units of the root's: value, or value / its type's total */
	size_t first_child, last_child, next;
};

struct tree {
	struct node *v;
	size_t n, cap;
	uint64_t max_change; /* a difference: the largest |value - base| of a frame, full colour */
};

struct svg {
	FILE *out;
	struct stk_buf b;
	const struct tree *tree;
	const struct stk_report *report;
	double scale;
	int height;
	int err;
};

/* One stack as a root-first path with its value. */
struct item {
	struct stk_path path;
	uint64_t value, base;
	uint32_t type;
};

static int cmp_items(const void *pa, const void *pb)
{
	const struct item *ia = pa, *ib = pb;
	const struct stk_path *a = &ia->path, *b = &ib->path;

	if (ia->type != ib->type)
		return ia->type < ib->type ? -1 : 1;
	for (size_t i = 0; i < a->n && i < b->n; i++) {
		int c = strcmp(stk_path_name(a, i), stk_path_name(b, i));

		if (c)
			return c;
		if (a->kind[i] != b->kind[i])
			return a->kind[i] < b->kind[i] ? -1 : 1;
	}
	return a->n < b->n ? -1 : a->n > b->n;
}

static size_t add_node(struct tree *t, const char *name, enum stk_elem_kind kind)
{
	if (stk_grow((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v)))
		return NONE;
	t->v[t->n] = (struct node){
		.name = name, .kind = kind, .first_child = NONE, .last_child = NONE, .next = NONE
	};
	return t->n++;
}

/* cur's last child if it is (name, kind), else a new last child; NONE when out of memory. */
static size_t child(struct tree *t, size_t cur, const char *name, enum stk_elem_kind kind)
{
	size_t last = t->v[cur].last_child, c;

	if (last != NONE && t->v[last].kind == kind && strcmp(t->v[last].name, name) == 0)
		return last;
	if ((c = add_node(t, name, kind)) == NONE)
		return NONE;
	if (last == NONE)
		t->v[cur].first_child = c;
	else
		t->v[last].next = c;
	t->v[cur].last_child = c;
	return c;
}

/* Each node's weight: its value, or under a value type's frame its share of that type's total. */
static void weigh(struct tree *t, size_t id, double per_value)
{
	t->v[id].weight = (double)t->v[id].value * per_value;
	for (size_t c = t->v[id].first_child; c != NONE; c = t->v[c].next)
		weigh(t, c, per_value);
}

/* items must be sorted; node 0 is the root "all" */
static int build_tree(struct tree *t, const struct stk_report *r, const struct item *items, size_t n)
{
	bool typed = stk_report_n_types(r) > 1;

	if (add_node(t, "all", STK_ELEM_TASK) == NONE)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct stk_path *p = &items[i].path;
		size_t cur = 0;

		t->v[0].value += items[i].value;
		t->v[0].base += items[i].base;
		if (typed) {
			if ((cur = child(t, 0, stk_report_type(r, items[i].type).type, STK_ELEM_VALUE_TYPE)) == NONE)
				return -1;
			t->v[cur].value += items[i].value;
			t->v[cur].base += items[i].base;
		}
		t->v[cur].type = items[i].type;
		for (size_t e = 0; e < p->n; e++) {
			if ((cur = child(t, cur, stk_path_name(p, e), p->kind[e])) == NONE)
				return -1;
			t->v[cur].value += items[i].value;
			t->v[cur].base += items[i].base;
			t->v[cur].type = items[i].type;
		}
	}
	for (size_t i = 1; r->diff && i < t->n; i++) {
		uint64_t change = t->v[i].value > t->v[i].base ? t->v[i].value - t->v[i].base : t->v[i].base - t->v[i].value;

		if (change > t->max_change)
			t->max_change = change;
	}
	if (!typed) {
		weigh(t, 0, 1.0);
		return 0;
	}
	t->v[0].weight = 0;
	for (size_t c = t->v[0].first_child; c != NONE; c = t->v[c].next) {
		if (t->v[c].value)
			weigh(t, c, 1.0 / (double)t->v[c].value);
		t->v[0].weight += t->v[c].weight;
	}
	return 0;
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* A difference: grown red, shrunk blue, the more the deeper; unchanged white (as flamegraph.pl's difffolded). */
static void put_change(struct stk_buf *b, const struct node *nd, uint64_t max_change)
{
	bool grew = nd->value >= nd->base;
	uint64_t change = grew ? nd->value - nd->base : nd->base - nd->value;
	unsigned pale = max_change ? (unsigned)(210.0 * (1.0 - (double)change / (double)max_change)) : 210;

	if (grew)
		stk_buf_printf(b, "rgb(255,%u,%u)", pale, pale);
	else
		stk_buf_printf(b, "rgb(%u,%u,255)", pale, pale);
}

/* Deterministic per name; user code warm, kernel cool, tasks violet. */
static void put_color(struct stk_buf *b, const struct node *nd, bool root)
{
	uint32_t h = name_hash(nd->name);
	unsigned r, g, bl;

	if (root) {
		r = g = bl = 205;
	} else if (nd->kind == STK_ELEM_USER) {
		r = 205 + h % 50, g = (h >> 8) % 200, bl = (h >> 16) % 55;
	} else if (nd->kind == STK_ELEM_KERNEL) {
		r = 60 + h % 60, g = 150 + (h >> 8) % 70, bl = 200 + (h >> 16) % 55;
	} else if (nd->kind == STK_ELEM_TASK) {
		r = 170 + h % 40, g = 140 + (h >> 8) % 40, bl = 210 + (h >> 16) % 40;
	} else if (nd->kind == STK_ELEM_VALUE_TYPE) {
		r = 120 + h % 40, g = 190 + (h >> 8) % 40, bl = 120 + (h >> 16) % 40;
	} else {
		r = g = bl = 170;
	}
	stk_buf_printf(b, "rgb(%u,%u,%u)", r, g, bl);
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff)))
		return 0; /* overlong or a surrogate */
	if (n == 4 && (cp < 0x10000 || cp > 0x10ffff))
		return 0;
	return n;
}

/* Escapes up to max_chars characters of s for XML text and attributes;
 * control characters and invalid UTF-8 become '?', which XML cannot carry. */
static void put_escaped(struct stk_buf *b, const char *s, size_t max_chars)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t chars = 0; *p && chars < max_chars; chars++) {
		size_t n = utf8_len(p);

		switch (*p) {
		case '&': stk_buf_puts(b, "&amp;"); break;
		case '<': stk_buf_puts(b, "&lt;"); break;
		case '>': stk_buf_puts(b, "&gt;"); break;
		case '"': stk_buf_puts(b, "&quot;"); break;
		case '\'': stk_buf_puts(b, "&apos;"); break;
		default:
			if (n == 0 || *p < 0x20 || *p == 0x7f)
				stk_buf_putc(b, '?');
			else
				stk_buf_putn(b, (const char *)p, n);
		}
		p += n ? n : 1;
	}
}

static size_t utf8_chars(const char *s)
{
	size_t chars = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p; chars++) {
		size_t n = utf8_len(p);

		p += n ? n : 1;
	}
	return chars;
}

/* The label that fits width px, as the script computes it after a zoom. */
static void put_label(struct stk_buf *b, const char *name, double width)
{
	double fit = (width - 6) / CHAR_W;
	size_t n = fit < 0 ? 0 : (size_t)fit;

	if (n < 3)
		return;
	if (utf8_chars(name) <= n) {
		put_escaped(b, name, SIZE_MAX);
	} else {
		put_escaped(b, name, n - 2);
		stk_buf_puts(b, "..");
	}
}

static int flush(struct svg *s, bool force)
{
	if (s->b.oom)
		s->err = -1;
	if (!force && s->b.len < 65536)
		return s->err;
	if (!s->err && stk_write_all(s->out, s->b.data, s->b.len))
		s->err = -1;
	stk_buf_reset(&s->b);
	return s->err;
}

static const char *unit_word(const char *unit)
{
	if (!unit || strcmp(unit, "count") == 0)
		return "samples";
	if (strcmp(unit, "microseconds") == 0)
		return "us";
	return unit;
}

/* "NAME (VALUE UNIT, PCT%)": the share is of the whole, or of the node's value type. */
static void put_title(struct svg *s, const struct node *nd, bool root)
{
	const struct stk_report *r = s->report;
	const struct node *all = &s->tree->v[0];
	double share = all->weight > 0 ? 100.0 * nd->weight / all->weight : 0;

	put_escaped(&s->b, nd->name, SIZE_MAX);
	if (root && stk_report_n_types(r) > 1) {
		stk_buf_printf(&s->b, " (%zu kinds, an equal width each)", stk_report_n_types(r));
		return;
	}
	if (stk_report_n_types(r) > 1)
		share = 100.0 * nd->weight; /* a type's weights sum to 1 */
	stk_buf_printf(&s->b, " (%" PRIu64 " ", nd->value);
	put_escaped(&s->b, unit_word(stk_report_type(r, nd->type).unit), SIZE_MAX);
	stk_buf_printf(&s->b, ", %.2f%%", share);
	if (r->diff)
		stk_buf_printf(&s->b, "; %s%" PRIu64 " against the base's %" PRIu64, nd->value >= nd->base ? "+" : "-",
			       nd->value >= nd->base ? nd->value - nd->base : nd->base - nd->value, nd->base);
	stk_buf_putc(&s->b, ')');
}

static void draw(struct svg *s, size_t id, double offset, int depth)
{
	const struct node *nd = &s->tree->v[id];
	double x = PAD + offset * s->scale, w = nd->weight * s->scale;
	int y = s->height - BOTTOM - (depth + 1) * FRAME_H;

	if (w < MIN_WIDTH || s->err)
		return; /* its children are narrower still */
	stk_buf_puts(&s->b, "<g><title>");
	put_title(s, nd, id == 0);
	stk_buf_puts(&s->b, "</title>");
	stk_buf_printf(&s->b, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"", x, y, w,
		       FRAME_H - 1);
	if (s->report->diff && id != 0)
		put_change(&s->b, nd, s->tree->max_change);
	else
		put_color(&s->b, nd, id == 0);
	stk_buf_printf(&s->b, "\" rx=\"2\" ry=\"2\"/><text x=\"%.2f\" y=\"%d\">", x + 3, y + FRAME_H - 4);
	put_label(&s->b, nd->name, w);
	stk_buf_puts(&s->b, "</text></g>\n");
	flush(s, false);
	for (size_t c = nd->first_child; c != NONE; c = s->tree->v[c].next) {
		draw(s, c, offset, depth + 1);
		offset += s->tree->v[c].weight;
	}
}

static int max_depth(const struct tree *t, size_t id, double scale)
{
	int d = 0;

	for (size_t c = t->v[id].first_child; c != NONE; c = t->v[c].next) {
		if (t->v[c].weight * scale >= MIN_WIDTH) { /* the same cut as draw() */
			int cd = 1 + max_depth(t, c, scale);
			d = cd > d ? cd : d;
		}
	}
	return d;
}

static int write_svg(FILE *out, const struct stk_report *r, const struct tree *t)
{
	struct svg s = { .out = out, .tree = t, .report = r };
	int depth = 0;

	if (t->v[0].weight > 0) {
		s.scale = (double)(SVG_WIDTH - 2 * PAD) / t->v[0].weight;
		depth = max_depth(t, 0, s.scale) + 1;
	}
	s.height = TOP + depth * FRAME_H + BOTTOM;
	stk_buf_printf(&s.b,
		       "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		       "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		       "viewBox=\"0 0 %d %d\" onload=\"stkInit()\">\n",
		       SVG_WIDTH, s.height, SVG_WIDTH, s.height);
	stk_buf_puts(&s.b, "<style type=\"text/css\"><![CDATA[\n"
			   "text { font-family: Verdana, sans-serif; font-size: 12px; fill: rgb(0,0,0); }\n"
			   "#title { text-anchor: middle; font-size: 17px; }\n"
			   ".ctl { cursor: pointer; fill: rgb(0,0,160); }\n"
			   "#search, #matched { text-anchor: end; }\n"
			   "#frames g { cursor: pointer; }\n"
			   "#frames g:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; }\n"
			   "#frames text { pointer-events: none; }\n"
			   "]]></style>\n<script type=\"text/ecmascript\"><![CDATA[\n");
	stk_buf_puts(&s.b, stk_svg_script);
	stk_buf_printf(&s.b,
		       "]]></script>\n"
		       "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"rgb(248,248,248)\"/>\n"
		       "<text id=\"title\" x=\"%d\" y=\"24\">",
		       SVG_WIDTH, s.height, SVG_WIDTH / 2);
	put_escaped(&s.b, r->title ? r->title : "Flame Graph", SIZE_MAX);
	stk_buf_printf(&s.b,
		       "</text>\n"
		       "<text id=\"reset\" class=\"ctl\" x=\"%d\" y=\"24\" opacity=\"0.3\">Reset Zoom</text>\n"
		       "<text id=\"search\" class=\"ctl\" x=\"%d\" y=\"24\">Search</text>\n"
		       "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n"
		       "<text id=\"matched\" x=\"%d\" y=\"%d\"> </text>\n<g id=\"frames\">\n",
		       PAD, SVG_WIDTH - PAD, PAD, s.height - 10, SVG_WIDTH - PAD,
		       s.height - 10);
	if (t->v[0].weight > 0)
		draw(&s, 0, 0, 0);
	stk_buf_puts(&s.b, "</g>\n</svg>\n");
	flush(&s, true);
	stk_buf_free(&s.b);
	return s.err;
}

int stk_output_svg(FILE *out, const struct stk_report *r, const struct stk_output_opts *o)
{
	struct item *items = calloc(r->n_stacks ? r->n_stacks : 1, sizeof(*items));
	struct tree t = { 0 };
	int ret = -1;

	if (!items)
		return -1;
	for (size_t i = 0; i < r->n_stacks; i++) {
		items[i].value = r->stacks[i].value;
		items[i].base = r->stacks[i].base;
		items[i].type = r->stacks[i].type;
		if (stk_path_build(&items[i].path, &r->stacks[i], o))
			goto out;
	}
	qsort(items, r->n_stacks, sizeof(*items), cmp_items);
	if (build_tree(&t, r, items, r->n_stacks) == 0 && write_svg(out, r, &t) == 0)
		ret = stk_finish_stream(out);
out:
	for (size_t i = 0; i < r->n_stacks; i++)
		stk_path_free(&items[i].path);
	free(items);
	free(t.v);
	return ret;
}
