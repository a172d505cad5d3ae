/*
 * dehb_query.c - owns the bracket engine's read-only views: parameters,
 * counts, levels and active brackets; and the one writer of stored
 * results besides a tell, dehb_rescore
 */
#include "dehb.h"

#include "dehb_impl.h"
#include "err.h"
#include "hb.h"
#include "mobj.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
const struct dehb_params *dehb_get_params(const struct dehb *d)
{
	return &d->p;
}

void dehb_get_counts(const struct dehb *d, struct dehb_counts *c)
{
	c->asked = d->asked;
	c->brackets = d->next_bracket;
}

int dehb_levels(const struct dehb *d)
{
	return d->nlevels;
}

double dehb_level_fidelity(const struct dehb *d, int level)
{
	if (level < 0 || level >= d->nlevels)
		return NAN;
	return d->fid[level];
}

int dehb_active_brackets(const struct dehb *d)
{
	return d->nbr;
}

int dehb_bracket_info(const struct dehb *d, int i, int64_t *bracket_id,
		      struct dehb_rung_info *rungs, int cap, int *nrungs)
{
	const struct hb_bracket *h;
	int r;

	if (i < 0 || i >= d->nbr)
		return DEHBQ_ENOENT;
	h = &d->br[i].hb;
	*bracket_id = h->id;
	*nrungs = h->nrungs;
	for (r = 0; r < h->nrungs && r < cap; r++) {
		rungs[r].fidelity = d->fid[h->base + r];
		rungs[r].n = h->n[r];
		rungs[r].pending = h->pending[r];
		rungs[r].done = h->done[r];
	}
	return DEHBQ_OK;
}

int dehb_rescore(struct dehb *d, const struct mobj *mo)
{
	int k, i, r;
	double v;

	if (dehb_uses_brackets(d) != 2)
		return DEHBQ_OK;
	for (k = 0; k < d->nbr; k++) {
		struct dehb_bracket *b = &d->br[k];

		for (r = 0; r + 1 < b->hb.nrungs; r++)
			for (i = 0; i < b->hb.done[r]; i++)
				if (!isnan(v = mobj_score(mo, b->rjob[r][i])))
					b->rloss[r][i] = v;
	}
	return DEHBQ_OK;
}
