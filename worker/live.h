/*
 * live.h - a running attempt's intermediate results (docs/protocol.md
 * 4.6): the trainer's stdout cut into lines, its progress lines kept
 * (progress.h) and written to progress/IIIIIIII.aN.WID.json, and the
 * optimiser's stop file stop/IIIIIIII.json watched
 *
 * Calling sequence (run.c):
 *   live_open(&l, root, id, attempt, worker);
 *   while the trainer runs: live_feed(&l, bytes, n) for its stdout;
 *                           wake = live_tick(&l, now)
 *   live_flush(&l); ... l.stopped, progress_last(&l.pr) ...
 *   live_close(&l);
 * The file is rewritten at most every LIVE_INTERVAL seconds while new
 * points come, and once more by live_flush; the stop file is looked for
 * every LIVE_INTERVAL seconds once the trainer has reported, so an
 * attempt that never reports costs nothing.  A bad progress line is
 * ignored: `bad` counts them and `why` keeps the first one's reason, for
 * one log line (the trainer may print a million).
 *
 * Errors: a progress file that cannot be written is retried at the next
 * tick (the trainer runs on; `write_errno` keeps the last failure).
 * Ownership: a struct live owns its buffers; live_close frees them.
 */
#ifndef DEHBQ_LIVE_H
#define DEHBQ_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "progress.h"
#include "study.h"

#define LIVE_INTERVAL 0.5 /* seconds between writes and stop checks */

struct live {
	char path[STUDY_PATH_MAX]; /* progress/ID.aN.WID.json */
	char stop[STUDY_PATH_MAX]; /* stop/ID.json */
	struct progress pr;	   /* the points kept */
	char *line;		   /* the line being read */
	size_t len;		   /* its bytes so far */
	int skipping;		   /* a line over the cap: to its end */
	int dirty;		   /* points not yet written */
	double next_write;	   /* monotonic seconds */
	double next_check;
	int stopped;		/* the optimiser stopped the attempt's trial */
	int64_t bad;		/* progress lines ignored */
	char why[DEHBQ_ERRLEN]; /* the first one's reason */
	int write_errno;	/* the last failed write's errno, 0 */
};

/* Empty, for attempt attempt of trial id (8 digits) by worker. */
int live_open(struct live *l, const char *root, const char *id, int attempt,
	      const char *worker);
/* n bytes of the trainer's stdout. */
void live_feed(struct live *l, const char *buf, size_t n);
/* Write and check what is due at now (monotonic); the next time it wants
 * to run, or 0 for none. */
double live_tick(struct live *l, double now);
/* The trainer has ended: a last line without a newline, and the last
 * write. */
void live_flush(struct live *l);
void live_close(struct live *l);

#endif
