#include "core/base/kernel_release.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

int stk_kernel_version_parse(const char *release, struct stk_kernel_version *v)
{
	int n;

	v->major = v->minor = v->patch = 0;
	n = sscanf(release, "%d.%d.%d", &v->major, &v->minor, &v->patch);
	return n >= 2 ? 0 : -1;
}

int stk_kernel_version_cmp(const struct stk_kernel_version *v, int major, int minor)
{
	if (v->major != major)
		return v->major < major ? -1 : 1;
	if (v->minor != minor)
		return v->minor < minor ? -1 : 1;
	return 0;
}

int stk_kernel_release(char *buf, size_t len)
{
	struct utsname u;

	if (uname(&u))
		return -1;
	snprintf(buf, len, "%s", u.release);
	return 0;
}
