/*
 * forest.c - owns the regression forest and its functional ANOVA
 * (forest.h): growing a tree on a bootstrap sample, and the exact
 * variance decomposition of its leaves
 */
#include "forest.h"

#include "err.h"
#include "rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What one tree is grown from, and its leaves as boxes. */
struct grow {
	const double *x, *y; /* the points, borrowed */
	int dim, max_depth;
	int *idx;	 /* the node samples, partitioned in place */
	int *tmp;	 /* scratch for a partition */
	int *ord;	 /* scratch for sorting one dimension */
	double *lo, *hi; /* the current node's box */
	int nleaf, capleaf;
	double *leaf; /* per leaf: value, then lo[dim], hi[dim] */
};

/* qsort_r's context: sort sample indices by dimension j */
struct by {
	const double *x;
	int j, dim;
};

static int by_x(const void *a, const void *b, void *arg)
{
	const struct by *c = arg;
	double u = c->x[(size_t) * (const int *)a * c->dim + c->j];
	double v = c->x[(size_t) * (const int *)b * c->dim + c->j];

	if (u != v)
		return u < v ? -1 : 1;
	return *(const int *)a - *(const int *)b;
}

static int add_leaf(struct grow *g, double value)
{
	size_t w = 1 + 2 * (size_t)g->dim;
	double *l;

	if (g->nleaf == g->capleaf) {
		int cap = g->capleaf ? 2 * g->capleaf : 64;
		double *t = realloc(g->leaf, (size_t)cap * w * sizeof(*t));

		if (!t)
			return DEHBQ_ENOMEM;
		g->leaf = t;
		g->capleaf = cap;
	}
	l = g->leaf + (size_t)g->nleaf++ * w;
	l[0] = value;
	memcpy(l + 1, g->lo, (size_t)g->dim * sizeof(double));
	memcpy(l + 1 + g->dim, g->hi, (size_t)g->dim * sizeof(double));
	return DEHBQ_OK;
}

/*
 * The best split of the samples idx[0..m): dimension *bd and threshold
 * *bt, or *bd -1 when none (all points equal).  Minimising the squared
 * error is maximising sumL^2 / nL + sumR^2 / nR.
 */
static void best_split(struct grow *g, const int *idx, int m, double sum,
		       int *bd, double *bt)
{
	double best = -INFINITY;
	int j, i;

	*bd = -1;
	for (j = 0; j < g->dim; j++) {
		struct by c = {g->x, j, g->dim};
		double sl = 0;

		memcpy(g->ord, idx, (size_t)m * sizeof(int));
		qsort_r(g->ord, (size_t)m, sizeof(int), by_x, &c);
		for (i = 1; i < m; i++) {
			double a = g->x[(size_t)g->ord[i - 1] * g->dim + j];
			double b = g->x[(size_t)g->ord[i] * g->dim + j];
			double sr, score;

			sl += g->y[g->ord[i - 1]];
			if (!(a < b))
				continue;
			sr = sum - sl;
			score = sl * sl / i + sr * sr / (m - i);
			if (score > best) {
				best = score;
				*bd = j;
				*bt = a + (b - a) / 2;
				if (!(*bt < b)) /* neighbours: the midpoint
						   rounds up to b */
					*bt = a;
			}
		}
	}
}

/* Grow the node of samples idx[0..m) at depth. */
static int grow(struct grow *g, int *idx, int m, int depth)
{
	double sum = 0, ymin = INFINITY, ymax = -INFINITY, t = 0, keep;
	int i, d, nl = 0, nr = 0, rc;

	for (i = 0; i < m; i++) {
		double v = g->y[idx[i]];

		sum += v;
		ymin = v < ymin ? v : ymin;
		ymax = v > ymax ? v : ymax;
	}
	d = -1;
	if (m >= 2 && depth < g->max_depth && ymin < ymax)
		best_split(g, idx, m, sum, &d, &t);
	if (d < 0)
		return add_leaf(g, sum / m);
	/* a stable partition: left keeps its order, then right */
	for (i = 0; i < m; i++)
		if (g->x[(size_t)idx[i] * g->dim + d] <= t)
			idx[nl++] = idx[i];
		else
			g->tmp[nr++] = idx[i];
	memcpy(idx + nl, g->tmp, (size_t)nr * sizeof(int));
	keep = g->hi[d];
	g->hi[d] = t;
	rc = grow(g, idx, nl, depth + 1);
	g->hi[d] = keep;
	if (rc)
		return rc;
	keep = g->lo[d];
	g->lo[d] = t;
	rc = grow(g, idx + nl, nr, depth + 1);
	g->lo[d] = keep;
	return rc;
}

static int cmp_double(const void *a, const void *b)
{
	double u = *(const double *)a, v = *(const double *)b;

	return u < v ? -1 : u > v;
}

/* Index of v in the sorted cuts c[0..k). */
static int cut_at(const double *c, int k, double v)
{
	const double *p = bsearch(&v, c, (size_t)k, sizeof(*c), cmp_double);

	return p ? (int)(p - c) : 0; /* v is always there */
}

/*
 * The tree's variance V and each dimension's main-effect variance f[j]
 * (as a fraction of V), from its leaves.  cuts and acc are scratch of
 * 2 * nleaf + 1 doubles.  0 when the tree is constant (V = 0).
 */
static int decompose(const struct grow *g, double *f, double *cuts, double *acc,
		     double *vol)
{
	size_t w = 1 + 2 * (size_t)g->dim;
	double mean = 0, var = 0;
	int l, j, k, q, cut;

	for (l = 0; l < g->nleaf; l++) {
		const double *L = g->leaf + (size_t)l * w;

		vol[l] = 1;
		for (j = 0; j < g->dim; j++)
			vol[l] *= L[1 + g->dim + j] - L[1 + j];
		mean += vol[l] * L[0];
	}
	for (l = 0; l < g->nleaf; l++) {
		const double *L = g->leaf + (size_t)l * w;

		var += vol[l] * (L[0] - mean) * (L[0] - mean);
	}
	if (!(var > 0))
		return 0;
	for (j = 0; j < g->dim; j++) {
		double a = 0, vj = 0;

		for (l = k = cut = 0; l < g->nleaf; l++) {
			const double *L = g->leaf + (size_t)l * w;

			cuts[k++] = L[1 + j];
			cuts[k++] = L[1 + g->dim + j];
			cut |= L[1 + j] > 0 || L[1 + g->dim + j] < 1;
		}
		f[j] = 0;
		if (!cut) /* no split on j: a_j is the mean everywhere */
			continue;
		qsort(cuts, (size_t)k, sizeof(*cuts), cmp_double);
		for (l = q = 0; l < k; l++)
			if (!q || cuts[l] != cuts[q - 1])
				cuts[q++] = cuts[l];
		memset(acc, 0, (size_t)q * sizeof(*acc));
		/* a leaf adds v * vol / width_j to a_j over [lo_j, hi_j) */
		for (l = 0; l < g->nleaf; l++) {
			const double *L = g->leaf + (size_t)l * w;
			double c =
				L[0] * vol[l] / (L[1 + g->dim + j] - L[1 + j]);

			acc[cut_at(cuts, q, L[1 + j])] += c;
			acc[cut_at(cuts, q, L[1 + g->dim + j])] -= c;
		}
		for (l = 0; l + 1 < q; l++) {
			a += acc[l];
			vj += (cuts[l + 1] - cuts[l]) * (a - mean) * (a - mean);
		}
		f[j] = vj / var > 1 ? 1 : vj / var;
	}
	return 1;
}

int forest_importance(const double *x, const double *y, int n, int dim,
		      const struct forest_opts *o, double *mean, double *std,
		      int *used)
{
	struct grow g;
	struct rng r;
	double *f = NULL, *cuts = NULL, *acc = NULL, *sq = NULL, *vol = NULL;
	double *ys = NULL, ym = 0, ysd = 0;
	int t, i, j, rc = DEHBQ_ENOMEM;

	*used = 0;
	if (n < 2 || dim < 1 || !o || o->trees < 1 || o->trees > 4096 ||
	    o->max_depth < 1 || o->max_depth > 1024)
		return DEHBQ_EINVAL;
	for (i = 0; i < n; i++) {
		if (!isfinite(y[i]))
			return DEHBQ_EINVAL;
		for (j = 0; j < dim; j++)
			if (!(x[(size_t)i * dim + j] >= 0 &&
			      x[(size_t)i * dim + j] <= 1))
				return DEHBQ_EINVAL;
	}
	/* the losses centred and scaled: the split scores (sums of squares)
	 * keep their precision under a large offset, and the fractions are
	 * unchanged */
	if (!(ys = malloc((size_t)n * sizeof(double))))
		return DEHBQ_ENOMEM;
	for (i = 0; i < n; i++)
		ym += (y[i] - ym) / (i + 1);
	for (i = 0; i < n; i++)
		ysd += (y[i] - ym) * (y[i] - ym);
	ysd = sqrt(ysd / n);
	for (i = 0; i < n; i++)
		ys[i] = ysd > 0 ? (y[i] - ym) / ysd : 0;
	memset(&g, 0, sizeof(g));
	g.x = x;
	g.y = ys;
	g.dim = dim;
	g.max_depth = o->max_depth;
	g.idx = malloc((size_t)n * sizeof(int));
	g.tmp = malloc((size_t)n * sizeof(int));
	g.ord = malloc((size_t)n * sizeof(int));
	g.lo = malloc((size_t)dim * sizeof(double));
	g.hi = malloc((size_t)dim * sizeof(double));
	f = malloc((size_t)dim * sizeof(double));
	sq = calloc((size_t)dim, sizeof(double));
	if (!g.idx || !g.tmp || !g.ord || !g.lo || !g.hi || !f || !sq)
		goto out;
	memset(mean, 0, (size_t)dim * sizeof(double));
	rng_seed(&r, o->seed);
	for (t = 0; t < o->trees; t++) {
		for (i = 0; i < n; i++)
			g.idx[i] = (int)rng_below(&r, (uint64_t)n);
		for (j = 0; j < dim; j++) {
			g.lo[j] = 0;
			g.hi[j] = 1;
		}
		g.nleaf = 0;
		if ((rc = grow(&g, g.idx, n, 0)))
			goto out;
		rc = DEHBQ_ENOMEM;
		free(cuts);
		free(acc);
		free(vol);
		cuts = malloc((2 * (size_t)g.nleaf + 1) * sizeof(double));
		acc = malloc((2 * (size_t)g.nleaf + 1) * sizeof(double));
		vol = malloc(((size_t)g.nleaf + 1) * sizeof(double));
		if (!cuts || !acc || !vol)
			goto out;
		if (!decompose(&g, f, cuts, acc, vol))
			continue;
		++*used;
		for (j = 0; j < dim; j++) {
			mean[j] += f[j];
			sq[j] += f[j] * f[j];
		}
	}
	for (j = 0; j < dim; j++) {
		double m = *used ? mean[j] / *used : 0;
		double v = *used ? sq[j] / *used - m * m : 0;

		mean[j] = m;
		std[j] = v > 0 ? sqrt(v) : 0;
	}
	rc = DEHBQ_OK;
out:
	free(g.idx);
	free(g.tmp);
	free(g.ord);
	free(g.lo);
	free(g.hi);
	free(g.leaf);
	free(f);
	free(sq);
	free(cuts);
	free(acc);
	free(vol);
	free(ys);
	return rc;
}
