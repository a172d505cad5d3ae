/*
 * slice.h - slice sampling (Neal 2003) of a log density on a box: one
 * sweep updates each coordinate in turn, by stepping out and shrinkage
 *
 * For a coordinate i with the others fixed: a level log p(x) - E, E ~
 * Exp(1); an interval of width w[i] placed at random around x[i], stepped
 * out by w[i] at each end (at most SLICE_MAX_STEPS times, never past the
 * box) while the density at the end is above the level; then a point
 * drawn uniformly from the interval, which shrinks towards x[i] until a
 * point above the level is found (at most SLICE_MAX_SHRINK draws; x[i]
 * stays put if none is).  The chain leaves the density invariant.
 *
 * Deterministic: a function of x, the density and the caller's rng.
 * Ownership: the density's context is borrowed for the call; x is updated
 * in place.  Errors: DEHBQ_OK, DEHBQ_EINVAL (n < 1, a start outside the
 * box or of density -inf or NaN).
 */
#ifndef DEHBQ_SLICE_H
#define DEHBQ_SLICE_H

#include "rng.h"

#define SLICE_MAX_STEPS	 8
#define SLICE_MAX_SHRINK 50

/* The log density at x (n values), up to a constant; -inf outside its
 * support. */
typedef double (*slice_logp)(const double *x, int n, void *ctx);

struct slice_box {
	int n;		  /* coordinates */
	const double *lo; /* n lower bounds */
	const double *hi; /* n upper bounds */
	const double *w;  /* n initial widths */
};

/* One sweep over the coordinates from x (its log density in *lp, updated:
 * pass logp(x)), drawing from r.  *evals counts density evaluations. */
int slice_sweep(const struct slice_box *b, slice_logp logp, void *ctx,
		struct rng *r, double *x, double *lp, long *evals);

#endif
