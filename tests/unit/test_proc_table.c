/*
 * The one process table and file cache (core/sym/proc_table.c,
 * file_cache.c) as their three readers see them: a file mapped by two
 * processes, or by two inodes of one build, is one entry; a process that
 * exited keeps what its stacks name and gives up the rest; a pid taken
 * again is read as the new process it is, for the symbolizer, the copy
 * unwinder and the kernel tables alike.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "core/sym/symbolize.h"
#include "core/unwind/unwind_dwarf.h"
#include "core/unwind/unwind_tables.h"
#include "fake_unwind_maps.h"
#include "sym_fixture.h"

/* The mapping of p that holds addr (gone ones too), or NULL. */
static const struct stk_mapping *mapping_at(const struct stk_process *p, uint64_t addr)
{
	for (size_t i = 0; p && i < p->n_maps; i++)
		if (addr >= p->maps[i].start && addr < p->maps[i].end)
			return &p->maps[i];
	return NULL;
}

/* How many of p's mappings map f. */
static size_t maps_of(const struct stk_process *p, const struct stk_file *f)
{
	size_t n = 0;

	for (size_t i = 0; p && i < p->n_maps; i++)
		n += p->maps[i].file == f;
	return n;
}

static void one_entry_per_file(struct test_ctx *t)
{
	struct stk_symbolizer *s = stk_symbolizer_new(NULL);
	char dir[PATH_MAX / 2], src[PATH_MAX], copy[PATH_MAX / 2 + 16], cmd[3 * PATH_MAX];
	struct stk_symbolizer_stats one, two;
	struct fixture a, b, c;
	const struct stk_process *pa, *pb, *pc;
	const struct stk_mapping *ma, *mb, *mc;
	bool scratch = false;

	memset(&c, 0, sizeof(c));
	if (!s || spawn("sym_pie", &a) || spawn("sym_pie", &b)) {
		CHECK(t, !"cannot run the fixture twice");
		goto out;
	}
	/* the same file from two processes: one entry, parsed once */
	pa = stk_symbolizer_process(s, a.pid);
	stk_symbolizer_get_stats(s, &one);
	pb = stk_symbolizer_process(s, b.pid);
	stk_symbolizer_get_stats(s, &two);
	ma = mapping_at(pa, addr_of(&a, "stk_fixture_alpha"));
	mb = mapping_at(pb, addr_of(&b, "stk_fixture_alpha"));
	CHECK(t, pa && pb && pa != pb && ma && mb);
	if (!ma || !mb)
		goto out;
	CHECK(t, ma->kind == STK_MAPPING_FILE && ma->exe && ma->file && ma->file == mb->file);
	CHECK(t, two.files_parsed == one.files_parsed && two.files_parsed >= 2);
	/* every file the second maps (its libc too) is the first's entry */
	for (size_t i = 0; i < pb->n_maps; i++)
		if (pb->maps[i].kind == STK_MAPPING_FILE)
			CHECK(t, pb->maps[i].file && maps_of(pa, pb->maps[i].file) > 0);
	/* the same build at another inode (a copy, as in another container's image): still one entry */
	CHECK(t, fixture_path("sym_pie", src, sizeof(src)) == 0 && make_scratch_dir(dir, sizeof(dir)) == 0);
	scratch = true;
	snprintf(copy, sizeof(copy), "%s/sym_pie_copy", dir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", src, copy);
	CHECK(t, system(cmd) == 0);
	if (spawn_path(copy, &c)) {
		CHECK(t, !"cannot run the copy");
		goto out;
	}
	pc = stk_symbolizer_process(s, c.pid);
	mc = mapping_at(pc, addr_of(&c, "stk_fixture_alpha"));
	stk_symbolizer_get_stats(s, &one);
	CHECK(t, mc && mc->file == ma->file && strcmp(mc->path, copy) == 0);
	CHECK(t, one.files_parsed == two.files_parsed);
	/* and it names the copy's frames by the copy's path */
	struct stk_frame fr;
	stk_symbolize_user(s, c.pid, addr_of(&c, "stk_fixture_beta") + 1, &fr);
	CHECK(t, fr.symbol && strcmp(fr.symbol, "stk_fixture_beta") == 0 && fr.module && strcmp(fr.module, copy) == 0);
out:
	reap(&a);
	reap(&b);
	reap(&c);
	if (scratch)
		remove_tree(dir);
	stk_symbolizer_free(s);
}

/* A process that exited keeps its mappings (the stacks taken meanwhile name them) and gives up the rest. */
static void exited_process_keeps_what_its_stacks_name(struct test_ctx *t)
{
	struct stk_symbolizer_opts o = { .keep_elf = true };
	struct stk_symbolizer *s = stk_symbolizer_new(&o);
	struct stk_unwind_source src = s ? stk_symbolizer_unwind_source(s) : (struct stk_unwind_source){ 0 };
	struct stk_unwinder *u = s ? stk_unwinder_new(&src) : NULL;
	struct stk_symbolizer_stats st;
	struct stk_process *p;
	struct stk_frame fr;
	struct fixture fx;
	size_t n_maps;

	if (!s || !u || spawn("sym_uselib", &fx)) {
		CHECK(t, !"cannot set up");
		goto out;
	}
	p = stk_symbolizer_process(s, fx.pid);
	CHECK(t, p != NULL);
	if (!p)
		goto out;
	stk_unwinder_prepare(u, fx.pid);
	CHECK(t, p->unwinder != NULL);
	n_maps = p->n_maps;
	CHECK(t, stk_symbolizer_sweep(s) == 0); /* alive: nothing to do */
	reap(&fx);
	CHECK(t, stk_symbolizer_sweep(s) == 1 && stk_symbolizer_sweep(s) == 0);
	stk_symbolizer_get_stats(s, &st);
	CHECK(t, st.processes_exited == 1);
	/* the same entry, its mappings whole, the copy unwinder's state gone */
	CHECK(t, stk_symbolizer_process(s, fx.pid) == p && stk_symbolizer_find_process(s, fx.pid) == p);
	CHECK(t, p->n_maps == n_maps && p->unwinder == NULL);
	/* its frames still resolve, in the program and in its library */
	stk_symbolize_user(s, fx.pid, addr_of(&fx, "stk_fixture_alpha") + 1, &fr);
	CHECK(t, fr.symbol && strcmp(fr.symbol, "stk_fixture_alpha") == 0);
	stk_symbolize_user(s, fx.pid, addr_of(&fx, "stk_fixture_lib_gamma") + 1, &fr);
	CHECK(t, fr.symbol && strcmp(fr.symbol, "stk_fixture_lib_gamma") == 0);
	/* its pid may be another's by now: a pc outside its mappings does not read them again */
	CHECK(t, !src.reread(src.table, fx.pid));
	/* forgotten (stk record's series) only once it exited before the time given; a live one stays */
	CHECK(t, stk_symbolizer_process(s, getpid()) != NULL);
	CHECK(t, stk_symbolizer_forget_exited(s, 0) == 0 && stk_symbolizer_find_process(s, fx.pid) == p);
	CHECK(t, stk_symbolizer_forget_exited(s, INT64_MAX) == 1);
	CHECK(t, stk_symbolizer_find_process(s, fx.pid) == NULL && stk_symbolizer_find_process(s, getpid()) != NULL);
	stk_symbolizer_get_stats(s, &st);
	CHECK(t, st.processes_forgotten == 1 && st.processes_exited == 1);
out:
	stk_unwinder_free(u);
	stk_symbolizer_free(s);
}

__attribute__((noinline)) int proc_table_marker(int x);
__attribute__((noinline)) int proc_table_marker(int x)
{
	return x * 3 + 1;
}

/*
 * A child that waits for a byte on go, then runs the fixture path: until
 * then it is a copy of this program. Its "sym" lines come on *out.
 */
static pid_t fork_waiting(const char *path, int *go, int *out)
{
	int g[2], o[2];
	pid_t pid;
	char c;

	if (pipe(g))
		return -1;
	if (pipe(o)) {
		close(g[0]);
		close(g[1]);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		close(g[1]);
		close(o[0]);
		dup2(o[1], STDOUT_FILENO);
		if (read(g[0], &c, 1) == 1)
			execl(path, path, (char *)NULL);
		_exit(127);
	}
	close(g[0]);
	close(o[1]);
	*go = g[1];
	*out = o[0];
	return pid;
}

/*
 * A pid taken again after its process exited (here: the process exits as
 * far as the tables know, then runs another program under the same pid,
 * which is what a reused pid looks like to them) is a new process for all
 * three readers: its mappings read afresh (the old ones kept as gone, for
 * the stacks taken before), a new generation, a new copy-unwinder state,
 * and a fresh load in the kernel tables.
 */
static void pid_taken_again_is_a_new_process(struct test_ctx *t)
{
	struct stk_symbolizer_opts o = { .keep_elf = true };
	struct stk_symbolizer *s = stk_symbolizer_new(&o);
	struct stk_unwind_source src = s ? stk_symbolizer_unwind_source(s) : (struct stk_unwind_source){ 0 };
	struct stk_unwinder *u = s ? stk_unwinder_new(&src) : NULL;
	struct fake_maps *fm = fake_new();
	const struct stk_unwind_capacity cap = { CAP_ROWS, CAP_PAGES, CAP_MAPS, 16 };
	const struct stk_cfi_table_limits lim = STK_CFI_TABLE_LIMITS_DEFAULT;
	struct stk_unwind_tables *tables = fm ? stk_unwind_tables_new(&fake_ops, fm, &cap, &lim) : NULL;
	struct stk_unwind_tables_stats st;
	uint64_t old_pc = (uint64_t)(uintptr_t)proc_table_marker, generation;
	struct stk_process *p;
	struct stk_frame fr;
	struct fixture fx;
	char path[PATH_MAX];
	int go = -1, out = -1;

	memset(&fx, 0, sizeof(fx));
	CHECK(t, proc_table_marker(1) == 4);
	if (!s || !u || !tables || fixture_path("sym_pie", path, sizeof(path)) ||
	    (fx.pid = fork_waiting(path, &go, &out)) <= 0) {
		CHECK(t, !"cannot set up");
		goto out;
	}
	fx.alive = 1;
	/* the first process: a copy of this program */
	p = stk_symbolizer_process(s, fx.pid);
	CHECK(t, p && mapping_at(p, old_pc) && !mapping_at(p, old_pc)->gone);
	if (!p)
		goto out;
	generation = p->generation;
	stk_unwinder_prepare(u, fx.pid);
	CHECK(t, p->unwinder != NULL);
	CHECK(t, stk_unwind_tables_load(tables, p, 0) != STK_UNWIND_LOAD_FAILED && fm->tgid == (uint32_t)fx.pid);
	/* it exits (the exit hook and the sweep say so) */
	stk_unwind_tables_forget(tables, p);
	stk_symbolizer_process_exited(s, fx.pid);
	CHECK(t, p->unwinder == NULL && !stk_unwind_tables_has(tables, p) && !fm->has_proc);
	/* another program under its pid, announced */
	CHECK(t, write(go, "x", 1) == 1 && fixture_read_ready(out, &fx) == 0);
	out = -1;
	snprintf(fx.path, sizeof(fx.path), "%s", path);
	CHECK(t, stk_symbolizer_refresh_process(s, fx.pid) == 0);
	CHECK(t, stk_symbolizer_process(s, fx.pid) == p && p->generation != generation);
	/* its mappings are the new program's; the old one's are kept, gone, for the stacks taken before */
	const struct stk_mapping *now = mapping_at(p, addr_of(&fx, "stk_fixture_alpha"));
	CHECK(t, now && !now->gone && now->exe && strcmp(now->path, path) == 0);
	CHECK(t, mapping_at(p, old_pc) && mapping_at(p, old_pc)->gone);
	stk_symbolize_user(s, fx.pid, addr_of(&fx, "stk_fixture_alpha") + 1, &fr);
	CHECK(t, fr.symbol && strcmp(fr.symbol, "stk_fixture_alpha") == 0 && fr.module && strcmp(fr.module, path) == 0);
	stk_symbolize_user(s, fx.pid, old_pc + 1, &fr);
	CHECK(t, fr.symbol && strcmp(fr.symbol, "proc_table_marker") == 0);
	/* alive again: the sweep leaves it, a miss may read its mappings again */
	CHECK(t, stk_symbolizer_sweep(s) == 0);
	/* the copy unwinder makes a new state from the new mappings */
	stk_unwinder_prepare(u, fx.pid);
	CHECK(t, p->unwinder != NULL);
	/* the kernel tables load it as a new process: a first load, not a reload, with the new mappings */
	CHECK(t, stk_unwind_tables_load(tables, p, 0) != STK_UNWIND_LOAD_FAILED && fm->has_proc);
	stk_unwind_tables_get_stats(tables, &st);
	CHECK(t, st.procs_loaded == 2 && st.reloads == 0);
	bool found = false;
	for (uint32_t i = 0; i < fm->proc.n_maps; i++)
		found |= fm->maps[fm->proc.first_map + i].start == now->start;
	CHECK(t, found);
	/* and its own exit is seen in turn */
	stk_unwind_tables_forget(tables, p);
	reap(&fx);
	CHECK(t, stk_symbolizer_sweep(s) == 1);
	struct stk_symbolizer_stats ss;
	stk_symbolizer_get_stats(s, &ss);
	CHECK(t, ss.processes_exited == 2 && p->unwinder == NULL);
out:
	if (go >= 0)
		close(go);
	if (out >= 0)
		close(out);
	reap(&fx);
	stk_unwind_tables_free(tables);
	stk_unwinder_free(u);
	stk_symbolizer_free(s);
	fake_free(fm);
}

/* The processes stk_unwind_tables_each_user names. */
struct users {
	uint32_t tgid[4];
	size_t n;
};

static void note_user(void *ctx, uint32_t tgid)
{
	struct users *us = ctx;

	if (us->n < 4)
		us->tgid[us->n++] = tgid;
}

/* A symbolizer keeping ELF files for the unwinders, and kernel tables over fake maps: the kernel walk's side. */
struct tables_rig {
	struct stk_symbolizer *s;
	struct fake_maps *fm;
	struct stk_unwind_tables *tables;
};

static bool rig_open(struct tables_rig *r)
{
	struct stk_symbolizer_opts o = { .keep_elf = true };
	const struct stk_unwind_capacity cap = { CAP_ROWS, CAP_PAGES, CAP_MAPS, 16 };
	const struct stk_cfi_table_limits lim = STK_CFI_TABLE_LIMITS_DEFAULT;

	r->s = stk_symbolizer_new(&o);
	r->fm = fake_new();
	r->tables = r->fm ? stk_unwind_tables_new(&fake_ops, r->fm, &cap, &lim) : NULL;
	return r->s && r->tables;
}

static void rig_close(struct tables_rig *r)
{
	if (r->s)
		stk_symbolizer_set_table_holder(r->s, NULL);
	stk_unwind_tables_free(r->tables);
	stk_symbolizer_free(r->s);
	fake_free(r->fm);
}

/* Two processes mapping the same files: one table per file in the kernel's maps, each process its own mappings. */
static void kernel_tables_share_a_file(struct test_ctx *t)
{
	struct tables_rig rig;
	bool up = rig_open(&rig);
	struct stk_symbolizer *s = rig.s;
	struct stk_unwind_tables *tables = rig.tables;
	struct stk_unwind_tables_stats one, two;
	struct stk_process *pa, *pb;
	struct fixture a, b;

	memset(&b, 0, sizeof(b));
	if (!up || spawn("sym_nopie", &a) || spawn("sym_nopie", &b)) {
		CHECK(t, !"cannot set up");
		goto out;
	}
	pa = stk_symbolizer_process(s, a.pid);
	pb = stk_symbolizer_process(s, b.pid);
	CHECK(t, pa && pb);
	if (!pa || !pb)
		goto out;
	CHECK(t, stk_unwind_tables_load(tables, pa, 0) == STK_UNWIND_LOADED);
	stk_unwind_tables_get_stats(tables, &one);
	CHECK(t, stk_unwind_tables_load(tables, pb, 0) == STK_UNWIND_LOADED);
	stk_unwind_tables_get_stats(tables, &two);
	CHECK(t, one.files_built >= 2 && two.files_built == one.files_built && two.rows_used == one.rows_used);
	CHECK(t, two.procs_loaded == 2 && two.mappings_used == 2 * one.mappings_used);
	/* the program's file: both are its users */
	const struct stk_mapping *m = mapping_at(pa, addr_of(&a, "stk_fixture_alpha"));
	struct users us = { .n = 0 };
	CHECK(t, m && m->file);
	if (m && m->file) {
		stk_unwind_tables_each_user(tables, m->file, note_user, &us);
		CHECK(t, us.n == 2 && us.tgid[0] != us.tgid[1] &&
			     (us.tgid[0] == (uint32_t)a.pid || us.tgid[0] == (uint32_t)b.pid) &&
			     (us.tgid[1] == (uint32_t)a.pid || us.tgid[1] == (uint32_t)b.pid));
	}
	/* one gone: the other's mappings and the shared tables stay */
	stk_unwind_tables_forget(tables, pa);
	stk_unwind_tables_get_stats(tables, &two);
	CHECK(t, !stk_unwind_tables_has(tables, pa) && stk_unwind_tables_has(tables, pb));
	CHECK(t, two.mappings_used == one.mappings_used && two.rows_used == one.rows_used && two.files_evicted == 0);
out:
	reap(&a);
	reap(&b);
	rig_close(&rig);
}

static bool let_go_table(void *ctx, struct stk_file *f)
{
	return stk_unwind_tables_let_go(ctx, f);
}

static void let_go_proc(void *ctx, struct stk_process *p)
{
	stk_unwind_tables_forget(ctx, p);
}

/* Descriptors of this process open on path. */
static unsigned fds_on(const char *path)
{
	char link[64], target[PATH_MAX];
	unsigned n = 0;
	ssize_t len;

	for (int fd = 0; fd < 4096; fd++) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		if ((len = readlink(link, target, sizeof(target) - 1)) < 0)
			continue;
		target[len] = '\0';
		n += strncmp(target, path, strlen(path)) == 0;
	}
	return n;
}

/*
 * A file no process maps any more is freed with its descriptors and its
 * kernel table (stk record's series, at each new file): a host that runs
 * new programs all day keeps what its live processes map, not every file
 * it ever saw. A file still mapped, or whose table a loaded process uses,
 * stays; one mapped again is opened anew.
 */
static void unmapped_files_are_freed(struct test_ctx *t)
{
	struct tables_rig rig;
	bool up = rig_open(&rig);
	struct stk_symbolizer *s = rig.s;
	struct stk_unwind_tables *tables = rig.tables;
	char dir[PATH_MAX / 2], src[PATH_MAX], copy[PATH_MAX / 2 + 16], cmd[3 * PATH_MAX];
	struct stk_unwind_tables_stats before, loaded, after;
	struct stk_symbolizer_stats st;
	struct stk_process *p;
	struct stk_frame fr;
	struct fixture fx, again;
	unsigned parsed;
	bool scratch = false;

	memset(&fx, 0, sizeof(fx));
	memset(&again, 0, sizeof(again));
	if (!up || fixture_path("sym_pie", src, sizeof(src)) || make_scratch_dir(dir, sizeof(dir))) {
		CHECK(t, !"cannot set up");
		goto out;
	}
	scratch = true;
	/* a program of its own path, as a build host's new binaries are */
	snprintf(copy, sizeof(copy), "%s/sym_pie_new", dir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", src, copy);
	if (system(cmd) != 0 || spawn_path(copy, &fx)) {
		CHECK(t, !"cannot run the copy");
		goto out;
	}
	stk_symbolizer_set_table_holder(s, &(struct stk_table_holder){ let_go_table, NULL, tables });
	CHECK(t, stk_symbolizer_process(s, getpid()) != NULL); /* a live process: its files stay */
	stk_unwind_tables_get_stats(tables, &before);
	p = stk_symbolizer_process(s, fx.pid);
	CHECK(t, p && stk_unwind_tables_load(tables, p, 0) == STK_UNWIND_LOADED);
	if (!p)
		goto out;
	stk_unwind_tables_get_stats(tables, &loaded);
	CHECK(t, fds_on(copy) >= 1 && loaded.rows_used > before.rows_used);
	/* mapped by a live process, then by one that exited but is kept: nothing goes */
	CHECK(t, stk_symbolizer_forget_files(s) == 0);
	reap(&fx);
	CHECK(t, stk_symbolizer_sweep(s) == 1 && stk_symbolizer_forget_files(s) == 0);
	/* still loaded in the kernel's tables (its exit message lost): kept while no one gives them back */
	CHECK(t, stk_symbolizer_forget_exited(s, INT64_MAX) == 0 && stk_unwind_tables_has(tables, p));
	CHECK(t, stk_symbolizer_live_process(s, fx.pid) == NULL); /* exited: nothing loads it again */
	/* the holder gives them back when the process goes */
	stk_symbolizer_set_table_holder(s, &(struct stk_table_holder){ let_go_table, let_go_proc, tables });
	CHECK(t, stk_symbolizer_forget_exited(s, INT64_MAX) == 1);
	stk_unwind_tables_get_stats(tables, &after);
	CHECK(t, after.mappings_used < loaded.mappings_used); /* its mappings' slots given back */
	CHECK(t, stk_symbolizer_forget_files(s) >= 1 && stk_symbolizer_forget_files(s) == 0);
	stk_unwind_tables_get_stats(tables, &after);
	stk_symbolizer_get_stats(s, &st);
	CHECK(t, fds_on(copy) == 0 && st.files_forgotten >= 1);
	CHECK(t, after.files_let_go >= 1 && after.rows_used < loaded.rows_used);
	/* this process's files stayed and still name its frames */
	stk_symbolize_user(s, getpid(), (uint64_t)(uintptr_t)proc_table_marker + 1, &fr);
	CHECK(t, fr.symbol && strcmp(fr.symbol, "proc_table_marker") == 0);
	/* the program run again: opened and parsed anew, named as before */
	if (spawn_path(copy, &again)) {
		CHECK(t, !"cannot run the copy again");
		goto out;
	}
	stk_symbolize_user(s, again.pid, addr_of(&again, "stk_fixture_beta") + 1, &fr);
	CHECK(t, fr.symbol && strcmp(fr.symbol, "stk_fixture_beta") == 0 && fds_on(copy) >= 1);
	parsed = st.files_parsed;
	stk_symbolizer_get_stats(s, &st);
	CHECK(t, st.files_parsed > parsed);
out:
	reap(&fx);
	reap(&again);
	if (scratch)
		remove_tree(dir);
	rig_close(&rig);
}

const struct test_case proc_table_tests[] = {
	{ "one_entry_per_file", one_entry_per_file },
	{ "exited_process_keeps_what_its_stacks_name", exited_process_keeps_what_its_stacks_name },
	{ "pid_taken_again_is_a_new_process", pid_taken_again_is_a_new_process },
	{ "kernel_tables_share_a_file", kernel_tables_share_a_file },
	{ "unmapped_files_are_freed", unmapped_files_are_freed },
	{ NULL, NULL },
};
