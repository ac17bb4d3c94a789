/*
 * stk: one static binary, several applets. Dispatches on argv[0]'s basename
 * (profile, stk-profile, ...) or on the first argument (stk profile ...).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <bpf/libbpf.h>

#include "build_info.h"
#include "core/sym/debuginfod.h"
#include "core/terminal/terminal.h"
#include "core/bpf/btf_embedded.h"
#include "core/base/dispatch.h"
#include "core/base/install.h"
#include "core/base/log.h"

/* Every STK_APPLET declaration linked in (core/base/dispatch.h). */
extern const struct stk_applet __start_stk_applets[], __stop_stk_applets[];

#define MAX_APPLETS 32

/* The applets in rank order (an insertion sort of a handful). */
static size_t collect_applets(struct stk_applet *out, size_t max)
{
	size_t n = 0;

	for (const struct stk_applet *a = __start_stk_applets; a < __stop_stk_applets && n < max; a++) {
		size_t at = n++;

		while (at > 0 && out[at - 1].rank > a->rank) {
			out[at] = out[at - 1];
			at--;
		}
		out[at] = *a;
	}
	return n;
}

static void print_usage(FILE *out, const struct stk_applet *applets, size_t n_applets)
{
	fprintf(out,
		"usage: stk APPLET [ARGS...]   (or run through a link named APPLET or stk-APPLET)\n"
		"       stk --list | --help | --version | --install [-s] DIR\n\n"
		"applets:\n");
	for (size_t i = 0; i < n_applets; i++)
		fprintf(out, "  %-12s %s%s\n", applets[i].name, applets[i].summary,
			applets[i].main || applets[i].steps ? "" : " [not implemented yet]");
	fprintf(out, "\n'stk APPLET --help' describes an applet's options.\n");
}

static void print_version(void)
{
	printf("stk %s (%s)\n", STK_VERSION, STK_GIT_DESCRIBE);
	printf("libbpf %d.%d, %s, zlib %s\n", libbpf_major_version(), libbpf_minor_version(),
	       STK_LIBELF_VERSION, zlibVersion());
	printf("debuginfod client: %s\n", stk_debuginfod_library_version());
	printf("terminal (stk top): %s\n", stk_term_library_version());
	printf("built %s for %s with %s, statically linked against musl\n", STK_BUILD_DATE, STK_MACHINE,
	       STK_CC_VERSION);
	unsigned kernels = stk_btf_embedded_count();
	if (kernels)
		printf("embedded BTF: %u kernel%s (minimized for CO-RE; see 'stk info')\n", kernels,
		       kernels == 1 ? "" : "s");
	else
		printf("embedded BTF: none (built without BTF_ARCHIVE)\n");
}

static int run_install(int argc, char **argv, const struct stk_applet *applets, size_t n_applets)
{
	char self[PATH_MAX], err[PATH_MAX + 128];
	int symbolic = 0, i = 1;
	ssize_t n;

	if (i < argc && strcmp(argv[i], "-s") == 0) {
		symbolic = 1;
		i++;
	}
	if (i != argc - 1) {
		stk_error(NULL, "--install: usage: stk --install [-s] DIR");
		return STK_EXIT_USAGE;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0) {
		stk_error(NULL, "--install: cannot find stk's own path: %s", strerror(errno));
		return STK_EXIT_USAGE;
	}
	self[n] = '\0';
	if (stk_install_links(self, argv[i], symbolic, applets, n_applets, stdout, err, sizeof(err))) {
		stk_error(NULL, "--install: %s", err);
		return STK_EXIT_USAGE;
	}
	return 0;
}

/* The process's arguments joined by spaces, as much as fits in len. */
static void join_command(int argc, char **argv, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < argc && used + 1 < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "", argv[i]);
}

/* a with its arguments (the process's from first on); command: the whole command line. */
static int run_applet(const struct stk_applet *a, int argc, char **argv, int first)
{
	char command[4096];
	struct stk_invocation inv = { .argc = argc - first, .argv = argv + first, .command = command };

	if (!a->main && !a->steps) {
		stk_error(a->name, "not implemented yet (%s); see 'stk --list'", a->summary);
		return STK_EXIT_USAGE;
	}
	join_command(argc, argv, command, sizeof(command));
	return stk_applet_run(a, &inv);
}

int main(int argc, char **argv)
{
	struct stk_applet applets[MAX_APPLETS];
	size_t n_applets = collect_applets(applets, MAX_APPLETS);
	const struct stk_applet *a = stk_applet_from_argv0(applets, n_applets, argv[0]);

	if (a)
		return run_applet(a, argc, argv, 0);
	if (argc < 2) {
		print_usage(stderr, applets, n_applets);
		return STK_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		print_usage(stdout, applets, n_applets);
		return 0;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
		print_version();
		return 0;
	}
	if (strcmp(cmd, "--list") == 0) {
		for (size_t i = 0; i < n_applets; i++)
			printf("%s\n", applets[i].name);
		return 0;
	}
	if (strcmp(cmd, "--install") == 0)
		return run_install(argc - 1, argv + 1, applets, n_applets);
	a = stk_applet_find(applets, n_applets, cmd);
	if (!a) {
		fprintf(stderr, "stk: unknown applet '%s'; applets:", cmd);
		for (size_t i = 0; i < n_applets; i++)
			fprintf(stderr, " %s", applets[i].name);
		fputc('\n', stderr);
		return STK_EXIT_USAGE;
	}
	/* The applet sees itself as argv[0], as if run through its link. */
	return run_applet(a, argc, argv, 1);
}
