/*
 * sched.h - the orchestrator's batch: results -> engine -> new trials
 *
 * One batch (docs/protocol.md section 6): fence, scan results, scan
 * claims (expire stale ones), scan workers, ask the engine for new trials
 * into staging/, write a snapshot, then apply the deferred moves (archive
 * told results, publish staged trials).  Nothing leaves results/ and no
 * trial becomes public before a durable snapshot covers it.  After
 * runtime.max_failures_in_a_row failed results in a row the study is held:
 * batches go on, but ask for no new trial until a requeue request (the
 * count is the running process's, not the snapshot's).
 *
 * A light batch (full = 0) lists only results/ and pending/: no
 * heartbeat, no claim or registry listing (the last full batch's worker
 * count is kept; every in-flight trial not pending counts as claimed), no
 * requests, no search for missing files.  Its cost does not grow with the
 * number of workers.  The caller runs a full batch at least every `poll`
 * seconds and whenever something besides results/ and pending/ changed.
 *
 * Calling sequence:
 *   sched_open(&s, root, &spec, lease, lg, err)   load snapshot, reconcile
 *   loop: rc = sched_batch(s, full, err); ... sched_finished(s) ...
 *   sched_finish(s, reason)                        write FINISHED
 *   sched_close(s)
 *
 * Error handling: sched_batch returns DEHBQ_OK; DEHBQ_EFENCED (stop now,
 * write nothing); DEHBQ_ESYS (a storage error: the last snapshot is kept,
 * the batch's moves stay queued and are retried by the next call).
 *
 * Ownership: the scheduler borrows root, spec, lease and logger (they must
 * outlive it) and owns the engine.  Its files: sched_impl.h.
 */
#ifndef DEHBQ_SCHED_H
#define DEHBQ_SCHED_H

struct sched;
struct spec;
struct lease;
struct logmsg;

struct sched_opts {
	int nosync;	      /* skip fsyncs (benchmarks on tmpfs only) */
	double progress_secs; /* period of the progress log line */
};

int sched_open(struct sched **out, const char *root, struct spec *spec,
	       struct lease *lease, struct logmsg *lg,
	       const struct sched_opts *opts, char *err);
void sched_close(struct sched *s);

int sched_batch(struct sched *s, int full, char *err);
/* 1 when the study is complete (nothing more to do). */
int sched_finished(const struct sched *s);
/* Write FINISHED (atomically) with the summary. */
int sched_finish(struct sched *s, const char *reason);
/* Rewrite state/status.json saying why this orchestrator stopped (a
 * signal, --once): `dehbq status` shows it as stopped, not running. */
void sched_stopped(struct sched *s, const char *reason);
/* 1 when a stop request was accepted. */
int sched_stopping(const struct sched *s);
/* Trials in pending/ (or staged) after the last batch. */
int sched_pending(const struct sched *s);

#endif
