/*
 * benchstat.h - the statistics the benchmarks report: mean and standard
 * deviation, quantiles, and the two-sided Mann-Whitney U test
 *
 * Ownership: caller arrays only; nothing allocates.
 */
#ifndef DEHBQ_BENCHSTAT_H
#define DEHBQ_BENCHSTAT_H

/* Mean and sample standard deviation of x[0..n-1], NaNs skipped. */
void benchstat_mean_sd(const double *x, int n, double *mean, double *sd);

/*
 * The q-quantile (0 <= q <= 1) of x[0..n-1], n >= 1: the element at
 * floor(q (n - 1)) once sorted.  Sorts x in place.
 */
double benchstat_quantile(double *x, int n, double q);

/*
 * Two-sided Mann-Whitney U test of a against b (n each): U of a, and the
 * p-value from the normal approximation with the tie correction (n >= 20
 * makes it adequate).  *effect: P(a < b) + P(a = b) / 2.
 */
double benchstat_mann_whitney(const double *a, const double *b, int n,
			      double *u, double *effect);

#endif
