/*
 * logmsg.h - log records: levels, UTC timestamps, program[pid], to a fd
 *
 * One line per record:
 *   2026-05-01T12:00:00.123Z dehbq-orchestrator[4242] I trial=00000042 ...
 * Levels D/I/W/E; records below the logger's level are dropped.  Each
 * record is built in a buffer and written with a single write(2), so lines
 * from several processes sharing stderr do not interleave.
 *
 * The logger is a value owned by main.c and passed down explicitly (no
 * global).  Library code in common/ never logs; it returns codes.
 *
 * Ownership: struct logmsg borrows prog (must outlive the logger).
 */
#ifndef DEHBQ_LOGMSG_H
#define DEHBQ_LOGMSG_H

#include <stddef.h>

enum logmsg_level {
	LOGMSG_DEBUG = 0, /* D: details for developers */
	LOGMSG_INFO,	  /* I: one line per state change */
	LOGMSG_WARN,	  /* W: something is wrong but handled */
	LOGMSG_ERROR,	  /* E: an operation failed */
};

struct logmsg {
	const char *prog;      /* program name, borrowed */
	enum logmsg_level min; /* lowest level written */
	int fd;		       /* destination, normally 2 */
};

#define LOGMSG_LINE 2048 /* longest record; longer ones are truncated */

void logmsg_init(struct logmsg *lg, const char *prog);

/* Format one record (with its newline) into buf; returns its length. */
size_t logmsg_format(char *buf, size_t size, const char *prog, long pid,
		     enum logmsg_level level, double unix_time, const char *fmt,
		     ...) __attribute__((format(printf, 7, 8)));

void logmsg(const struct logmsg *lg, enum logmsg_level level, const char *fmt,
	    ...) __attribute__((format(printf, 3, 4)));

#define logmsg_d(lg, ...) logmsg((lg), LOGMSG_DEBUG, __VA_ARGS__)
#define logmsg_i(lg, ...) logmsg((lg), LOGMSG_INFO, __VA_ARGS__)
#define logmsg_w(lg, ...) logmsg((lg), LOGMSG_WARN, __VA_ARGS__)
#define logmsg_e(lg, ...) logmsg((lg), LOGMSG_ERROR, __VA_ARGS__)

#endif
