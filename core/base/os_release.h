/*
 * The distribution's identity from os-release(5): /etc/os-release, else
 * /usr/lib/os-release. Used to find this kernel in the embedded BTF archive.
 */
#ifndef STK_OS_RELEASE_H
#define STK_OS_RELEASE_H

#include <stddef.h>

struct stk_os_release {
	char id[64];         /* ID, e.g. "debian"; "linux" when the file omits it (os-release(5)) */
	char version_id[64]; /* VERSION_ID unquoted, "" when absent (Debian sid, Arch...) */
	char path[4096];     /* the file read, "" when neither exists */
};

/* Parses one os-release text. Values may be "double", 'single' quoted or bare. */
void stk_os_release_parse(const char *text, struct stk_os_release *os);
/* Reads sysroot/etc/os-release or sysroot/usr/lib/os-release. 0, or -1 when neither is readable. */
int stk_os_release_read(const char *sysroot, struct stk_os_release *os);

#endif
