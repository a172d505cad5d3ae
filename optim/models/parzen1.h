/*
 * parzen1.h - a Parzen estimator over one dimension of the unit interval:
 * the univariate TPE's l and g (Bergstra et al. 2011, as Optuna's
 * TPESampler builds them)
 *
 * Continuous: a mixture of normals truncated to [0, 1], one per point
 * (mean its value, sigma the larger distance to its neighbours among the
 * means, clipped to [1 / min(100, 1 + k), 1] for k kernels: Optuna's
 * "magic clip"), plus a prior (mean 0.5, sigma 1), each of its weight over
 * the weights' sum.  Of K > 1 choices: a categorical distribution, bin b
 * has prior_weight / K plus the weights of the points in it, normalised.
 *
 * Calling sequence:
 *   b.mu[0..m-1] = the points' values, b.w[0..m-1] = their weights;
 *   parzen1_fit(&e, &b, K, m, prior_weight);
 *   parzen1_sample(&e, rng);  parzen1_density(&e, v)
 *
 * Errors: none; the functions cannot fail.
 * Ownership: the caller's scratch b (mu, sig, w, srt: m + 1 doubles each;
 * kern: m; cat: K) holds the estimator: e points into it and is valid
 * until b is refitted or freed.
 */
#ifndef DEHBQ_PARZEN1_H
#define DEHBQ_PARZEN1_H

#include <stddef.h>

struct rng;

/* A point's kernel, ready for densities: coef phi((v - mu) inv). */
struct parzen1_kern {
	double mu, inv, coef; /* mean, 1 / sigma, w / (sigma mass) */
};

/* The scratch an estimator of m points lives in. */
struct parzen1_buf {
	double *mu, *sig, *w, *srt, *cat;
	struct parzen1_kern *kern;
};

struct parzen1 {
	int K;	  /* 0: continuous mixture; else categorical of K bins */
	size_t k; /* kernels (points + prior) */
	double *mu, *sig, *w;	   /* kernels: mean, sigma, normalised weight */
	double *p;		   /* categorical: K probabilities (into w) */
	struct parzen1_kern *kern; /* the k - 1 point kernels, by mean */
	double prior;		   /* the prior's coef (mean 0.5, sigma 1) */
	double reach;		   /* PARZEN1_REACH x the largest sigma */
};

/* Fit e over the m points in b (K > 1: categorical of K bins). */
void parzen1_fit(struct parzen1 *e, const struct parzen1_buf *b, int K,
		 size_t m, double prior_w);
/* The estimator's density at v in [0, 1]. */
double parzen1_density(const struct parzen1 *e, double v);
/* A draw from the estimator, in [0, 1]. */
double parzen1_sample(const struct parzen1 *e, struct rng *r);

#endif
