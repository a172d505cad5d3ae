/*
 * parzen.h - a joint Parzen estimator on the unit cube: the kernel density
 * of multivariate TPE (Falkner et al. 2018, BOHB; Optuna's
 * TPESampler(multivariate=True))
 *
 * One component per point plus a prior: component i is a product over
 * the dimensions of a normal kernel truncated to [0, 1] (mean the point's
 * value, sigma the estimator's one bandwidth), or, for a dimension of K
 * choices, a categorical kernel that gives the point's bin 1 + c and
 * every bin c, normalised (c = prior_weight / (m + 1), as Optuna).  The
 * prior component has mean 0.5, sigma 1, and is uniform over the choices.
 * A draw picks one component by weight and draws every dimension from it,
 * so that values drawn together stay together: what the univariate
 * estimators of search_tpe.c lose.
 *
 * Calling sequence:
 *   struct parzen p = {dim, choices, x, set, m, w, sigma, cat, lognorm};
 *   parzen_fit(&p);                        fills lognorm
 *   parzen_sample(&p, rng, v);  parzen_log_density(&p, v)
 *
 * Errors: none; the functions cannot fail.
 * Ownership: every pointer of struct parzen is the caller's, valid while
 * it is used; lognorm is scratch of (m + 1) * dim doubles that parzen_fit
 * writes.
 */
#ifndef DEHBQ_PARZEN_H
#define DEHBQ_PARZEN_H

#include <stddef.h>

struct rng;

struct parzen {
	int dim;
	const int *choices; /* per dimension: K > 1 categorical, else
			       continuous; NULL: all continuous */
	const double *x;    /* observations, rows of dim values in [0, 1] */
	const size_t *set;  /* the m rows of x that are the points */
	size_t m;
	const double *w; /* m + 1 weights summing to 1, the prior's last */
	double sigma;	 /* the points' bandwidth (parzen_bandwidth) */
	double cat;	 /* a categorical kernel's smoothing c */
	double *lognorm; /* (m + 1) * dim: log(sigma * mass in [0, 1]) */
};

/*
 * Scott's rule as BOHB and Optuna use it: 0.2 m^(-1 / (dim + 4)) for m
 * points (m = 0 counts as 1), clipped to [1 / min(100, m + 2), 1]
 * (Optuna's "magic clip" over m points and the prior).
 */
double parzen_bandwidth(size_t m, int dim);
/* The normalisers of p's truncated kernels, into p->lognorm. */
void parzen_fit(struct parzen *p);
/* One draw of p into v (dim values in [0, 1]). */
void parzen_sample(const struct parzen *p, struct rng *r, double *v);
/* log of p's density at v (a categorical dimension counts its bin's
 * probability). */
double parzen_log_density(const struct parzen *p, const double *v);

#endif
