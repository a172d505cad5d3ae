/*
 * mlp.h - the parametric prior of the copula transfer methods
 * (TRANSFER_SPEC.md): an MLP h(x) of `layers` hidden ReLU layers of
 * `hidden` units with dropout after each, and two heads, mu(x) = w_mu.h +
 * b_mu and sigma(x) = softplus(w_s.h + b_s) + floor, trained by Adam on
 * the weighted Gaussian negative log-likelihood
 *
 *   sum_i w_i (log sigma(x_i) + (z_i - mu(x_i))^2 / (2 sigma(x_i)^2)) / sum w
 *
 * over mini-batches, in `stages` stages of `steps` steps, the learning
 * rate divided by `lr_div` from one stage to the next.
 *
 * Deterministic: the initial weights (He), the dropout masks and the batch
 * order come from the caller's rng only, so a fit is a function of the
 * seed and the data.  Matrix products are cblas_dgemm (OpenBLAS).
 *
 * Ownership: mlp_new() returns a network freed with mlp_free(); training
 * data is read during the call only.  A network keeps one scratch for its
 * passes (grown to the largest batch, at most 256 rows for a prediction),
 * so calls on one network must not run concurrently, even the const
 * ones.  Errors: DEHBQ_OK, DEHBQ_ENOMEM,
 * DEHBQ_EINVAL (bad sizes or parameters, a non-finite input).
 */
#ifndef DEHBQ_MLP_H
#define DEHBQ_MLP_H

#include <stddef.h>

#include "rng.h"

struct mlp_params {
	int layers;	    /* hidden layers: 3 */
	int hidden;	    /* units per hidden layer: 50 */
	double dropout;	    /* after each hidden layer, training only: 0.1 */
	double lr;	    /* Adam's first learning rate: 0.01 */
	double lr_div;	    /* divides it after each stage: 5 */
	int stages;	    /* 3 */
	int steps;	    /* gradient steps per stage: 1000 */
	int batch;	    /* points per step: 64 */
	double sigma_floor; /* added to softplus: 1e-3 */
};

struct mlp;

/* mlp_predict and mlp_features pass their rows in chunks of this many,
 * from the first: a chunk's outputs are a function of its rows and the
 * weights, so a caller may pass a chunk alone and keep its outputs. */
#define MLP_PASS_ROWS 256

/* TRANSFER_SPEC.md's values, as above. */
void mlp_default_params(struct mlp_params *p);

/* A network for din inputs, weights drawn from r. */
int mlp_new(int din, const struct mlp_params *p, struct rng *r,
	    struct mlp **out);
void mlp_free(struct mlp *m); /* NULL is fine */

/*
 * Train on n points: x (n * din, row-major), targets z, weights w (NULL:
 * all 1).  Batches are drawn with replacement from r; dropout masks too.
 */
int mlp_train(struct mlp *m, const double *x, const double *z, const double *w,
	      size_t n, struct rng *r);

/* mu and sigma at n points (no dropout). */
int mlp_predict(const struct mlp *m, const double *x, size_t n, double *mu,
		double *sigma);
/* The last hidden layer's outputs h(x) at n points (no dropout), n *
 * mlp_width(m) values row-major: the basis of DNGO (search_dngo.c). */
int mlp_features(const struct mlp *m, const double *x, size_t n, double *phi);
int mlp_width(const struct mlp *m);

/*
 * The weighted NLL of a batch of n points and, when grad is not NULL, its
 * gradient with respect to every parameter (mlp_nparams of them), with
 * dropout masks from r (NULL: no dropout).  For tests and for training.
 */
int mlp_loss_grad(const struct mlp *m, const double *x, const double *z,
		  const double *w, size_t n, struct rng *r, double *loss,
		  double *grad);
size_t mlp_nparams(const struct mlp *m);
/* The parameters, in the order of mlp_loss_grad's gradient (for tests). */
double *mlp_params_ptr(struct mlp *m);

#endif
