/*
 * de.h - Differential Evolution operators on unit-cube vectors
 *
 * Mutation, crossover, boundary repair and donor sampling as DEHB uses
 * them (spec section 4), with two deliberate fixes: exponential crossover
 * writes a COPY of the target (spec 9.9), and every operator works on
 * caller buffers only.
 *
 * Calling sequence (one trial):
 *   m = de_donors_needed(mut);
 *   de_sample_distinct(rng, npool, m, idx);        donors idx[0..m-1]
 *   de_mutate(mut, F, dim, donors, best, target, mutant);
 *   de_crossover(cx, rng, dim, CR, target, mutant, trial);
 *   de_repair(bound, rng, dim, trial);
 *
 * Error handling: de_sample_distinct returns DEHBQ_EINVAL when fewer than
 * k items exist; the others cannot fail.
 *
 * Ownership: no allocation; all buffers belong to the caller.  Outputs
 * must not alias inputs, except where stated.
 */
#ifndef DEHBQ_DE_H
#define DEHBQ_DE_H

#include "rng.h"

enum de_mutation {
	DE_MUT_RAND1 = 0, /* default */
	DE_MUT_RAND2,
	DE_MUT_BEST1,
	DE_MUT_CURRENTTOBEST1,
	DE_MUT_RANDTOBEST1,
};

enum de_crossover {
	DE_CX_BIN = 0, /* binomial, default */
	DE_CX_EXP,     /* exponential, on a copy of the target */
};

enum de_boundary {
	DE_BOUND_RANDOM = 0, /* redraw violating coordinates, default */
	DE_BOUND_CLIP,	     /* clip to [0, 1] */
};

/* Names, NULL-terminated, in enum order. */
extern const char *const de_mutation_names[];
extern const char *const de_crossover_names[];
extern const char *const de_boundary_names[];

/* A name, and parsing one (DEHBQ_EINVAL when unknown). */
const char *de_mutation_name(enum de_mutation m);
int de_mutation_parse(const char *s, enum de_mutation *m);
const char *de_crossover_name(enum de_crossover c);
int de_crossover_parse(const char *s, enum de_crossover *c);
const char *de_boundary_name(enum de_boundary b);
int de_boundary_parse(const char *s, enum de_boundary *b);

#define DE_MAX_DONORS 5 /* rand2 needs five */

/* Donors a mutation strategy draws (rand1 3, rand2 5, best1 2, ...). */
int de_donors_needed(enum de_mutation m);

/*
 * Draw k distinct indices from [0, n) uniformly without replacement, in
 * draw order (rejection of repeats, k is small).
 */
int de_sample_distinct(struct rng *r, int n, int k, int *out);

/*
 * mutant = strategy(donors, best, current); donors[i] are dim-vectors.
 * best is only read by the *best* strategies, current by currenttobest1.
 * The mutant is not repaired.
 */
void de_mutate(enum de_mutation m, double F, int dim,
	       const double *const *donors, const double *best,
	       const double *current, double *mutant);

/*
 * Binomial: u[d] ~ U[0,1) for every d, take the mutant where u < CR; if no
 * gene was taken, one index drawn uniformly is forced.
 * Exponential: start n ~ U{0..dim-1}; copy mutant genes n, n+1, ...
 * (mod dim) while U[0,1) < CR, at most dim genes; no gene is forced, so
 * the trial may equal the target (reference semantics).  trial is a
 * fresh buffer in both cases; the target is never written.
 */
void de_crossover(enum de_crossover c, struct rng *r, int dim, double cr,
		  const double *target, const double *mutant, double *trial);

/* Repair coordinates outside [0,1] in place: redraw (random) or clip. */
void de_repair(enum de_boundary b, struct rng *r, int dim, double *x);

#endif
