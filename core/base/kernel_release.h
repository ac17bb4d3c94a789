/* The running kernel's release string and its numeric version. */
#ifndef STK_KERNEL_RELEASE_H
#define STK_KERNEL_RELEASE_H

#include <stddef.h>

struct stk_kernel_version {
	int major, minor, patch;
};

/* Parses "6.18.44-fc-v657", "5.10.0-30-cloud-amd64", "4.14". 0 on success. */
int stk_kernel_version_parse(const char *release, struct stk_kernel_version *v);
/* Compares as a version number: <0, 0, >0. */
int stk_kernel_version_cmp(const struct stk_kernel_version *v, int major, int minor);
/* uname -r into buf. 0 on success. */
int stk_kernel_release(char *buf, size_t len);

#endif
