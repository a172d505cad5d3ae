/*
 * timeutil.h - wall and monotonic clocks, ISO 8601 UTC text
 *
 * Times in files are "2026-11-22T04:30:00.123Z" (UTC, milliseconds).  Ages
 * on shared storage are never computed from these or from the local clock:
 * they compare file mtimes with the mtime of a probe file just touched on
 * the same filesystem (timeutil_fs_now), i.e. server time against server
 * time, so clock skew between nodes does not matter.
 *
 * Ownership: callers provide buffers of TIMEUTIL_ISO_LEN bytes.
 */
#ifndef DEHBQ_TIMEUTIL_H
#define DEHBQ_TIMEUTIL_H

#include <time.h>

#define TIMEUTIL_ISO_LEN 32

/* A timespec (a clock, a file's st_mtim) as seconds. */
double timeutil_secs(const struct timespec *ts);

/* Seconds since the epoch, wall clock (may jump). */
double timeutil_now(void);
/* Seconds from an arbitrary origin, never jumps (CLOCK_MONOTONIC). */
double timeutil_mono(void);
/* Format t as ISO 8601 UTC with milliseconds. */
void timeutil_iso(double t, char buf[TIMEUTIL_ISO_LEN]);
/* Parse exactly the timeutil_iso() form; DEHBQ_OK or DEHBQ_EINVAL. */
int timeutil_parse_iso(const char *s, double *t);

/*
 * The filesystem's idea of "now": touch probe (utimensat(NULL), which NFS
 * turns into "set to server time"; created first if missing; a symlink is
 * touched itself, never its target) and read its mtime back.
 * DEHBQ_OK or DEHBQ_ESYS.
 */
int timeutil_fs_now(const char *probe, double *now);
/* A file's mtime as a double; DEHBQ_OK, DEHBQ_ENOENT or DEHBQ_ESYS. */
int timeutil_mtime(const char *path, double *mtime);
/* Sleep for s seconds (restarts after signals unless *stop becomes set). */
void timeutil_sleep(double s, const volatile int *stop);

#endif
