#include "core/sym/proc_maps.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int stk_maps_parse_line(const char *line, struct stk_map_entry *e)
{
	int path_at = 0;

	memset(e, 0, sizeof(*e));
	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64 " %n",
		   &e->start, &e->end, e->perms, &e->offset, &e->dev_major, &e->dev_minor,
		   &e->inode, &path_at) < 7)
		return -1;
	if (e->end < e->start)
		return -1;
	if (path_at > 0) {
		snprintf(e->path, sizeof(e->path), "%s", line + path_at);
		size_t n = strlen(e->path);
		while (n && (e->path[n - 1] == '\n' || e->path[n - 1] == ' '))
			e->path[--n] = '\0';
	}
	return 0;
}

int stk_maps_file_offset(pid_t pid, uint64_t addr, struct stk_map_entry *e, uint64_t *file_offset)
{
	char path[64], line[4300];
	FILE *f;
	int ret = -1;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/maps");
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (stk_maps_parse_line(line, e))
			continue;
		if (addr >= e->start && addr < e->end) {
			*file_offset = addr - e->start + e->offset;
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}
