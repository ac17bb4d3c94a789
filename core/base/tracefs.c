#include "core/base/tracefs.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "core/base/sysfs_read.h"

#define TRACEFS_DIR "/sys/kernel/tracing"
/* libbpf prefers this path whenever it exists. */
#define DEBUGFS_TRACING_DIR "/sys/kernel/debug/tracing"
#define SECURITYFS_DIR "/sys/kernel/security"

/* Mounts fstype on dir inside a private mount namespace of this process. */
static int private_mount(const char *fstype, const char *dir, char *err, size_t errlen)
{
	if (unshare(CLONE_NEWNS)) {
		snprintf(err, errlen, "%s is not mounted and unshare(CLONE_NEWNS) failed: %s", fstype,
			 strerror(errno));
		return -1;
	}
	/* Keep our mount from propagating back to the host's namespace. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		snprintf(err, errlen, "making mounts private failed: %s", strerror(errno));
		return -1;
	}
	if (mount(fstype, dir, fstype, 0, NULL)) {
		snprintf(err, errlen, "mounting %s on %s failed: %s", fstype, dir, strerror(errno));
		return -1;
	}
	return 0;
}

int stk_tracefs_ensure(const char **how, char *err, size_t errlen)
{
	if (access(DEBUGFS_TRACING_DIR, F_OK) == 0) {
		*how = "debugfs";
		if (access(DEBUGFS_TRACING_DIR "/events", F_OK) == 0)
			return 0;
		snprintf(err, errlen, "%s exists but holds no events/", DEBUGFS_TRACING_DIR);
		return -1;
	}
	*how = "host";
	if (access(TRACEFS_DIR "/events", F_OK) == 0)
		return 0;
	*how = "private mount";
	return private_mount("tracefs", TRACEFS_DIR, err, errlen);
}

int stk_lockdown_mode(char *buf, size_t len)
{
	char text[128], err[256];
	char *open, *close;

	if (access(SECURITYFS_DIR "/lsm", F_OK) &&
	    private_mount("securityfs", SECURITYFS_DIR, err, sizeof(err)))
		return -1;
	if (stk_read_text(SECURITYFS_DIR "/lockdown", text, sizeof(text)))
		return -1;
	/* "none [integrity] confidentiality": the bracketed word is the mode. */
	open = strchr(text, '[');
	close = open ? strchr(open, ']') : NULL;
	if (!open || !close)
		return -1;
	snprintf(buf, len, "%.*s", (int)(close - open - 1), open + 1);
	return 0;
}

FILE *stk_tracefs_open(const char *name)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), TRACEFS_DIR "/%s", name);
	if ((f = fopen(path, "re")))
		return f;
	snprintf(path, sizeof(path), DEBUGFS_TRACING_DIR "/%s", name);
	return fopen(path, "re");
}
