/*
 * hb.c - Hyperband arithmetic and the successive-halving bracket manager
 *
 * Invariants:
 * - s_max is computed with a relative tolerance (hb_levels), so it does
 *   not depend on the last bit of log(); see docs/algorithm.md.
 * - Fidelities are max * pow(eta, -j) exactly as the reference computes
 *   them, rounding artefacts included; callers key by level index.
 * - In a bracket, rung r hands out jobs only when pending[r] > 0, all
 *   lower rungs have pending == 0 and done == n (synchronous SH).
 */
#include "hb.h"

#include "err.h"

#include <math.h>

int hb_levels(double min_f, double max_f, double eta, int *nlevels)
{
	int s = 0;

	*nlevels = 0;
	if (!isfinite(min_f) || !isfinite(max_f) || !isfinite(eta) ||
	    min_f <= 0 || max_f < min_f || eta <= 1)
		return DEHBQ_EINVAL;
	if (max_f == min_f) { /* a study of one fidelity */
		*nlevels = 1;
		return DEHBQ_OK;
	}
	while (max_f * pow(eta, -(double)(s + 1)) >= min_f * (1 - 1e-9)) {
		s++;
		if (s + 1 > HB_MAX_LEVELS)
			return DEHBQ_ETOOBIG;
	}
	*nlevels = s + 1;
	return DEHBQ_OK;
}

void hb_fidelities(double max_f, double eta, int nlevels, double *fid)
{
	int k;

	for (k = 0; k < nlevels; k++)
		fid[k] = max_f * pow(eta, -(double)(nlevels - 1 - k));
}

int hb_rung_sizes(int nlevels, double eta, int s, int *n)
{
	double n0;
	int j;

	if (nlevels < 1 || nlevels > HB_MAX_LEVELS || s < 0 || s >= nlevels)
		return DEHBQ_EINVAL;
	n0 = floor((double)nlevels / (s + 1)) * pow(eta, (double)s);
	if (!(n0 <= HB_MAX_RUNG))
		return DEHBQ_ETOOBIG;
	n0 = (double)(long)n0;
	for (j = 0; j <= s; j++) {
		long v = (long)(n0 * pow(eta, -(double)j));

		n[j] = v < 1 ? 1 : (int)v;
	}
	return DEHBQ_OK;
}

int hb_bracket_s(int nlevels, int64_t bracket_id)
{
	return nlevels - 1 - (int)(bracket_id % nlevels);
}

int hb_pop_sizes(int nlevels, double eta, int *pop)
{
	int n[HB_MAX_LEVELS];
	int s, j, rc;

	if (nlevels < 1 || nlevels > HB_MAX_LEVELS)
		return DEHBQ_EINVAL;
	for (j = 0; j < nlevels; j++)
		pop[j] = 0;
	for (s = 0; s < nlevels; s++) {
		rc = hb_rung_sizes(nlevels, eta, s, n);
		if (rc != DEHBQ_OK)
			return rc;
		for (j = 0; j <= s; j++) {
			int lv = nlevels - 1 - s + j;

			if (n[j] > pop[lv])
				pop[lv] = n[j];
		}
	}
	return DEHBQ_OK;
}

int hb_bracket_init(struct hb_bracket *b, int64_t id, int s, int nlevels,
		    double eta)
{
	int r, rc;

	if (id < 0)
		return DEHBQ_EINVAL;
	rc = hb_rung_sizes(nlevels, eta, s, b->n);
	if (rc != DEHBQ_OK)
		return rc;
	b->id = id;
	b->s = s;
	b->nrungs = s + 1;
	b->base = nlevels - 1 - s;
	for (r = 0; r < b->nrungs; r++) {
		b->pending[r] = b->n[r];
		b->done[r] = 0;
	}
	for (; r < HB_MAX_LEVELS; r++) {
		b->n[r] = 0;
		b->pending[r] = 0;
		b->done[r] = 0;
	}
	return DEHBQ_OK;
}

int hb_bracket_next_rung(const struct hb_bracket *b)
{
	int r;

	for (r = 0; r < b->nrungs; r++) {
		if (b->pending[r] > 0)
			return r;
		if (b->done[r] < b->n[r])
			return -1; /* results of this rung still out */
	}
	return -1;
}

int hb_bracket_register(struct hb_bracket *b, int r)
{
	if (r < 0 || r >= b->nrungs || b->pending[r] <= 0)
		return DEHBQ_ESTATE;
	b->pending[r]--;
	return DEHBQ_OK;
}

int hb_bracket_complete(struct hb_bracket *b, int r)
{
	if (r < 0 || r >= b->nrungs || b->done[r] >= b->n[r] - b->pending[r])
		return DEHBQ_ESTATE;
	b->done[r]++;
	return DEHBQ_OK;
}

int hb_bracket_is_pending(const struct hb_bracket *b)
{
	int r;

	for (r = 0; r < b->nrungs; r++)
		if (b->pending[r] > 0)
			return 1;
	return 0;
}

int hb_bracket_done(const struct hb_bracket *b)
{
	int r;

	for (r = 0; r < b->nrungs; r++)
		if (b->pending[r] > 0 || b->done[r] < b->n[r])
			return 0;
	return 1;
}

long hb_bracket_jobs(const struct hb_bracket *b)
{
	long t = 0;
	int r;

	for (r = 0; r < b->nrungs; r++)
		t += b->n[r];
	return t;
}
