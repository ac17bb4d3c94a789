/*
 * stackcount's pure parts: pattern parsing, name matching, the kernel
 * function and tracepoint lists, the mechanism order, library search, user
 * function offsets and USDT notes (against this test binary itself).
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <unistd.h>

#include "harness.h"
#include "core/probe/kernel_match.h"
#include "core/probe/name_match.h"
#include "core/base/probe_guard.h"
#include "core/probe/probe_pattern.h"
#include "core/sym/proc_maps.h"
#include "core/probe/usdt_notes.h"
#include "core/probe/user_probe.h"

static int parse(const char *text, struct stk_probe_pattern *p)
{
	char err[256];

	return stk_probe_pattern_parse(text, p, err, sizeof(err));
}

static void patterns(struct test_ctx *t)
{
	struct stk_probe_pattern p;

	CHECK(t, parse("submit_bio", &p) == 0 && p.kind == STK_PROBE_KERNEL_FUNCTION);
	CHECK_STR(t, p.name, "submit_bio");
	CHECK(t, parse("p:vfs_*", &p) == 0 && p.kind == STK_PROBE_KERNEL_FUNCTION);
	CHECK_STR(t, p.name, "vfs_*");
	CHECK(t, parse("p::vfs_read", &p) == 0 && p.kind == STK_PROBE_KERNEL_FUNCTION);
	CHECK_STR(t, p.name, "vfs_read");
	CHECK(t, parse("t:sched:sched_switch", &p) == 0 && p.kind == STK_PROBE_TRACEPOINT);
	CHECK_STR(t, p.category, "sched");
	CHECK_STR(t, p.name, "sched_switch");
	CHECK(t, parse("c:malloc", &p) == 0 && p.kind == STK_PROBE_USER_FUNCTION);
	CHECK_STR(t, p.lib, "c");
	CHECK_STR(t, p.name, "malloc");
	CHECK(t, parse("p:c:malloc", &p) == 0 && p.kind == STK_PROBE_USER_FUNCTION);
	CHECK_STR(t, p.lib, "c");
	CHECK(t, parse("p:/usr/bin/bash:readline", &p) == 0 && p.kind == STK_PROBE_USER_FUNCTION);
	CHECK_STR(t, p.lib, "/usr/bin/bash");
	CHECK(t, parse("u:pthread:pthread_create", &p) == 0 && p.kind == STK_PROBE_USDT);
	CHECK_STR(t, p.lib, "pthread");
	CHECK_STR(t, p.category, "");
	CHECK_STR(t, p.name, "pthread_create");
	CHECK(t, parse("u:/bin/x:prov:probe", &p) == 0 && p.kind == STK_PROBE_USDT);
	CHECK_STR(t, p.category, "prov");
	CHECK_STR(t, p.name, "probe");
	CHECK(t, parse("", &p) == -1);
	CHECK(t, parse("t:sched", &p) == -1);
	CHECK(t, parse("u:lib", &p) == -1);
	CHECK(t, parse("t::x", &p) == -1);
	CHECK(t, parse("p:c:", &p) == -1);
	CHECK(t, parse("x:a:b", &p) == -1);
	CHECK(t, parse("a:b:c:d:e", &p) == -1);
	CHECK_STR(t, stk_probe_kind_name(STK_PROBE_USDT), "USDT probe");
}

static void name_matching(struct test_ctx *t)
{
	struct stk_name_match m;
	char err[256];

	CHECK(t, stk_name_match_init(&m, "vfs_read", false, err, sizeof(err)) == 0 && m.kind == STK_MATCH_EXACT);
	CHECK(t, stk_name_matches(&m, "vfs_read") && !stk_name_matches(&m, "vfs_readv"));
	stk_name_match_free(&m);
	CHECK(t, stk_name_match_init(&m, "vfs_rea*", false, err, sizeof(err)) == 0 && m.kind == STK_MATCH_GLOB);
	CHECK(t, stk_name_matches(&m, "vfs_read") && stk_name_matches(&m, "vfs_readv"));
	CHECK(t, !stk_name_matches(&m, "xvfs_read"));
	stk_name_match_free(&m);
	/* regular expressions match at the start, as bcc's re.match */
	CHECK(t, stk_name_match_init(&m, "vfs_(read|write)$", true, err, sizeof(err)) == 0);
	CHECK(t, stk_name_matches(&m, "vfs_read") && stk_name_matches(&m, "vfs_write"));
	CHECK(t, !stk_name_matches(&m, "vfs_readv") && !stk_name_matches(&m, "do_vfs_read"));
	stk_name_match_free(&m);
	CHECK(t, stk_name_match_init(&m, "vfs_rea[", true, err, sizeof(err)) == -1);
	CHECK(t, strstr(err, "bad regular expression 'vfs_rea['") != NULL);
}

static const char kallsyms[] =
	"ffffffff81001000 T vfs_read\n"
	"ffffffff81000ff0 T __pfx_vfs_read\n"
	"ffffffff81002000 T vfs_readv\n"
	"ffffffff81003000 t vfs_readlink.cold\n"
	"ffffffff81004000 t vfs_readf.isra.0\n"
	"ffffffff81005000 d vfs_read_data\n"
	"ffffffff81006000 t vfs_read_notrace\n"
	"ffffffff81007000 t vfs_read_black\n"
	"ffffffff81008000 t vfs_read_mod\t[ext4]\n"
	"ffffffff81009000 T vfs_write\n";
static const char traceable[] = "vfs_read\nvfs_readv\nvfs_read_black\nvfs_read_mod [ext4]\nvfs_write\nvfs_readv\n"
				 "vfs_readf.isra.0\n";
static const char blacklist[] = "0xffffffff81007000-0xffffffff81007100\tvfs_read_black\n";

static int match_kfuncs(const char *pattern, bool regex, bool with_traceable, struct stk_name_list *ok,
			struct stk_name_list *bad)
{
	struct stk_name_match m;
	char err[256];
	FILE *k = fmemopen((void *)kallsyms, strlen(kallsyms), "r");
	FILE *tr = with_traceable ? fmemopen((void *)traceable, strlen(traceable), "r") : NULL;
	FILE *bl = fmemopen((void *)blacklist, strlen(blacklist), "r");
	struct stk_kfunc_sources src = { .traceable = tr, .kallsyms = k, .blacklist = bl };
	int r = stk_name_match_init(&m, pattern, regex, err, sizeof(err)) ? -2
		: stk_match_kernel_functions(&src, &m, ok, bad);

	stk_name_match_free(&m);
	fclose(k);
	fclose(bl);
	if (tr)
		fclose(tr);
	return r;
}

static void kernel_functions(struct test_ctx *t)
{
	struct stk_name_list ok = { 0 }, bad = { 0 };

	/* ftrace's list decides; a function only in kallsyms (notrace) or blacklisted cannot be traced */
	CHECK(t, match_kfuncs("vfs_rea*", false, true, &ok, &bad) == 0);
	CHECK(t, ok.n == 3);
	if (ok.n == 3) {
		CHECK_STR(t, ok.names[0], "vfs_read");
		CHECK_STR(t, ok.names[1], "vfs_read_mod");
		CHECK_STR(t, ok.names[2], "vfs_readv");
	}
	CHECK(t, bad.n == 2);
	if (bad.n == 2) {
		CHECK_STR(t, bad.names[0], "vfs_read_black");
		CHECK_STR(t, bad.names[1], "vfs_read_notrace");
	}
	stk_name_list_free(&ok);
	stk_name_list_free(&bad);
	/* kallsyms alone: text symbols without padding and clones, minus the blacklist */
	CHECK(t, match_kfuncs("vfs_rea*", false, false, &ok, &bad) == 0);
	CHECK(t, ok.n == 4 && bad.n == 1);
	CHECK(t, stk_name_list_contains(&ok, "vfs_read_notrace") && !stk_name_list_contains(&ok, "vfs_read_data"));
	CHECK(t, !stk_name_list_contains(&ok, "__pfx_vfs_read") && !stk_name_list_contains(&ok, "vfs_readf.isra.0"));
	stk_name_list_free(&ok);
	stk_name_list_free(&bad);
	/* an exact clone name is still found */
	CHECK(t, match_kfuncs("vfs_readf.isra.0", false, false, &ok, &bad) == 0 && ok.n == 1);
	stk_name_list_free(&ok);
	stk_name_list_free(&bad);
	CHECK(t, match_kfuncs("vfs_read_notrace", false, true, &ok, &bad) == 0 && ok.n == 0 && bad.n == 1);
	stk_name_list_free(&ok);
	stk_name_list_free(&bad);
	CHECK(t, match_kfuncs("vfs_(read|write)$", true, true, &ok, &bad) == 0 && ok.n == 2);
	stk_name_list_free(&ok);
	stk_name_list_free(&bad);
	CHECK(t, match_kfuncs("nothing", false, true, &ok, &bad) == 0 && ok.n == 0 && bad.n == 0);
	stk_name_list_free(&ok);
	stk_name_list_free(&bad);
}

static void tracepoints(struct test_ctx *t)
{
	static const char events[] = "sched:sched_switch\nsched:sched_wakeup\nsyscalls:sys_enter_openat\n"
				     "syscalls:sys_exit_openat\nbad_line\n";
	struct stk_name_match cat, ev;
	struct stk_name_list out = { 0 };
	char err[256];
	FILE *f = fmemopen((void *)events, strlen(events), "r");

	CHECK(t, stk_name_match_init(&cat, "sys*", false, err, sizeof(err)) == 0);
	CHECK(t, stk_name_match_init(&ev, "sys_*_openat", false, err, sizeof(err)) == 0);
	CHECK(t, stk_match_tracepoints(f, &cat, &ev, &out) == 0 && out.n == 2);
	if (out.n == 2)
		CHECK_STR(t, out.names[0], "syscalls:sys_enter_openat");
	stk_name_list_free(&out);
	stk_name_match_free(&cat);
	stk_name_match_free(&ev);
	fclose(f);
}


static void library_search(struct test_ctx *t)
{
	char dir[PATH_MAX], path[PATH_MAX + 64], found[PATH_MAX + 64];
	const char *dirs[] = { "/nonexistent", dir, NULL };
	int self = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	static const char *const elf_names[] = { "libc.so.6", "libfoo.so.1", "libfoo.so.1.2", "bar" };

	if (make_scratch_dir(dir, sizeof(dir))) {
		CHECK(t, 0);
		return;
	}
	/* copies of an ELF header under library names; libc.so is a linker script */
	char elf[64] = { 0 };
	CHECK(t, self >= 0 && read(self, elf, sizeof(elf)) == (ssize_t)sizeof(elf));
	for (size_t i = 0; i < sizeof(elf_names) / sizeof(elf_names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, elf_names[i]);
		FILE *f = fopen(path, "w");
		CHECK(t, f && fwrite(elf, sizeof(elf), 1, f) == 1);
		if (f)
			fclose(f);
	}
	snprintf(path, sizeof(path), "%s/libc.so", dir);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs("/* GNU ld script */\n", f);
		fclose(f);
	}
	CHECK(t, stk_user_file_find_in("c", dirs, found, sizeof(found)) == 0);
	snprintf(path, sizeof(path), "%s/libc.so.6", dir);
	CHECK_STR(t, found, path);
	CHECK(t, stk_user_file_find_in("foo", dirs, found, sizeof(found)) == 0);
	snprintf(path, sizeof(path), "%s/libfoo.so.1", dir);
	CHECK_STR(t, found, path);
	CHECK(t, stk_user_file_find_in("bar", dirs, found, sizeof(found)) == 0);
	CHECK(t, stk_user_file_find_in("nosuchlib", dirs, found, sizeof(found)) == -1);
	if (self >= 0)
		close(self);
	remove_tree(dir);

	struct stk_user_file uf;
	char err[512];
	CHECK(t, stk_user_file_resolve("/nonexistent/lib.so", 0, &uf, err, sizeof(err)) == -1);
	CHECK(t, stk_user_file_resolve("nosuchlib_stk_test", 0, &uf, err, sizeof(err)) == -1);
	CHECK(t, strstr(err, "library 'nosuchlib_stk_test' not found") != NULL);
	/* with a PID: the process's own mappings, here this test's executable */
	CHECK(t, stk_user_file_resolve("nosuchlib_stk_test", getpid(), &uf, err, sizeof(err)) == -1);
	CHECK(t, strstr(err, "not found in the mappings of process") != NULL);
}

__attribute__((noinline, used)) int stk_test_probe_target_alpha(int x)
{
	DTRACE_PROBE1(stk_unit, alpha_probe, x);
	return x + 1;
}

__attribute__((noinline, used)) int stk_test_probe_target_beta(int x)
{
	DTRACE_PROBE1(stk_unit, beta_probe, x);
	return x * 2;
}

static void user_functions(struct test_ctx *t)
{
	struct stk_user_func_list l = { 0 };
	struct stk_name_match m;
	struct stk_map_entry e;
	uint64_t off;
	char err[512];

	CHECK(t, stk_test_probe_target_alpha(1) + stk_test_probe_target_beta(1) == 4);
	CHECK(t, stk_name_match_init(&m, "stk_test_probe_target_*", false, err, sizeof(err)) == 0);
	CHECK(t, stk_user_functions("/proc/self/exe", &m, &l, err, sizeof(err)) == 0);
	CHECK(t, l.n == 2);
	/* the offsets are the ones uprobes want: the file offsets of the running code */
	if (l.n == 2 && stk_maps_file_offset(0, (uint64_t)(uintptr_t)stk_test_probe_target_alpha, &e, &off) == 0) {
		const struct stk_user_func *a = strcmp(l.funcs[0].name, "stk_test_probe_target_alpha") == 0 ? &l.funcs[0]
															 : &l.funcs[1];
		CHECK_STR(t, a->name, "stk_test_probe_target_alpha");
		CHECK(t, a->offset == off);
	}
	stk_user_func_list_free(&l);
	stk_name_match_free(&m);
	CHECK(t, stk_user_functions("/nonexistent", &m, &l, err, sizeof(err)) == -1);
}

static void usdt_notes(struct test_ctx *t)
{
	struct stk_name_match prov, name;
	struct stk_name_list out = { 0 };
	char err[512];

	CHECK(t, stk_name_match_init(&name, "*_probe", false, err, sizeof(err)) == 0);
	CHECK(t, stk_name_match_init(&prov, "stk_unit", false, err, sizeof(err)) == 0);
	CHECK(t, stk_usdt_probes("/proc/self/exe", &prov, &name, &out, err, sizeof(err)) == 0);
	CHECK(t, out.n == 2);
	if (out.n == 2) {
		CHECK_STR(t, out.names[0], "stk_unit:alpha_probe");
		CHECK_STR(t, out.names[1], "stk_unit:beta_probe");
	}
	stk_name_list_free(&out);
	stk_name_match_free(&name);
	CHECK(t, stk_name_match_init(&name, "alpha_probe", false, err, sizeof(err)) == 0);
	CHECK(t, stk_usdt_probes("/proc/self/exe", NULL, &name, &out, err, sizeof(err)) == 0 && out.n == 1);
	stk_name_list_free(&out);
	CHECK(t, stk_usdt_probes("/nonexistent", NULL, &name, &out, err, sizeof(err)) == -1);
	stk_name_match_free(&name);
	stk_name_match_free(&prov);
}

static void guard_events(struct test_ctx *t)
{
	char name[128];

	CHECK(t, stk_guard_event_of("p:kprobes/libbpf_42_vfs_read_0x0_0 vfs_read+0x0\n", 42, name, sizeof(name)) == 0);
	CHECK_STR(t, name, "kprobes/libbpf_42_vfs_read_0x0_0");
	CHECK(t, stk_guard_event_of("p:uprobes/libbpf_42__bin_x_0x1130 /bin/x:0x1130\n", 42, name, sizeof(name)) == 0);
	CHECK_STR(t, name, "uprobes/libbpf_42__bin_x_0x1130");
	/* another process's events (even one whose PID starts the same) and foreign events stay */
	CHECK(t, stk_guard_event_of("p:kprobes/libbpf_421_vfs_read_0x0_0 vfs_read+0x0\n", 42, name, sizeof(name)) == -1);
	CHECK(t, stk_guard_event_of("p:kprobes/myprobe vfs_read\n", 42, name, sizeof(name)) == -1);
	CHECK(t, stk_guard_event_of("garbage\n", 42, name, sizeof(name)) == -1);
	CHECK(t, stk_guard_event_of("p:kprobes/libbpf_42_x 1\n", 42, name, 4) == -1);
}

const struct test_case probe_pattern_tests[] = {
	{ "stackcount_guard_events", guard_events },
	{ "stackcount_patterns", patterns },
	{ "stackcount_name_matching", name_matching },
	{ "stackcount_kernel_functions", kernel_functions },
	{ "stackcount_tracepoints", tracepoints },
	{ "stackcount_library_search", library_search },
	{ "stackcount_user_functions", user_functions },
	{ "stackcount_usdt_notes", usdt_notes },
	{ NULL, NULL },
};
