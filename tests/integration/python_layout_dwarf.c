/*
 * core/runtime/python_layout.c's table for CPython 3.11 against the DWARF of
 * a 3.11 build (tests/integration/test_python.sh gives it the debug file of
 * Debian's /usr/bin/python3.11 from python3.11-dbg): every offset, size and
 * bit position stk reads, looked up by the structure and member names
 * CPython's headers give them. One "PASS NAME" or "FAIL NAME: why" line each.
 *
 *   python_layout_dwarf FILE SUITE
 */
#include <elfutils/libdw.h>
#include <dwarf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/runtime/python_layout.h"

static const char *suite;
static int failed;

/* The top-level types wanted, by name (a structure defined, or a typedef), found in any unit. */
struct wanted {
	const char *name;
	Dwarf_Die die;
	int found;
};

/* A structure type at last: typedefs and qualifiers followed. */
static int structure_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;
	Dwarf_Die cur = *die;

	for (int i = 0; i < 8; i++) {
		int tag = dwarf_tag(&cur);

		if ((tag == DW_TAG_structure_type || tag == DW_TAG_union_type) && dwarf_haschildren(&cur)) {
			*out = cur;
			return 0;
		}
		if (!dwarf_attr(&cur, DW_AT_type, &a) || !dwarf_formref_die(&a, &cur))
			return -1;
	}
	return -1;
}

static int member(Dwarf_Die *structure, const char *name, Dwarf_Die *out)
{
	Dwarf_Die child;

	if (dwarf_child(structure, &child))
		return -1;
	do {
		const char *n = dwarf_diename(&child);

		if (dwarf_tag(&child) == DW_TAG_member && n && strcmp(n, name) == 0) {
			*out = child;
			return 0;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return -1;
}

/* The byte offset of path ("a.b.c") in type t, or -1; *bit: the last member's bit offset in its unit (-1: none). */
static long offset_of(Dwarf_Die *t, const char *path, long *bit)
{
	char buf[128], *save = NULL, *part;
	Dwarf_Die s, m;
	long off = 0;

	snprintf(buf, sizeof(buf), "%s", path);
	*bit = -1;
	if (structure_of(t, &s))
		return -1;
	for (part = strtok_r(buf, ".", &save); part;) {
		Dwarf_Attribute a;
		Dwarf_Word w;

		if (member(&s, part, &m))
			return -1;
		if (dwarf_attr(&m, DW_AT_data_member_location, &a) && dwarf_formudata(&a, &w) == 0)
			off += (long)w;
		if (dwarf_attr(&m, DW_AT_data_bit_offset, &a) && dwarf_formudata(&a, &w) == 0)
			*bit = (long)w;
		/* into the member's own structure for the next part */
		if ((part = strtok_r(NULL, ".", &save)) && structure_of(&m, &s))
			return -1;
	}
	return off;
}

static void expect(const char *name, long got, long want)
{
	if (got == want) {
		printf("PASS %s/python311_layout_%s\n", suite, name);
	} else {
		printf("FAIL %s/python311_layout_%s: the DWARF says %ld, stk's table %ld\n", suite, name, got, want);
		failed++;
	}
}

static Dwarf_Die *type_named(struct wanted *w, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(w[i].name, name) == 0 && w[i].found)
			return &w[i].die;
	return NULL;
}

static void field(struct wanted *w, size_t n, const char *type, const char *path, uint32_t want)
{
	char name[160];
	Dwarf_Die *t = type_named(w, n, type);
	long bit;
	long off = t ? offset_of(t, path, &bit) : -1;

	snprintf(name, sizeof(name), "%s.%s", type, path);
	for (char *p = name; *p; p++)
		if (*p == '.')
			*p = '_';
	expect(name, off, want);
}

static void size(struct wanted *w, size_t n, const char *type, uint32_t want)
{
	char name[160];
	Dwarf_Die *t = type_named(w, n, type), s;
	Dwarf_Attribute a;
	Dwarf_Word v = 0;
	long got = -1;

	if (t && structure_of(t, &s) == 0 && dwarf_attr(&s, DW_AT_byte_size, &a) && dwarf_formudata(&a, &v) == 0)
		got = (long)v;
	snprintf(name, sizeof(name), "sizeof_%s", type);
	expect(name, got, want);
}

static void bit(struct wanted *w, size_t n, const char *type, const char *path, long want)
{
	char name[160];
	Dwarf_Die *t = type_named(w, n, type);
	long b = -1;

	if (t)
		offset_of(t, path, &b);
	snprintf(name, sizeof(name), "bit_%s_%s", type, strrchr(path, '.') ? strrchr(path, '.') + 1 : path);
	expect(name, b, want);
}

int main(int argc, char **argv)
{
	struct wanted w[] = {
		{ .name = "_PyRuntimeState" }, { .name = "PyInterpreterState" }, { .name = "PyThreadState" },
		{ .name = "_PyCFrame" }, { .name = "_PyInterpreterFrame" }, { .name = "PyCodeObject" },
		{ .name = "PyBytesObject" }, { .name = "PyASCIIObject" }, { .name = "PyCompactUnicodeObject" },
	};
	size_t n = sizeof(w) / sizeof(w[0]), left = n;
	struct stk_py_layout l;
	char why[256];
	Dwarf_Off off = 0, next;
	size_t header;
	Dwarf *dw;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: python_layout_dwarf FILE SUITE\n");
		return 2;
	}
	suite = argv[2];
	if ((fd = open(argv[1], O_RDONLY)) < 0 || !(dw = dwarf_begin(fd, DWARF_C_READ))) {
		printf("FAIL %s/python311_layout_dwarf: %s has no DWARF stk can read\n", suite, argv[1]);
		return 1;
	}
	/* each wanted type's first definition, over the units in order */
	while (left && dwarf_nextcu(dw, off, &next, &header, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, child;

		if (dwarf_offdie(dw, off + header, &cu) && dwarf_child(&cu, &child) == 0) {
			do {
				const char *name = dwarf_diename(&child);
				int tag = dwarf_tag(&child);
				Dwarf_Die s;

				if (!name || (tag != DW_TAG_typedef && tag != DW_TAG_structure_type))
					continue;
				for (size_t i = 0; i < n; i++)
					if (!w[i].found && strcmp(w[i].name, name) == 0 && structure_of(&child, &s) == 0) {
						w[i].die = child;
						w[i].found = 1;
						left--;
					}
			} while (left && dwarf_siblingof(&child, &child) == 0);
		}
		off = next;
	}
	if (stk_py_layout_table(0x030b0000, &l, why, sizeof(why))) {
		printf("FAIL %s/python311_layout_table: %s\n", suite, why);
		return 1;
	}
	field(w, n, "_PyRuntimeState", "interpreters.head", l.rt_interp_head);
	field(w, n, "PyInterpreterState", "next", l.is_next);
	field(w, n, "PyInterpreterState", "threads.head", l.is_threads_head);
	field(w, n, "PyThreadState", "next", l.ts_next);
	field(w, n, "PyThreadState", "cframe", l.ts_frame);
	field(w, n, "PyThreadState", "native_thread_id", l.ts_native_tid);
	field(w, n, "_PyCFrame", "current_frame", l.cf_frame);
	field(w, n, "_PyCFrame", "previous", l.cf_previous);
	field(w, n, "_PyInterpreterFrame", "f_code", l.fr_code);
	field(w, n, "_PyInterpreterFrame", "previous", l.fr_previous);
	field(w, n, "_PyInterpreterFrame", "prev_instr", l.fr_instr);
	field(w, n, "_PyInterpreterFrame", "is_entry", l.fr_entry);
	field(w, n, "_PyInterpreterFrame", "owner", l.fr_owner);
	field(w, n, "PyCodeObject", "ob_base.ob_base.ob_type", l.ob_type);
	field(w, n, "PyCodeObject", "co_filename", l.co_filename);
	field(w, n, "PyCodeObject", "co_qualname", l.co_qualname);
	field(w, n, "PyCodeObject", "co_linetable", l.co_linetable);
	field(w, n, "PyCodeObject", "co_firstlineno", l.co_firstlineno);
	field(w, n, "PyCodeObject", "co_code_adaptive", l.co_code);
	field(w, n, "PyBytesObject", "ob_base.ob_size", l.bytes_size);
	field(w, n, "PyBytesObject", "ob_sval", l.bytes_data);
	field(w, n, "PyASCIIObject", "length", l.str.length);
	field(w, n, "PyASCIIObject", "state", l.str.state);
	size(w, n, "PyASCIIObject", l.str.ascii_data);
	size(w, n, "PyCompactUnicodeObject", l.str.compact_data);
	/* the bits python_text.c reads of state: kind (2-4), compact (5), ascii (6) */
	bit(w, n, "PyASCIIObject", "state.kind", 2);
	bit(w, n, "PyASCIIObject", "state.compact", 5);
	bit(w, n, "PyASCIIObject", "state.ascii", 6);
	dwarf_end(dw);
	close(fd);
	return failed ? 1 : 0;
}
