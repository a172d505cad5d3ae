/*
 * spec.h - the study spec, "dehbq-study/1" (docs/protocol.md)
 *
 * A user writes a spec (or `dehbq init` builds one from options); init
 * validates it, embeds the search space, fills in every default, adds the
 * study id and creation time, and writes STUDY/study.json.  That file is
 * never rewritten afterwards: the orchestrator and every worker read it.
 *
 * The optimiser's own settings are kept unread (common/ does not know any
 * optimiser): optim_settings() validates them and fills in their defaults
 * at init, and the orchestrator hands them to optim_open().
 *
 * Ownership: spec_load()/spec_parse() fill a struct spec that owns its
 * space and optimizer settings; spec_release() frees them.  spec_render()
 * returns malloc'ed text.
 */
#ifndef DEHBQ_SPEC_H
#define DEHBQ_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "id.h"
#include "objectives.h"

struct cJSON;
struct space;

#define SPEC_FORMAT	    "dehbq-study/1"
#define SPEC_CAP	    (8u << 20)
#define SPEC_NAME_MAX	    128
#define SPEC_OPTIMIZER_MAX  32
#define SPEC_MAX_LEVELS	    64
#define SPEC_BATCH_INTERVAL 0.05 /* default runtime.batch_interval */
#define SPEC_STOP_GRACE	    10.0 /* default runtime.stop_grace */
/* Ranges the file parser and spec_check share (dehbq init's options). */
#define SPEC_ETA_MIN	    1.0001
#define SPEC_ETA_MAX	    1e6
#define SPEC_BRACKETS_MAX   10000000
#define SPEC_WALLTIME_MAX   1e9
#define SPEC_LEASE_MIN	    1
#define SPEC_LEASE_MAX	    (86400 * 7)
#define SPEC_POLL_MIN	    0.01
#define SPEC_POLL_MAX	    3600
#define SPEC_ATTEMPTS_MAX   1000
#define SPEC_FAILURES_MAX   1000000

struct spec {
	char study[ID_STUDY_LEN]; /* uuid; "" until init assigns one */
	char name[SPEC_NAME_MAX]; /* free-form label */
	double created;		  /* unix time of init; 0 until then */
	struct space *space;	  /* owned */
	double min_fidelity;	  /* > 0 */
	double max_fidelity;	  /* >= min_fidelity (equal: a study of
				     one fidelity) */
	double eta;		  /* > 1 */
	char optimizer[SPEC_OPTIMIZER_MAX]; /* optimizer.name: [a-z0-9_]+ */
	int optimizer_named;		    /* the file named it (else the
					       default, which dehbq init may
					       choose: a study of one
					       fidelity) */
	struct cJSON *settings; /* the rest of "optimizer", owned; NULL when
				   it has nothing else */
	uint64_t seed;		/* 0 .. 2^53 */
	int64_t fevals;		/* termination; 0 = not used */
	int64_t brackets;	/* termination; 0 = not used */
	double walltime;	/* seconds; 0 = not used */
	double total_cost;	/* sum of costs; 0 = not used */
	double lease;		/* seconds without heartbeat before requeue */
	double poll;		/* orchestrator rescan period, seconds */
	double stop_grace;	/* seconds a trainer has to stop by itself
				   once the optimiser stopped its trial,
				   before SIGTERM */
	double batch_interval;	/* group commit: seconds between batches
				   woken by events while pending/ holds
				   work, capped at poll; 0 = none */
	int max_attempts;	/* attempts before a trial is failed */
	int max_failures_in_a_row; /* failed results in a row that hold
				      the study (no new trials); 0 = never */
	int prefetch;		   /* pending trials beyond idle workers */
	int prefetch_given;	   /* 1: runtime.prefetch was in the file */
	int max_inflight;	   /* cap on trials in flight; 0 = none */
	int drain;		   /* 1: finish in-flight trials at the end */
	struct objectives obj;	   /* n 0: one loss */
};

/* Defaults for every optional field (space NULL, no termination). */
void spec_defaults(struct spec *s);
void spec_release(struct spec *s);

/*
 * Parse a spec.  A "space" given as a string is a path, relative to the
 * directory of `name` (only allowed when allow_space_path is set, i.e. for
 * user files; study.json must embed it).  DEHBQ_EINVAL/EUNSUP + err.
 */
int spec_parse(const char *name, const char *text, size_t len,
	       int allow_space_path, struct spec *s, char *err);
int spec_load(const char *path, int allow_space_path, struct spec *s,
	      char *err);
/* Load STUDY/study.json, which must carry a study id. */
int spec_load_study(const char *root, struct spec *s, char *err);

/* Cross-field checks (level count, ranges); err names the field.
 * spec_parse() calls it; init calls it again after options. */
int spec_check(const struct spec *s, const char *name, char *err);
/* A limit in "termination", unless the optimizer ends by itself (a
 * population trained in segments: the caller knows, from optim_caps):
 * DEHBQ_EINVAL naming the field.  dehbq init and the orchestrator call
 * it; the other readers of a study need no limit. */
int spec_check_limits(const struct spec *s, int ends_itself, const char *name,
		      char *err);
/* Fidelity levels as the engine counts them; rungs are 0 .. levels - 1.
 * More than SPEC_MAX_LEVELS only for a spec spec_check refuses. */
int spec_levels(const struct spec *s);

/* Full study.json text (all fields, space embedded), trailing newline. */
int spec_render(const struct spec *s, char **out);

/* Replace s->settings with a copy of obj (NULL: none). */
int spec_set_settings(struct spec *s, const struct cJSON *obj);

#endif
