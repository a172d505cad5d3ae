/*
 * timeutil.c - clocks and ISO 8601 UTC timestamps
 */
#include "timeutil.h"

#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

double timeutil_secs(const struct timespec *ts)
{
	return (double)ts->tv_sec + (double)ts->tv_nsec / 1e9;
}

double timeutil_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return timeutil_secs(&ts);
}

double timeutil_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return timeutil_secs(&ts);
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

/* n decimal digits at s; -1 if any is not a digit. */
static int dec(const char *s, int n)
{
	int v = 0, i;

	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian; H. Hinnant). */
static int64_t days_from_civil(int y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

int timeutil_parse_iso(const char *s, double *t)
{
	static const char mdays[] = {31, 29, 31, 30, 31, 30,
				     31, 31, 30, 31, 30, 31};
	int y, mo, d, h, mi, sec, ms;

	/* exactly YYYY-MM-DDTHH:MM:SS.mmmZ, as timeutil_iso() writes */
	if (strlen(s) != 24 || s[4] != '-' || s[7] != '-' || s[10] != 'T' ||
	    s[13] != ':' || s[16] != ':' || s[19] != '.' || s[23] != 'Z')
		return DEHBQ_EINVAL;
	y = dec(s, 4);
	mo = dec(s + 5, 2);
	d = dec(s + 8, 2);
	h = dec(s + 11, 2);
	mi = dec(s + 14, 2);
	sec = dec(s + 17, 2);
	ms = dec(s + 20, 3);
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
	    h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 60 ||
	    ms < 0)
		return DEHBQ_EINVAL;
	*t = (double)(days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 +
		      sec) +
	     ms / 1000.0;
	return DEHBQ_OK;
}

int timeutil_mtime(const char *path, double *mtime)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return errno == ENOENT ? DEHBQ_ENOENT : DEHBQ_ESYS;
	*mtime = timeutil_secs(&st.st_mtim);
	return DEHBQ_OK;
}

int timeutil_fs_now(const char *probe, double *now)
{
	struct stat st;

	/* touch (a symlink itself, never its target); create if missing */
	if (utimensat(AT_FDCWD, probe, NULL, AT_SYMLINK_NOFOLLOW) < 0) {
		int fd;

		if (errno != ENOENT)
			return DEHBQ_ESYS;
		fd = open(probe, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
			  0644);
		if (fd < 0)
			return DEHBQ_ESYS;
		close(fd);
		if (utimensat(AT_FDCWD, probe, NULL, AT_SYMLINK_NOFOLLOW) < 0)
			return DEHBQ_ESYS;
	}
	if (lstat(probe, &st) < 0)
		return DEHBQ_ESYS;
	*now = timeutil_secs(&st.st_mtim);
	return DEHBQ_OK;
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
