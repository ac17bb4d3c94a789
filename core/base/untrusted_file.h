/*
 * Opening files that someone other than root controls (JIT perf maps in
 * /tmp, debug files, binaries inside a container's root). stk runs as root:
 * such a file may be a FIFO (open would block), a device (/dev/zero never
 * ends), a symlink to a root-only file, or a link that resolves against the
 * host's root instead of the container's. Every such open goes through here.
 *
 * What every open guarantees: O_RDONLY|O_NONBLOCK|O_NOCTTY|O_CLOEXEC (a FIFO
 * cannot block the open), then fstat: regular files only. Paths under
 * "/proc/PID/root/" resolve inside that process's root and never leave it
 * (openat2 RESOLVE_IN_ROOT where the kernel has it, else a walk one component
 * at a time that resolves symlinks against that root itself).
 */
#ifndef STK_UNTRUSTED_FILE_H
#define STK_UNTRUSTED_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Symlinks followed per resolution (the kernel's own limit is 40). */
#define STK_UNTRUSTED_MAX_LINKS 40

struct stk_untrusted_rules {
	bool no_follow;    /* the last component must not be a symlink */
	bool check_owner;  /* owned by `owner`, or by root with a single link (no hard link planted) */
	uid_t owner;
	bool as_owner;     /* open with owner/group's filesystem credentials (their permissions) */
	gid_t group;
	uint64_t max_size; /* bigger files are refused; 0: no bound */
};

/*
 * Opens path under the rules above. "/proc/PID/root/REST" resolves REST
 * inside that root; any other path is a host path. An fd, or -errno:
 * -ELOOP (a symlink where none may be, or too many), -EINVAL (not a regular
 * file), -EPERM (wrong owner), -EFBIG (over max_size), or open's own errno.
 */
int stk_untrusted_open(const char *path, const struct stk_untrusted_rules *rules);
/* path resolved inside the directory root_fd as if it were "/". Same returns. */
int stk_untrusted_open_at_root(int root_fd, const char *path, const struct stk_untrusted_rules *rules);
/* The component walk alone (what kernels before 5.6 get); for tests. fd or -errno. */
int stk_untrusted_walk_in_root(int root_fd, const char *path, bool no_follow);
/* The rules' checks on an open fd. 0 or -errno as above. */
int stk_untrusted_check_fd(int fd, const struct stk_untrusted_rules *rules);
/* Short text for the -errno values above ("not a regular file", ...). */
const char *stk_untrusted_strerror(int neg_errno);

/*
 * Reads at most max bytes at offset into buf (short only at end of file).
 * Bytes read, or -errno.
 */
ssize_t stk_read_bounded(int fd, void *buf, size_t max, off_t offset);

#endif
