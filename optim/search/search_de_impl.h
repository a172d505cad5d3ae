/*
 * search_de_impl.h - the de searcher's private layout, shared by its files:
 * search_de.c (settings, proposals, results), search_de_fill.c (DEHB's
 * rules under a scheduler it fills), search_de_state.c (save, load) and
 * search_de_prior.c (the guide of earlier tasks)
 *
 * Not part of the API: only search_de*.c include it.
 *
 * Ownership: every pointer below is owned by the struct des that holds it
 * and freed by des_free().
 */
#ifndef DEHBQ_SEARCH_DE_IMPL_H
#define DEHBQ_SEARCH_DE_IMPL_H

#include "searcher.h"

#include "rng.h"

#include <stdint.h>

#define DES_MAX_POP	100000
#define DES_MAX_GUIDE_K 64 /* prior_mutants */
#define DES_MAX_TOTPOP	1000000
#define DES_MAX_CELLS	(1L << 26)

struct des_level {
	double fid;	/* the ladder's fidelity */
	int n;		/* members: population_size, or DEHB's (fills) */
	int64_t turns;	/* slots taken (the first round hands out x) */
	int ptr;	/* the next target slot */
	int full;	/* every member holds a result */
	struct rng rng; /* the level's stream */
	double *x;	/* n * dim */
	double *fit;	/* n, +inf until a result is accepted */
	int64_t *job;	/* n, the job a member came from, -1: initial */
	int64_t *cid;	/* n, its configuration's id (fills only) */
};

struct des_fl { /* a job in flight */
	int64_t job;
	int level, slot;
	int64_t cid; /* its configuration (fills only) */
	int promo;   /* a promotion from the level below (fills only) */
};

struct des_set { /* the settings */
	int pop, mut, cx, bound;
	double F, CR;
	int prior_k, prior_cand, prior_steps;
};

struct des_guide; /* search_de_prior.c */

struct des {
	int dim, pop, L, fills, totpop;
	int mut, cx, bound; /* de.h enums */
	double F, CR;
	struct des_level *lv;
	int inc_valid;
	double inc_fit, *inc_x; /* the best result at any fidelity */
	int64_t inc_job;
	struct des_fl *fl; /* in flight, in issue order */
	size_t nfl, flcap;
	int pend_level, pend_slot; /* the last proposal's, until issued */
	int64_t pend_cid;
	int pend_promo;
	int64_t next_cid;	 /* fills: the next configuration's id */
	struct des_guide *guide; /* earlier tasks' prior, or NULL */
	int guide_k;		 /* trials it chooses among */
	/* scratch */
	int *order;
	const double **pool, **glob;
	double *fill, *mutant, *gx;
};

/* search_de.c */
int des_read(const struct cJSON *in, struct des_set *s, char *err);
/* A searcher for setup s with settings t, its members not yet drawn;
 * populations too large for the limits are refused naming the field. */
int des_new(const struct search_setup *s, const struct des_set *t,
	    struct des **out, char *err);
void des_free(void *st);
int des_level_full(const struct des *d, const struct des_level *P);
struct des_fl *des_fl_find(struct des *d, int64_t job);
int des_fl_reserve(struct des *d);
int des_level_of(const struct des *d, double f);
int des_take_slot(struct des *d, int k);
/* the pool's order: slots of level q by fitness, then slot */
void des_order(struct des *d, int q);
/*
 * A DE trial against slot `slot` of level k into out, from the np
 * donors of d->pool topped up as DEHB does when it holds fewer than the
 * strategy needs (mutants of every level's members, or uniform
 * vectors); with a guide, its pick of guide_k such trials.
 */
void des_trial(struct des *d, int k, int slot, int np, double *out);

/* search_de_fill.c: DEHB's subpopulation sizes for s's ladder into n
 * (DEHBQ_EINVAL when its rungs exceed hb.h's limits). */
int des_fill_sizes(const struct search_setup *s, int *n);
int des_propose_at(void *st, const struct search_at *at, double *vec,
		   enum trial_kind *kind, int64_t *parent);

/* search_de_state.c */
int des_save(const void *st, struct jsonbuf *b);
int des_load(const struct search_setup *s, const struct cJSON *state, void **st,
	     char *err);

/*
 * search_de_prior.c: DEHB+prior (TRANSFER_SPEC.md, "combining with
 * multi-fidelity"): filling rungs (s->fills) with earlier tasks in s, fit
 * their prior and guide d:
 * draw (a fresh searcher) redraws every member as a CTS draw from the
 * level's stream; des_guide_choose picks one of k trial vectors (k * dim)
 * by least Thompson draw.  Otherwise nothing.
 */
int des_guide_open(struct des *d, const struct search_setup *s,
		   const struct des_set *t, int draw, char *err);
int des_guide_choose(struct des *d, struct rng *r, const double *x, int k);
/* ",transfer members" of the describe: the prior's RMSE on the top
 * level's results; nothing without a guide */
int des_guide_describe(const struct des *d, struct jsonbuf *b);
void des_guide_free(struct des_guide *g);

#endif
