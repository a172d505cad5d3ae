/*
 * objectives.h - a study's declared objectives (docs/protocol.md §4.1,
 * "objectives" and "multiobjective"), and the reading of a result's
 * objectives against them
 *
 * A study has one loss unless its spec declares two or more objectives:
 *   "objectives": [{"name": "error"},
 *                  {"name": "latency_ms", "weight": 0.5, "goal": "min"}],
 *   "multiobjective": {"scalarise": "copula", "selection": "scalar",
 *                      "reference": {"error": 1, "latency_ms": 100}}
 * Names are [A-Za-z_][A-Za-z0-9_.-]*, at most 63 bytes, distinct.  goal
 * "max" marks a metric to maximise: it is negated before the optimiser
 * sees it, and reported as the trainer gave it.  scalarise is "copula"
 * (default), "linear" or "random-weights"; selection is "scalar"
 * (default), "pareto" or "hypervolume" (2 or 3 objectives).  reference
 * (optional) is the hypervolume's reference point, in the objectives' own
 * units, one value per objective.
 *
 * Ownership: plain values, no pointers.
 */
#ifndef DEHBQ_OBJECTIVES_H
#define DEHBQ_OBJECTIVES_H

#include <stddef.h>

struct cJSON;
struct jsonfile;

#define OBJECTIVES_MAX	    16
#define OBJECTIVES_NAME_MAX 64 /* with its NUL */
#define OBJECTIVES_ENV_MAX  (OBJECTIVES_MAX * OBJECTIVES_NAME_MAX)

struct objectives {
	int n; /* 0: a single loss; else 2..OBJECTIVES_MAX */
	char name[OBJECTIVES_MAX][OBJECTIVES_NAME_MAX];
	double weight[OBJECTIVES_MAX]; /* > 0; default 1 */
	int maximise[OBJECTIVES_MAX];  /* goal "max" */
	char scalarise[16];	       /* "copula", "linear", ... */
	int pareto;		       /* selection: 0 "scalar", 1 "pareto",
					  2 "hypervolume" */
	int has_ref;		       /* reference given */
	double ref[OBJECTIVES_MAX];    /* as the user gave it */
};

void objectives_defaults(struct objectives *ob);

/* 1 when name is a valid objective name. */
int objectives_name_ok(const char *name);

/* Index of name, or -1. */
int objectives_find(const struct objectives *ob, const char *name);

/*
 * Add one objective from `dehbq init --objective NAME[:max][:W]` (W a
 * weight); DEHBQ_EINVAL with err naming the problem.
 */
int objectives_add_flag(struct objectives *ob, const char *arg, char *err);

/* Check and fill "scalarise" / "selection" by name (init's options). */
const char *objectives_selection_name(const struct objectives *ob);
int objectives_set_scalarise(struct objectives *ob, const char *v, char *err);
int objectives_set_selection(struct objectives *ob, const char *v, char *err);

/* Cross-field checks: count, names distinct; err names the field. */
int objectives_check(const struct objectives *ob, char *err);

/* Read "objectives" and "multiobjective" from a spec's root object. */
int objectives_parse(const struct jsonfile *jf, const struct cJSON *root,
		     struct objectives *ob, char *err);

/* Add "objectives" and "multiobjective" to root (nothing when n is 0). */
int objectives_render(const struct objectives *ob, struct cJSON *root);

/* "error,latency_ms": the names, for DEHBQ_OBJECTIVES; "" when n is 0. */
void objectives_env(const struct objectives *ob, char *buf, size_t len);

/*
 * The declared objectives out of a result's "objectives" (printed JSON
 * object text): y[l] for the l-th declared one, negated when maximised (so
 * every y is minimised), raw[l] as reported (raw may be NULL).
 * DEHBQ_ENOENT with why naming the first objective missing or not a
 * finite number.
 */
int objectives_read(const struct objectives *ob, const char *printed, double *y,
		    double *raw, char *why, size_t whylen);

#endif
