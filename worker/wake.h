/*
 * wake.h - what wakes an idle worker: signals (SIGTERM, SIGINT and
 * SIGCHLD, through a self-pipe) and inotify events, on the study root
 * (FINISHED) and on pending/ (new trials, whose names become hints)
 *
 * The only globals of dehbq-worker live here: the stop flag and the
 * self-pipe's write end, which the signal handler needs.
 *
 * Calling sequence:
 *   struct wake k;
 *   wake_init(&k);
 *   wake_signals(&k);          handlers installed; k.pipe_r is readable
 *                              on every signal
 *   wake_inotify(&k, root);    -1 (errno) when inotify is unavailable:
 *                              the worker polls
 *   wake_watch(&k, 1); ... list pending/ ...; wake_watch(&k, 0) once a
 *   trial is claimed; wake_wait(&k, secs, ...) while idle; k.hints holds
 *   the names announced since the last step
 *   wake_close(&k);
 *
 * Error handling: wake_signals() and wake_inotify() return 0 or -1 with
 * errno.  Nothing here prints.
 * Ownership: k owns the inotify descriptor and the hints (wake_close
 * releases them); the self-pipe lives until exit, since the handler may
 * write to it at any time.
 */
#ifndef DEHBQ_WAKE_H
#define DEHBQ_WAKE_H

#include <signal.h>

#include "claim.h"
#include "study.h"

/* SIGTERM or SIGINT once either was received, else 0. */
extern volatile sig_atomic_t wake_stop;

struct wake {
	int pipe_r;		      /* self-pipe read end, or -1 */
	int ino;		      /* inotify fd, or -1 */
	int ino_pending;	      /* its watch on pending/, or -1 */
	char pending[STUDY_PATH_MAX]; /* the study's pending/ */
	struct claim_list hints;      /* names announced by inotify */
};

void wake_init(struct wake *k);
int wake_signals(struct wake *k);
int wake_inotify(struct wake *k, const char *root);
/* Watch pending/ (on) or stop watching it and drop the hints (off). */
void wake_watch(struct wake *k, int on);
/*
 * Wait up to secs for an inotify event or a stop, calling tick(arg)
 * whenever the monotonic time *next_tick passes (tick moves it).  Returns
 * 1 when inotify woke it (read the hints), else 0.
 */
int wake_wait(struct wake *k, double secs, void (*tick)(void *arg), void *arg,
	      const double *next_tick);
void wake_close(struct wake *k);

#endif
