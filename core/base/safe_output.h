/*
 * Writing output files as root into directories other users can write
 * (/tmp): never through a symlink someone planted, never into a file
 * someone else owns or linked there.
 */
#ifndef STK_SAFE_OUTPUT_H
#define STK_SAFE_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

/*
 * A new file for path, written in full and then put in place: an unnamed
 * temporary file (O_TMPFILE) in path's directory, or a named one
 * (O_CREAT|O_EXCL|O_NOFOLLOW) where the file system has no O_TMPFILE; mode
 * 0644 less the umask. Nothing appears at path until stk_safe_output_commit.
 * A symlink at path is replaced unless root or the caller owns it (then what
 * it names is); a device or FIFO of root's or the caller's (/dev/null,
 * /dev/stdout) is written directly. NULL with err set on failure.
 */
FILE *stk_safe_output_open(const char *path, char *err, size_t errlen);
/*
 * Flushes f and renames its file over path (or what a trusted link there
 * names; see above). Again after more output (interval reports): the file
 * is already in place. f stays open for the caller to fclose. 0, or -1 with err set.
 */
int stk_safe_output_commit(FILE *f, const char *path, char *err, size_t errlen);

/*
 * For files appended to across runs (threadstate's CSV): opens path for
 * appending, creating it with mode (less the umask), but only when it is
 * not a symlink, is a regular file, is ours (our effective uid) and has a
 * single link. An fd, or -1 with err set.
 */
int stk_open_append_own(const char *path, int mode, char *err, size_t errlen);

#endif
