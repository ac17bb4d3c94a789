#include "core/bpf/btf_embedded.h"

#include <sys/utsname.h>

#include "core/btf/btf_archive.h"
#include "core/btf/btf_source.h"

/* Defined by the generated build/gen/btf_archive.S (.incbin of the archive). */
extern const unsigned char stk_btf_archive_start[], stk_btf_archive_end[];

const void *stk_btf_embedded_archive(size_t *size)
{
	*size = (size_t)(stk_btf_archive_end - stk_btf_archive_start);
	return stk_btf_archive_start;
}

unsigned stk_btf_embedded_count(void)
{
	struct stk_btf_archive a;
	size_t size;
	const void *p = stk_btf_embedded_archive(&size);
	char err[128];

	return stk_btf_archive_parse(p, size, &a, err, sizeof(err)) ? 0 : a.count;
}

int stk_btf_resolve_here(const char *explicit_file, struct stk_btf_source *src)
{
	struct utsname uts;

	uname(&uts);
	struct stk_btf_env env = { .release = uts.release, .machine = uts.machine, .sysroot = "" };
	env.archive = stk_btf_embedded_archive(&env.archive_size);
	return stk_btf_resolve(explicit_file, &env, src);
}
