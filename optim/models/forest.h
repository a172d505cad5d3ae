/*
 * forest.h - a regression forest on the unit cube, and the functional
 * ANOVA of its trees: how much of the variance of the loss each
 * dimension explains on its own (fANOVA, Hutter, Hoos and Leyton-Brown,
 * ICML 2014)
 *
 * The forest is the one Optuna's FanovaImportanceEvaluator fits through
 * sklearn's RandomForestRegressor: each tree is grown on a bootstrap
 * sample (n draws with replacement) to purity or max_depth, every split
 * chosen among all dimensions to minimise the squared error, its
 * threshold the midpoint between two consecutive distinct values.  No
 * permissive Debian library decomposes a forest's variance, so this is
 * ours.  One difference: a categorical parameter is one dimension here
 * (its unit-cube bins, an arbitrary order the trees split as any other),
 * where Optuna one-hot encodes it.
 *
 * The decomposition is exact for each tree: its leaves partition
 * [0, 1]^dim into boxes, and under the uniform measure on the cube (every
 * dimension is a unit-cube vector entry: log scales and choice bins are
 * already uniform there) the total variance is sum vol(l) (v_l - mean)^2;
 * the main effect of dimension j is a_j(x) = E[f | x_j = x], a step
 * function on the tree's cuts along j, and its variance
 * V_j = integral (a_j(x) - mean)^2 dx.  A tree's importance of j is
 * V_j / V; the forest reports the mean and standard deviation over the
 * trees whose V > 0.  The fractions of a tree sum to at most 1: the rest
 * is interactions.
 *
 * Determinism: the same points, options and seed give the same numbers,
 * bit for bit.
 *
 * Error handling: DEHBQ_OK, DEHBQ_EINVAL (fewer than 2 points, a value out
 * of [0, 1] or not finite, bad options), DEHBQ_ENOMEM.  Nothing printed.
 * Ownership: every buffer is the caller's; nothing is kept.
 */
#ifndef DEHBQ_FOREST_H
#define DEHBQ_FOREST_H

#include <stdint.h>

struct forest_opts {
	int trees;     /* 1 ... 4096 (Optuna: 64) */
	int max_depth; /* 1 ... 1024 (Optuna: 64) */
	uint64_t seed; /* bootstrap draws */
};

/*
 * Fit a forest to the n points x (row-major, n x dim, in [0, 1]) with
 * losses y (finite), and write each dimension's importance: mean[j] and
 * std[j] over the trees that vary (*used of them; 0 when y is constant,
 * and then every mean is 0).
 */
int forest_importance(const double *x, const double *y, int n, int dim,
		      const struct forest_opts *o, double *mean, double *std,
		      int *used);

#endif
