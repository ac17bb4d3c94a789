/* A minimal unit-test harness: each test gets a context that records failures. */
#ifndef STK_TEST_HARNESS_H
#define STK_TEST_HARNESS_H

#include <stdio.h>
#include <string.h>

struct test_ctx {
	const char *name;
	int failures;
};

struct test_case {
	const char *name;
	void (*fn)(struct test_ctx *t);
};

#define CHECK(t, cond)                                                                     \
	do {                                                                               \
		if (!(cond)) {                                                             \
			printf("  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
			(t)->failures++;                                                   \
		}                                                                          \
	} while (0)

#define CHECK_STR(t, got, want)                                                                   \
	do {                                                                                      \
		const char *got_ = (got), *want_ = (want);                                        \
		if (strcmp(got_, want_) != 0) {                                                   \
			printf("  %s:%d: got \"%s\", want \"%s\"\n", __FILE__, __LINE__, got_, want_); \
			(t)->failures++;                                                          \
		}                                                                                 \
	} while (0)

/*
 * Each test file exports "const struct test_case NAME_tests[] = {" (that
 * exact line shape: the Makefile collects the suites from it), terminated
 * by { NULL, NULL }.
 */

/* A scratch directory under $TMPDIR, removed by the caller with remove_tree(). */
int make_scratch_dir(char *buf, size_t len);
void remove_tree(const char *path);

#endif
