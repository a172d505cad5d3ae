/*
 * pareto.c - non-dominated sorting, crowding distance, hypervolume and
 * the default reference point (pareto.h)
 */
#include "pareto.h"

#include "err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int check(const double *y, size_t n, int m)
{
	size_t i;

	if (m < 1 || m > PARETO_MAX_OBJ)
		return DEHBQ_EINVAL;
	for (i = 0; i < n * (size_t)m; i++)
		if (isnan(y[i]))
			return DEHBQ_EINVAL;
	return DEHBQ_OK;
}

int pareto_dominates(const double *a, const double *b, int m)
{
	int k, better = 0;

	for (k = 0; k < m; k++) {
		if (a[k] > b[k])
			return 0;
		better |= a[k] < b[k];
	}
	return better;
}

static int lex2_cmp(const void *a, const void *b, void *ctx)
{
	const double *y = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (y[2 * i] != y[2 * j])
		return y[2 * i] < y[2 * j] ? -1 : 1;
	if (y[2 * i + 1] != y[2 * j + 1])
		return y[2 * i + 1] < y[2 * j + 1] ? -1 : 1;
	return (i > j) - (i < j);
}

/*
 * Two objectives, O(n log n).  Taken in lexicographic order, a point can
 * only be dominated by one taken before it, and within a front the points
 * taken so far have a non-increasing second objective, so the front's
 * last point dominates the new point whenever any point of the front
 * does.  Being dominated by front r implies being dominated by every front
 * before it (its dominator is dominated by one of theirs), so the rank is
 * the first front whose last point does not dominate: a binary search.
 */
static int rank2(const double *y, size_t n, int *rank)
{
	size_t *ord = malloc(n * sizeof(*ord)),
	       *last = malloc(n * sizeof(*last));
	size_t i, nf = 0, lo, hi, mid;

	if (!ord || !last) {
		free(ord);
		free(last);
		return DEHBQ_ENOMEM;
	}
	for (i = 0; i < n; i++)
		ord[i] = i;
	qsort_r(ord, n, sizeof(*ord), lex2_cmp, (void *)y);
	for (i = 0; i < n; i++) {
		const double *p = &y[2 * ord[i]];

		for (lo = 0, hi = nf; lo < hi;) {
			mid = lo + (hi - lo) / 2;
			if (pareto_dominates(&y[2 * last[mid]], p, 2))
				lo = mid + 1;
			else
				hi = mid;
		}
		rank[ord[i]] = (int)lo;
		last[lo] = ord[i];
		nf += lo == nf;
	}
	free(ord);
	free(last);
	return DEHBQ_OK;
}

int pareto_rank(const double *y, size_t n, int m, int *rank)
{
	size_t *count, i, j, left = n;
	int r, rc;

	if ((rc = check(y, n, m)))
		return rc;
	if (!n)
		return DEHBQ_OK;
	if (m == 2)
		return rank2(y, n, rank);
	if (!(count = calloc(n, sizeof(*count))))
		return DEHBQ_ENOMEM;
	/* count[i]: how many points dominate i; peel fronts off */
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			count[i] += pareto_dominates(&y[j * m], &y[i * m], m);
	for (i = 0; i < n; i++)
		rank[i] = -1;
	for (r = 0; left; r++) {
		size_t nfront = 0;

		for (i = 0; i < n; i++)
			if (rank[i] < 0 && count[i] == 0) {
				rank[i] = r;
				nfront++;
			}
		for (i = 0; i < n; i++)
			if (rank[i] == r)
				for (j = 0; j < n; j++)
					if (rank[j] < 0 &&
					    pareto_dominates(&y[i * m],
							     &y[j * m], m))
						count[j]--;
		left -= nfront;
	}
	free(count);
	return DEHBQ_OK;
}

struct key {
	double v;
	size_t j;
};

static int key_cmp(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return (x->j > y->j) - (x->j < y->j);
}

int pareto_crowding(const double *y, const size_t *idx, size_t k, int m,
		    double *dist)
{
	struct key *s;
	size_t j;
	int o;

	if (m < 1 || m > PARETO_MAX_OBJ)
		return DEHBQ_EINVAL;
	if (!k)
		return DEHBQ_OK;
	if (!(s = malloc(k * sizeof(*s))))
		return DEHBQ_ENOMEM;
	memset(dist, 0, k * sizeof(*dist));
	for (o = 0; o < m; o++) {
		double range;

		for (j = 0; j < k; j++) {
			s[j].v = y[idx[j] * m + o];
			s[j].j = j;
		}
		qsort(s, k, sizeof(*s), key_cmp);
		dist[s[0].j] = dist[s[k - 1].j] = INFINITY;
		range = s[k - 1].v - s[0].v;
		if (!(range > 0) || !isfinite(range))
			continue;
		for (j = 1; j + 1 < k; j++)
			dist[s[j].j] += (s[j + 1].v - s[j - 1].v) / range;
	}
	free(s);
	return DEHBQ_OK;
}

/* 2-D hypervolume of pts (pairs, sorted by the first coordinate). */
static double hv2_sorted(const double *pts, size_t n, const double *ref)
{
	double hv = 0, cur = ref[1];
	size_t i;

	for (i = 0; i < n; i++)
		if (pts[2 * i + 1] < cur) {
			hv += (ref[0] - pts[2 * i]) * (cur - pts[2 * i + 1]);
			cur = pts[2 * i + 1];
		}
	return hv;
}

static int pair_cmp(const void *a, const void *b)
{
	const double *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return (x[1] > y[1]) - (x[1] < y[1]);
}

/* The points strictly inside ref, as rows of m. */
static size_t inside(const double *y, size_t n, int m, const double *ref,
		     double *out)
{
	size_t i, c = 0;
	int k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < m && y[i * m + k] < ref[k]; k++)
			;
		if (k == m)
			memcpy(&out[c++ * m], &y[i * m], m * sizeof(double));
	}
	return c;
}

static int row3_cmp(const void *a, const void *b)
{
	double x = ((const double *)a)[2], y = ((const double *)b)[2];

	return (x > y) - (x < y);
}

int pareto_hypervolume(const double *y, size_t n, int m, const double *ref,
		       double *hv)
{
	double *p, *sl;
	size_t c, i, j;
	int rc;

	*hv = 0;
	if ((rc = check(y, n, m)) || (rc = check(ref, 1, m)))
		return rc;
	if (m > 3)
		return DEHBQ_EUNSUP;
	if (!n)
		return DEHBQ_OK;
	if (!(p = malloc(n * (size_t)m * sizeof(double))))
		return DEHBQ_ENOMEM;
	c = inside(y, n, m, ref, p);
	if (m == 1) {
		for (i = 0; i < c; i++)
			*hv = fmax(*hv, ref[0] - p[i]);
	} else if (m == 2) {
		qsort(p, c, 2 * sizeof(double), pair_cmp);
		*hv = hv2_sorted(p, c, ref);
	} else if (c) {
		/* slices between consecutive third coordinates */
		if (!(sl = malloc(c * 2 * sizeof(double)))) {
			free(p);
			return DEHBQ_ENOMEM;
		}
		qsort(p, c, 3 * sizeof(double), row3_cmp);
		for (i = 0; i < c; i++) {
			double top = i + 1 < c ? p[3 * (i + 1) + 2] : ref[2];

			if (!(top > p[3 * i + 2]))
				continue;
			for (j = 0; j <= i; j++) {
				sl[2 * j] = p[3 * j];
				sl[2 * j + 1] = p[3 * j + 1];
			}
			qsort(sl, i + 1, 2 * sizeof(double), pair_cmp);
			*hv += hv2_sorted(sl, i + 1, ref) *
			       (top - p[3 * i + 2]);
		}
		free(sl);
	}
	free(p);
	return DEHBQ_OK;
}

/* What point j (a row of m) adds to the hypervolume hvs of the n rows
 * in sel (room for n + 1). */
static int hv_gain(double *sel, size_t n, int m, const double *yj,
		   const double *ref, double hvs, double *gain)
{
	double hv;
	int rc;

	memcpy(&sel[n * (size_t)m], yj, (size_t)m * sizeof(double));
	if ((rc = pareto_hypervolume(sel, n + 1, m, ref, &hv)))
		return rc;
	*gain = hv - hvs;
	return DEHBQ_OK;
}

/*
 * Two objectives, without allocating: what q adds to the n points of sel
 * (sorted by the first objective), the area of q's box below ref less
 * that of sel's points clipped to it (still sorted, so one sweep).
 */
static double hv_gain2(const double *sel, size_t n, const double *q,
		       const double *ref)
{
	double hv = 0, cur = ref[1], x, y;
	size_t i;

	if (!(q[0] < ref[0] && q[1] < ref[1]))
		return 0;
	for (i = 0; i < n; i++) {
		x = fmax(sel[2 * i], q[0]);
		y = fmax(sel[2 * i + 1], q[1]);
		if (x < ref[0] && y < cur) {
			hv += (ref[0] - x) * (cur - y);
			cur = y;
		}
	}
	return (ref[0] - q[0]) * (ref[1] - q[1]) - hv;
}

/* Two objectives: q into sel's n points, kept sorted by the first. */
static void insert2(double *sel, size_t n, const double *q)
{
	size_t i = n;

	for (; i > 0 && sel[2 * (i - 1)] > q[0]; i--) {
		sel[2 * i] = sel[2 * (i - 1)];
		sel[2 * i + 1] = sel[2 * (i - 1) + 1];
	}
	sel[2 * i] = q[0];
	sel[2 * i + 1] = q[1];
}

int pareto_hssp(const double *y, const size_t *idx, size_t k, int m,
		const double *ref, size_t greedy, size_t *order)
{
	double *sel, *gain, hvs = 0;
	unsigned char *used;
	size_t p, j, best;
	int rc = DEHBQ_OK;

	if (m < 1 || m > 3)
		return m < 1 ? DEHBQ_EINVAL : DEHBQ_EUNSUP;
	if (greedy > k)
		greedy = k;
	sel = malloc((greedy + 1) * (size_t)m * sizeof(double));
	gain = malloc((k + 1) * sizeof(double));
	used = calloc(k + 1, 1);
	if (!sel || !gain || !used)
		rc = DEHBQ_ENOMEM;
	for (p = 0; !rc && p < k; p++) {
		for (j = 0; p <= greedy && !rc && j < k; j++)
			if (used[j])
				continue;
			else if (m == 2)
				gain[j] = hv_gain2(sel, p, &y[idx[j] * 2], ref);
			else
				rc = hv_gain(sel, p, m, &y[idx[j] * (size_t)m],
					     ref, hvs, &gain[j]);
		for (best = k, j = 0; !rc && j < k; j++)
			if (!used[j] && (best == k || gain[j] > gain[best]))
				best = j;
		if (rc)
			break;
		order[p] = best;
		used[best] = 1;
		if (p < greedy && m == 2) {
			insert2(sel, p, &y[idx[best] * 2]);
		} else if (p < greedy) {
			memcpy(&sel[p * (size_t)m], &y[idx[best] * (size_t)m],
			       (size_t)m * sizeof(double));
			rc = pareto_hypervolume(sel, p + 1, m, ref, &hvs);
		}
	}
	free(sel);
	free(gain);
	free(used);
	return rc;
}

void pareto_worst_reference(const double *y, const size_t *idx, size_t k, int m,
			    double *ref)
{
	size_t i;
	int l;

	for (l = 0; l < m; l++) {
		ref[l] = -INFINITY;
		for (i = 0; i < k; i++)
			ref[l] =
				fmax(ref[l], y[idx[i] * (size_t)m + (size_t)l]);
		ref[l] = fmax(1.1 * ref[l], 0.9 * ref[l]);
		if (ref[l] == 0)
			ref[l] = 1e-12;
	}
}

int pareto_contributions(const double *y, const size_t *idx, size_t k, int m,
			 const double *ref, double *c)
{
	double *p = calloc((k + 1) * (size_t)m, sizeof(double)), all = 0;
	size_t i, j, n;
	int rc = p ? DEHBQ_OK : DEHBQ_ENOMEM;

	for (i = 0; !rc && i < k; i++)
		memcpy(&p[i * (size_t)m], &y[idx[i] * (size_t)m],
		       (size_t)m * sizeof(double));
	if (!rc)
		rc = pareto_hypervolume(p, k, m, ref, &all);
	for (j = 0; !rc && j < k; j++) {
		for (i = n = 0; i < k; i++)
			if (i != j)
				memcpy(&p[n++ * (size_t)m],
				       &y[idx[i] * (size_t)m],
				       (size_t)m * sizeof(double));
		if (!(rc = pareto_hypervolume(p, n, m, ref, &c[j])))
			c[j] = all - c[j];
	}
	free(p);
	return rc;
}

int pareto_reference(const double *y, size_t n, int m, double *ref)
{
	double lo[PARETO_MAX_OBJ], hi[PARETO_MAX_OBJ];
	int *rank, k, any = 0, rc;
	size_t i;

	if ((rc = check(y, n, m)))
		return rc;
	if (!n)
		return DEHBQ_EINVAL;
	if (!(rank = malloc(n * sizeof(*rank))))
		return DEHBQ_ENOMEM;
	if ((rc = pareto_rank(y, n, m, rank))) {
		free(rank);
		return rc;
	}
	for (k = 0; k < m; k++) {
		lo[k] = INFINITY;
		hi[k] = -INFINITY;
	}
	for (i = 0; i < n; i++) {
		int fin = 1;

		for (k = 0; k < m; k++)
			fin &= isfinite(y[i * m + k]);
		if (rank[i] || !fin)
			continue;
		any = 1;
		for (k = 0; k < m; k++) {
			lo[k] = fmin(lo[k], y[i * m + k]);
			hi[k] = fmax(hi[k], y[i * m + k]);
		}
	}
	free(rank);
	if (!any)
		return DEHBQ_EINVAL;
	for (k = 0; k < m; k++)
		ref[k] = hi[k] + (hi[k] > lo[k] ? 0.1 * (hi[k] - lo[k]) : 1);
	return DEHBQ_OK;
}
