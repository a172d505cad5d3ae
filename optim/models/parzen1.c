/*
 * parzen1.c - owns the one-dimensional Parzen estimator of univariate TPE
 * (parzen1.h): its fit, density and draws
 */
#include "parzen1.h"

#include "normal.h"
#include "rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PARZEN1_SIGMA_MAX 1.0 /* the range of the unit interval */
#define PARZEN1_TN_TRIES  64  /* rejection draws before clipping */
#define PARZEN1_REACH                                                          \
	9 /* sigmas beyond which a kernel is left out:                         \
	     phi(9) / phi(0) < 3e-18, below a double's                         \
	     resolution of the sum */

static int cmp_kern(const void *a, const void *b)
{
	const struct parzen1_kern *x = a, *y = b;

	if (x->mu != y->mu)
		return x->mu < y->mu ? -1 : 1;
	if (x->inv != y->inv)
		return x->inv < y->inv ? -1 : 1;
	return x->coef < y->coef ? -1 : x->coef > y->coef;
}

/* w / (sigma mass): the kernel's density factor, truncated to [0, 1] */
static double kern_coef(double mu, double sg, double w)
{
	double mass = normal_cdf((1 - mu) / sg) - normal_cdf(-mu / sg);

	return w / sg / fmax(mass, 1e-300);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The larger gap from v to its neighbours in the sorted means srt[0..k-1]
 * (copies of v skipped; at either end, the one neighbour there is).
 */
static double neighbour_gap(const double *srt, size_t k, double v)
{
	size_t lo = 0, hi = k;
	double gap = 0;

	while (lo < hi) { /* the first mean >= v */
		size_t mid = lo + (hi - lo) / 2;

		if (srt[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0)
		gap = v - srt[lo - 1];
	while (lo < k && srt[lo] == v)
		lo++;
	if (lo < k)
		gap = fmax(gap, srt[lo] - v);
	return gap;
}

void parzen1_fit(struct parzen1 *e, const struct parzen1_buf *b, int K,
		 size_t m, double prior_w)
{
	size_t i, k = m + 1;
	double tot = 0, smin;

	e->K = K > 1 ? K : 0;
	e->mu = b->mu;
	e->sig = b->sig;
	e->w = b->w;
	if (e->K) {
		e->w = b->cat;
		for (i = 0; i < (size_t)e->K; i++)
			e->w[i] = prior_w / e->K;
		for (i = 0; i < m; i++) {
			int bin = (int)floor(b->mu[i] * e->K);

			e->w[bin < e->K ? bin : e->K - 1] += b->w[i];
		}
		for (i = 0; i < (size_t)e->K; i++)
			tot += e->w[i];
		for (i = 0; i < (size_t)e->K; i++)
			e->w[i] /= tot;
		e->p = e->w;
		e->k = (size_t)e->K;
		return;
	}
	/* kernels: the points, then the prior, then sigmas from neighbours */
	e->mu[m] = 0.5;
	e->w[m] = prior_w;
	for (i = 0; i < k; i++)
		tot += e->w[i];
	for (i = 0; i < k; i++)
		e->w[i] /= tot;
	memcpy(b->srt, e->mu, k * sizeof(double));
	qsort(b->srt, k, sizeof(double), cmp_dbl);
	smin = PARZEN1_SIGMA_MAX / fmin(100.0, 1.0 + (double)k);
	for (i = 0; i < m; i++) {
		e->sig[i] = neighbour_gap(b->srt, k, e->mu[i]);
		e->sig[i] = fmin(fmax(e->sig[i], smin), PARZEN1_SIGMA_MAX);
	}
	e->sig[m] = PARZEN1_SIGMA_MAX; /* the prior: the whole range */
	e->k = k;
	e->p = NULL;
	/* the densities' form: point kernels sorted by mean, and their reach */
	e->kern = b->kern;
	e->reach = 0;
	for (i = 0; i < m; i++) {
		e->kern[i].mu = e->mu[i];
		e->kern[i].inv = 1 / e->sig[i];
		e->kern[i].coef = kern_coef(e->mu[i], e->sig[i], e->w[i]);
		e->reach = fmax(e->reach, PARZEN1_REACH * e->sig[i]);
	}
	qsort(e->kern, m, sizeof(*e->kern), cmp_kern);
	e->prior = kern_coef(0.5, PARZEN1_SIGMA_MAX, e->w[m]);
}

double parzen1_density(const struct parzen1 *e, double v)
{
	double s = 0;
	size_t i;

	if (e->K) {
		int b = (int)floor(v * e->K);

		return e->p[b < e->K ? b : e->K - 1];
	}
	size_t lo = 0, hi = e->k - 1; /* the first kernel in reach */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->kern[mid].mu < v - e->reach)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i + 1 < e->k && e->kern[i].mu <= v + e->reach; i++)
		s += e->kern[i].coef *
		     normal_pdf((v - e->kern[i].mu) * e->kern[i].inv);
	return s + e->prior * normal_pdf((v - 0.5) / PARZEN1_SIGMA_MAX);
}

double parzen1_sample(const struct parzen1 *e, struct rng *r)
{
	double u = rng_uniform(r), c = 0, v;
	size_t i;
	int k;

	for (i = 0; i + 1 < e->k; i++) { /* the component, by weight */
		c += e->w[i];
		if (u < c)
			break;
	}
	if (e->K)
		return ((double)i + 0.5) / e->K;
	for (k = 0; k < PARZEN1_TN_TRIES; k++) { /* truncated to [0, 1] */
		v = e->mu[i] + e->sig[i] * rng_normal(r);
		if (v >= 0 && v <= 1)
			return v;
	}
	return fmin(fmax(v, 0), 1);
}
