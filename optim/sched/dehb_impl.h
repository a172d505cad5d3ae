/*
 * dehb_impl.h - the engine's private layout, shared by its files (dehb*.c)
 *
 * Not part of the API: only the engine's own files include it.
 *
 * Ownership: every pointer below is owned by the struct dehb that holds
 * it and freed by dehb_free().
 */
#ifndef DEHBQ_DEHB_IMPL_H
#define DEHBQ_DEHB_IMPL_H

#include "dehb.h"
#include "hb.h"
#include "rng.h"

#include <stddef.h>
#include <stdint.h>

#define DEHB_MAX_CELLS (1L << 26)	  /* most doubles in a rung's results */
#define DEHB_MAX_ID    ((int64_t)1 << 53) /* ids stay exact in JSON */

/* One active bracket. */
struct dehb_bracket {
	struct hb_bracket hb; /* rung counters */
	/* SH/Hyperband baselines only: results of rungs 0..s-1, told order
	 * (sorted by (loss, job) once the next rung starts). */
	double *rloss[HB_MAX_LEVELS]; /* loss (+inf for failures) */
	int64_t *rcid[HB_MAX_LEVELS]; /* config id */
	int64_t *rjob[HB_MAX_LEVELS]; /* job id */
	double *rx[HB_MAX_LEVELS];    /* vectors, n[r] * dim */
	int seen[HB_MAX_LEVELS]; /* jobs in flight replayed (dehb_replayed) */
};

struct dehb {
	struct dehb_params p;	     /* validated parameters */
	int nlevels;		     /* L = s_max + 1 */
	double fid[HB_MAX_LEVELS];   /* fidelity per level, ascending */
	struct rng rng;		     /* engine stream */
	struct dehb_bracket *br;     /* active brackets, ascending id */
	int nbr;		     /* active count */
	int capbr;		     /* allocated */
	int64_t asked;		     /* jobs issued = next job id */
	int64_t next_cid;	     /* next new config id */
	int64_t next_bracket;	     /* next bracket id */
	const struct search_ops *so; /* the searcher, or NULL */
	void *ss;		     /* its state, borrowed */
	double *tmpx; /* scratch, dim: contents meaningless between calls */
};

/* Allocate an engine for validated params, state zeroed (no RNG use;
 * dehb_table.c). */
int dehb_alloc(const struct dehb_params *p, struct dehb **out, char *err);
/* The largest rung any bracket runs (dehb_params.c). */
int dehb_max_rung(const struct dehb_params *p, int nlevels, int *maxrung);
/* The active bracket with this id, or NULL. */
struct dehb_bracket *dehb_bracket_find(struct dehb *d, int64_t id);
/* Allocate the SH/HB result arrays of a bracket. */
int dehb_bracket_alloc(const struct dehb *d, struct dehb_bracket *b);
void dehb_bracket_release(struct dehb_bracket *b);
/* 1 when the optimizer runs SH brackets, 2 when it also stores results. */
int dehb_uses_brackets(const struct dehb *d);

#endif
