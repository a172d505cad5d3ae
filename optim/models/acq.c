/*
 * acq.c - owns the acquisition functions of acq.h: expected improvement
 * and the confidence bound with their L-BFGS refinement, Thompson
 * sampling, and local candidates
 */
#include "acq.h"

#include "err.h"
#include "gp.h"
#include "normal.h"

#include <math.h>
#include <nlopt.h>
#include <stdlib.h>
#include <string.h>

static double ei(double ymin, double mu, double var, double *dmu, double *dvar);

double acq_ei_value(double ymin, double mu, double var)
{
	double dmu, dvar;

	return ei(ymin, mu, var, &dmu, &dvar);
}

/* Expected improvement below ymin, and its derivatives in mu and var. */
static double ei(double ymin, double mu, double var, double *dmu, double *dvar)
{
	double s = sqrt(var), v, cdf, pdf;

	if (!(s > 1e-12)) {
		*dmu = ymin > mu ? -1 : 0;
		*dvar = 0;
		return fmax(ymin - mu, 0);
	}
	v = (ymin - mu) / s;
	cdf = normal_cdf(v);
	pdf = normal_pdf(v);
	*dmu = -cdf;
	*dvar = pdf / (2 * s);
	return s * (v * cdf + pdf);
}

/* One refinement: the point, its continuous part and the gradients. */
struct eictx {
	struct gp *const *g; /* ng models: the value is their mean */
	size_t ng;
	const struct acq_space *sp;
	double ymin;
	double kappa; /* < 0: EI below ymin; else the bound -(mu - kappa s) */
	const struct acq_pen *pen;	    /* NULL: none */
	double *px, *pu, *dmu, *dvar, *dlp; /* dim each */
};

/*
 * The product of the penalisers at x, and (dlp not NULL) the gradient of
 * its log added to dlp (dim values).
 */
static double penalty(const struct acq_pen *p, const double *x, int dim,
		      double *dlp)
{
	double P = 1, d, z, cdf;
	size_t j;
	int k;

	for (j = 0; p && j < p->np; j++) {
		const double *xj = p->x + j * (size_t)dim;

		for (d = 0, k = 0; k < dim; k++)
			d += (x[k] - xj[k]) * (x[k] - xj[k]);
		d = sqrt(d);
		z = (p->L * d - p->r[j]) / p->s[j];
		cdf = normal_cdf(z);
		P *= cdf;
		if (!dlp || !(d > 0))
			continue;
		z = normal_pdf(z) / fmax(cdf, 1e-300) * p->L / p->s[j] / d;
		for (k = 0; k < dim; k++)
			dlp[k] += z * (x[k] - xj[k]);
	}
	return P;
}

/* The value to maximise at (mu, var), and its derivatives in mu and var. */
static double value(const struct eictx *c, double mu, double var, double *dmu,
		    double *dvar)
{
	double s = sqrt(fmax(var, 0));

	if (c->kappa < 0)
		return ei(c->ymin, mu, var, dmu, dvar);
	*dmu = -1;
	*dvar = s > 1e-12 ? c->kappa / (2 * s) : 0;
	return -(mu - c->kappa * s);
}

/* EI at px with the continuous coordinates u, for NLopt. */
static double ei_cb(unsigned m, const double *u, double *grad, void *ctx)
{
	struct eictx *c = ctx;
	const int *cont = c->sp->cont;
	double mu, var, a, b, e = 0;
	unsigned k;
	size_t i;

	for (k = 0; k < m; k++)
		c->px[cont[k]] = u[k];
	for (k = 0; grad && k < m; k++)
		grad[k] = 0;
	for (i = 0; i < c->ng; i++) {
		if (gp_predict_grad(c->g[i], c->px, &mu, &var, c->dmu,
				    c->dvar)) {
			if (grad)
				memset(grad, 0, m * sizeof(double));
			return 0;
		}
		e += value(c, mu, var, &a, &b);
		for (k = 0; grad && k < m; k++)
			grad[k] += a * c->dmu[cont[k]] + b * c->dvar[cont[k]];
	}
	e /= (double)c->ng;
	for (k = 0; grad && k < m; k++)
		grad[k] /= (double)c->ng;
	if (c->pen) { /* (e P)' = P (e' + e (log P)') */
		double P;

		memset(c->dlp, 0, (size_t)c->sp->dim * sizeof(double));
		P = penalty(c->pen, c->px, c->sp->dim, grad ? c->dlp : NULL);
		for (k = 0; grad && k < m; k++)
			grad[k] = P * (grad[k] + e * c->dlp[cont[k]]);
		e *= P;
	}
	return e;
}

/* L-BFGS on EI from x; if it beats *best, the point found into vec. */
static void refine(struct eictx *c, const double *x, double *best, double *vec)
{
	const struct acq_space *sp = c->sp;
	nlopt_opt opt;
	double val;
	int k;

	if (!sp->ncont ||
	    !(opt = nlopt_create(NLOPT_LD_LBFGS, (unsigned)sp->ncont)))
		return;
	memcpy(c->px, x, (size_t)sp->dim * sizeof(double));
	nlopt_set_lower_bounds1(opt, 0);
	nlopt_set_upper_bounds1(opt, 1);
	nlopt_set_max_objective(opt, ei_cb, c);
	nlopt_set_maxeval(opt, ACQ_REFINE_EV);
	nlopt_set_ftol_rel(opt, 1e-9);
	for (k = 0; k < sp->ncont; k++)
		c->pu[k] = x[sp->cont[k]];
	if (nlopt_optimize(opt, c->pu, &val) > 0 && val > *best) {
		*best = val;
		memcpy(vec, x, (size_t)sp->dim * sizeof(double));
		for (k = 0; k < sp->ncont; k++)
			vec[sp->cont[k]] = fmin(fmax(c->pu[k], 0), 1);
	}
	nlopt_destroy(opt);
}

/* The candidate of best value, refined from the best ACQ_REFINE. */
static int best_of(struct eictx ec, const double *cand, size_t nc, double *vec)
{
	const struct acq_space *sp = ec.sp;
	size_t c, i, top[ACQ_REFINE] = {0}, nt = 0, D = (size_t)sp->dim;
	double *mu = malloc(nc * sizeof(double)), *var, *val, *scratch, best, a,
	       b;
	int rc = DEHBQ_ENOMEM;

	var = malloc(nc * sizeof(double));
	val = calloc(nc, sizeof(double));
	scratch = malloc(5 * D * sizeof(double));
	if (!nc)
		rc = DEHBQ_EINVAL;
	if (!mu || !var || !val || !scratch || !nc)
		goto out;
	ec.px = scratch;
	ec.pu = scratch + D;
	ec.dmu = scratch + 2 * D;
	ec.dvar = scratch + 3 * D;
	ec.dlp = scratch + 4 * D;
	for (i = 0; i < ec.ng; i++) {
		if ((rc = gp_predict(ec.g[i], cand, nc, mu, var)))
			goto out;
		for (c = 0; c < nc; c++)
			val[c] += value(&ec, mu[c], var[c], &a, &b);
	}
	for (c = 0; c < nc; c++) /* the mean value into mu */
		mu[c] = val[c] / (double)ec.ng *
			penalty(ec.pen, cand + c * D, sp->dim, NULL);
	for (c = 0; c < nc; c++) { /* the best few, best first */
		size_t k = nt < ACQ_REFINE ? nt++ : ACQ_REFINE;

		if (k == ACQ_REFINE && !(mu[c] > mu[top[k - 1]]))
			continue;
		if (k == ACQ_REFINE)
			k--;
		for (; k > 0 && mu[c] > mu[top[k - 1]]; k--)
			top[k] = top[k - 1];
		top[k] = c;
	}
	best = mu[top[0]];
	memcpy(vec, cand + top[0] * D, D * sizeof(double));
	for (i = 0; i < nt; i++)
		refine(&ec, cand + top[i] * D, &best, vec);
out:
	free(mu);
	free(var);
	free(val);
	free(scratch);
	return rc;
}

int acq_ei(struct gp *g, const double *cand, size_t nc,
	   const struct acq_space *sp, double ymin, double *vec)
{
	return acq_ei_mean(&g, 1, cand, nc, sp, ymin, vec);
}

int acq_ei_mean(struct gp *const *g, size_t ng, const double *cand, size_t nc,
		const struct acq_space *sp, double ymin, double *vec)
{
	struct eictx ec = {
		.g = g, .ng = ng, .sp = sp, .ymin = ymin, .kappa = -1};

	return ng ? best_of(ec, cand, nc, vec) : DEHBQ_EINVAL;
}

int acq_ei_pen(struct gp *g, const double *cand, size_t nc,
	       const struct acq_space *sp, double ymin,
	       const struct acq_pen *pen, double *vec)
{
	struct eictx ec = {.g = &g,
			   .ng = 1,
			   .sp = sp,
			   .ymin = ymin,
			   .kappa = -1,
			   .pen = pen};

	return best_of(ec, cand, nc, vec);
}

double acq_ei_pen_at(struct gp *g, const struct acq_space *sp, double ymin,
		     const struct acq_pen *pen, const double *x, double *grad)
{
	size_t D = (size_t)sp->dim;
	double *scratch = malloc(5 * D * sizeof(double)), e = 0;
	struct eictx ec = {.g = &g,
			   .ng = 1,
			   .sp = sp,
			   .ymin = ymin,
			   .kappa = -1,
			   .pen = pen};
	int k;

	if (!scratch)
		return 0;
	ec.px = scratch;
	ec.pu = scratch + D;
	ec.dmu = scratch + 2 * D;
	ec.dvar = scratch + 3 * D;
	ec.dlp = scratch + 4 * D;
	memcpy(ec.px, x, D * sizeof(double));
	for (k = 0; k < sp->ncont; k++)
		ec.pu[k] = x[sp->cont[k]];
	e = ei_cb((unsigned)sp->ncont, ec.pu, grad, &ec);
	free(scratch);
	return e;
}

int acq_lipschitz(struct gp *g, const double *cand, size_t nc, int dim,
		  double *L)
{
	double *dmu = malloc(2 * (size_t)dim * sizeof(double)), mu, var, n2;
	size_t c;
	int k, rc = dmu ? DEHBQ_OK : DEHBQ_ENOMEM;

	*L = 0;
	for (c = 0; !rc && c < nc; c++) {
		rc = gp_predict_grad(g, cand + c * (size_t)dim, &mu, &var, dmu,
				     dmu + dim);
		for (n2 = 0, k = 0; !rc && k < dim; k++)
			n2 += dmu[k] * dmu[k];
		*L = fmax(*L, sqrt(n2));
	}
	if (!(*L >= 1e-7))
		*L = ACQ_PEN_LFLAT;
	free(dmu);
	return rc;
}

int acq_lcb(struct gp *g, const double *cand, size_t nc,
	    const struct acq_space *sp, double kappa, double *vec)
{
	struct eictx ec = {.g = &g, .ng = 1, .sp = sp, .kappa = fmax(kappa, 0)};

	return best_of(ec, cand, nc, vec);
}

double acq_ucb_kappa(size_t nc, size_t t)
{
	double tt = (double)(t ? t : 1);

	return sqrt(2 *
		    log((double)(nc ? nc : 1) * tt * tt *
			3.14159265358979323846 * 3.14159265358979323846 /
			(6 * ACQ_UCB_DELTA)) /
		    ACQ_UCB_SCALE);
}

int acq_ts(struct gp *g, const double *cand, size_t nc,
	   const struct acq_space *sp, struct rng *r, double *vec)
{
	double *f = malloc(nc * sizeof(double));
	size_t c, best = 0;
	int rc = nc ? DEHBQ_ENOMEM : DEHBQ_EINVAL;

	if (f && nc && !(rc = gp_sample(g, cand, nc, r, f))) {
		for (c = 1; c < nc; c++)
			if (f[c] < f[best])
				best = c;
		memcpy(vec, cand + best * (size_t)sp->dim,
		       (size_t)sp->dim * sizeof(double));
	}
	free(f);
	return rc;
}

void acq_local(const double *const *centres, size_t k,
	       const struct acq_space *sp, struct rng *r, double *cand,
	       size_t n)
{
	size_t c, D = (size_t)sp->dim, ncat = D - (size_t)sp->ncont;
	double span = log(ACQ_LOCAL_SMAX / ACQ_LOCAL_SMIN);

	for (c = 0; k && c < n; c++) {
		const double *x = centres[(size_t)(rng_uniform(r) * (double)k)];
		double *v = cand + c * D,
		       sg = ACQ_LOCAL_SMIN * exp(rng_uniform(r) * span);
		size_t d;
		int j = 0; /* the next continuous coordinate in sp->cont */

		for (d = 0; d < D; d++) {
			if (j < sp->ncont && (size_t)sp->cont[j] == d) {
				j++;
				v[d] = fmin(fmax(x[d] + sg * rng_normal(r), 0),
					    1);
			} else {
				v[d] = rng_uniform(r) * (double)ncat < 1
					       ? rng_uniform(r)
					       : x[d];
			}
		}
	}
}
