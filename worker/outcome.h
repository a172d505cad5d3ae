/*
 * outcome.h - what an attempt came to: the trainer's report (the file
 * $DEHBQ_RESULT, or else the last non-blank line of stdout), checked
 * against the study's objectives, and the result's status from how the
 * trainer ended
 *
 * Status: killed at the timeout -> timeout; could not be executed ->
 * failed; killed by a signal -> crashed; non-zero exit, no report, an
 * invalid report or one that does not fit the study -> failed; else ok.
 * A result that is not ok carries the last RUN_TAIL_LINES lines of
 * stderr, control characters replaced.
 *
 * Error handling: outcome_report() returns DEHBQ_EINVAL with err naming
 * what is wrong and, for the common mistakes (a Python dict printed as it
 * is, a summary printed after the report), what to print instead.  Both
 * return DEHBQ_ENOMEM when out of memory.
 *
 * Ownership: the texts passed in are borrowed; *info and *objectives of
 * outcome_report() are malloc'ed for the caller; outcome_classify()
 * replaces r's strings, which r owns.
 */
#ifndef DEHBQ_OUTCOME_H
#define DEHBQ_OUTCOME_H

#include <stddef.h>

struct objectives;
struct result;

/*
 * Find and parse the trainer's report: the file report_path when it
 * exists (a regular file, at most RESULT_CAP bytes), else the last
 * non-blank line of out[len].  DEHBQ_OK with *loss (NaN when only
 * objectives were reported), *cost (< 0 when not reported), *info and
 * *objectives (malloc'ed; objectives NULL when none), or DEHBQ_EINVAL with
 * err.
 */
int outcome_report(const char *report_path, const char *out, size_t len,
		   double *loss, double *cost, char **info, char **objectives,
		   char *err);

/* How an attempt ended, and what it left. */
struct outcome_in {
	int status;		      /* wait status */
	int timed_out;		      /* killed at the timeout */
	int exec_errno;		      /* execvpe's errno, 0 if it ran */
	double timeout;		      /* --trial-timeout, for the message */
	const char *argv0;	      /* the command, for the message */
	const char *report_path;      /* $DEHBQ_RESULT */
	const struct objectives *obj; /* the study's; NULL or n 0: a loss */
	const char *out;	      /* the last bytes of stdout */
	size_t outlen;		      /* bytes at out */
	const char *errt;	      /* the last bytes of stderr */
	size_t errlen;		      /* bytes at errt */
	const char *gpus; /* the slot's devices, added to info as "gpus"
			     unless the trainer reported one; NULL: none */
};

/*
 * Fill r's status, exit_code, signal, cost (the report's, else r's
 * wall_time, which the caller set), loss, info (with the devices),
 * objectives, error and stderr_tail.  DEHBQ_OK or DEHBQ_ENOMEM.
 */
int outcome_classify(struct result *r, const struct outcome_in *in);

#endif
