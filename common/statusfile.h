/*
 * statusfile.h - the orchestrator's summary: state/status.json
 * ("dehbq-status/1", rewritten every batch) and FINISHED
 * ("dehbq-finished/1", written once at the end), docs/protocol.md 4.5
 *
 * One writer (orchestrator/sched_status.c) and every reader (dehbq status,
 * tests) go through this module, so the format has one owner.  Readers are
 * lenient about what is missing (a field absent reads as its zero value)
 * and strict about what is there: a field of the wrong type is refused
 * with its name.
 *
 * Ownership: struct statusfile owns its two configs and the optimiser
 * object (cJSON trees); statusfile_release() frees them.
 * statusfile_render() returns malloc'ed text.
 */
#ifndef DEHBQ_STATUSFILE_H
#define DEHBQ_STATUSFILE_H

#include <stddef.h>
#include <stdint.h>

#include "id.h"
#include "timeutil.h"

struct cJSON;

#define STATUSFILE_FORMAT   "dehbq-status/1"
#define STATUSFILE_FINISHED "dehbq-finished/1"
#define STATUSFILE_CAP	    (16u << 20)

struct statusfile_counts {
	int64_t issued, done, failed, inflight; /* the optimiser's books */
	int64_t pending, claimed; /* files in pending/, claimed/ */
	int64_t quarantined, duplicates, requeues, expired;
	int64_t brackets;  /* brackets opened, 0 if none */
	int64_t forbidden; /* proposals refused as forbidden, never run */
	double total_cost; /* sum of told costs */
};

/* The study's limits now: study.json's termination, as dehbq extend has
 * raised it (0 = none). */
struct statusfile_limits {
	int valid; /* 0: not in the file (an orchestrator before extend) */
	int64_t fevals, brackets;
	double walltime, total_cost;
};

struct statusfile_best {
	int valid;		  /* 0: none yet ("null" in the file) */
	double loss;		  /* its loss */
	double fidelity;	  /* the fidelity it was measured at */
	char trial[ID_TRIAL_LEN]; /* the trial that produced it */
	struct cJSON *config;	  /* its configuration (an object), owned;
				     NULL when unknown */
};

struct statusfile {
	int finished;			 /* 1: FINISHED's format */
	char study[ID_STUDY_LEN];	 /* study id */
	char reason[512];		 /* why it stopped or finished; "" */
	char held[512];			 /* why no new trials are issued; "" */
	char updated[TIMEUTIL_ISO_LEN];	 /* when it was written */
	int64_t epoch;			 /* the writer's fencing epoch */
	char host[ID_HOST_LEN];		 /* the writer's host */
	int64_t pid;			 /* and pid */
	double elapsed;			 /* seconds of orchestrator time */
	int stopping;			 /* a stop request was accepted */
	int exhausted;			 /* the budget is reached */
	struct statusfile_counts counts; /* see above */
	struct statusfile_limits limits; /* see above */
	int64_t live_workers;		 /* workers with a fresh heartbeat */
	struct statusfile_best best_max; /* best at the maximum fidelity */
	struct statusfile_best best_any; /* best at any fidelity */
	struct cJSON *optimizer;	 /* the optimiser's own figures
					    (optim_describe), owned; NULL */
};

/* Zero s (every field empty, nothing owned). */
void statusfile_init(struct statusfile *s);
void statusfile_release(struct statusfile *s);

/* Pretty JSON with a trailing newline. */
int statusfile_render(const struct statusfile *s, char **out);

/* DEHBQ_EINVAL with err naming the file and field. */
int statusfile_parse(const char *name, const char *text, size_t len,
		     struct statusfile *s, char *err);
int statusfile_load(const char *path, struct statusfile *s, char *err);

#endif
