/*
 * timeutil.c - clocks and ISO 8601 UTC timestamps
 */
#include "timeutil.h"

#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

double timeutil_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double timeutil_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void timeutil_iso(double t, char buf[TIMEUTIL_ISO_LEN])
{
	long long ms = llround(t * 1000.0);
	time_t secs = (time_t)(ms / 1000);
	struct tm tm;
	size_t n;

	gmtime_r(&secs, &tm);
	n = strftime(buf, TIMEUTIL_ISO_LEN, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, TIMEUTIL_ISO_LEN - n, ".%03lldZ", ms % 1000);
}

int timeutil_parse_iso(const char *s, double *t)
{
	struct tm tm;
	int y, mo, d, h, mi, sec, ms, n = 0;
	time_t secs;

	if (strlen(s) != 24 ||
	    sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ%n", &y, &mo, &d, &h, &mi,
		   &sec, &ms, &n) != 7 ||
	    n != 24)
		return DEHBQ_EINVAL;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
	    sec > 60 || y < 1970 || ms < 0 || h < 0 || mi < 0 || sec < 0)
		return DEHBQ_EINVAL;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	secs = timegm(&tm);
	if (secs == (time_t)-1)
		return DEHBQ_EINVAL;
	*t = (double)secs + ms / 1000.0;
	return DEHBQ_OK;
}

int timeutil_mtime(const char *path, double *mtime)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return errno == ENOENT ? DEHBQ_ENOENT : DEHBQ_ESYS;
	*mtime = (double)st.st_mtim.tv_sec + (double)st.st_mtim.tv_nsec / 1e9;
	return DEHBQ_OK;
}

int timeutil_fs_now(const char *probe, double *now)
{
	int fd = open(probe, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);

	if (fd < 0)
		return DEHBQ_ESYS;
	close(fd);
	if (utimes(probe, NULL) < 0)
		return DEHBQ_ESYS;
	return timeutil_mtime(probe, now) ? DEHBQ_ESYS : DEHBQ_OK;
}

void timeutil_sleep(double s, const volatile int *stop)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		if (stop && *stop)
			return;
}
