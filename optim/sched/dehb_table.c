/*
 * dehb_table.c - owns the bracket engine's storage: the engine itself (its
 * allocation and release) and its active brackets' results
 */
#include "dehb.h"

#include "dehb_impl.h"
#include "err.h"
#include "hb.h"
#include "rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void dehb_free(struct dehb *d)
{
	int k;

	if (!d)
		return;
	for (k = 0; k < d->nbr; k++)
		dehb_bracket_release(&d->br[k]);
	free(d->br);
	free(d->tmpx);
	free(d);
}

int dehb_alloc(const struct dehb_params *p, struct dehb **out, char *err)
{
	struct dehb *d = NULL;
	int rc;

	*out = NULL;
	rc = dehb_params_check(p, err);
	if (rc != DEHBQ_OK)
		return rc;
	rc = DEHBQ_ENOMEM;
	d = calloc(1, sizeof(*d));
	if (!d)
		goto fail;
	d->p = *p;
	hb_levels(p->min_fidelity, p->max_fidelity, p->eta, &d->nlevels);
	hb_fidelities(p->max_fidelity, p->eta, d->nlevels, d->fid);
	d->tmpx = malloc((size_t)p->dim * sizeof(double));
	if (!d->tmpx)
		goto fail;
	*out = d;
	return DEHBQ_OK;
fail:
	dehb_free(d);
	return dehbq_errf(err, rc, "out of memory");
}

int dehb_new(const struct dehb_params *p, struct dehb **out, char *err)
{
	int rc = dehb_alloc(p, out, err), k;

	if (rc != DEHBQ_OK)
		return rc;
	rng_seed(&(*out)->rng, p->seed);
	/* one split a level: 0.4's level streams, kept so that the engine's
	 * stream (dehb_stream, sh's and hyperband's random draws) is 0.4's */
	for (k = 0; k < (*out)->nlevels; k++)
		rng_split(&(*out)->rng);
	return DEHBQ_OK;
}

int dehb_bracket_alloc(const struct dehb *d, struct dehb_bracket *b)
{
	int r;
	size_t dim = (size_t)d->p.dim;

	memset(b->seen, 0, sizeof(b->seen));
	for (r = 0; r < HB_MAX_LEVELS; r++) {
		b->rloss[r] = NULL;
		b->rcid[r] = NULL;
		b->rjob[r] = NULL;
		b->rx[r] = NULL;
	}
	if (dehb_uses_brackets(d) != 2)
		return DEHBQ_OK;
	for (r = 0; r + 1 < b->hb.nrungs; r++) {
		size_t n = (size_t)b->hb.n[r];

		b->rloss[r] = malloc(n * sizeof(double));
		b->rcid[r] = malloc(n * sizeof(int64_t));
		b->rjob[r] = malloc(n * sizeof(int64_t));
		b->rx[r] = malloc(n * dim * sizeof(double));
		if (!b->rloss[r] || !b->rcid[r] || !b->rjob[r] || !b->rx[r]) {
			dehb_bracket_release(b);
			return DEHBQ_ENOMEM;
		}
	}
	return DEHBQ_OK;
}

void dehb_bracket_release(struct dehb_bracket *b)
{
	int r;

	for (r = 0; r < HB_MAX_LEVELS; r++) {
		free(b->rloss[r]);
		free(b->rcid[r]);
		free(b->rjob[r]);
		free(b->rx[r]);
		b->rloss[r] = NULL;
		b->rcid[r] = NULL;
		b->rjob[r] = NULL;
		b->rx[r] = NULL;
	}
}

struct dehb_bracket *dehb_bracket_find(struct dehb *d, int64_t id)
{
	int lo = 0, hi = d->nbr;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (d->br[mid].hb.id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->nbr && d->br[lo].hb.id == id ? &d->br[lo] : NULL;
}
