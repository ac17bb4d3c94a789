/*
 * Writing output files as root into directories other users can write
 * (/tmp): never through a symlink someone planted, never into a file
 * someone else owns or linked there, never readable by more users than
 * the file it replaces allowed.
 */
#ifndef STK_SAFE_OUTPUT_H
#define STK_SAFE_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

struct stk_output_file;

/*
 * A new file for path, written in full and then put in place: an unnamed
 * temporary file (O_TMPFILE) in path's directory, or a named one
 * (O_CREAT|O_EXCL|O_NOFOLLOW) where the file system has no O_TMPFILE.
 * Nothing appears at path until stk_safe_output_commit.
 * - The directory is reached one component at a time (core/base/safe_dir.h):
 *   a symlink on the way is followed only when root or the caller (our
 *   effective uid) owns it; another user's is refused.
 * - A symlink at path is replaced unless root or the caller owns it (then
 *   what it names is, reached the same way); a device or FIFO of root's or
 *   the caller's (/dev/null, /dev/stdout) is written directly.
 * - Mode: 0600 (less the umask) for a new file; a file of root's or the
 *   caller's that it replaces keeps its permission bits less write and
 *   execute for group and others (0640 stays 0640, 0666 becomes 0644);
 *   one of another user's gets 0600 (they chose that mode, not root).
 * NULL with err set ("PATH: why") on failure.
 */
struct stk_output_file *stk_safe_output_open(const char *path, char *err, size_t errlen);
/* Where the output is written. Owned by o. */
FILE *stk_safe_output_stream(const struct stk_output_file *o);
/*
 * Flushes the stream and renames its file over path (or what a trusted link
 * there names), in the directory found at open. Again after more output
 * (interval reports): the file is already in place. 0, or -1 with err set.
 */
int stk_safe_output_commit(struct stk_output_file *o, char *err, size_t errlen);
/* Closes o; a file never committed leaves nothing behind. NULL: nothing. */
void stk_safe_output_close(struct stk_output_file *o);

/*
 * For files appended to across runs (threadstate's CSV): opens path for
 * appending, creating it with mode (less the umask), but only when it is
 * not a symlink, is a regular file, is ours (our effective uid) and has a
 * single link. An fd, or -1 with err set.
 */
int stk_open_append_own(const char *path, int mode, char *err, size_t errlen);

#endif
