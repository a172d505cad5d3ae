/*
 * sched_impl.h - the scheduler's private state, shared by its files
 *
 * The scheduler (sched.h) is one module in several files, one job each:
 *   sched.c            open, the batch, asking, snapshots, finishing
 *   sched_trial.c      the in-flight table, trial files, quarantine
 *   sched_match.c      matching a file to its trial (protocol.md 6.1)
 *   sched_ingest.c     results: tell, duplicates, failures in a row
 *   sched_claims.c     claims, heartbeats and expiry; pending/; workers/
 *   sched_requests.c   requests from the dehbq command (stop, requeue)
 *   sched_reconcile.c  the directory against the snapshot, at start
 *   sched_status.c     status.json, FINISHED and the progress line
 * Every change to the study directory that must wait for the snapshot
 * goes through s->redo (redo.h).
 *
 * Ownership: as sched.h; struct sched owns the engine, the in-flight
 * table, the redo list and the scratch buffers.
 */
#ifndef DEHBQ_SCHED_IMPL_H
#define DEHBQ_SCHED_IMPL_H

#include "history.h"
#include "redo.h"
#include "sched.h"
#include "snapshot.h"
#include "transfer.h"
#include "optim.h"

#include <stddef.h>
#include <stdint.h>

struct optim;
struct result;
struct space_value;
struct trial;

struct inflight {
	uint64_t id;	      /* trial id */
	int attempt;	      /* attempt of its newest trial file */
	uint64_t token;	      /* drawn when it was issued (id.h) */
	int seen;	      /* found in staging/pending/claimed by the last
				 full batch */
	double missing_since; /* fs time it was first missing; 0 = present */
	int unstaged;	      /* its trial file could not be written yet */
	double pmt;	      /* its progress file's mtime, size and inode */
	int64_t psize;	      /* when last read (sched_progress.c); 0: */
	uint64_t pino;	      /* never */
	int capped;	      /* OPTIM_MAX_REPORTS told: logged once */
};

struct sched {
	const char *root;	   /* study directory, borrowed */
	struct spec *spec;	   /* borrowed */
	struct lease *lease;	   /* borrowed */
	struct logmsg *lg;	   /* borrowed */
	struct sched_opts opts;	   /* options */
	struct optim *eng;	   /* owned optimiser */
	int *choices;		   /* per parameter, optim_setup's */
	struct transfer tr;	   /* state/transfer.jsonl (ntasks 0: none) */
	struct prior_tasks trv;	   /* tr as optim/ takes it */
	struct history hist;	   /* the optimiser's history file */
	struct snapshot_meta meta; /* snapshot header and counters */
	struct inflight *inf;	   /* in-flight table, sorted by id */
	size_t ninf, capinf;	   /* its length and capacity */
	struct redo redo;	   /* changes waiting for the snapshot */
	int dirty;		   /* engine or table changed since snapshot */
	double fs_now;		   /* filesystem clock this batch */
	double mono_start;	   /* monotonic time at open */
	double elapsed_base;	   /* elapsed time loaded from the snapshot */
	int live_workers;	   /* registry files with a fresh heartbeat */
	int nclaimed;		   /* claims of in-flight trials */
	int npending;		   /* pending or staged in-flight trials */
	double last_progress;	  /* monotonic time of the last progress line */
	double last_status;	  /* monotonic time status.json was written */
	double *vec;		  /* scratch vector, dim entries */
	struct space_value *vals; /* scratch config, dim entries */
	unsigned flags;		  /* atomicfile flags for moves */
	unsigned shard_made;	  /* 1 + the archive shard last made, or 0 */
	int nsnaps;		  /* snapshots this process wrote */
	int fail_run;		  /* told results that failed in a row */
	char held[384];		  /* why no new trial is issued, or "" */
	double next_live;	  /* monotonic time progress/ is due */
	int stops_restored;	  /* stop files checked since the load */
};

/* How a trial file stands against the in-flight trial of its id. */
enum sched_fit {
	SCHED_FIT_CURRENT, /* its current attempt, as issued */
	SCHED_FIT_OLDER,   /* an older attempt of it, as issued */
	SCHED_FIT_NONE,	   /* not this issued trial */
};

/* dtype: the entry's d_type from readdir(), DT_UNKNOWN if not known */
typedef int (*sched_scan_fn)(struct sched *s, const char *name,
			     unsigned char dtype);

/* ---- sched.c ---- */
double sched_elapsed(const struct sched *s);
/* Call fn for each visible entry of root/dir (at most cap); dotfiles of
 * crashed atomic writes older than an hour are removed on the way. */
int sched_scan_dir(struct sched *s, const char *dir, sched_scan_fn fn, int cap);

/* ---- sched_trial.c ---- */
struct inflight *sched_inf_find(struct sched *s, uint64_t id);
int sched_inf_add(struct sched *s, uint64_t id, int attempt, uint64_t token);
void sched_inf_remove(struct sched *s, uint64_t id);
/* root/archive/SSSS/name of trial id */
int sched_archive_path(const struct sched *s, char *buf, size_t size,
		       uint64_t id, const char *name);
/* mkdir the archive shard of id (the last one made is remembered) */
int sched_ensure_shard(struct sched *s, uint64_t id);
/* Move dir/name (or the file at from) into quarantine/, with a reason
 * file and one log line; at once: quarantine is not optimiser state. */
void sched_quarantine(struct sched *s, const char *dir, const char *name,
		      const char *why);
void sched_quarantine_from(struct sched *s, const char *from, const char *dir,
			   const char *name, const char *why);
/* In-flight trial id as a trial file of this attempt (malloc'ed text);
 * *rung gets its rung. */
int sched_render_trial(struct sched *s, uint64_t id, int attempt, char **text,
		       int *rung);
/* Write staging/ID.json and queue its publication. */
int sched_stage_trial(struct sched *s, uint64_t id, int attempt);
/* Queue the move of dir/name to the archive as a stale copy. */
int sched_retire_stale(struct sched *s, const char *dir, const char *name,
		       uint64_t id);

/* ---- sched_progress.c ---- */
/* progress/ and stop/: intermediate results told, stop files queued,
 * told trials' files archived. */
int sched_scan_progress(struct sched *s);
/* Before trial id is told: the points of its attempt's progress file
 * (progress/name, the result's own name) not yet told. */
int sched_progress_flush(struct sched *s, uint64_t id, const char *name);

/* ---- sched_match.c ---- */
/* trial_load() of path: DEHBQ_OK; DEHBQ_ENOENT (gone); DEHBQ_EINVAL (bad
 * file, err says why); DEHBQ_ESYS (storage, errno) or DEHBQ_ENOMEM. */
int sched_load_trial(struct sched *s, const char *path, struct trial *t,
		     char *err);
/* The token of told trial id's archived trial file (as above). */
int sched_told_token(struct sched *s, uint64_t id, uint64_t *tok);
/* Why t is not in-flight trial e as issued (with this attempt, or 0 for
 * any attempt issued so far), or NULL when it is. */
const char *sched_not_issued(struct sched *s, const struct inflight *e,
			     const struct trial *t, int attempt, char *why,
			     size_t n);
enum sched_fit sched_fit(struct sched *s, const struct inflight *e,
			 const struct trial *t, char *why, size_t n);
/* 1 (and why) when trial id was never issued by the current state. */
int sched_never_issued(const struct sched *s, uint64_t id, char *why, size_t n);
/* A file of pending/ or claimed/ whose trial is not in flight: archived as
 * stale when it is a copy of the told trial's file, else quarantined. */
int sched_retire_stray(struct sched *s, const char *dir, const char *name,
		       uint64_t id);

/* ---- sched_ingest.c ---- */
/* results/: every file (a full batch) or the first MAX of them. */
int sched_scan_results(struct sched *s);
/* A told result: counts failures in a row, holds the study at the limit. */
void sched_count_failure(struct sched *s, uint64_t id, const struct result *r);
/*
 * Tell the optimiser job id's result (NULL: failed without one).  In a
 * multi-objective study a result lacking a declared objective is told as
 * failed, with a log line naming it.
 */
int sched_tell(struct sched *s, uint64_t id, const struct result *r);
/* A requeue request ends a hold. */
void sched_release_hold(struct sched *s, const char *why);

/* ---- sched_claims.c ---- */
int sched_scan_claim(struct sched *s, const char *name, unsigned char dtype);
int sched_scan_pending(struct sched *s, const char *name, unsigned char dtype);
int sched_scan_worker(struct sched *s, const char *name, unsigned char dtype);
/* Stage again what could not be staged; after a full batch, republish an
 * in-flight trial whose file is nowhere to be found for `lease`. */
int sched_check_missing(struct sched *s, int full);

/* ---- sched_requests.c ---- */
int sched_scan_request(struct sched *s, const char *name, unsigned char dtype);

/* ---- sched_reconcile.c ---- */
/* After a fallback past a lost snapshot: tell the trials in flight whose
 * result the lost one archived, and quarantine the lost issues' files. */
int sched_retell(struct sched *s);
/* After loading the snapshot and its redo list: match staging/, pending/
 * and claimed/ to it. */
int sched_reconcile(struct sched *s, char *err);
/* 1 when archive/ holds a file (an empty shard is not history). */
int sched_archive_has_files(const char *path, int depth);

/* ---- sched_status.c ---- */
/* status.json (full: always; else at most every 0.1 s) and the progress
 * line every opts.progress_secs. */
void sched_write_status(struct sched *s, int full);
/* FINISHED ("dehbq-finished/1", statusfile.h), with the reason. */
int sched_write_finished(struct sched *s, const char *reason, unsigned flags);

#endif
