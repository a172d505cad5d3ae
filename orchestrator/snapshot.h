/*
 * snapshot.h - orchestrator snapshots: optimiser state + in-flight table
 *
 * state/snapshot-EEEEEE-GGGGGGGGGG.json ("dehbq-snapshot/2") holds
 * everything needed to resume: the optimiser's complete state (optim_save:
 * its name, format version, books and the backend's own state), the
 * attempt number and token of every trial in flight, elapsed time and
 * counters.  A "dehbq-snapshot/1" (dehbq 0.3) is refused with a message,
 * never misread.
 *
 * Snapshots are written atomically (atomicfile, with fsync) under a new
 * name each time; the newest SNAPSHOT_KEEP are kept.  Loading takes the
 * newest (epoch, then generation) that parses and validates, and reports
 * the ones it had to skip.
 *
 * Ownership: snapshot_load() returns an optimiser, an in-flight array, the
 * history text it read (m->history_bytes long, NULL if none) and a redo
 * list, which the caller frees (optim_free, free, free, cJSON_Delete).
 */
#ifndef DEHBQ_SNAPSHOT_H
#define DEHBQ_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "history.h"
#include "id.h"

struct optim;
struct optim_setup;
struct cJSON;

#define SNAPSHOT_FORMAT "dehbq-snapshot/2"
#define SNAPSHOT_KEEP	3
#define SNAPSHOT_CAP	(256u << 20)

struct snapshot_inflight {
	uint64_t id;	/* trial id */
	int attempt;	/* current attempt */
	uint64_t token; /* its token (id.h); 0 in a snapshot from before
			   tokens, whose [id, attempt] pairs still load */
};

struct snapshot_meta {
	char study[ID_STUDY_LEN]; /* study uuid */
	int64_t epoch;		  /* writer's fencing epoch */
	int64_t generation;	  /* increases by one per snapshot */
	double elapsed;		  /* seconds of orchestrator running time */
	int stopping;		  /* a stop request was accepted */
	int64_t quarantined;	  /* files quarantined so far */
	int64_t duplicates;	  /* duplicate or late results archived */
	int64_t requeues;	  /* lease expiries requeued */
	int64_t expired;	  /* trials failed after max_attempts */
	char history[HISTORY_NAME_LEN]; /* the optimiser's history file in
					   state/ (history.h), "" if none */
	int64_t history_bytes;		/* its length at this snapshot */
};

/*
 * redo: the moves and writes that must follow this snapshot, as the text
 * of a compact JSON array (written by the scheduler, see sched.c; borrowed).
 * NULL means an empty list.  flags: atomicfile_write's (ATOMICFILE_NOSYNC
 * for benchmarks only).
 */
int snapshot_write(const char *root, const struct snapshot_meta *m,
		   const struct snapshot_inflight *inf, size_t n,
		   struct optim *eng, const char *redo, unsigned flags);

/*
 * Load the newest snapshot of this study that loads; setup is the
 * study's (optim_load).  skipped counts the newer ones passed over, and
 * warn names the first and why.
 *   - Torn (not JSON, not a regular file) or foreign (another study's):
 *     passed over, and moved to quarantine/state.NAME with a .reason file
 *     once an older snapshot has loaded (never the only state).
 *   - Gone since the listing, or its history missing or short: passed
 *     over, left in place.
 *   - Unreadable now (EIO, EMFILE, ESTALE on it or its history):
 *     DEHBQ_EAGAIN, warn says why; nothing is moved or passed over: an
 *     older snapshot would lose what this one holds, so try again later.
 *   - Refused by this dehbq (a value out of range, a state that does not
 *     fit): DEHBQ_EINVAL, with warn naming it and why; nothing is moved
 *     or passed over, so a dehbq that loads it resumes the study exactly.
 *   - Of an older dehbq's format: DEHBQ_EUNSUP, warn says why; left.
 * DEHBQ_ENOENT when none loads (skipped > 0) or there is none at all
 * (skipped 0); nothing was moved then.
 */
int snapshot_load(const char *root, const char *study,
		  const struct optim_setup *setup, struct snapshot_meta *m,
		  struct snapshot_inflight **inf, size_t *n, struct optim **eng,
		  char **history, struct cJSON **redo, int *skipped,
		  char *warn);

/*
 * The in-flight table of the snapshot snapshot_load() would load, for
 * readers (the CLI): nothing is moved or written.  *inf is the caller's to
 * free.  DEHBQ_ENOENT when no snapshot loads.
 */
int snapshot_read_inflight(const char *root, const char *study,
			   struct snapshot_inflight **inf, size_t *n);

/* Keep the newest SNAPSHOT_KEEP snapshots; remove older ones. */
int snapshot_prune(const char *root);
/*
 * Once the kept snapshots are all of one epoch: the one snapshot that
 * generation of epoch pushes out, removed by name (no listing; ENOENT is
 * fine).
 */
void snapshot_prune_after(const char *root, int64_t epoch, int64_t generation);

#endif
