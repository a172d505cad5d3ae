/*
 * err.c - dehbq error codes and their text
 *
 * The table below is indexed by enum dehbq_err; append only.
 */
#include "err.h"

#include <stdio.h>

static const char *const err_text[DEHBQ_ERR_MAX] = {
	[DEHBQ_OK] = "success",
	[DEHBQ_ESYS] = "system call failed",
	[DEHBQ_ENOMEM] = "out of memory",
	[DEHBQ_EINVAL] = "invalid input",
	[DEHBQ_ETOOBIG] = "input too large",
	[DEHBQ_ELOST] = "lost a race to another process",
	[DEHBQ_ENOENT] = "not found",
	[DEHBQ_EAGAIN] = "nothing to do now, try again",
	[DEHBQ_EDONE] = "study budget exhausted",
	[DEHBQ_ESTATE] = "operation not valid in the current state",
	[DEHBQ_EFENCED] = "fenced off by a newer orchestrator",
	[DEHBQ_EUNSUP] = "not supported",
	[DEHBQ_EEXIST] = "already exists",
};

const char *dehbq_strerror(int code)
{
	if (code < 0 || code >= DEHBQ_ERR_MAX || !err_text[code])
		return "unknown error";
	return err_text[code];
}

int dehbq_verrf(char *err, int code, const char *fmt, va_list ap)
{
	if (err)
		vsnprintf(err, DEHBQ_ERRLEN, fmt, ap); /* truncation is fine */
	return code;
}

int dehbq_errf(char *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dehbq_verrf(err, code, fmt, ap);
	va_end(ap);
	return code;
}
