#include "core/bpf/bpf_object.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "stk.skel.h"

static bool name_listed(const char *const *names, const char *name)
{
	for (; names && *names; names++)
		if (strcmp(*names, name) == 0)
			return true;
	return false;
}

/* Every requested name must exist in the object: a typo is a bug, not a fallback. */
static const char *first_unknown_name(struct bpf_object *obj, const char *const *programs, const char *const *maps)
{
	for (const char *const *p = programs; p && *p; p++)
		if (!bpf_object__find_program_by_name(obj, *p))
			return *p;
	for (const char *const *m = maps; m && *m; m++)
		if (!bpf_object__find_map_by_name(obj, *m))
			return *m;
	return NULL;
}

struct stk_bpf *stk_bpf_open_selected(const struct stk_bpf_selection *sel, char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .btf_custom_path = sel->btf_custom_path);
	struct stk_bpf *skel = stk_bpf__open_opts(&opts);
	struct bpf_program *prog;
	struct bpf_map *map;
	const char *unknown;

	if (!skel) {
		snprintf(err, errlen, "opening the BPF object failed: %s", strerror(errno));
		return NULL;
	}
	unknown = first_unknown_name(skel->obj, sel->programs, sel->maps);
	if (!unknown)
		unknown = first_unknown_name(skel->obj, sel->extra_programs, sel->extra_maps);
	if (unknown) {
		snprintf(err, errlen, "BPF object has no program or map named %s", unknown);
		stk_bpf__destroy(skel);
		return NULL;
	}
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, name_listed(sel->programs, bpf_program__name(prog)) ||
						      name_listed(sel->extra_programs, bpf_program__name(prog)));
	bpf_object__for_each_map(map, skel->obj)
		bpf_map__set_autocreate(map, name_listed(sel->maps, bpf_map__name(map)) ||
					     name_listed(sel->extra_maps, bpf_map__name(map)));
	return skel;
}

int stk_bpf_empty_btf(char *path, size_t len)
{
	struct btf *btf = btf__new_empty();
	const void *raw;
	__u32 size = 0;
	int fd = -1;

	if (!btf)
		return -1;
	raw = btf__raw_data(btf, &size);
	if (raw)
		fd = memfd_create("stk-empty-btf", MFD_CLOEXEC);
	if (fd >= 0 && write(fd, raw, size) != (ssize_t)size) {
		close(fd);
		fd = -1;
	}
	btf__free(btf);
	if (fd >= 0)
		snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

int stk_bpf_size_for_trial(struct stk_bpf *s)
{
	struct bpf_map *map;

	bpf_object__for_each_map(map, s->obj) {
		enum bpf_map_type t = bpf_map__type(map);

		if (!bpf_map__autocreate(map) || t == BPF_MAP_TYPE_PERF_EVENT_ARRAY || t == BPF_MAP_TYPE_PERCPU_ARRAY ||
		    t == BPF_MAP_TYPE_ARRAY)
			continue;
		if (bpf_map__set_max_entries(map, 1))
			return -1;
	}
	return 0;
}
