/*
 * gp.c - owns the Gaussian process model of gp.h: the kernel, the marginal
 * likelihood and its gradient, the L-BFGS fit and the posterior
 *
 * Matrices are row-major; a Cholesky factor is the lower triangle (which
 * LAPACK sees as the upper triangle of the column-major transpose, so the
 * LAPACKE calls are the _work ones on 'U', with no copy).
 * The kernel, with t = sqrt(5 r2) and r2 = sum_d eta_d^2 delta_d^2:
 *   k = s2 (1 + t + t^2 / 3) exp(-t)
 *   dk/d log eta_d = -(5/3) s2 (1 + t) exp(-t) eta_d^2 delta_d^2
 *   dk/d x_d       = -(5/3) s2 (1 + t) exp(-t) eta_d^2 (x_d - x'_d)
 * The negative log likelihood of y under K = k + (sn2 + jitter) I is
 *   1/2 y' alpha + sum log L_ii + n/2 log(2 pi),  alpha = K^-1 y,
 * and its gradient -1/2 tr((alpha alpha' - K^-1) dK/dtheta_j).
 */
#include "gp.h"

#include "err.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <nlopt.h>
#include <stdlib.h>
#include <string.h>

#define GP_JITTER     1e-9
#define GP_JITTER_TRY 6
#define GP_SAMPLE_TRY 10  /* relative jitter 1e-8 .. 10 for a joint draw */
#define GP_CHUNK      256 /* candidates per block in gp_predict */
#define GP_BAD_NLL    1e300

struct gp {
	int dim;
	int *choices; /* per dimension, 0 or 1 = continuous */
	double *theta;
	double *eta2, s2, sn2; /* exp(theta) */
	/* the conditioned data */
	size_t n, cap;
	double *x, *y;
	double *L;     /* n x n Cholesky factor */
	double *alpha; /* K^-1 y */
	double *work;  /* n x max(n, GP_CHUNK) scratch */
	double *kvec;  /* n, n */
	double *dk;    /* n x dim */
	double jitter; /* used by the last factorisation */
	double nll;
	int ready;
	int prior; /* the fit adds gp_prior_nll (gp_fit_params.prior) */
	/* the fit's scratch: the best theta of the current fit */
	double best_nll, *best_theta;
};

static const double lo_eta = -9.210340371976182, hi_eta = 4.605170185988092;
static const double lo_s2 = -6.907755278982137, hi_s2 = 6.907755278982137;
static const double lo_sn2 = -20.72326583694641, hi_sn2 = 13.815510557964274;

void gp_theta_box(int dim, double *lo, double *hi)
{
	int d;

	for (d = 0; d < dim; d++) {
		lo[d] = lo_eta;
		hi[d] = hi_eta;
	}
	lo[dim] = lo_s2;
	hi[dim] = hi_s2;
	lo[dim + 1] = lo_sn2;
	hi[dim + 1] = hi_sn2;
}

void gp_default_theta(int dim, double *theta)
{
	int d;

	for (d = 0; d < dim; d++)
		theta[d] = 0; /* eta = 1 */
	theta[dim] = 0;	      /* s2 = 1 */
	theta[dim + 1] = log(1e-3);
}

static void use_theta(struct gp *g, const double *theta)
{
	int d;

	if (theta != g->theta)
		memcpy(g->theta, theta, (size_t)(g->dim + 2) * sizeof(double));
	for (d = 0; d < g->dim; d++)
		g->eta2[d] = exp(2 * theta[d]);
	g->s2 = exp(theta[g->dim]);
	g->sn2 = exp(theta[g->dim + 1]);
	g->ready = 0;
}

void gp_free(struct gp *g)
{
	if (!g)
		return;
	free(g->choices);
	free(g->theta);
	free(g->eta2);
	free(g->best_theta);
	free(g->x);
	free(g->y);
	free(g->L);
	free(g->alpha);
	free(g->work);
	free(g->kvec);
	free(g->dk);
	free(g);
}

void gp_blas_single_thread(void)
{
	openblas_set_num_threads(1);
}

int gp_new(int dim, const int *choices, struct gp **out)
{
	struct gp *g;
	size_t m = (size_t)dim + 2;
	int d;

	*out = NULL;
	if (dim < 1)
		return DEHBQ_EINVAL;
	if (!(g = calloc(1, sizeof(*g))))
		return DEHBQ_ENOMEM;
	g->dim = dim;
	g->choices = calloc((size_t)dim, sizeof(int));
	g->theta = calloc(m, sizeof(double));
	g->best_theta = calloc(m, sizeof(double));
	g->eta2 = calloc((size_t)dim, sizeof(double));
	if (!g->choices || !g->theta || !g->best_theta || !g->eta2) {
		gp_free(g);
		return DEHBQ_ENOMEM;
	}
	for (d = 0; choices && d < dim; d++)
		g->choices[d] = choices[d] > 1 ? choices[d] : 0;
	gp_default_theta(dim, g->theta);
	use_theta(g, g->theta);
	*out = g;
	return DEHBQ_OK;
}

void gp_get_theta(const struct gp *g, double *theta)
{
	memcpy(theta, g->theta, (size_t)(g->dim + 2) * sizeof(double));
}

static int in_box(int dim, int j, double v)
{
	double lo = j < dim ? lo_eta : j == dim ? lo_s2 : lo_sn2;
	double hi = j < dim ? hi_eta : j == dim ? hi_s2 : hi_sn2;

	return isfinite(v) && v >= lo && v <= hi;
}

int gp_set_theta(struct gp *g, const double *theta)
{
	int j;

	for (j = 0; j < g->dim + 2; j++)
		if (!in_box(g->dim, j, theta[j]))
			return DEHBQ_EINVAL;
	use_theta(g, theta);
	return DEHBQ_OK;
}

/* ---- the kernel ---- */

static double sqdist(const struct gp *g, const double *a, const double *b)
{
	double r2 = 0;
	int d;

	for (d = 0; d < g->dim; d++) {
		int K = g->choices[d];
		double dl;

		if (K) {
			int ba = (int)(a[d] * K), bb = (int)(b[d] * K);

			if ((ba < K ? ba : K - 1) != (bb < K ? bb : K - 1))
				r2 += 2 * g->eta2[d];
			continue;
		}
		dl = a[d] - b[d];
		r2 += g->eta2[d] * dl * dl;
	}
	return r2;
}

static double matern(double s2, double r2)
{
	double t = sqrt(5 * r2);

	return s2 * (1 + t + t * t / 3) * exp(-t);
}

/* -(5/3) s2 (1 + t) exp(-t): the factor of every derivative */
static double matern_slope(double s2, double r2)
{
	double t = sqrt(5 * r2);

	return -(5.0 / 3.0) * s2 * (1 + t) * exp(-t);
}

/* ---- factorisation ---- */

static int grow(struct gp *g, size_t n)
{
	size_t c = g->cap, w;
	double *p;

	if (n <= c)
		return DEHBQ_OK;
	while (c < n)
		c = c ? c * 2 : 64;
	w = c > GP_CHUNK ? c : GP_CHUNK;
#define GROW(f, cnt)                                                           \
	do {                                                                   \
		if (!(p = realloc(g->f, (cnt) * sizeof(double))))              \
			return DEHBQ_ENOMEM;                                   \
		g->f = p;                                                      \
	} while (0)
	GROW(x, c * (size_t)g->dim);
	GROW(y, c);
	GROW(L, c * c);
	GROW(alpha, c);
	GROW(work, c * w);
	GROW(kvec, 2 * c);
	GROW(dk, c * (size_t)g->dim);
#undef GROW
	g->cap = c;
	return DEHBQ_OK;
}

/* K of g's data into L (lower triangle), plus noise and jitter; factor. */
static int factor(struct gp *g)
{
	size_t i, k, n = g->n;
	int t;

	g->jitter = GP_JITTER;
	for (t = 0; t < GP_JITTER_TRY; t++, g->jitter *= 10) {
		for (i = 0; i < n; i++) {
			const double *xi = g->x + i * (size_t)g->dim;

			for (k = 0; k < i; k++)
				g->L[i * n + k] = matern(
					g->s2,
					sqdist(g, xi,
					       g->x + k * (size_t)g->dim));
			g->L[i * n + i] = g->s2 + g->sn2 + g->jitter;
		}
		if (!LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', (lapack_int)n,
					 g->L, (lapack_int)n))
			return DEHBQ_OK;
	}
	return DEHBQ_EINVAL;
}

/* Factor, alpha and the likelihood of the data in g. */
static int condition(struct gp *g)
{
	size_t i, n = g->n;
	double q = 0, ld = 0;
	int rc;

	g->ready = 0;
	if ((rc = factor(g)))
		return rc;
	memcpy(g->alpha, g->y, n * sizeof(double));
	if (LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'U', (lapack_int)n, 1, g->L,
				(lapack_int)n, g->alpha, (lapack_int)n))
		return DEHBQ_EINVAL;
	for (i = 0; i < n; i++) {
		q += g->y[i] * g->alpha[i];
		ld += log(g->L[i * n + i]);
	}
	g->nll = 0.5 * q + ld + 0.5 * (double)n * log(2 * M_PI);
	g->ready = 1;
	return DEHBQ_OK;
}

static int set_data(struct gp *g, const double *x, const double *y, size_t n)
{
	int rc;

	if (n < 1)
		return DEHBQ_EINVAL;
	if ((rc = grow(g, n)))
		return rc;
	if (x != g->x)
		memcpy(g->x, x, n * (size_t)g->dim * sizeof(double));
	if (y != g->y)
		memcpy(g->y, y, n * sizeof(double));
	g->n = n;
	return DEHBQ_OK;
}

int gp_condition(struct gp *g, const double *x, const double *y, size_t n)
{
	int rc = set_data(g, x, y, n);

	return rc ? rc : condition(g);
}

double gp_nll(const struct gp *g)
{
	return g->ready ? g->nll : GP_BAD_NLL;
}

/* ---- the likelihood's gradient and the fit ---- */

/* grad of the nll at g's theta; L and alpha are current.  Uses work. */
static int nll_grad(struct gp *g, double *grad)
{
	size_t i, k, n = g->n, D = (size_t)g->dim;
	double *Ki = g->work;
	int d;

	memcpy(Ki, g->L, n * n * sizeof(double));
	if (LAPACKE_dpotri_work(LAPACK_COL_MAJOR, 'U', (lapack_int)n, Ki,
				(lapack_int)n))
		return DEHBQ_EINVAL;
	memset(grad, 0, (D + 2) * sizeof(double));
	for (i = 0; i < n; i++) {
		const double *xi = g->x + i * D;
		double wii = g->alpha[i] * g->alpha[i] - Ki[i * n + i];

		grad[D] += -0.5 * wii * g->s2;
		grad[D + 1] += -0.5 * wii * g->sn2;
		for (k = 0; k < i; k++) {
			const double *xk = g->x + k * D;
			double w =
				2 * (g->alpha[i] * g->alpha[k] - Ki[i * n + k]);
			double r2 = sqdist(g, xi, xk);
			double sl = -0.5 * w * matern_slope(g->s2, r2);

			grad[D] += -0.5 * w * matern(g->s2, r2);
			for (d = 0; d < g->dim; d++) {
				double dl;

				if (g->choices[d]) {
					int K = g->choices[d];
					int a = (int)(xi[d] * K),
					    b = (int)(xk[d] * K);

					dl = (a < K ? a : K - 1) !=
							     (b < K ? b : K - 1)
						     ? 2
						     : 0;
				} else {
					dl = xi[d] - xk[d];
					dl *= dl;
				}
				grad[d] += sl * g->eta2[d] * dl;
			}
		}
	}
	return DEHBQ_OK;
}

int gp_nll_grad(struct gp *g, double *grad)
{
	return g->ready ? nll_grad(g, grad) : DEHBQ_ESTATE;
}

/* -log Gamma(v; a, b) at v = exp(sign * t), constants dropped, and its
 * derivative over t added to *d. */
static double gamma_nll(double t, double sign, double a, double b, double *d)
{
	double v = exp(sign * t);

	if (d)
		*d += sign * (b * v - (a - 1));
	return b * v - (a - 1) * sign * t;
}

double gp_prior_nll(int dim, const double *theta, double *grad)
{
	double v = 0;
	int d;

	for (d = 0; d < dim; d++) /* the lengthscale is 1 / eta */
		v += gamma_nll(theta[d], -1, 3, 6, grad ? grad + d : NULL);
	v += gamma_nll(theta[dim], 1, 2, 0.15, grad ? grad + dim : NULL);
	v += gamma_nll(theta[dim + 1], 1, 1.1, 0.05,
		       grad ? grad + dim + 1 : NULL);
	return v;
}

static double nll_cb(unsigned m, const double *th, double *grad, void *ctx)
{
	struct gp *g = ctx;
	double v;

	use_theta(g, th);
	if (condition(g) || !isfinite(g->nll) || (grad && nll_grad(g, grad))) {
		if (grad)
			memset(grad, 0, m * sizeof(double));
		return GP_BAD_NLL;
	}
	v = g->nll;
	if (g->prior)
		v += gp_prior_nll(g->dim, th, grad);
	if (v < g->best_nll) {
		g->best_nll = v;
		memcpy(g->best_theta, th, m * sizeof(double));
	}
	return v;
}

static void random_start(int dim, struct rng *r, double *th)
{
	int d;

	for (d = 0; d < dim; d++) /* eta in [0.1, 10] */
		th[d] = log(0.1) + rng_uniform(r) * 2 * log(10.0);
	th[dim] = log(0.1) + rng_uniform(r) * 2 * log(10.0);
	th[dim + 1] = log(1e-6) + rng_uniform(r) * 6 * log(10.0);
}

int gp_fit(struct gp *g, const double *x, const double *y, size_t n,
	   struct rng *r, const struct gp_fit_params *p)
{
	unsigned m = (unsigned)g->dim + 2;
	double *lo = NULL, *hi = NULL, *th = NULL, val;
	nlopt_opt opt = NULL;
	int rc, k;

	if ((rc = set_data(g, x, y, n)))
		return rc;
	lo = malloc(m * sizeof(double));
	hi = malloc(m * sizeof(double));
	th = malloc(m * sizeof(double));
	opt = nlopt_create(NLOPT_LD_LBFGS, m);
	rc = DEHBQ_ENOMEM;
	if (!lo || !hi || !th || !opt)
		goto out;
	gp_theta_box(g->dim, lo, hi);
	nlopt_set_lower_bounds(opt, lo);
	nlopt_set_upper_bounds(opt, hi);
	nlopt_set_min_objective(opt, nll_cb, g);
	nlopt_set_maxeval(opt, p->maxeval);
	nlopt_set_ftol_rel(opt, p->ftol);
	g->prior = p->prior;
	g->best_nll = GP_BAD_NLL;
	memcpy(g->best_theta, g->theta, m * sizeof(double));
	memcpy(th, g->theta, m * sizeof(double));
	for (k = 0; k < p->restarts; k++) {
		if (k)
			random_start(g->dim, r, th);
		nlopt_optimize(opt, th, &val); /* the callback keeps the best */
	}
	use_theta(g, g->best_theta);
	rc = condition(g);
out:
	nlopt_destroy(opt);
	free(lo);
	free(hi);
	free(th);
	return rc;
}

/* ---- the posterior ---- */

int gp_predict(struct gp *g, const double *xs, size_t m, double *mu,
	       double *var)
{
	size_t n = g->n, D = (size_t)g->dim, j0, i, j;

	if (!g->ready)
		return DEHBQ_ESTATE;
	for (j0 = 0; j0 < m; j0 += GP_CHUNK) {
		size_t b = m - j0 < GP_CHUNK ? m - j0 : GP_CHUNK;
		double *V = g->work; /* n x b: k(X, xs) then L^-1 of it */

		for (i = 0; i < n; i++)
			for (j = 0; j < b; j++)
				V[i * b + j] = matern(
					g->s2, sqdist(g, g->x + i * D,
						      xs + (j0 + j) * D));
		cblas_dgemv(CblasRowMajor, CblasTrans, (int)n, (int)b, 1.0, V,
			    (int)b, g->alpha, 1, 0.0, mu + j0, 1);
		cblas_dtrsm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans,
			    CblasNonUnit, (int)n, (int)b, 1.0, g->L, (int)n, V,
			    (int)b);
		for (j = 0; j < b; j++)
			var[j0 + j] = g->s2;
		for (i = 0; i < n; i++)
			for (j = 0; j < b; j++)
				var[j0 + j] -= V[i * b + j] * V[i * b + j];
		for (j = 0; j < b; j++)
			var[j0 + j] = fmax(var[j0 + j], 0);
	}
	return DEHBQ_OK;
}

int gp_predict_grad(struct gp *g, const double *x, double *mu, double *var,
		    double *dmu, double *dvar)
{
	size_t n = g->n, D = (size_t)g->dim, i;
	double *k = g->kvec, *w = g->kvec + n;
	int d;

	if (!g->ready)
		return DEHBQ_ESTATE;
	for (i = 0; i < n; i++) {
		const double *xi = g->x + i * D;
		double r2 = sqdist(g, x, xi), sl = matern_slope(g->s2, r2);

		k[i] = matern(g->s2, r2);
		for (d = 0; d < g->dim; d++)
			g->dk[i * D + (size_t)d] =
				g->choices[d]
					? 0
					: sl * g->eta2[d] * (x[d] - xi[d]);
	}
	*mu = cblas_ddot((int)n, k, 1, g->alpha, 1);
	memcpy(w, k, n * sizeof(double));
	cblas_dtrsv(CblasRowMajor, CblasLower, CblasNoTrans, CblasNonUnit,
		    (int)n, g->L, (int)n, w, 1);
	*var = fmax(g->s2 - cblas_ddot((int)n, w, 1, w, 1), 0);
	cblas_dtrsv(CblasRowMajor, CblasLower, CblasTrans, CblasNonUnit, (int)n,
		    g->L, (int)n, w, 1); /* K^-1 k */
	cblas_dgemv(CblasRowMajor, CblasTrans, (int)n, (int)D, 1.0, g->dk,
		    (int)D, g->alpha, 1, 0.0, dmu, 1);
	cblas_dgemv(CblasRowMajor, CblasTrans, (int)n, (int)D, -2.0, g->dk,
		    (int)D, w, 1, 0.0, dvar, 1);
	return DEHBQ_OK;
}

int gp_sample(struct gp *g, const double *xs, size_t m, struct rng *r,
	      double *out)
{
	size_t n = g->n, D = (size_t)g->dim, i, j;
	double *C = NULL, *V = NULL, *z = NULL, jit = 1e-8;
	int rc = DEHBQ_ENOMEM, t;

	if (!g->ready)
		return DEHBQ_ESTATE;
	C = malloc(m * m * sizeof(double));
	V = malloc(n * m * sizeof(double));
	z = malloc(m * sizeof(double));
	if (!C || !V || !z)
		goto out;
	for (i = 0; i < n; i++)
		for (j = 0; j < m; j++)
			V[i * m + j] = matern(
				g->s2, sqdist(g, g->x + i * D, xs + j * D));
	cblas_dgemv(CblasRowMajor, CblasTrans, (int)n, (int)m, 1.0, V, (int)m,
		    g->alpha, 1, 0.0, out, 1);
	cblas_dtrsm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans,
		    CblasNonUnit, (int)n, (int)m, 1.0, g->L, (int)n, V, (int)m);
	for (i = 0; i < m; i++)
		z[i] = rng_normal(r);
	rc = DEHBQ_EINVAL;
	for (t = 0; t < GP_SAMPLE_TRY; t++, jit *= 10) {
		for (i = 0; i < m; i++) {
			for (j = 0; j < i; j++)
				C[i * m + j] =
					matern(g->s2, sqdist(g, xs + i * D,
							     xs + j * D));
			C[i * m + i] = g->s2 + jit * g->s2;
		}
		/* C -= V' V (lower triangle) */
		cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, (int)m,
			    (int)n, -1.0, V, (int)m, 1.0, C, (int)m);
		if (!LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', (lapack_int)m,
					 C, (lapack_int)m)) {
			rc = DEHBQ_OK;
			break;
		}
	}
	if (!rc)
		cblas_dtrmv(CblasRowMajor, CblasLower, CblasNoTrans,
			    CblasNonUnit, (int)m, C, (int)m, z, 1);
	for (i = 0; !rc && i < m; i++)
		out[i] += z[i];
out:
	free(C);
	free(V);
	free(z);
	return rc;
}
