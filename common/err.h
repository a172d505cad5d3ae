/*
 * err.h - dehbq error codes and their text
 *
 * Every function in common/ (and the engine) returns an int: DEHBQ_OK (0)
 * on success, otherwise one of enum dehbq_err.  Codes are only ever
 * appended; existing values never change, so they may be logged and
 * compared across versions.
 *
 * DEHBQ_ESYS means "a system call failed, errno says which"; callers that
 * clean up after a failure save and restore errno around the cleanup.
 * Functions that parse outside input also take a char err[DEHBQ_ERRLEN]
 * buffer and write a one-line, human-readable message into it.
 *
 * Expected outcomes are not failures: a lost claim race is DEHBQ_ELOST
 * and is never logged as an error.
 */
#ifndef DEHBQ_ERR_H
#define DEHBQ_ERR_H

#include <stdarg.h>
#include <stddef.h>

#define DEHBQ_ERRLEN 512 /* size of every err[] message buffer */

enum dehbq_err {
	DEHBQ_OK = 0,  /* success */
	DEHBQ_ESYS,    /* a system call failed; see errno */
	DEHBQ_ENOMEM,  /* out of memory */
	DEHBQ_EINVAL,  /* invalid input; err[] holds the message */
	DEHBQ_ETOOBIG, /* input exceeds a size or count limit */
	DEHBQ_ELOST,   /* lost a race to another process (not an error) */
	DEHBQ_ENOENT,  /* the thing asked for does not exist */
	DEHBQ_EAGAIN,  /* nothing can be done now; try again later */
	DEHBQ_EDONE,   /* the study's termination criterion is reached */
	DEHBQ_ESTATE,  /* the call is not valid in the current state */
	DEHBQ_EFENCED, /* a newer orchestrator epoch exists; stop writing */
	DEHBQ_EUNSUP,  /* valid input that this version does not support */
	DEHBQ_EEXIST,  /* the name to create is taken */
	DEHBQ_ERR_MAX  /* one past the last code; keep last */
};

/* Text for an error code; never NULL, static storage. */
const char *dehbq_strerror(int code);

/*
 * Format a message into err (DEHBQ_ERRLEN bytes), truncating safely.
 * Returns `code` so parsers can write `return dehbq_errf(err, DEHBQ_EINVAL,
 * "...")`.  err may be NULL, in which case nothing is written.
 */
int dehbq_errf(char *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int dehbq_verrf(char *err, int code, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

#endif
