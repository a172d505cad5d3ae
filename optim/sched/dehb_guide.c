/*
 * dehb_guide.c - the DEHB engine's guide (dehb.h, dehb_set_guide): who
 * draws the initial subpopulations and who chooses among DE's trials, and
 * a read-only view of a subpopulation for the guide's owner.  make_trial
 * in dehb.c asks the guide.
 */
#include "dehb.h"
#include "dehb_impl.h"
#include "err.h"

#include <stdlib.h>

int dehb_set_guide(struct dehb *d, const struct dehb_guide_ops *ops, void *ctx,
		   int k, int draw)
{
	int l, i, rc = DEHBQ_OK;

	if (d->guide || !ops || !ops->choose || (draw && !ops->draw) || k < 1 ||
	    k > DEHB_MAX_GUIDE_K || (draw && d->asked)) {
		if (ops && ops->free)
			ops->free(ctx);
		return DEHBQ_EINVAL;
	}
	d->guide = ops;
	d->guide_ctx = ctx;
	d->guide_k = k;
	if (!(d->gx = malloc((size_t)k * (size_t)d->p.dim * sizeof(double))))
		return DEHBQ_ENOMEM;
	for (l = 0; draw && !rc && l < d->nlevels; l++) {
		struct dehb_pop *P = &d->pop[l];

		for (i = 0; !rc && i < P->n; i++)
			rc = ops->draw(ctx, &P->rng,
				       P->x + (size_t)i * (size_t)d->p.dim);
	}
	return rc;
}

void *dehb_guide(const struct dehb *d)
{
	return d->guide ? d->guide_ctx : NULL;
}

int dehb_population(const struct dehb *d, int level, const double **x,
		    const double **fit, int *n)
{
	if (level < 0 || level >= d->nlevels)
		return DEHBQ_EINVAL;
	*x = d->pop[level].x;
	*fit = d->pop[level].fit;
	*n = d->pop[level].n;
	return DEHBQ_OK;
}
