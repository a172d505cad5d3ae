/*
 * gp.h - a Gaussian process regression model: the Matern-5/2 kernel with
 * ARD lengthscales, a signal variance and Gaussian noise; type-II maximum
 * likelihood; the posterior at new points (mean, variance and their
 * gradients, and a joint draw)
 *
 * Inputs live in the unit cube.  A dimension of K > 1 choices is a
 * category: its contribution to the squared distance is 2 eta^2 when the
 * two points' bins differ and 0 otherwise, which is the one-hot encoding
 * with one lengthscale per parameter.  The prior mean is 0; the caller
 * standardises (or copula-transforms) the outputs.
 *
 * Hyperparameters theta (dim + 2 of them, natural logs): the inverse
 * lengthscales eta_1..eta_D, the signal variance s2 and the noise variance
 * sn2, in syne-tune's box: eta in [1e-4, 100], s2 in [1e-3, 1e3], sn2 in
 * [1e-9, 1e6]; a jitter of 1e-9 (raised tenfold, up to 6 times, if a
 * Cholesky factorisation fails) is added to the diagonal.
 *
 * Linear algebra is LAPACKE (dpotrf, dpotrs, dpotri) and CBLAS over
 * OpenBLAS; the marginal likelihood is maximised with NLopt's L-BFGS.
 * Nothing here draws a random number except through the caller's rng, so
 * the model is a function of its inputs.
 *
 * Ownership: gp_new() returns a model freed with gp_free(); it copies
 * choices, and gp_condition()/gp_fit() copy x and y.  Results go to caller
 * buffers.  Errors: DEHBQ_OK, DEHBQ_ENOMEM, DEHBQ_EINVAL (bad arguments, or
 * a covariance not positive definite even with the largest jitter),
 * DEHBQ_ESTATE (a prediction before gp_condition).
 */
#ifndef DEHBQ_GP_H
#define DEHBQ_GP_H

#include <stddef.h>

#include "rng.h"

struct gp;

struct gp_fit_params {
	int restarts; /* L-BFGS runs: the current theta, then random */
	int maxeval;  /* likelihood evaluations per run */
	double ftol;  /* relative tolerance on the likelihood */
	int prior;    /* 1: maximise the posterior under gp_prior_nll's
			 hyperprior (MAP); 0: the likelihood alone */
};

/*
 * The hyperprior's negative log density at theta (dim + 2 values),
 * constants dropped; its gradient is added to grad (when not NULL).
 * BoTorch's SingleTaskGP priors (before 2024), on the values themselves:
 * each lengthscale 1/eta_d ~ Gamma(3, 6) (mode 1/3 of the unit cube),
 * the signal variance s2 ~ Gamma(2, 0.15), the noise sn2 ~ Gamma(1.1,
 * 0.05).  They keep a fit of a few points from lengthscales far beyond
 * the cube or far below the points' spacing.
 */
double gp_prior_nll(int dim, const double *theta, double *grad);

/*
 * Run BLAS and LAPACK on the calling thread.  For programs to call once
 * at start (the one process-wide setting here): the matrices are at most a
 * few hundred wide, where OpenBLAS's threads only add their busy-waiting,
 * and on a loaded node (a daemon beside the workers, tests under the
 * sanitizers) that waiting made a fit many times slower.
 */
void gp_blas_single_thread(void);

/* dim >= 1; choices: per dimension K (> 1 a category), or NULL. */
int gp_new(int dim, const int *choices, struct gp **out);
void gp_free(struct gp *g); /* NULL is fine */

/* The dim + 2 hyperparameters (logs), as above. */
void gp_get_theta(const struct gp *g, double *theta);
/* DEHBQ_EINVAL if one is outside its box or not finite. */
int gp_set_theta(struct gp *g, const double *theta);
/* The starting point: eta 1, s2 1, sn2 1e-3. */
void gp_default_theta(int dim, double *theta);
/* The box above, as dim + 2 lower and upper bounds. */
void gp_theta_box(int dim, double *lo, double *hi);

/*
 * Maximise the marginal likelihood of (x, y) (n >= 1 points, x row-major
 * n x dim) over theta, from the current theta and restarts - 1 random
 * starts drawn from r; keep the best, then condition on (x, y).
 */
int gp_fit(struct gp *g, const double *x, const double *y, size_t n,
	   struct rng *r, const struct gp_fit_params *p);

/* Condition on (x, y) with the current theta (n >= 1). */
int gp_condition(struct gp *g, const double *x, const double *y, size_t n);

/* The negative log marginal likelihood of the conditioned data. */
double gp_nll(const struct gp *g);

/* Its gradient over theta (dim + 2 values). */
int gp_nll_grad(struct gp *g, double *grad);

/* Posterior mean and variance (of the latent function) at m points. */
int gp_predict(struct gp *g, const double *xs, size_t m, double *mu,
	       double *var);

/* The same at one point, with the gradients over its dim coordinates
 * (0 in a categorical dimension). */
int gp_predict_grad(struct gp *g, const double *x, double *mu, double *var,
		    double *dmu, double *dvar);

/* One joint posterior draw of the latent function at m points. */
int gp_sample(struct gp *g, const double *xs, size_t m, struct rng *r,
	      double *out);

#endif
