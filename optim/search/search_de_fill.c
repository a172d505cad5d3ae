/*
 * search_de_fill.c - owns the de searcher's rules under a scheduler that
 * it fills (search_setup.fills: hyperband with "promotion": "searcher",
 * which the dehb preset is): DEHB as ../shared/DEHB_SPEC.md section 5
 * describes it, with the fixes docs/algorithm.md lists.
 *
 * - Each level's subpopulation has as many members as the largest rung
 *   any bracket runs at it (hb_pop_sizes), each with a configuration id:
 *   initial members 0, 1, ... level by level, each new trial the next, a
 *   promotion its parent's.
 * - A job at rung r > 0 of one of the first L brackets (L levels)
 *   promotes the best member of the level below that has a result, is
 *   not in the job's level and is not on its way there; with none, and
 *   for every other job, a DE trial.
 * - A trial's parent pool is the best n of the level below (n the jobs of
 *   the job's rung; at rung 0, of the job's own level), the target's
 *   configuration left out, topped up as search_de.c's des_trial does.
 * - Every job takes its level's next slot and competes for it when its
 *   result comes (selection, as under every scheduler).
 */
#include "search_de_impl.h"

#include "err.h"
#include "hb.h"

#include <math.h>
#include <string.h>

int des_fill_sizes(const struct search_setup *s, int *n)
{
	int k;

	if (s->levels < 1 || s->levels > HB_MAX_LEVELS ||
	    hb_pop_sizes(s->levels, s->eta, n))
		return DEHBQ_EINVAL;
	for (k = 0; k < s->levels; k++)
		if (n[k] < 1)
			return DEHBQ_EINVAL;
	return DEHBQ_OK;
}

/* 1 if a promotion of configuration cid to level k is in flight. */
static int promo_in_flight(const struct des *d, int k, int64_t cid)
{
	size_t i;

	for (i = 0; i < d->nfl; i++)
		if (d->fl[i].promo && d->fl[i].level == k &&
		    d->fl[i].cid == cid)
			return 1;
	return 0;
}

/* The best slot of level k-1 with a result whose configuration is neither
 * in level k nor on its way there; -1 if none. */
static int promo_candidate(struct des *d, int k)
{
	const struct des_level *P = &d->lv[k], *Q = &d->lv[k - 1];
	int i, j;

	des_order(d, k - 1);
	for (i = 0; i < Q->n; i++) {
		int s = d->order[i], present = 0;

		if (!(Q->fit[s] < INFINITY))
			break;
		for (j = 0; j < P->n && !present; j++)
			present = P->cid[j] == Q->cid[s];
		if (!present && !promo_in_flight(d, k, Q->cid[s]))
			return s;
	}
	return -1;
}

/* A trial against slot `slot` of level k, its pool the best n of level q
 * (the first member of the target's configuration left out). */
static void fill_trial(struct des *d, int k, int q, int n, int slot,
		       double *out)
{
	const struct des_level *P = &d->lv[k], *Q = &d->lv[q];
	int i, np = 0, excl = 0;

	if (n > Q->n)
		n = Q->n;
	des_order(d, q);
	for (i = 0; i < n; i++) {
		int s = d->order[i];

		if (!excl && Q->cid[s] == P->cid[slot]) {
			excl = 1;
			continue;
		}
		d->pool[np++] = Q->x + (size_t)s * d->dim;
	}
	des_trial(d, k, slot, np, out);
}

int des_propose_at(void *st, const struct search_at *at, double *vec,
		   enum trial_kind *kind, int64_t *parent)
{
	struct des *d = st;
	int k = des_level_of(d, at->fidelity), slot, c = -1, rc;

	*parent = -1;
	if (!d->fills || at->n < 1)
		return DEHBQ_EINVAL;
	if ((rc = des_fl_reserve(d)))
		return rc;
	slot = des_take_slot(d, k);
	if (at->bracket < d->L && at->rung > 0 && k > 0)
		c = promo_candidate(d, k);
	if (c >= 0) {
		const struct des_level *Q = &d->lv[k - 1];

		*kind = TRIAL_KIND_PROMOTION;
		*parent = Q->job[c];
		d->pend_cid = Q->cid[c];
		d->pend_promo = 1;
		memcpy(vec, Q->x + (size_t)c * d->dim,
		       (size_t)d->dim * sizeof(double));
	} else {
		*kind = d->guide ? TRIAL_KIND_PRIOR : TRIAL_KIND_TRIAL;
		d->pend_cid = d->next_cid++;
		d->pend_promo = 0;
		fill_trial(d, k, at->rung > 0 && k > 0 ? k - 1 : k, at->n, slot,
			   vec);
	}
	d->pend_level = k;
	d->pend_slot = slot;
	return DEHBQ_OK;
}
