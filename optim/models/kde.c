/*
 * kde.c - owns BOHB's model (kde.h): per-level results, the good/bad split,
 * the product-kernel densities and the l/g proposals
 */
#include "kde.h"

#include "err.h"
#include "hb.h"
#include "normal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KDE_FLOOR 1e-32
#define KDE_TRIES 64 /* truncated-normal rejection draws before clipping */

struct level {
	size_t n, cap;
	double *x;    /* n * dim */
	double *loss; /* n, +inf for failures */
};

struct kde {
	int dim, nlevels;
	int *choices; /* per dimension, 0 = continuous */
	struct kde_params p;
	struct rng rng;
	struct level lv[HB_MAX_LEVELS];
	/* scratch for one proposal */
	size_t *ord; /* finite results of the model's level */
	size_t cap_ord;
	double *bw_l, *bw_g; /* bandwidths, dim each */
	double *cand;	     /* dim */
};

void kde_params_init(struct kde_params *p)
{
	p->top_n_percent = 15;
	p->num_samples = 64;
	p->random_fraction = 1.0 / 3.0;
	p->bandwidth_factor = 3;
	p->min_bandwidth = 1e-3;
}

void kde_free(struct kde *k)
{
	int l;

	if (!k)
		return;
	for (l = 0; l < HB_MAX_LEVELS; l++) {
		free(k->lv[l].x);
		free(k->lv[l].loss);
	}
	free(k->choices);
	free(k->ord);
	free(k->bw_l);
	free(k->bw_g);
	free(k->cand);
	free(k);
}

int kde_new(int dim, const int *choices, int nlevels,
	    const struct kde_params *p, uint64_t seed, struct kde **out)
{
	struct kde *k = calloc(1, sizeof(*k));
	int i;

	*out = NULL;
	if (!k)
		return DEHBQ_ENOMEM;
	if (nlevels < 1 || nlevels > HB_MAX_LEVELS || dim < 1) {
		free(k);
		return DEHBQ_EINVAL;
	}
	k->dim = dim;
	k->nlevels = nlevels;
	k->p = *p;
	k->choices = calloc((size_t)dim, sizeof(int));
	k->bw_l = calloc((size_t)dim, sizeof(double));
	k->bw_g = calloc((size_t)dim, sizeof(double));
	k->cand = calloc((size_t)dim, sizeof(double));
	if (!k->choices || !k->bw_l || !k->bw_g || !k->cand) {
		kde_free(k);
		return DEHBQ_ENOMEM;
	}
	for (i = 0; choices && i < dim; i++)
		k->choices[i] = choices[i];
	rng_seed(&k->rng, seed);
	*out = k;
	return DEHBQ_OK;
}

struct rng *kde_rng(struct kde *k)
{
	return &k->rng;
}

int64_t kde_count(const struct kde *k, int level)
{
	return level >= 0 && level < k->nlevels ? (int64_t)k->lv[level].n : 0;
}

int kde_observe(struct kde *k, int level, const double *x, double loss)
{
	struct level *v;

	if (level < 0 || level >= k->nlevels)
		return DEHBQ_EINVAL;
	v = &k->lv[level];
	if (v->n == v->cap) {
		size_t c = v->cap ? v->cap * 2 : 32;
		double *nx = realloc(v->x, c * (size_t)k->dim * sizeof(double));
		double *nl;

		if (!nx)
			return DEHBQ_ENOMEM;
		v->x = nx;
		if (!(nl = realloc(v->loss, c * sizeof(double))))
			return DEHBQ_ENOMEM;
		v->loss = nl;
		v->cap = c;
	}
	if (k->cap_ord < v->n + 1) {
		size_t c = k->cap_ord ? k->cap_ord * 2 : 32;
		size_t *o;

		while (c < v->n + 1)
			c *= 2;
		if (!(o = realloc(k->ord, c * sizeof(size_t))))
			return DEHBQ_ENOMEM;
		k->ord = o;
		k->cap_ord = c;
	}
	memcpy(v->x + v->n * (size_t)k->dim, x,
	       (size_t)k->dim * sizeof(double));
	v->loss[v->n++] = loss;
	return DEHBQ_OK;
}

int kde_set_loss(struct kde *k, int level, int64_t i, double loss)
{
	if (level < 0 || level >= k->nlevels || i < 0 ||
	    (size_t)i >= k->lv[level].n)
		return DEHBQ_EINVAL;
	k->lv[level].loss[i] = loss;
	return DEHBQ_OK;
}

/* The value of dimension d of a point: a bin index for K choices. */
static double coord(const struct kde *k, const double *x, int d)
{
	int K = k->choices[d];

	if (K > 1) {
		int b = (int)floor(x[d] * K);

		return b < K ? b : K - 1;
	}
	return x[d];
}

static int cmp_loss(const void *a, const void *b, void *ctx)
{
	const double *loss = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (loss[i] != loss[j])
		return loss[i] < loss[j] ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* Normal-reference bandwidths of points ord[0..n-1] of v into bw. */
static void bandwidths(const struct kde *k, const struct level *v,
		       const size_t *ord, size_t n, double *bw)
{
	double f = 1.06 * pow((double)n, -1.0 / (4.0 + k->dim));
	int d;

	for (d = 0; d < k->dim; d++) {
		double s = 0, q = 0, m, sd;
		size_t i;

		for (i = 0; i < n; i++)
			s += coord(k, v->x + ord[i] * (size_t)k->dim, d);
		m = s / (double)n;
		for (i = 0; i < n; i++) {
			double c = coord(k, v->x + ord[i] * (size_t)k->dim, d);

			q += (c - m) * (c - m);
		}
		sd = sqrt(q / (double)n);
		bw[d] = fmax(f * sd, k->p.min_bandwidth);
		if (k->choices[d] > 1) /* Aitchison-Aitken: lambda < (K-1)/K */
			bw[d] = fmin(bw[d],
				     (k->choices[d] - 1.0) / k->choices[d]);
	}
}

/* Density at x of the product-kernel KDE over points ord[0..n-1]. */
static double density(const struct kde *k, const struct level *v,
		      const size_t *ord, size_t n, const double *bw,
		      const double *x)
{
	double s = 0;
	size_t i;
	int d;

	for (i = 0; i < n; i++) {
		const double *y = v->x + ord[i] * (size_t)k->dim;
		double p = 1;

		for (d = 0; d < k->dim && p > 0; d++) {
			double a = coord(k, x, d), b = coord(k, y, d);
			int K = k->choices[d];

			if (K > 1)
				p *= a == b ? 1 - bw[d] : bw[d] / (K - 1);
			else
				p *= normal_pdf((a - b) / bw[d]) / bw[d];
		}
		s += p;
	}
	return s / (double)n;
}

/* The level whose model proposes: the largest with enough results. */
static int model_level(struct kde *k, size_t *nf, size_t *ng, size_t *nb)
{
	size_t minp = (size_t)k->dim + 1;
	int l;

	for (l = k->nlevels - 1; l >= 0; l--) {
		struct level *v = &k->lv[l];
		size_t i, f = 0, g, b;

		if (v->n <= minp)
			continue;
		for (i = 0; i < v->n; i++)
			if (isfinite(v->loss[i]))
				k->ord[f++] = i;
		g = (size_t)floor(k->p.top_n_percent * (double)f / 100.0);
		b = (size_t)floor((100 - k->p.top_n_percent) * (double)f /
				  100.0);
		g = g > minp ? g : minp;
		b = b > minp ? b : minp;
		if (g + b > f) /* as the reference: no overlap */
			b = f > g ? f - g : 0;
		if (g > f || b < 1)
			continue;
		qsort_r(k->ord, f, sizeof(size_t), cmp_loss, v->loss);
		*nf = f;
		*ng = g;
		*nb = b;
		return l;
	}
	return -1;
}

static double trunc_normal(struct rng *r, double mu, double sd)
{
	double v = mu;
	int i;

	for (i = 0; i < KDE_TRIES; i++) {
		v = mu + sd * rng_normal(r);
		if (v >= 0 && v <= 1)
			return v;
	}
	return fmin(fmax(v, 0), 1);
}

int kde_propose(struct kde *k, double *x)
{
	size_t nf = 0, ng = 0, nb = 0;
	double best = -1;
	int l, s, d;

	l = rng_uniform(&k->rng) < k->p.random_fraction
		    ? -1
		    : model_level(k, &nf, &ng, &nb);
	if (l < 0) {
		for (d = 0; d < k->dim; d++)
			x[d] = rng_uniform(&k->rng);
		return DEHBQ_OK;
	}
	bandwidths(k, &k->lv[l], k->ord, ng, k->bw_l);
	bandwidths(k, &k->lv[l], k->ord + ng, nb, k->bw_g);
	for (s = 0; s < k->p.num_samples; s++) {
		const struct level *v = &k->lv[l];
		const double *g =
			v->x + k->ord[rng_below(&k->rng, ng)] * (size_t)k->dim;
		double lx, gx, val;

		for (d = 0; d < k->dim; d++) {
			int K = k->choices[d];

			if (K <= 1)
				k->cand[d] = trunc_normal(
					&k->rng, g[d],
					k->p.bandwidth_factor * k->bw_l[d]);
			else if (rng_uniform(&k->rng) < 1 - k->bw_l[d])
				k->cand[d] = g[d];
			else
				k->cand[d] = ((double)rng_below(&k->rng,
								(uint64_t)K) +
					      0.5) /
					     K;
		}
		lx = fmax(density(k, v, k->ord, ng, k->bw_l, k->cand),
			  KDE_FLOOR);
		gx = fmax(density(k, v, k->ord + ng, nb, k->bw_g, k->cand),
			  KDE_FLOOR);
		val = lx / gx;
		if (val > best) {
			best = val;
			memcpy(x, k->cand, (size_t)k->dim * sizeof(double));
		}
	}
	return DEHBQ_OK;
}
