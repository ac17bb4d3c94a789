/* The symbolizer's parsers on fixture text and files: kallsyms, perf maps, demangling, ELF. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "core/probe/user_probe.h"
#include "core/sym/debuginfo.h"
#include "core/sym/elf_symbols.h"
#include "core/sym/perf_map.h"
#include "core/sym/sym_demangle.h"
#include "core/sym/symbolize.h"
#include "sym_fixture.h"

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static const char kallsyms_text[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81000100 t do_thing\n"
	"ffffffff81000200 D some_data\n"
	"ffffffff81000300 W weak_fn\n"
	"ffffffff81000400 A absolute_sym\n"
	"ffffffffc0a00000 t ext4_fill_super\t[ext4]\n"
	"ffffffffc0a00400 T ext4_mount\t[ext4]\n"
	"ffffffffc0b00000 t xfs_foo\t[xfs]\n";

static void kallsyms(struct test_ctx *t)
{
	char dir[PATH_MAX], path[PATH_MAX + 16], why[256];
	struct stk_symbolizer_opts o = { 0 };
	struct stk_symbolizer_stats st;
	struct stk_symbolizer *s;
	struct stk_frame fr;

	CHECK(t, make_scratch_dir(dir, sizeof(dir)) == 0);
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	CHECK(t, write_file(path, kallsyms_text) == 0);
	o.kallsyms_path = path;
	s = stk_symbolizer_new(&o);
	CHECK(t, stk_symbolizer_kernel_status(s, why, sizeof(why)) == 1);

	stk_symbolize_kernel(s, 0xffffffff81000150ULL, &fr);
	CHECK(t, fr.kernel && fr.symbol && strcmp(fr.symbol, "do_thing") == 0);
	CHECK(t, fr.symbol_offset == 0x50 && fr.module == NULL && fr.address == 0xffffffff81000150ULL);
	/* Aliases: the first one listed. */
	stk_symbolize_kernel(s, 0xffffffff81000000ULL, &fr);
	CHECK(t, fr.symbol && strcmp(fr.symbol, "_stext") == 0 && fr.symbol_offset == 0);
	/* Data symbols are not functions: still inside do_thing. */
	stk_symbolize_kernel(s, 0xffffffff81000250ULL, &fr);
	CHECK(t, fr.symbol && strcmp(fr.symbol, "do_thing") == 0 && fr.symbol_offset == 0x150);
	stk_symbolize_kernel(s, 0xffffffff81000301ULL, &fr);
	CHECK(t, fr.symbol && strcmp(fr.symbol, "weak_fn") == 0);
	stk_symbolize_kernel(s, 0xffffffffc0a00410ULL, &fr);
	CHECK(t, fr.symbol && strcmp(fr.symbol, "ext4_mount") == 0 && fr.symbol_offset == 0x10);
	CHECK(t, fr.module && strcmp(fr.module, "ext4") == 0);
	stk_symbolize_kernel(s, 0xffffffffc0b00008ULL, &fr);
	CHECK(t, fr.module && strcmp(fr.module, "xfs") == 0);
	stk_symbolize_kernel(s, 0xffffffff80000000ULL, &fr);
	CHECK(t, fr.symbol == NULL && fr.kernel);
	stk_symbolizer_get_stats(s, &st);
	CHECK(t, st.kernel_symbols == 7);
	stk_symbolizer_free(s);

	/* kptr_restrict: every address reads as zero. */
	CHECK(t, write_file(path, "0000000000000000 T _stext\n0000000000000000 t do_thing\n"
				  "0000000000000000 t ext4_mount\t[ext4]\n") == 0);
	s = stk_symbolizer_new(&o);
	CHECK(t, stk_symbolizer_kernel_status(s, why, sizeof(why)) == 0);
	CHECK(t, strstr(why, "kptr_restrict") != NULL);
	stk_symbolize_kernel(s, 0xffffffff81000150ULL, &fr);
	CHECK(t, fr.symbol == NULL && fr.kernel && fr.address == 0xffffffff81000150ULL);
	stk_symbolizer_free(s);

	unlink(path);
	s = stk_symbolizer_new(&o);
	CHECK(t, stk_symbolizer_kernel_status(s, why, sizeof(why)) == 0);
	CHECK(t, strstr(why, "cannot read") != NULL);
	stk_symbolize_kernel(s, 0xffffffff81000150ULL, &fr);
	CHECK(t, fr.symbol == NULL);
	stk_symbolizer_free(s);
	remove_tree(dir);
}

/* Another user's map: a huge line is skipped, a long name cut, NUL bytes and the byte bound honoured. */
static void perf_map_bounds(struct test_ctx *t)
{
	char dir[PATH_MAX], path[PATH_MAX + 16], big[STK_PERF_MAP_MAX_LINE * 3];
	struct stk_perf_map *m = NULL;
	const char *name;
	uint64_t off;
	FILE *f;
	int fd;

	CHECK(t, make_scratch_dir(dir, sizeof(dir)) == 0);
	snprintf(path, sizeof(path), "%s/perf-2.map", dir);
	f = fopen(path, "w");
	CHECK(t, f != NULL);
	if (!f)
		return;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	fprintf(f, "1000 10 %s\n", big);                  /* longer than a line may be: skipped */
	fprintf(f, "2000 10 %.*s\n", STK_PERF_MAP_MAX_NAME + 100, big); /* fits the line, name cut */
	fwrite("3000 10 nul\0byte\n", 1, 17, f);
	fprintf(f, "4000 10 last_in_bound\n");
	fprintf(f, "5000 10 past_the_bound\n");
	fclose(f);
	fd = open(path, O_RDONLY);
	CHECK(t, fd >= 0);
	if (fd >= 0) {
		struct stat st;
		CHECK(t, fstat(fd, &st) == 0);
		m = stk_perf_map_parse_fd(fd, (uint64_t)st.st_size - strlen("5000 10 past_the_bound\n"));
		close(fd);
	}
	CHECK(t, m != NULL);
	CHECK(t, stk_perf_map_lookup(m, 0x1001, &name, &off) == -1);
	CHECK(t, stk_perf_map_lookup(m, 0x2001, &name, &off) == 0 && strlen(name) == STK_PERF_MAP_MAX_NAME);
	CHECK(t, stk_perf_map_lookup(m, 0x3001, &name, &off) == -1);
	CHECK(t, stk_perf_map_lookup(m, 0x4001, &name, &off) == 0 && strcmp(name, "last_in_bound") == 0);
	CHECK(t, stk_perf_map_lookup(m, 0x5001, &name, &off) == -1);
	stk_perf_map_free(m);
	remove_tree(dir);
}

static void perf_map(struct test_ctx *t)
{
	char dir[PATH_MAX], path[PATH_MAX + 16];
	struct stk_perf_map *m = NULL;
	const char *name;
	uint64_t off;
	int fd;

	CHECK(t, make_scratch_dir(dir, sizeof(dir)) == 0);
	snprintf(path, sizeof(path), "%s/perf-1.map", dir);
	CHECK(t, write_file(path, "1000 100 old_code\n"
				  "not a line\n"
				  "0x1000 100 new_code\n"
				  "2000 10 Interpreter frame with spaces\r\n"
				  "3000 0 empty_size\n") == 0);
	fd = open(path, O_RDONLY);
	CHECK(t, fd >= 0);
	if (fd >= 0) {
		m = stk_perf_map_parse_fd(fd, STK_PERF_MAP_MAX_SIZE);
		close(fd);
	}
	CHECK(t, m != NULL);
	CHECK(t, stk_perf_map_lookup(m, 0x1010, &name, &off) == 0 && strcmp(name, "new_code") == 0 &&
		     off == 0x10);
	CHECK(t, stk_perf_map_lookup(m, 0x2005, &name, &off) == 0 &&
		     strcmp(name, "Interpreter frame with spaces") == 0);
	CHECK(t, stk_perf_map_lookup(m, 0x2010, &name, &off) == -1);
	CHECK(t, stk_perf_map_lookup(m, 0x3000, &name, &off) == -1);
	CHECK(t, stk_perf_map_lookup(m, 0x10, &name, &off) == -1);
	stk_perf_map_free(m);
	remove_tree(dir);
}

static void demangle(struct test_ctx *t)
{
	char *full = stk_demangle("_ZN2ns6WidgetIiE3runEiPKc", STK_DEMANGLE_FULL);
	char *short_ = stk_demangle("_ZN2ns6WidgetIiE3runEiPKc", STK_DEMANGLE_NO_ARGS);

	CHECK(t, full && strcmp(full, "ns::Widget<int>::run(int, char const*)") == 0);
	CHECK(t, short_ && strcmp(short_, "ns::Widget<int>::run") == 0);
	CHECK(t, stk_demangle("_ZN2ns6WidgetIiE3runEiPKc", STK_DEMANGLE_NONE) == NULL);
	CHECK(t, stk_demangle("main", STK_DEMANGLE_FULL) == NULL);
	CHECK(t, stk_demangle("_Znot-valid", STK_DEMANGLE_FULL) == NULL);
	free(full);
	free(short_);
	/* Rust v0 mangling, as in any Rust binary built since 1.59 with -C symbol-mangling-version=v0. */
	char *rust = stk_demangle("_RNvCs6ygKICNz7jq_17bash_tool_backend4main", STK_DEMANGLE_FULL);
	CHECK(t, rust && strcmp(rust, "bash_tool_backend::main") == 0);
	free(rust);
}

static void elf_debuglink_and_crc(struct test_ctx *t)
{
	char bin[PATH_MAX], dbg[PATH_MAX], why[128];
	struct stk_elf_file f, d;
	uint32_t crc = 0;
	int fd;

	CHECK(t, fixture_path("sym_stripped", bin, sizeof(bin)) == 0);
	CHECK(t, fixture_path("sym_stripped.debug", dbg, sizeof(dbg)) == 0);
	fd = open(bin, O_RDONLY);
	CHECK(t, fd >= 0 && stk_elf_file_from_fd(fd, &f, why, sizeof(why)) == 0);
	if (fd < 0)
		return;
	close(fd);
	CHECK(t, !f.has_symtab);
	CHECK_STR(t, f.debuglink, "sym_stripped.debug");
	CHECK(t, strlen(f.build_id) == 40);
	CHECK(t, f.n_loads >= 2);
	fd = open(dbg, O_RDONLY);
	CHECK(t, fd >= 0 && stk_debuginfo_crc32(fd, &crc) == 0 && crc == f.debuglink_crc);
	CHECK(t, stk_elf_file_from_fd(fd, &d, why, sizeof(why)) == 0);
	close(fd);
	CHECK(t, d.has_symtab && d.n_syms > 0);
	CHECK_STR(t, d.build_id, f.build_id);
	/* Found next to the binary by name, CRC checked. */
	fd = stk_debuginfo_open("", bin, getuid(), "", f.debuglink, f.debuglink_crc, 0, 0);
	CHECK(t, fd >= 0);
	if (fd >= 0)
		close(fd);
	CHECK(t, stk_debuginfo_open("", bin, getuid(), "", f.debuglink, f.debuglink_crc ^ 1, 0, 0) == -1);
	stk_elf_file_release(&f);
	stk_elf_file_release(&d);
}

/* Looks name up in lib's symbols and returns the name the symbolizer prints for its address. */
static const char *named_at(const struct stk_elf_file *all, const struct stk_elf_file *f, const char *name)
{
	for (size_t i = 0; i < all->n_syms; i++) {
		long j;

		if (strcmp(all->names + all->syms[i].name, name))
			continue;
		j = stk_elf_lookup(f, all->syms[i].addr);
		return j < 0 ? "" : f->names + f->syms[j].name;
	}
	return "(absent)";
}

static size_t probe_matches(struct test_ctx *t, const char *lib, const char *pattern)
{
	struct stk_user_func_list l = { 0 };
	struct stk_name_match m;
	char err[512];
	size_t n;

	CHECK(t, stk_name_match_init(&m, pattern, false, err, sizeof(err)) == 0);
	CHECK(t, stk_user_functions(lib, &m, &l, err, sizeof(err)) == 0);
	n = l.n;
	stk_user_func_list_free(&l);
	stk_name_match_free(&m);
	return n;
}

/* glibc's shape: WEAK nanosleep beside GLOBAL __nanosleep, versioned names in .dynsym. */
static void elf_weak_and_versioned(struct test_ctx *t)
{
	char lib[PATH_MAX], why[128];
	struct stk_elf_file f, all;
	int fd;

	CHECK(t, fixture_path("libstkweak.so", lib, sizeof(lib)) == 0);
	fd = open(lib, O_RDONLY);
	CHECK(t, fd >= 0);
	if (fd < 0)
		return;
	CHECK(t, stk_elf_file_from_fd(fd, &f, why, sizeof(why)) == 0);
	CHECK(t, stk_elf_file_from_fd_flags(fd, &all, STK_ELF_ALL_NAMES, why, sizeof(why)) == 0);
	close(fd);
	CHECK(t, !f.has_symtab);
	/* every alias with its version; the plain table keeps one name per address */
	CHECK(t, strcmp(named_at(&all, &all, "wk_sleep@@WK_1.0"), "(absent)") != 0);
	CHECK(t, strcmp(named_at(&all, &all, "__wk_sleep@@WK_1.0"), "(absent)") != 0);
	CHECK_STR(t, named_at(&all, &all, "wk_old@WK_0.9"), "wk_old@WK_0.9");
	CHECK_STR(t, named_at(&all, &all, "wk_old@@WK_1.0"), "wk_old@@WK_1.0");
	/* the symbolizer names the shared address by its GLOBAL symbol, without the version */
	CHECK_STR(t, named_at(&all, &f, "wk_sleep@@WK_1.0"), "__wk_sleep");
	CHECK_STR(t, named_at(&all, &f, "wk_old@WK_0.9"), "wk_old");
	CHECK(t, f.n_syms + 1 == all.n_syms);
	stk_elf_file_release(&f);
	stk_elf_file_release(&all);
	/* probe patterns: the WEAK name matches, with or without its version */
	CHECK(t, probe_matches(t, lib, "wk_sleep") == 1);
	CHECK(t, probe_matches(t, lib, "__wk_sleep") == 1);
	CHECK(t, probe_matches(t, lib, "wk_sleep@@WK_1.0") == 1);
	CHECK(t, probe_matches(t, lib, "wk_sleep@WK_1.0") == 0);
	CHECK(t, probe_matches(t, lib, "wk_old") == 2);
	CHECK(t, probe_matches(t, lib, "wk_old@WK_0.9") == 1);
	CHECK(t, probe_matches(t, lib, "*wk_s*") == 1); /* one probe per address */
	CHECK(t, probe_matches(t, lib, "wk_old@*") == 2);
}

/* A stripped file's CFI: every function of its debug file's .symtab starts an FDE range of its size. */
static void elf_cfi_ranges(struct test_ctx *t)
{
	char bin[PATH_MAX], dbg[PATH_MAX], why[128];
	struct stk_elf_file f, d;
	size_t matched = 0, text_funcs = 0;
	int fd;

	CHECK(t, fixture_path("sym_stripped", bin, sizeof(bin)) == 0);
	CHECK(t, fixture_path("sym_stripped.debug", dbg, sizeof(dbg)) == 0);
	fd = open(bin, O_RDONLY);
	CHECK(t, fd >= 0 && stk_elf_file_from_fd(fd, &f, why, sizeof(why)) == 0);
	if (fd < 0)
		return;
	close(fd);
	fd = open(dbg, O_RDONLY);
	CHECK(t, fd >= 0 && stk_elf_file_from_fd(fd, &d, why, sizeof(why)) == 0);
	if (fd < 0) {
		stk_elf_file_release(&f);
		return;
	}
	close(fd);
	CHECK(t, !f.has_symtab && f.cfi.n >= 4);
	CHECK(t, d.has_symtab && d.cfi.n == 0); /* with a .symtab, CFI is not read */
	for (size_t i = 0; i < d.n_syms; i++) {
		const char *name = d.names + d.syms[i].name;
		long r;

		if (strncmp(name, "stk_fixture_", 12) != 0)
			continue;
		text_funcs++;
		r = stk_cfi_ranges_lookup(&f.cfi, d.syms[i].addr + d.syms[i].size - 1);
		if (r >= 0 && f.cfi.ranges[r].start == d.syms[i].addr && f.cfi.ranges[r].size == d.syms[i].size)
			matched++;
		else
			printf("  %s at 0x%llx size %llu: no FDE of that range\n", name,
			       (unsigned long long)d.syms[i].addr, (unsigned long long)d.syms[i].size);
	}
	CHECK(t, text_funcs >= 3 && matched == text_funcs);
	CHECK(t, stk_cfi_ranges_lookup(&f.cfi, 0) == -1);
	stk_elf_file_release(&f);
	stk_elf_file_release(&d);
}

const struct test_case symbolize_parsers_tests[] = {
	{ "symbolize_kallsyms", kallsyms },
	{ "symbolize_perf_map_parse", perf_map },
	{ "symbolize_perf_map_bounds", perf_map_bounds },
	{ "symbolize_demangle", demangle },
	{ "symbolize_elf_debuglink_crc", elf_debuglink_and_crc },
	{ "symbolize_elf_weak_versioned", elf_weak_and_versioned },
	{ "symbolize_elf_cfi_ranges", elf_cfi_ranges },
	{ NULL, NULL },
};
