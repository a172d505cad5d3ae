/*
 * logmsg.c - one-write log records with UTC millisecond timestamps
 */
#include "logmsg.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "timeutil.h"

static const char level_char[] = "DIWE";

void logmsg_init(struct logmsg *lg, const char *prog)
{
	lg->prog = prog;
	lg->min = LOGMSG_INFO;
	lg->fd = 2;
}

static size_t vformat(char *buf, size_t size, const char *prog, long pid,
		      enum logmsg_level level, double t, const char *fmt,
		      va_list ap)
{
	long long total_ms = llround(t * 1000.0);
	time_t secs = (time_t)(total_ms / 1000);
	long ms = (long)(total_ms % 1000);
	struct tm tm;
	size_t n;
	int k;

	if (size < 2)
		return 0;
	gmtime_r(&secs, &tm);
	n = strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
	k = snprintf(buf + n, size - n, ".%03ldZ %s[%ld] %c ", ms, prog, pid,
		     level_char[level & 3]);
	n = k < 0 ? n : n + (size_t)k;
	if (n < size) {
		k = vsnprintf(buf + n, size - n, fmt, ap);
		n = k < 0 ? n : n + (size_t)k;
	}
	if (n > size - 2)
		n = size - 2;
	buf[n++] = '\n';
	buf[n] = 0;
	return n;
}

size_t logmsg_format(char *buf, size_t size, const char *prog, long pid,
		     enum logmsg_level level, double unix_time, const char *fmt,
		     ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	n = vformat(buf, size, prog, pid, level, unix_time, fmt, ap);
	va_end(ap);
	return n;
}

void logmsg(const struct logmsg *lg, enum logmsg_level level, const char *fmt,
	    ...)
{
	char buf[LOGMSG_LINE];
	va_list ap;
	size_t n;
	int e = errno;

	if (level < lg->min)
		return;
	va_start(ap, fmt);
	n = vformat(buf, sizeof(buf), lg->prog, (long)getpid(), level,
		    timeutil_now(), fmt, ap);
	va_end(ap);
	if (write(lg->fd, buf, n) < 0) {
		/* nowhere left to report it */
	}
	errno = e; /* callers may still want the errno they logged */
}
