/* Parsing /proc/PID/maps: which file, and where in it, an address lives. */
#ifndef STK_PROC_MAPS_H
#define STK_PROC_MAPS_H

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * One line of /proc/PID/maps as the kernel prints it (permissions, device,
 * inode, the path's text): what is read, not what is kept. The process
 * table turns the executable ones into struct stk_mapping
 * (core/unwind/mapping.h), the one mapping type its readers share.
 */
struct stk_map_entry {
	uint64_t start, end, offset;
	uint64_t inode;
	unsigned int dev_major, dev_minor;
	char perms[5];
	char path[4096]; /* "" for anonymous mappings */
};

/* Parses one maps line. 0 on success, -1 on malformed input. */
int stk_maps_parse_line(const char *line, struct stk_map_entry *e);
/*
 * Finds the mapping of pid (0: self) holding addr and returns the file
 * offset that corresponds to it, as uprobes want. 0 on success.
 */
int stk_maps_file_offset(pid_t pid, uint64_t addr, struct stk_map_entry *e, uint64_t *file_offset);

#endif
