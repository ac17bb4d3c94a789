/*
 * Reaching a directory as root without being led by other users' links:
 * the path is walked one component at a time (O_PATH|O_NOFOLLOW), a
 * symbolic link is followed only where the rules allow it, and each
 * directory is checked as it is reached. The fd that comes back is the
 * directory that passed, whatever is renamed or swapped along the path
 * afterwards: use it (openat, renameat), never the path again.
 */
#ifndef STK_SAFE_DIR_H
#define STK_SAFE_DIR_H

#include <stdbool.h>
#include <stddef.h>

/* Symlinks followed per walk (the kernel's own limit). */
#define STK_SAFE_DIR_MAX_LINKS 40

struct stk_dir_rules {
	bool follow_own_links; /* follow symlinks owned by root or by us (euid); refuse any other */
	bool root_only;        /* every directory (the start too) owned by root and writable by no one
				  else, or sticky (/tmp: others' entries cannot replace root's) */
	bool create;           /* create missing components, mode 0700 */
};

/*
 * An O_PATH|O_DIRECTORY fd of path (absolute, or from the working
 * directory), or -errno: -ELOOP for a link the rules refuse (or too many),
 * -EPERM for a directory they refuse, else the walk's own errno. On
 * failure why says which component and what is wrong with it.
 */
int stk_dir_open(const char *path, const struct stk_dir_rules *rules, char *why, size_t len);
/* The same, a relative path starting from the directory dir_fd (AT_FDCWD: the working directory). */
int stk_dir_open_at(int dir_fd, const char *path, const struct stk_dir_rules *rules, char *why, size_t len);

#endif
