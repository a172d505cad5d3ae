/*
 * pb2.c - owns PB2's explore step: the rows of segment improvements, the
 * time-varying model over them and the bandit's choice (pb2.h)
 */
#include "pb2.h"

#include "acq.h"
#include "err.h"
#include "gp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PB2_MAX_PEND 64 /* segments in flight the variance sees */

struct ck {
	int64_t job;
	double loss;
};

struct pb2 {
	int dim;
	double maxf;
	int *gch;   /* dim + 2: the model's choices (t and l0 first) */
	int *cont;  /* the model's continuous x coordinates (+ 2) */
	int *xcont; /* the same in x alone */
	int ncont;
	struct ck *ck; /* the ok segments' losses, by job */
	size_t nck, capck;
	/* the newest PB2_WINDOW rows, a ring */
	double t[PB2_WINDOW], l0[PB2_WINDOW], y[PB2_WINDOW];
	double *x; /* PB2_WINDOW x dim */
	size_t rows;
};

int pb2_new(int dim, const int *choices, double max_fidelity, struct pb2 **out)
{
	struct pb2 *p;
	int j;

	if (dim < 1 || !(max_fidelity > 0))
		return DEHBQ_EINVAL;
	if (!(p = calloc(1, sizeof(*p))))
		return DEHBQ_ENOMEM;
	p->dim = dim;
	p->maxf = max_fidelity;
	p->gch = calloc((size_t)dim + 2, sizeof(int));
	p->cont = calloc((size_t)dim, sizeof(int));
	p->xcont = calloc((size_t)dim, sizeof(int));
	p->x = calloc((size_t)PB2_WINDOW * (size_t)dim, sizeof(double));
	if (!p->gch || !p->cont || !p->xcont || !p->x) {
		pb2_free(p);
		return DEHBQ_ENOMEM;
	}
	for (j = 0; j < dim; j++) {
		p->gch[j + 2] = choices && choices[j] > 1 ? choices[j] : 0;
		if (!p->gch[j + 2]) {
			p->xcont[p->ncont] = j;
			p->cont[p->ncont++] = j + 2;
		}
	}
	*out = p;
	return DEHBQ_OK;
}

void pb2_free(struct pb2 *p)
{
	if (!p)
		return;
	free(p->gch);
	free(p->cont);
	free(p->xcont);
	free(p->ck);
	free(p->x);
	free(p);
}

size_t pb2_rows(const struct pb2 *p)
{
	return p->rows;
}

/* The index of job in p->ck, or where it goes. */
static size_t ck_find(const struct pb2 *p, int64_t job)
{
	size_t lo = 0, hi = p->nck;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->ck[mid].job < job)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int ck_put(struct pb2 *p, int64_t job, double loss)
{
	size_t i = ck_find(p, job);

	if (i < p->nck && p->ck[i].job == job) {
		p->ck[i].loss = loss;
		return DEHBQ_OK;
	}
	if (p->nck == p->capck) {
		size_t cap = p->capck ? 2 * p->capck : 64;
		struct ck *c = realloc(p->ck, cap * sizeof(*c));

		if (!c)
			return DEHBQ_ENOMEM;
		p->ck = c;
		p->capck = cap;
	}
	memmove(p->ck + i + 1, p->ck + i, (p->nck - i) * sizeof(*p->ck));
	p->ck[i].job = job;
	p->ck[i].loss = loss;
	p->nck++;
	return DEHBQ_OK;
}

int pb2_observe(struct pb2 *p, int64_t job, int64_t parent, const double *x,
		double t0, double t1, double l1)
{
	size_t i, k;
	int rc;

	if (!isfinite(l1) || !(t1 > t0))
		return DEHBQ_EINVAL;
	if ((rc = ck_put(p, job, l1)))
		return rc;
	if (parent < 0)
		return DEHBQ_OK;
	i = ck_find(p, parent);
	if (i == p->nck || p->ck[i].job != parent)
		return DEHBQ_OK;
	k = p->rows % PB2_WINDOW;
	p->t[k] = t1;
	p->l0[k] = p->ck[i].loss;
	p->y[k] = (l1 - p->ck[i].loss) / (t1 - t0);
	memcpy(p->x + k * (size_t)p->dim, x, (size_t)p->dim * sizeof(double));
	p->rows++;
	return DEHBQ_OK;
}

struct pb2_fit {
	size_t n, D;
	double *fx, *fy; /* (n + pending) x D, and their outputs */
	double lo, span; /* l0's scale over the window and the context */
};

/* The window's inputs and standardised outputs into f. */
static void inputs(const struct pb2 *p, double l0, struct pb2_fit *f)
{
	size_t i, D = f->D;
	double m = 0, v = 0, sd, hi = l0;

	f->lo = l0;
	for (i = 0; i < f->n; i++) {
		f->lo = fmin(f->lo, p->l0[i]);
		hi = fmax(hi, p->l0[i]);
		m += p->y[i];
	}
	f->span = hi > f->lo ? hi - f->lo : 1;
	m /= (double)f->n;
	for (i = 0; i < f->n; i++)
		v += (p->y[i] - m) * (p->y[i] - m);
	sd = f->n > 1 ? sqrt(v / (double)(f->n - 1)) : 0;
	if (!(sd > 1e-12) || !isfinite(sd))
		sd = 1;
	for (i = 0; i < f->n; i++) {
		double z = (p->y[i] - m) / sd;

		f->fx[i * D] = p->t[i] / p->maxf;
		f->fx[i * D + 1] = (p->l0[i] - f->lo) / f->span;
		memcpy(f->fx + i * D + 2, p->x + i * (size_t)p->dim,
		       (size_t)p->dim * sizeof(double));
		f->fy[i] = z < -2 ? -2 : z > 2 ? 2 : z;
	}
}

/* The candidates (ctx, x) into cand: dx, then uniform, then local. */
static void candidates(const struct pb2 *p, const double *ctx, const double *dx,
		       struct rng *r, double *xs, double *cand, size_t nc)
{
	size_t c, D = (size_t)p->dim + 2, half = nc / 2;
	struct acq_space xs_sp = {p->dim, p->xcont, p->ncont};
	const double *ctr = dx;
	int j;

	memcpy(xs, dx, (size_t)p->dim * sizeof(double));
	for (c = 1; c < half; c++)
		for (j = 0; j < p->dim; j++)
			xs[c * (size_t)p->dim + (size_t)j] = rng_uniform(r);
	acq_local(&ctr, 1, &xs_sp, r, xs + half * (size_t)p->dim, nc - half);
	for (c = 0; c < nc; c++) {
		cand[c * D] = ctx[0];
		cand[c * D + 1] = ctx[1];
		memcpy(cand + c * D + 2, xs + c * (size_t)p->dim,
		       (size_t)p->dim * sizeof(double));
	}
}

/* Fit on f's window, condition on the pending at the model's mean. */
static int model(struct gp *g, struct pb2_fit *f, const double *ctx,
		 const double *pend, size_t np, struct rng *r)
{
	struct gp_fit_params fp = {3, 200, 1e-6, 0};
	size_t i, D = f->D;
	int rc;

	if ((rc = gp_fit(g, f->fx, f->fy, f->n, r, &fp)) || !np)
		return rc;
	for (i = 0; i < np; i++) {
		double *row = f->fx + (f->n + i) * D;

		row[0] = ctx[0];
		row[1] = ctx[1];
		memcpy(row + 2, pend + i * (D - 2), (D - 2) * sizeof(double));
	}
	if ((rc = gp_predict(g, f->fx + f->n * D, np, f->fy + f->n,
			     f->fy + f->n + np)))
		return rc;
	return gp_condition(g, f->fx, f->fy, f->n + np);
}

int pb2_choose(struct pb2 *p, double t, double l0, const double *dx,
	       const double *pend, size_t npend,
	       int (*feasible)(void *arg, const double *vec), void *farg,
	       struct rng *r, double *vec)
{
	struct pb2_fit f = {0};
	struct acq_space sp;
	struct gp *g = NULL;
	size_t nc = PB2_CAND, D = (size_t)p->dim + 2;
	double ctx[2], *xs, *cand, *best, kappa;
	int rc, j;

	f.n = p->rows < PB2_WINDOW ? p->rows : PB2_WINDOW;
	if (f.n < PB2_MIN_ROWS)
		return DEHBQ_EAGAIN;
	if (!isfinite(l0))
		return DEHBQ_EINVAL;
	npend = npend < PB2_MAX_PEND ? npend : PB2_MAX_PEND;
	f.D = D;
	f.fx = malloc((f.n + npend) * D * sizeof(double));
	f.fy = malloc((f.n + 2 * npend) * sizeof(double)); /* + variances */
	xs = malloc(nc * (size_t)p->dim * sizeof(double));
	cand = malloc(nc * D * sizeof(double));
	best = malloc(D * sizeof(double));
	rc = f.fx && f.fy && xs && cand && best ? gp_new((int)D, p->gch, &g)
						: DEHBQ_ENOMEM;
	if (!rc) {
		inputs(p, l0, &f);
		ctx[0] = t / p->maxf;
		ctx[1] = (l0 - f.lo) / f.span;
		rc = model(g, &f, ctx, pend, npend, r);
		if (rc == DEHBQ_EINVAL) /* not positive definite: perturb */
			rc = DEHBQ_EAGAIN;
	}
	if (!rc) {
		candidates(p, ctx, dx, r, xs, cand, nc);
		sp.dim = (int)D;
		sp.cont = p->cont;
		sp.ncont = p->ncont;
		kappa = sqrt(0.2 + fmax(0, log(0.4 * (double)f.n)));
		rc = acq_lcb(g, cand, nc, &sp, kappa, best);
	}
	if (!rc) {
		for (j = 0; j < p->dim; j++) {
			double v = fmin(fmax(best[j + 2], 0), 1);
			int K = p->gch[j + 2];

			if (K) /* the middle of its bin */
				v = (fmin(floor(v * K), K - 1) + 0.5) / K;
			vec[j] = v;
		}
		if (feasible && !feasible(farg, vec))
			rc = DEHBQ_EAGAIN;
	}
	gp_free(g);
	free(f.fx);
	free(f.fy);
	free(xs);
	free(cand);
	free(best);
	return rc;
}
