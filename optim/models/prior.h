/*
 * prior.h - the transfer prior of the copula methods (TRANSFER_SPEC.md):
 * earlier tasks' results, each task's losses mapped through its own
 * copula transform psi (copula.h), and an MLP mu(x), sigma(x) (mlp.h)
 * fitted on all of them, each task weighted by 1 / its size
 *
 * The fit is a function of the data and the seed only (the MLP's weights,
 * dropout masks and batches come from an rng seeded with it), so an
 * optimiser that fits it at open and again at load gets the same prior.
 *
 * Ownership: prior_fit copies nothing from t after it returns; the prior
 * is freed with prior_free.  Errors: DEHBQ_OK, DEHBQ_ENOMEM, DEHBQ_EINVAL
 * (an empty task, a vector outside [0, 1], a NaN loss; err says which).
 */
#ifndef DEHBQ_PRIOR_H
#define DEHBQ_PRIOR_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h"

/*
 * Earlier tasks' results for the transfer methods (TRANSFER_SPEC.md):
 * task k has n[k] results, x rows (unit-cube vectors of this study's
 * space) and losses y (+inf: failed), the tasks one after another.
 */
struct prior_tasks {
	int ntasks;
	const size_t *n; /* ntasks counts */
	const double *x; /* sum(n) * dim */
	const double *y; /* sum(n) */
};

struct prior;

/* steps: the MLP's gradient steps per stage (TRANSFER_SPEC: 1000). */
int prior_fit(const struct prior_tasks *t, int dim, uint64_t seed, int steps,
	      struct prior **out, char *err);
void prior_free(struct prior *p); /* NULL is fine */

/* mu and sigma (> 0) at n points (n * dim, row-major). */
int prior_predict(const struct prior *p, const double *x, size_t n, double *mu,
		  double *sigma);

/*
 * The prior's RMSE on a task's results (n >= 1): sqrt(mean((psi(y_i) -
 * mu(x_i))^2)), psi over these n results.  Above 1 the prior predicts the
 * task worse than knowing nothing.  That holds for a random sample of the
 * task (the paper's section 5.1).  An optimiser's own results are not one:
 * psi over them is centred by construction while mu at points the prior
 * chose is low, so `centred` takes the mean residual out first (the
 * residuals' standard deviation), which measures the order the prior
 * predicts, not its offset; and divides by psi's own standard deviation
 * over the n results, the RMSE of knowing nothing (below 1 for a few
 * results, as psi is winsorised), so that 1 keeps its meaning.
 */
int prior_rmse(const struct prior *p, const double *x, const double *y,
	       size_t n, int centred, double *rmse);

/*
 * n uniform points of the unit cube into x (n * dim), a dimension of K > 1
 * choices at its bins' centres, from r.
 */
/* Coordinate u of a dimension of K choices read at its bin's centre, as
 * the prior is fitted (K <= 1: u itself). */
double prior_snap(double u, int K);

void prior_uniform(struct rng *r, const int *choices, int dim, size_t n,
		   double *x);

/*
 * Copula Thompson sampling (CTS): ncand uniform candidates, z ~ N(mu(x),
 * sigma(x)^2) at each, the argmin into vec (dim doubles).
 */
int prior_thompson(const struct prior *p, struct rng *r, const int *choices,
		   int dim, int ncand, double *vec);

/* A study's own results in tell order (x: n * dim), as cts and gcp keep
 * them; zeroed to start, prior_obs_free() to end. */
struct prior_obs {
	int dim;
	size_t n, cap;
	double *x, *y;
};

int prior_obs_add(struct prior_obs *o, const double *x, double y);
void prior_obs_free(struct prior_obs *o);

struct jsonbuf;
/* status.json members: the earlier tasks, their results, and the prior's
 * centred RMSE on o (null while o is empty). */
int prior_describe(const struct prior *p, const struct prior_obs *o,
		   struct jsonbuf *b);

#endif
