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

#include "dehb.h"
#include "rng.h"

#define DE_MAX_DONORS 5 /* rand2 needs five */

/* Donors a mutation strategy draws (rand1 3, rand2 5, best1 2, ...). */
int de_donors_needed(enum dehb_mutation m);

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
void de_mutate(enum dehb_mutation m, double F, int dim,
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
void de_crossover(enum dehb_crossover c, struct rng *r, int dim, double cr,
		  const double *target, const double *mutant, double *trial);

/* Repair coordinates outside [0,1] in place: redraw (random) or clip. */
void de_repair(enum dehb_boundary b, struct rng *r, int dim, double *x);

#endif
