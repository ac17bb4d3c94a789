/*
 * The symbolizer against live fixture processes (tests/fixtures, built by
 * the Makefile): each prints its functions' addresses, we resolve them,
 * kill it and resolve again (a process that exited must still symbolize).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "core/sym/proc_maps.h"
#include "core/sym/symbolize.h"
#include "sym_fixture.h"

/* Resolve name's address + 1 in fx and check symbol, module and offset. */
static void expect_symbol(struct test_ctx *t, struct stk_symbolizer *s, const struct fixture *fx,
			  const char *name, const char *want_symbol, const char *want_module)
{
	uint64_t addr = addr_of(fx, name);
	struct stk_frame fr;

	CHECK(t, addr != 0);
	if (!addr)
		return;
	stk_symbolize_user(s, fx->pid, addr + 1, &fr);
	if (!fr.symbol) {
		printf("  %s: %s at %#llx unresolved\n", t->name, name, (unsigned long long)addr);
		t->failures++;
		return;
	}
	CHECK_STR(t, fr.symbol, want_symbol);
	CHECK(t, fr.symbol_offset == 1);
	CHECK(t, fr.module != NULL);
	if (fr.module)
		CHECK_STR(t, fr.module, want_module);
	CHECK(t, fr.address == addr + 1);
	CHECK(t, fr.map_start <= addr && addr < fr.map_end);
	CHECK(t, !fr.kernel);
}

/* The common fixture check: learn, resolve, kill, resolve again from the cache. */
static void check_fixture(struct test_ctx *t, const char *fixture, const char *const *names,
			  const struct stk_symbolizer_opts *opts)
{
	struct stk_symbolizer *s = stk_symbolizer_new(opts);
	struct stk_symbolizer_stats st;
	struct fixture fx;

	CHECK(t, s != NULL);
	if (!s)
		return;
	if (spawn(fixture, &fx)) {
		printf("  %s: cannot run fixture %s\n", t->name, fixture);
		t->failures++;
		reap(&fx);
		stk_symbolizer_free(s);
		return;
	}
	CHECK(t, stk_symbolizer_add_process(s, fx.pid) == 0);
	CHECK(t, stk_symbolizer_add_process(s, fx.pid) == 0); /* idempotent */
	for (int pass = 0; pass < 2; pass++) {
		for (const char *const *n = names; *n; n++)
			expect_symbol(t, s, &fx, *n, *n, fx.path);
		reap(&fx); /* the second pass runs after the process is gone */
	}
	stk_symbolizer_get_stats(s, &st);
	CHECK(t, st.processes == 1 && st.processes_failed == 0);
	CHECK(t, st.files_parsed >= 1);
	stk_symbolizer_free(s);
}

static const char *const all_three[] = { "stk_fixture_alpha", "stk_fixture_beta",
					 "stk_fixture_local", NULL };

static void non_pie(struct test_ctx *t)
{
	check_fixture(t, "sym_nopie", all_three, NULL);
}

static void pie(struct test_ctx *t)
{
	check_fixture(t, "sym_pie", all_three, NULL);
}

static void text_segment_vaddr_differs_from_offset(struct test_ctx *t)
{
	check_fixture(t, "sym_lld", all_three, NULL);
}

static void stripped_with_debuglink(struct test_ctx *t)
{
	/* stk_fixture_local is static: it exists only in the separate .debug file. */
	check_fixture(t, "sym_stripped", all_three, NULL);
}

static void root_fallback_without_map_files(struct test_ctx *t)
{
	struct stk_symbolizer_opts o = { .skip_map_files = true };

	check_fixture(t, "sym_pie", all_three, &o);
	check_fixture(t, "sym_stripped", all_three, &o);
}

static void stripped_without_debug_file_uses_dynsym(struct test_ctx *t)
{
	struct stk_symbolizer *s = stk_symbolizer_new(NULL);
	struct stk_frame fr;
	struct fixture fx;

	if (spawn("sym_dynsym_only", &fx)) {
		t->failures++;
		reap(&fx);
		stk_symbolizer_free(s);
		return;
	}
	CHECK(t, stk_symbolizer_add_process(s, fx.pid) == 0);
	expect_symbol(t, s, &fx, "stk_fixture_alpha", "stk_fixture_alpha", fx.path);
	expect_symbol(t, s, &fx, "stk_fixture_beta", "stk_fixture_beta", fx.path);
	/* Static, not exported: named after its function start from CFI, "module+0xSTART". */
	stk_symbolize_user(s, fx.pid, addr_of(&fx, "stk_fixture_local") + 1, &fr);
	CHECK(t, fr.symbol && strncmp(fr.symbol, "sym_dynsym_only+0x", 18) == 0);
	CHECK(t, fr.synthetic && fr.symbol_offset == 1);
	CHECK(t, fr.module && strcmp(fr.module, fx.path) == 0);
	CHECK(t, fr.build_id == NULL); /* linked with --build-id=none */
	reap(&fx);
	stk_symbolizer_free(s);
}

static void shared_library(struct test_ctx *t)
{
	struct stk_symbolizer *s = stk_symbolizer_new(NULL);
	char lib[PATH_MAX];
	struct stk_frame a, b;
	struct fixture fx;

	CHECK(t, fixture_path("libstkfix.so", lib, sizeof(lib)) == 0);
	if (spawn("sym_uselib", &fx)) {
		t->failures++;
		reap(&fx);
		stk_symbolizer_free(s);
		return;
	}
	CHECK(t, stk_symbolizer_add_process(s, fx.pid) == 0);
	reap(&fx);
	/* Learned while alive, resolved only after it exited. */
	expect_symbol(t, s, &fx, "stk_fixture_lib_gamma", "stk_fixture_lib_gamma", lib);
	expect_symbol(t, s, &fx, "stk_fixture_alpha", "stk_fixture_alpha", fx.path);
	stk_symbolize_user(s, fx.pid, addr_of(&fx, "stk_fixture_lib_gamma"), &a);
	stk_symbolize_user(s, fx.pid, addr_of(&fx, "stk_fixture_alpha"), &b);
	CHECK(t, a.build_id && b.build_id && strlen(a.build_id) == 40 &&
		     strcmp(a.build_id, b.build_id) != 0);
	stk_symbolizer_free(s);
}

static void cxx_demangling(struct test_ctx *t)
{
	static const struct {
		enum stk_demangle mode;
		const char *want;
	} cases[] = {
		{ STK_DEMANGLE_FULL, "ns::Widget<int>::run(int, char const*)" },
		{ STK_DEMANGLE_NO_ARGS, "ns::Widget<int>::run" },
		{ STK_DEMANGLE_NONE, "_ZN2ns6WidgetIiE3runEiPKc" },
	};
	struct fixture fx;

	if (spawn("sym_cxx", &fx)) {
		t->failures++;
		reap(&fx);
		return;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct stk_symbolizer_opts o = { .demangle = cases[i].mode };
		struct stk_symbolizer *s = stk_symbolizer_new(&o);

		expect_symbol(t, s, &fx, "_ZN2ns6WidgetIiE3runEiPKc", cases[i].want, fx.path);
		stk_symbolizer_free(s);
	}
	reap(&fx);
}

static void files_parsed_once_across_processes(struct test_ctx *t)
{
	struct stk_symbolizer *s = stk_symbolizer_new(NULL);
	struct stk_symbolizer_stats one, two;
	struct fixture a, b;

	if (spawn("sym_nopie", &a) || spawn("sym_nopie", &b)) {
		t->failures++;
		reap(&a);
		reap(&b);
		stk_symbolizer_free(s);
		return;
	}
	CHECK(t, stk_symbolizer_add_process(s, a.pid) == 0);
	stk_symbolizer_get_stats(s, &one);
	CHECK(t, stk_symbolizer_add_process(s, b.pid) == 0);
	stk_symbolizer_get_stats(s, &two);
	CHECK(t, one.files_parsed >= 2); /* the fixture and libc at least */
	CHECK(t, two.files_parsed == one.files_parsed);
	CHECK(t, two.processes == 2);
	expect_symbol(t, s, &b, "stk_fixture_beta", "stk_fixture_beta", b.path);
	reap(&a);
	reap(&b);
	stk_symbolizer_free(s);
}

static void unknown_process_learned_on_demand(struct test_ctx *t)
{
	struct stk_symbolizer *s = stk_symbolizer_new(NULL);
	struct fixture fx;

	if (spawn("sym_pie", &fx)) {
		t->failures++;
		reap(&fx);
		stk_symbolizer_free(s);
		return;
	}
	/* No add_process: the first frame learns it. */
	expect_symbol(t, s, &fx, "stk_fixture_beta", "stk_fixture_beta", fx.path);
	reap(&fx);
	expect_symbol(t, s, &fx, "stk_fixture_alpha", "stk_fixture_alpha", fx.path);
	stk_symbolizer_free(s);
}

static void vanished_process_counts_as_failed(struct test_ctx *t)
{
	struct stk_symbolizer *s = stk_symbolizer_new(NULL);
	struct stk_symbolizer_stats st;
	struct stk_frame fr;
	struct fixture fx;
	pid_t pid;

	if (spawn("sym_pie", &fx)) {
		t->failures++;
		reap(&fx);
		stk_symbolizer_free(s);
		return;
	}
	pid = fx.pid;
	reap(&fx);
	CHECK(t, stk_symbolizer_add_process(s, pid) == -ENOENT);
	stk_symbolize_user(s, pid, 0x401000, &fr);
	CHECK(t, fr.symbol == NULL && fr.module == NULL && fr.address == 0x401000);
	stk_symbolizer_get_stats(s, &st);
	CHECK(t, st.processes == 0 && st.processes_failed == 1);
	CHECK(t, strstr(st.last_failure, "cannot read its mappings") != NULL);

	/* Exited, not yet reaped: a zombie has no mappings left to learn. */
	if (spawn("sym_pie", &fx) == 0) {
		siginfo_t si;

		kill(fx.pid, SIGKILL);
		CHECK(t, waitid(P_PID, (id_t)fx.pid, &si, WEXITED | WNOWAIT) == 0);
		CHECK(t, stk_symbolizer_add_process(s, fx.pid) == -ESRCH);
	}
	reap(&fx);
	stk_symbolizer_get_stats(s, &st);
	CHECK(t, st.processes == 0 && st.processes_failed == 2);
	stk_symbolizer_free(s);
}

static void deleted_binary_resolves_via_map_files(struct test_ctx *t)
{
	char dir[PATH_MAX / 2], src[PATH_MAX], dst[PATH_MAX / 2 + 16], cmd[3 * PATH_MAX];
	struct stk_symbolizer *s;
	struct fixture fx;

	/* map_files needs CAP_SYS_ADMIN; without it a deleted file cannot be reopened. */
	if (geteuid() != 0)
		return;
	CHECK(t, fixture_path("sym_pie", src, sizeof(src)) == 0);
	CHECK(t, make_scratch_dir(dir, sizeof(dir)) == 0);
	snprintf(dst, sizeof(dst), "%s/victim", dir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", src, dst);
	CHECK(t, system(cmd) == 0);
	if (spawn_path(dst, &fx)) {
		t->failures++;
		reap(&fx);
		remove_tree(dir);
		return;
	}
	unlink(dst);
	s = stk_symbolizer_new(NULL);
	snprintf(fx.path, sizeof(fx.path), "%s (deleted)", dst);
	CHECK(t, stk_symbolizer_add_process(s, fx.pid) == 0);
	expect_symbol(t, s, &fx, "stk_fixture_alpha", "stk_fixture_alpha", fx.path);
	reap(&fx);
	stk_symbolizer_free(s);
	remove_tree(dir);
}

/* ---- the test process itself ---- */

__attribute__((noinline)) static int stk_unit_self_marker(int x)
{
	return x * 5 + 2;
}

static void own_function(struct test_ctx *t)
{
	struct stk_symbolizer *s = stk_symbolizer_new(NULL);
	uint64_t addr = (uint64_t)(uintptr_t)stk_unit_self_marker;
	struct stk_frame fr;

	CHECK(t, stk_unit_self_marker(1) == 7);
	stk_symbolize_user(s, getpid(), addr + 1, &fr);
	CHECK(t, fr.symbol && strcmp(fr.symbol, "stk_unit_self_marker") == 0);
	CHECK(t, fr.symbol_offset == 1);
	CHECK(t, fr.module && fr.module[0] == '/');
	stk_symbolizer_free(s);
}

static bool stop_now(void *ctx)
{
	return ++*(int *)ctx > 0;
}

/* Past its deadline, or once asked to stop, nothing new is learned: frames stay addresses. */
static void deadline_and_stop(struct test_ctx *t)
{
	uint64_t addr = (uint64_t)(uintptr_t)stk_unit_self_marker;
	struct stk_symbolizer *s = stk_symbolizer_new(NULL);
	struct stk_frame fr;
	int polls = 0;

	stk_symbolizer_set_deadline(s, 1);
	usleep(5000);
	CHECK(t, stk_symbolizer_add_process(s, getpid()) == -ECANCELED);
	stk_symbolize_user(s, getpid(), addr + 1, &fr);
	CHECK(t, fr.symbol == NULL && fr.address == addr + 1);
	CHECK(t, stk_symbolizer_stopped(s));
	stk_symbolizer_free(s);

	/* Learned before the stop: still resolves after it. */
	s = stk_symbolizer_new(NULL);
	CHECK(t, stk_symbolizer_add_process(s, getpid()) == 0);
	stk_symbolizer_set_stop(s, stop_now, &polls);
	CHECK(t, !stk_symbolizer_stopped(s));
	stk_symbolize_user(s, getpid(), addr + 1, &fr);
	CHECK(t, fr.symbol && strcmp(fr.symbol, "stk_unit_self_marker") == 0);
	CHECK(t, stk_symbolizer_add_process(s, getpid() + 100000) == -ECANCELED);
	CHECK(t, stk_symbolizer_stopped(s) && polls == 1);
	stk_symbolizer_free(s);
}

/* Our own lookup of a vDSO symbol through libelf, to check the symbolizer against. */
static uint64_t vdso_symbol(const char *want)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	uint64_t found = 0, load = 0, off;
	struct stk_map_entry me;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Phdr ph;
	size_t nph;
	Elf *e;

	if (!base || stk_maps_file_offset(0, base, &me, &off))
		return 0;
	elf_version(EV_CURRENT);
	e = elf_memory((char *)base, me.end - me.start);
	if (!e)
		return 0;
	if (elf_getphdrnum(e, &nph) == 0)
		for (size_t i = 0; i < nph; i++)
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD) {
				load = ph.p_vaddr - ph.p_offset;
				break;
			}
	while ((scn = elf_nextscn(e, scn)) && !found) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (gelf_getsym(d, (int)i, &sym) && (n = elf_strptr(e, sh.sh_link, sym.st_name)) &&
			    strcmp(n, want) == 0) {
				found = base + sym.st_value - load;
				break;
			}
		}
	}
	elf_end(e);
	return found;
}

static void vdso(struct test_ctx *t)
{
	struct stk_symbolizer *s = stk_symbolizer_new(NULL);
	uint64_t addr = vdso_symbol("__vdso_clock_gettime");
	struct stk_frame fr;

	CHECK(t, addr != 0);
	stk_symbolize_user(s, getpid(), addr + 1, &fr);
	CHECK(t, fr.module && strcmp(fr.module, "[vdso]") == 0);
	CHECK(t, fr.symbol && strcmp(fr.symbol, "__vdso_clock_gettime") == 0);
	CHECK(t, fr.symbol_offset == 1);
	stk_symbolizer_free(s);
}

static void jit_perf_map(struct test_ctx *t)
{
	char path[64];
	size_t len = 2 * 4096;
	unsigned char *code = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t base = (uint64_t)(uintptr_t)code;
	struct stk_symbolizer *s;
	struct stk_frame fr;
	FILE *f;

	CHECK(t, code != MAP_FAILED);
	if (code == MAP_FAILED)
		return;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	CHECK(t, f != NULL);
	if (!f) {
		munmap(code, len);
		return;
	}
	fprintf(f, "%llx 40 LazyCompile:*jitted_one app.js:1\n", (unsigned long long)base);
	fprintf(f, "%llx 20 jitted_two\n", (unsigned long long)base + 0x40);
	fclose(f);

	s = stk_symbolizer_new(NULL);
	CHECK(t, stk_symbolizer_add_process(s, getpid()) == 0);
	stk_symbolize_user(s, getpid(), base + 0x44, &fr);
	CHECK(t, fr.symbol && strcmp(fr.symbol, "jitted_two") == 0 && fr.symbol_offset == 4);
	CHECK(t, fr.module && strcmp(fr.module, "[perf-map]") == 0);
	stk_symbolize_user(s, getpid(), base + 0x10, &fr);
	CHECK(t, fr.symbol && strcmp(fr.symbol, "LazyCompile:*jitted_one app.js:1") == 0);
	/* In the mapping but in no entry. */
	stk_symbolize_user(s, getpid(), base + 0x100, &fr);
	CHECK(t, fr.symbol == NULL && fr.map_start == base && fr.map_end == base + len);
	stk_symbolizer_free(s);
	unlink(path);
	munmap(code, len);
}

/*
 * Frames are kept by address: the same address answers from there, and once
 * the mappings are read again and differ (another file at that address), it
 * is resolved again from the file now mapped.
 */
static void remapped_address_resolved_again(struct test_ctx *t)
{
	char first[PATH_MAX], second[PATH_MAX];
	int fa = -1, fb = -1;
	struct stk_symbolizer *s = NULL;
	struct stk_frame fr;
	unsigned char *code = MAP_FAILED;

	CHECK(t, fixture_path("libstkfix.so", first, sizeof(first)) == 0 &&
		     fixture_path("sym_uselib", second, sizeof(second)) == 0);
	fa = open(first, O_RDONLY | O_CLOEXEC);
	fb = open(second, O_RDONLY | O_CLOEXEC);
	CHECK(t, fa >= 0 && fb >= 0);
	if (fa < 0 || fb < 0)
		goto out;
	code = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fa, 0);
	CHECK(t, code != MAP_FAILED);
	if (code == MAP_FAILED)
		goto out;
	s = stk_symbolizer_new(NULL);
	CHECK(t, stk_symbolizer_add_process(s, getpid()) == 0);
	for (int i = 0; i < 2; i++) { /* made, then found kept */
		stk_symbolize_user(s, getpid(), (uint64_t)(uintptr_t)code + 16, &fr);
		CHECK(t, fr.module && strcmp(fr.module, first) == 0 && fr.map_start == (uint64_t)(uintptr_t)code);
	}
	CHECK(t, mmap(code, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fb, 0) == code);
	CHECK(t, stk_symbolizer_refresh_process(s, getpid()) == 0);
	stk_symbolize_user(s, getpid(), (uint64_t)(uintptr_t)code + 16, &fr);
	CHECK(t, fr.module && strcmp(fr.module, second) == 0);
out:
	stk_symbolizer_free(s);
	if (code != MAP_FAILED)
		munmap(code, 4096);
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
}

const struct test_case symbolize_tests[] = {
	{ "symbolize_remapped_address", remapped_address_resolved_again },
	{ "symbolize_non_pie", non_pie },
	{ "symbolize_pie", pie },
	{ "symbolize_text_vaddr_not_offset", text_segment_vaddr_differs_from_offset },
	{ "symbolize_stripped_debuglink", stripped_with_debuglink },
	{ "symbolize_stripped_dynsym_only", stripped_without_debug_file_uses_dynsym },
	{ "symbolize_shared_library", shared_library },
	{ "symbolize_root_fallback", root_fallback_without_map_files },
	{ "symbolize_cxx_demangle", cxx_demangling },
	{ "symbolize_file_cache_shared", files_parsed_once_across_processes },
	{ "symbolize_on_demand", unknown_process_learned_on_demand },
	{ "symbolize_vanished_process", vanished_process_counts_as_failed },
	{ "symbolize_deleted_binary", deleted_binary_resolves_via_map_files },
	{ "symbolize_own_function", own_function },
	{ "symbolize_deadline_and_stop", deadline_and_stop },
	{ "symbolize_vdso", vdso },
	{ "symbolize_jit_perf_map", jit_perf_map },
	{ NULL, NULL },
};
