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

/* Each test file exports a table terminated by { NULL, NULL }. */
extern const struct test_case caps_tests[];
extern const struct test_case kernel_release_tests[];
extern const struct test_case btf_source_tests[];
extern const struct test_case proc_maps_tests[];
extern const struct test_case dispatch_tests[];
extern const struct test_case install_tests[];
extern const struct test_case mechanism_tests[];

/* A scratch directory under $TMPDIR, removed by the caller with remove_tree(). */
int make_scratch_dir(char *buf, size_t len);
void remove_tree(const char *path);

#endif
