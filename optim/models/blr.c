/*
 * blr.c - owns Bayesian linear regression on a basis with its evidence
 * maximised: blr.h
 */
#include "blr.h"

#include "err.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <nlopt.h>
#include <stdlib.h>
#include <string.h>

#define BLR_LOG_2PI 1.8378770664093453

struct blr {
	int k;
	double la, lb; /* log alpha, log beta */
	double *A;     /* k * k: the Cholesky factor of A (lower) */
	double *m;     /* k: the posterior mean */
	double *t;     /* k: scratch */
	int ready;     /* conditioned */
	double *G;     /* k * k: the data's Phi'Phi (lower) */
	double *c;     /* k: Phi'y */
	double yy;     /* y'y */
	size_t n;      /* rows */
};

int blr_new(int k, struct blr **out)
{
	struct blr *b;
	size_t kk = (size_t)k * (size_t)k;

	*out = NULL;
	if (k < 1)
		return DEHBQ_EINVAL;
	if (!(b = calloc(1, sizeof(*b))))
		return DEHBQ_ENOMEM;
	b->k = k;
	b->lb = 5;
	b->A = calloc(kk, sizeof(double));
	b->G = calloc(kk, sizeof(double));
	b->m = malloc((size_t)k * sizeof(double));
	b->t = malloc((size_t)k * sizeof(double));
	b->c = malloc((size_t)k * sizeof(double));
	if (!b->A || !b->G || !b->m || !b->t || !b->c) {
		blr_free(b);
		return DEHBQ_ENOMEM;
	}
	*out = b;
	return DEHBQ_OK;
}

void blr_free(struct blr *b)
{
	if (!b)
		return;
	free(b->A);
	free(b->G);
	free(b->m);
	free(b->t);
	free(b->c);
	free(b);
}

void blr_stats(int k, const double *phi, const double *y, size_t n, double *G,
	       double *c, double *yy)
{
	if (G)
		cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, k, (int)n,
			    1.0, phi, k, 0.0, G, k);
	if (!y)
		return;
	cblas_dgemv(CblasRowMajor, CblasTrans, (int)n, k, 1.0, phi, k, y, 1,
		    0.0, c, 1);
	*yy = cblas_ddot((int)n, y, 1, y, 1);
}

/* The data's statistics into b. */
static int take(struct blr *b, const double *G, const double *c, double yy,
		size_t n)
{
	size_t k = (size_t)b->k;

	if (!n)
		return DEHBQ_EINVAL;
	b->ready = 0;
	memcpy(b->G, G, k * k * sizeof(double));
	memcpy(b->c, c, k * sizeof(double));
	b->yy = yy;
	b->n = n;
	return DEHBQ_OK;
}

/*
 * Factor A and solve for m with (la, lb); the evidence into *ev.  The
 * residual |y - Phi m|^2 is y'y - 2 m'Phi'y + m'Phi'Phi m (k^2, whatever
 * n; floored at 0 against its rounding).
 */
static int condition(struct blr *b, double *ev)
{
	int k = b->k, i, j;
	double a = exp(b->la), be = exp(b->lb), r2, m2 = 0, ld = 0;
	size_t kk = (size_t)k;

	b->ready = 0;
	for (i = 0; i < k; i++) {
		for (j = 0; j <= i; j++)
			b->A[i * kk + j] = be * b->G[i * kk + j];
		b->A[i * kk + i] += a;
	}
	if (LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', k, b->A, k))
		return DEHBQ_EINVAL;
	for (i = 0; i < k; i++)
		b->m[i] = be * b->c[i];
	if (LAPACKE_dpotrs(LAPACK_ROW_MAJOR, 'L', k, 1, b->A, k, b->m, 1))
		return DEHBQ_EINVAL;
	cblas_dsymv(CblasRowMajor, CblasLower, k, 1.0, b->G, k, b->m, 1, 0.0,
		    b->t, 1);
	r2 = fmax(0, b->yy - 2 * cblas_ddot(k, b->m, 1, b->c, 1) +
			     cblas_ddot(k, b->m, 1, b->t, 1));
	for (i = 0; i < k; i++) {
		m2 += b->m[i] * b->m[i];
		ld += 2 * log(b->A[i * kk + i]);
	}
	*ev = 0.5 * k * b->la + 0.5 * (double)b->n * b->lb - 0.5 * be * r2 -
	      0.5 * a * m2 - 0.5 * ld - 0.5 * (double)b->n * BLR_LOG_2PI;
	b->ready = 1;
	return DEHBQ_OK;
}

static double neg_evidence(unsigned n, const double *h, double *grad, void *ctx)
{
	struct blr *b = ctx;
	double ev;

	(void)n;
	(void)grad;
	b->la = h[0];
	b->lb = h[1];
	if (condition(b, &ev) || !isfinite(ev))
		return 1e300;
	return -ev;
}

int blr_fit_stats(struct blr *b, const double *G, const double *c, double yy,
		  size_t n)
{
	static const double lo[2] = {-10, -5}, hi[2] = {10, 15};
	double h[2] = {0, 5}, best, ev;
	nlopt_opt opt;
	int rc;

	if ((rc = take(b, G, c, yy, n)))
		return rc;
	if (!(opt = nlopt_create(NLOPT_LN_BOBYQA, 2)))
		return DEHBQ_ENOMEM;
	nlopt_set_lower_bounds(opt, lo);
	nlopt_set_upper_bounds(opt, hi);
	nlopt_set_min_objective(opt, neg_evidence, b);
	nlopt_set_maxeval(opt, 200);
	nlopt_set_xtol_abs1(opt, 1e-4);
	if (nlopt_optimize(opt, h, &best) < 0 || !(best < 1e300)) {
		h[0] = 0;
		h[1] = 5;
	}
	nlopt_destroy(opt);
	b->la = h[0];
	b->lb = h[1];
	return condition(b, &ev);
}

int blr_condition_stats(struct blr *b, const double *G, const double *c,
			double yy, size_t n)
{
	double ev;
	int rc = take(b, G, c, yy, n);

	return rc ? rc : condition(b, &ev);
}

/* Statistics of (phi, y), then f(b, them). */
static int via_stats(struct blr *b, const double *phi, const double *y,
		     size_t n,
		     int (*f)(struct blr *, const double *, const double *,
			      double, size_t))
{
	size_t k = (size_t)b->k;
	double *G, *c, yy;
	int rc;

	if (!n)
		return DEHBQ_EINVAL;
	G = malloc(k * k * sizeof(double));
	c = malloc(k * sizeof(double));
	rc = G && c ? DEHBQ_OK : DEHBQ_ENOMEM;
	if (!rc) {
		blr_stats(b->k, phi, y, n, G, c, &yy);
		rc = f(b, G, c, yy, n);
	}
	free(G);
	free(c);
	return rc;
}

int blr_fit(struct blr *b, const double *phi, const double *y, size_t n)
{
	return via_stats(b, phi, y, n, blr_fit_stats);
}

int blr_condition(struct blr *b, const double *phi, const double *y, size_t n)
{
	return via_stats(b, phi, y, n, blr_condition_stats);
}

int blr_predict(const struct blr *b, const double *phi, size_t n, double *mu,
		double *var)
{
	int k = b->k, i;
	size_t j;

	if (!b->ready)
		return DEHBQ_ESTATE;
	for (j = 0; j < n; j++) {
		const double *p = phi + j * (size_t)k;

		mu[j] = cblas_ddot(k, p, 1, b->m, 1);
		memcpy(b->t, p, (size_t)k * sizeof(double));
		cblas_dtrsv(CblasRowMajor, CblasLower, CblasNoTrans,
			    CblasNonUnit, k, b->A, k, b->t, 1);
		var[j] = exp(-b->lb);
		for (i = 0; i < k; i++)
			var[j] += b->t[i] * b->t[i];
	}
	return DEHBQ_OK;
}

void blr_hyper(const struct blr *b, double *log_alpha, double *log_beta)
{
	*log_alpha = b->la;
	*log_beta = b->lb;
}
