/*
 * slice.c - owns slice sampling on a box (Neal 2003): slice.h
 */
#include "slice.h"

#include "err.h"

#include <math.h>

/* logp with coordinate i of x at v (x restored). */
static double at(slice_logp logp, void *ctx, double *x, int n, int i, double v,
		 long *evals)
{
	double keep = x[i], l;

	x[i] = v;
	l = logp(x, n, ctx);
	x[i] = keep;
	++*evals;
	return isnan(l) ? -INFINITY : l;
}

/* One coordinate's update. */
static void update(const struct slice_box *b, slice_logp logp, void *ctx,
		   struct rng *r, double *x, int i, double *lp, long *evals)
{
	double level = *lp + log(1 - rng_uniform(r)); /* lp - Exp(1) */
	double w = b->w[i], L = x[i] - w * rng_uniform(r), R = L + w, v, l;
	int k;

	L = fmax(L, b->lo[i]);
	R = fmin(R, b->hi[i]);
	for (k = 0; k < SLICE_MAX_STEPS && L > b->lo[i] &&
		    at(logp, ctx, x, b->n, i, L, evals) > level;
	     k++)
		L = fmax(L - w, b->lo[i]);
	for (k = 0; k < SLICE_MAX_STEPS && R < b->hi[i] &&
		    at(logp, ctx, x, b->n, i, R, evals) > level;
	     k++)
		R = fmin(R + w, b->hi[i]);
	for (k = 0; k < SLICE_MAX_SHRINK; k++) {
		v = L + (R - L) * rng_uniform(r);
		if ((l = at(logp, ctx, x, b->n, i, v, evals)) > level) {
			x[i] = v;
			*lp = l;
			return;
		}
		if (v < x[i])
			L = v;
		else
			R = v;
	}
}

int slice_sweep(const struct slice_box *b, slice_logp logp, void *ctx,
		struct rng *r, double *x, double *lp, long *evals)
{
	int i;

	if (b->n < 1 || !(*lp > -INFINITY) || isnan(*lp))
		return DEHBQ_EINVAL;
	for (i = 0; i < b->n; i++)
		if (!(x[i] >= b->lo[i] && x[i] <= b->hi[i]))
			return DEHBQ_EINVAL;
	for (i = 0; i < b->n; i++)
		update(b, logp, ctx, r, x, i, lp, evals);
	return DEHBQ_OK;
}
