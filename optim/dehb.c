/*
 * dehb.c - the DEHB engine: brackets, subpopulations, ask/tell, baselines
 *
 * Invariants:
 * - Job ids are 0, 1, 2, ... in ask order; ids below `asked` that are not
 *   in the in-flight table were told (a second tell is refused).
 * - NaN never enters a population or an incumbent: failures and NaN losses
 *   count as +inf, and +inf only replaces +inf (selection uses <=).
 * - Active brackets are kept in ascending id order; a bracket is dropped
 *   as soon as its last result is told, so every tell finds its bracket.
 * - Incumbents own copies of their vectors (spec 9.6).
 * - No history: memory depends on populations, active brackets and jobs
 *   in flight only.
 * - Every random draw comes from d->rng or a level's stream, in an order
 *   fixed by the call sequence, so runs are reproducible bit for bit.
 * docs/algorithm.md lists every deviation from the reference.
 */
#include "dehb.h"

#include "de.h"
#include "dehb_impl.h"
#include "err.h"
#include "hb.h"
#include "rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void dehb_params_init(struct dehb_params *p)
{
	memset(p, 0, sizeof(*p));
	p->optimizer = DEHB_OPT_DEHB;
	p->dim = 1;
	p->min_fidelity = 1;
	p->max_fidelity = 27;
	p->eta = 3;
	p->mutation = DEHB_MUT_RAND1;
	p->crossover = DEHB_CX_BIN;
	p->boundary = DEHB_BOUND_RANDOM;
	p->mutation_factor = 0.5;
	p->crossover_prob = 0.5;
}

static int de_pop(const struct dehb_params *p)
{
	return p->de_pop_size > 0 ? p->de_pop_size : 20;
}

/* Population sizes per level for the chosen optimizer. */
static int pop_sizes(const struct dehb_params *p, int nlevels, int *pop,
		     int *maxrung)
{
	int hbpop[HB_MAX_LEVELS];
	int k, rc;

	rc = hb_pop_sizes(nlevels, p->eta, hbpop);
	if (rc != DEHBQ_OK)
		return rc;
	*maxrung = 0;
	for (k = 0; k < nlevels; k++) {
		if (hbpop[k] > *maxrung)
			*maxrung = hbpop[k];
		pop[k] = 0;
		if (p->optimizer == DEHB_OPT_DEHB)
			pop[k] = hbpop[k];
	}
	if (p->optimizer == DEHB_OPT_DE)
		pop[nlevels - 1] = de_pop(p);
	return DEHBQ_OK;
}

int dehb_params_check(const struct dehb_params *p, char *err)
{
	int pop[HB_MAX_LEVELS];
	int nlevels, maxrung, k, rc;
	long tot = 0;

	if ((unsigned)p->optimizer > DEHB_OPT_DE)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "optimizer: unknown value %d",
				  (int)p->optimizer);
	if (p->dim < 1 || p->dim > DEHB_MAX_DIM)
		return dehbq_errf(err, DEHBQ_EINVAL, "dim: %d not in 1..%d",
				  p->dim, DEHB_MAX_DIM);
	if (!isfinite(p->min_fidelity) || p->min_fidelity <= 0)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "min_fidelity: must be finite and > 0");
	if (!isfinite(p->max_fidelity) || p->max_fidelity <= p->min_fidelity)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "max_fidelity: must be finite and > "
				  "min_fidelity");
	if (!isfinite(p->eta) || p->eta <= 1)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "eta: must be finite and > 1");
	if ((unsigned)p->mutation > DEHB_MUT_RANDTOBEST1)
		return dehbq_errf(err, DEHBQ_EINVAL, "mutation: unknown value");
	if ((unsigned)p->crossover > DEHB_CX_EXP)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "crossover: unknown value");
	if ((unsigned)p->boundary > DEHB_BOUND_CLIP)
		return dehbq_errf(err, DEHBQ_EINVAL, "boundary: unknown value");
	if (!isfinite(p->mutation_factor) || p->mutation_factor <= 0 ||
	    p->mutation_factor > 2)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "mutation_factor: must be in (0, 2]");
	if (!(p->crossover_prob >= 0 && p->crossover_prob <= 1))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "crossover_prob: must be in [0, 1]");
	if (p->max_brackets < 0 || p->max_brackets > DEHB_MAX_ID)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "max_brackets: must be in 0..2^53");
	if (p->max_active_brackets < 0)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "max_active_brackets: must be >= 0");
	if (p->de_pop_size < 0 || p->de_pop_size > DEHB_MAX_TOTPOP)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "de_pop_size: must be in 0..%d",
				  DEHB_MAX_TOTPOP);
	rc = hb_levels(p->min_fidelity, p->max_fidelity, p->eta, &nlevels);
	if (rc != DEHBQ_OK)
		return dehbq_errf(err, rc,
				  "max_fidelity/min_fidelity: more "
				  "than %d levels for this eta",
				  HB_MAX_LEVELS);
	rc = pop_sizes(p, nlevels, pop, &maxrung);
	if (rc != DEHBQ_OK)
		return dehbq_errf(err, rc, "eta: rung sizes exceed %d jobs",
				  HB_MAX_RUNG);
	for (k = 0; k < nlevels; k++)
		tot += pop[k];
	if (tot > DEHB_MAX_TOTPOP || tot * p->dim > DEHB_MAX_CELLS ||
	    (long)maxrung * p->dim > DEHB_MAX_CELLS)
		return dehbq_errf(err, DEHBQ_ETOOBIG,
				  "dim: populations of %ld x %d doubles are "
				  "too large",
				  tot > maxrung ? tot : maxrung, p->dim);
	return DEHBQ_OK;
}

int dehb_fidelities(double min_f, double max_f, double eta, double *fid,
		    int cap, int *n)
{
	double all[HB_MAX_LEVELS];
	int nlevels, k, rc;

	*n = 0;
	rc = hb_levels(min_f, max_f, eta, &nlevels);
	if (rc != DEHBQ_OK)
		return rc;
	hb_fidelities(max_f, eta, nlevels, all);
	for (k = 0; k < nlevels && k < cap; k++)
		fid[k] = all[k];
	*n = nlevels;
	return nlevels > cap ? DEHBQ_ETOOBIG : DEHBQ_OK;
}

int dehb_uses_brackets(const struct dehb *d)
{
	switch (d->p.optimizer) {
	case DEHB_OPT_DEHB:
		return 1;
	case DEHB_OPT_SH:
	case DEHB_OPT_HYPERBAND:
		return 2;
	default:
		return 0;
	}
}

void dehb_free(struct dehb *d)
{
	size_t i;
	int k;

	if (!d)
		return;
	for (k = 0; k < HB_MAX_LEVELS; k++) {
		free(d->pop[k].x);
		free(d->pop[k].fit);
		free(d->pop[k].cid);
		free(d->pop[k].job);
	}
	for (k = 0; k < d->nbr; k++)
		dehb_bracket_release(&d->br[k]);
	free(d->br);
	for (i = 0; i < d->flcap; i++)
		if (d->fl[i].used) {
			free(d->fl[i].x);
		}
	free(d->fl);
	free(d->inc[0].x);
	free(d->inc[1].x);
	free(d->order);
	free(d->otmp);
	free(d->pool);
	free(d->glob);
	free(d->fill);
	free(d->mutant);
	free(d);
}

int dehb_alloc(const struct dehb_params *p, struct dehb **out, char *err)
{
	struct dehb *d = NULL;
	int rc, k, maxrung, pop[HB_MAX_LEVELS];
	size_t dim = (size_t)p->dim, tp;

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
	pop_sizes(p, d->nlevels, pop, &maxrung);
	for (k = 0; k < d->nlevels; k++) {
		struct dehb_pop *P = &d->pop[k];
		size_t n = (size_t)pop[k];

		P->n = pop[k];
		d->totpop += pop[k];
		if (!n)
			continue;
		P->x = malloc(n * dim * sizeof(double));
		P->fit = malloc(n * sizeof(double));
		P->cid = malloc(n * sizeof(int64_t));
		P->job = malloc(n * sizeof(int64_t));
		if (!P->x || !P->fit || !P->cid || !P->job)
			goto fail;
	}
	tp = (size_t)d->totpop + 1;
	d->order = malloc(tp * sizeof(int));
	d->otmp = malloc(tp * sizeof(int));
	d->pool = malloc((tp + DE_MAX_DONORS) * sizeof(*d->pool));
	d->glob = malloc(tp * sizeof(*d->glob));
	d->fill = malloc(DE_MAX_DONORS * dim * sizeof(double));
	d->mutant = malloc(dim * sizeof(double));
	d->inc[0].x = calloc(dim, sizeof(double));
	d->inc[1].x = calloc(dim, sizeof(double));
	d->flcap = 16;
	d->fl = calloc(d->flcap, sizeof(*d->fl));
	if (!d->order || !d->otmp || !d->pool || !d->glob || !d->fill ||
	    !d->mutant || !d->inc[0].x || !d->inc[1].x || !d->fl)
		goto fail;
	for (k = 0; k < 2; k++) {
		d->inc[k].v.valid = 0;
		d->inc[k].v.loss = INFINITY;
		d->inc[k].v.level = -1;
		d->inc[k].v.config_id = -1;
	}
	*out = d;
	return DEHBQ_OK;
fail:
	dehb_free(d);
	return dehbq_errf(err, rc, "out of memory");
}

int dehb_new(const struct dehb_params *p, struct dehb **out, char *err)
{
	struct dehb *d;
	int rc, k, i;

	*out = NULL;
	rc = dehb_alloc(p, &d, err);
	if (rc != DEHBQ_OK)
		return rc;
	rng_seed(&d->rng, p->seed);
	for (k = 0; k < d->nlevels; k++)
		rng_seed(&d->pop[k].rng, rng_split(&d->rng));
	for (k = 0; k < d->nlevels; k++) {
		struct dehb_pop *P = &d->pop[k];

		for (i = 0; i < P->n * p->dim; i++)
			P->x[i] = rng_uniform(&P->rng);
		for (i = 0; i < P->n; i++) {
			P->fit[i] = INFINITY;
			P->cid[i] = d->next_cid++;
			P->job[i] = -1;
		}
	}
	*out = d;
	return DEHBQ_OK;
}

/* ---- in-flight table: linear probing, backward-shift deletion ---- */

static size_t fl_hash(uint64_t id, size_t cap)
{
	return (size_t)((id * UINT64_C(0x9e3779b97f4a7c15)) >> 20) & (cap - 1);
}

struct dehb_fl *dehb_fl_find(const struct dehb *d, uint64_t id)
{
	size_t i = fl_hash(id, d->flcap);

	while (d->fl[i].used) {
		if (d->fl[i].job.id == id)
			return &d->fl[i];
		i = (i + 1) & (d->flcap - 1);
	}
	return NULL;
}

static void fl_put(struct dehb_fl *t, size_t cap, const struct dehb_fl *e)
{
	size_t i = fl_hash(e->job.id, cap);

	while (t[i].used)
		i = (i + 1) & (cap - 1);
	t[i] = *e;
}

/* Make room for one more job; the only allocation of an insert. */
static int fl_reserve(struct dehb *d)
{
	struct dehb_fl *t;
	size_t i, cap;

	if ((d->flcount + 1) * 2 <= d->flcap)
		return DEHBQ_OK;
	cap = d->flcap * 2;
	t = calloc(cap, sizeof(*t));
	if (!t)
		return DEHBQ_ENOMEM;
	for (i = 0; i < d->flcap; i++)
		if (d->fl[i].used)
			fl_put(t, cap, &d->fl[i]);
	free(d->fl);
	d->fl = t;
	d->flcap = cap;
	return DEHBQ_OK;
}

int dehb_fl_insert(struct dehb *d, const struct dehb_job *job, double *x)
{
	struct dehb_fl e;
	int rc = fl_reserve(d);

	if (rc != DEHBQ_OK)
		return rc;
	e.used = 1;
	e.job = *job;
	e.x = x;
	e.reopened = 0;
	fl_put(d->fl, d->flcap, &e);
	d->flcount++;
	return DEHBQ_OK;
}

static void fl_remove(struct dehb *d, struct dehb_fl *e)
{
	size_t mask = d->flcap - 1;
	size_t i = (size_t)(e - d->fl), j = i;

	free(e->x);
	d->fl[i].used = 0;
	for (;;) {
		size_t h;

		j = (j + 1) & mask;
		if (!d->fl[j].used)
			break;
		h = fl_hash(d->fl[j].job.id, d->flcap);
		/* move j back to i unless h lies cyclically in (i, j] */
		if ((i <= j) ? (i < h && h <= j) : (i < h || h <= j))
			continue;
		d->fl[i] = d->fl[j];
		d->fl[j].used = 0;
		i = j;
	}
	d->flcount--;
}

/* ---- brackets ---- */

int dehb_bracket_alloc(const struct dehb *d, struct dehb_bracket *b)
{
	int r;
	size_t dim = (size_t)d->p.dim;

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

static struct dehb_bracket *bracket_find(struct dehb *d, int64_t id)
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

/* ---- sorting: stable merge sort of indices by fitness ---- */

static void sort_by_fit(int *idx, int *tmp, int n, const double *fit)
{
	int w, i;

	for (w = 1; w < n; w *= 2) {
		for (i = 0; i < n; i += 2 * w) {
			int a = i, m = i + w < n ? i + w : n;
			int b = m, e = i + 2 * w < n ? i + 2 * w : n, o = i;

			while (a < m && b < e)
				tmp[o++] = fit[idx[b]] < fit[idx[a]] ? idx[b++]
								     : idx[a++];
			while (a < m)
				tmp[o++] = idx[a++];
			while (b < e)
				tmp[o++] = idx[b++];
		}
		memcpy(idx, tmp, (size_t)n * sizeof(int));
	}
}

/* d->order[0..n) = slots of level k sorted by fitness, index breaks ties. */
static void pop_order(struct dehb *d, int k)
{
	int i, n = d->pop[k].n;

	for (i = 0; i < n; i++)
		d->order[i] = i;
	sort_by_fit(d->order, d->otmp, n, d->pop[k].fit);
}

/* Sort a rung's results by (loss, job id) unless already sorted. */
static void rung_sort(struct dehb *d, struct dehb_bracket *b, int r)
{
	int n = b->hb.done[r], i, j, dim = d->p.dim;

	for (i = 1; i < n; i++) {
		/* insertion sort: rungs are small and sorted only once */
		double l = b->rloss[r][i];
		int64_t c = b->rcid[r][i], jb = b->rjob[r][i];

		for (j = i; j > 0; j--) {
			double pl = b->rloss[r][j - 1];

			if (pl < l || (pl == l && b->rjob[r][j - 1] < jb))
				break;
		}
		if (j == i)
			continue;
		memcpy(d->mutant, b->rx[r] + (size_t)i * dim,
		       (size_t)dim * sizeof(double));
		memmove(b->rloss[r] + j + 1, b->rloss[r] + j,
			(size_t)(i - j) * sizeof(double));
		memmove(b->rcid[r] + j + 1, b->rcid[r] + j,
			(size_t)(i - j) * sizeof(int64_t));
		memmove(b->rjob[r] + j + 1, b->rjob[r] + j,
			(size_t)(i - j) * sizeof(int64_t));
		memmove(b->rx[r] + (size_t)(j + 1) * dim,
			b->rx[r] + (size_t)j * dim,
			(size_t)(i - j) * dim * sizeof(double));
		b->rloss[r][j] = l;
		b->rcid[r][j] = c;
		b->rjob[r][j] = jb;
		memcpy(b->rx[r] + (size_t)j * dim, d->mutant,
		       (size_t)dim * sizeof(double));
	}
}

/* ---- job production ---- */

static void random_vec(struct rng *r, int dim, double *x)
{
	int i;

	for (i = 0; i < dim; i++)
		x[i] = rng_uniform(r);
}

/*
 * Build a DE trial for slot `slot` of level k into out.  The parent pool
 * is the top n_r of level `lower` (stable by fitness), minus the target's
 * config; if smaller than the strategy needs, it is topped up with
 * exactly the missing number of boundary-repaired mutants built from the
 * global population (all levels, ascending, target excluded), or with
 * uniform vectors when even that is too small.
 */
static void make_trial(struct dehb *d, int k, int lower, int n_r, int slot,
		       double *out)
{
	struct dehb_pop *P = &d->pop[k], *Q = &d->pop[lower];
	int dim = d->p.dim, m = de_donors_needed(d->p.mutation);
	const double *target = P->x + (size_t)slot * dim;
	const double *best, *don[DE_MAX_DONORS];
	int idx[DE_MAX_DONORS], np = 0, i, t, excl = 0;

	if (n_r > Q->n)
		n_r = Q->n;
	pop_order(d, lower);
	for (i = 0; i < n_r; i++) {
		int s = d->order[i];

		if (!excl && Q->cid[s] == P->cid[slot]) {
			excl = 1;
			continue;
		}
		d->pool[np++] = Q->x + (size_t)s * dim;
	}
	if (d->inc[DEHB_INC_ANY].v.valid) {
		best = d->inc[DEHB_INC_ANY].x;
	} else {
		int b = 0;

		for (i = 1; i < P->n; i++)
			if (P->fit[i] < P->fit[b])
				b = i;
		best = P->x + (size_t)b * dim;
	}
	if (np < m) {
		int g = 0, need = m - np, lv;

		for (lv = 0; lv < d->nlevels; lv++)
			for (i = 0; i < d->pop[lv].n; i++)
				if (lv != k || i != slot)
					d->glob[g++] =
						d->pop[lv].x + (size_t)i * dim;
		for (t = 0; t < need; t++) {
			double *f = d->fill + (size_t)t * dim;

			if (g >= m) {
				de_sample_distinct(&P->rng, g, m, idx);
				for (i = 0; i < m; i++)
					don[i] = d->glob[idx[i]];
				de_mutate(d->p.mutation, d->p.mutation_factor,
					  dim, don, best, target, f);
				de_repair(d->p.boundary, &P->rng, dim, f);
			} else {
				random_vec(&P->rng, dim, f);
			}
			d->pool[np++] = f;
		}
	}
	de_sample_distinct(&P->rng, np, m, idx);
	for (i = 0; i < m; i++)
		don[i] = d->pool[idx[i]];
	de_mutate(d->p.mutation, d->p.mutation_factor, dim, don, best, target,
		  d->mutant);
	de_crossover(d->p.crossover, &P->rng, dim, d->p.crossover_prob, target,
		     d->mutant, out);
	de_repair(d->p.boundary, &P->rng, dim, out);
}

/* 1 if a promotion of config cid to level k is in flight. */
static int promo_in_flight(const struct dehb *d, int k, int64_t cid)
{
	size_t i;

	for (i = 0; i < d->flcap; i++) {
		const struct dehb_fl *e = &d->fl[i];

		if (e->used && e->job.kind == DEHB_KIND_PROMOTION &&
		    e->job.level == k && e->job.config_id == cid)
			return 1;
	}
	return 0;
}

/*
 * Best finite-fitness slot of level k-1 whose config is neither in level
 * k's subpopulation nor in flight as a promotion to level k; -1 if none.
 */
static int promo_candidate(struct dehb *d, int k)
{
	struct dehb_pop *P = &d->pop[k], *Q = &d->pop[k - 1];
	int i, j;

	pop_order(d, k - 1);
	for (i = 0; i < Q->n; i++) {
		int s = d->order[i], present = 0;

		if (!(Q->fit[s] < INFINITY))
			break;
		for (j = 0; j < P->n && !present; j++)
			present = P->cid[j] == Q->cid[s];
		if (present || promo_in_flight(d, k, Q->cid[s]))
			continue;
		return s;
	}
	return -1;
}

static int bracket_limit_hit(const struct dehb *d)
{
	return d->p.max_brackets > 0 && d->next_bracket >= d->p.max_brackets;
}

static int any_pending(const struct dehb *d)
{
	int i;

	for (i = 0; i < d->nbr; i++)
		if (hb_bracket_is_pending(&d->br[i].hb))
			return 1;
	return 0;
}

int dehb_exhausted(const struct dehb *d)
{
	const struct dehb_params *p = &d->p;

	if (p->max_brackets > 0) {
		if (!dehb_uses_brackets(d))
			return d->asked >= p->max_brackets;
		if (bracket_limit_hit(d) && !any_pending(d))
			return 1;
	}
	return 0;
}

int dehb_finished(const struct dehb *d)
{
	return dehb_exhausted(d) && d->flcount == 0;
}

/* Choose (or open) the bracket and rung of the next job. */
static int pick_bracket(struct dehb *d, int *bi, int *rung)
{
	struct dehb_bracket nb;
	int i, s, rc;

	for (i = 0; i < d->nbr; i++) {
		int r = hb_bracket_next_rung(&d->br[i].hb);

		if (r >= 0) {
			*bi = i;
			*rung = r;
			return DEHBQ_OK;
		}
	}
	if (bracket_limit_hit(d))
		return any_pending(d) ? DEHBQ_EAGAIN : DEHBQ_EDONE;
	if (d->p.max_active_brackets > 0 && d->nbr >= d->p.max_active_brackets)
		return DEHBQ_EAGAIN;
	if (d->nbr == d->capbr) {
		int cap = d->capbr ? 2 * d->capbr : 4;
		struct dehb_bracket *t =
			realloc(d->br, (size_t)cap * sizeof(*t));

		if (!t)
			return DEHBQ_ENOMEM;
		d->br = t;
		d->capbr = cap;
	}
	s = d->p.optimizer == DEHB_OPT_SH
		    ? d->nlevels - 1
		    : hb_bracket_s(d->nlevels, d->next_bracket);
	rc = hb_bracket_init(&nb.hb, d->next_bracket, s, d->nlevels, d->p.eta);
	if (rc != DEHBQ_OK)
		return rc;
	rc = dehb_bracket_alloc(d, &nb);
	if (rc != DEHBQ_OK)
		return rc;
	d->br[d->nbr] = nb;
	*bi = d->nbr++;
	d->next_bracket++;
	*rung = 0;
	return DEHBQ_OK;
}

int dehb_ask(struct dehb *d, struct dehb_job *job, double *vec)
{
	struct dehb_job j;
	struct dehb_bracket *b = NULL;
	int dim = d->p.dim, rc, bi = 0, r = 0;
	double *x = NULL;

	memset(job, 0, sizeof(*job));
	if (dehb_exhausted(d))
		return DEHBQ_EDONE;
	if (d->asked >= DEHB_MAX_ID)
		return DEHBQ_EDONE;
	rc = DEHBQ_ENOMEM;
	x = malloc((size_t)dim * sizeof(double));
	if (!x)
		goto fail;
	rc = fl_reserve(d);
	if (rc != DEHBQ_OK)
		goto fail;
	memset(&j, 0, sizeof(j));
	j.id = (uint64_t)d->asked;
	j.parent_job = -1;
	j.slot = -1;
	if (dehb_uses_brackets(d)) {
		rc = pick_bracket(d, &bi, &r);
		if (rc != DEHBQ_OK)
			goto fail;
		b = &d->br[bi];
		j.bracket = b->hb.id;
		j.rung = r;
		j.level = b->hb.base + r;
	} else {
		j.bracket = d->asked;
		j.level = d->nlevels - 1;
	}
	j.fidelity = d->fid[j.level];
	switch (d->p.optimizer) {
	case DEHB_OPT_RANDOM:
		j.kind = DEHB_KIND_RANDOM;
		j.config_id = d->next_cid++;
		random_vec(&d->rng, dim, x);
		break;
	case DEHB_OPT_SH:
	case DEHB_OPT_HYPERBAND: {
		int q = b->hb.n[r] - b->hb.pending[r];

		j.slot = q;
		if (r == 0) {
			j.kind = DEHB_KIND_RANDOM;
			j.config_id = d->next_cid++;
			random_vec(&d->rng, dim, x);
			break;
		}
		if (q == 0)
			rung_sort(d, b, r - 1);
		j.kind = DEHB_KIND_PROMOTION;
		j.config_id = b->rcid[r - 1][q];
		j.parent_job = b->rjob[r - 1][q];
		memcpy(x, b->rx[r - 1] + (size_t)q * dim,
		       (size_t)dim * sizeof(double));
		break;
	}
	case DEHB_OPT_DE: {
		struct dehb_pop *P = &d->pop[j.level];

		j.slot = P->ptr;
		P->ptr = (P->ptr + 1) % P->n;
		if (d->asked < P->n) {
			j.kind = DEHB_KIND_RANDOM;
			j.config_id = P->cid[j.slot];
			memcpy(x, P->x + (size_t)j.slot * dim,
			       (size_t)dim * sizeof(double));
			break;
		}
		j.kind = DEHB_KIND_TRIAL;
		j.config_id = d->next_cid++;
		make_trial(d, j.level, j.level, P->n, j.slot, x);
		break;
	}
	case DEHB_OPT_DEHB:
	default: {
		struct dehb_pop *P = &d->pop[j.level];
		int c = -1;

		j.slot = P->ptr;
		P->ptr = (P->ptr + 1) % P->n;
		if (b->hb.id < d->nlevels && r > 0)
			c = promo_candidate(d, j.level);
		if (c >= 0) {
			struct dehb_pop *Q = &d->pop[j.level - 1];

			j.kind = DEHB_KIND_PROMOTION;
			j.config_id = Q->cid[c];
			j.parent_job = Q->job[c];
			memcpy(x, Q->x + (size_t)c * dim,
			       (size_t)dim * sizeof(double));
			break;
		}
		j.kind = DEHB_KIND_TRIAL;
		j.config_id = d->next_cid++;
		make_trial(d, j.level, r > 0 ? j.level - 1 : j.level,
			   b->hb.n[r], j.slot, x);
		break;
	}
	}
	if (b)
		hb_bracket_register(&b->hb, r);
	dehb_fl_insert(d, &j, x); /* cannot fail: reserved above */
	d->asked++;
	*job = j;
	if (vec)
		memcpy(vec, x, (size_t)dim * sizeof(double));
	return DEHBQ_OK;
fail:
	free(x);
	return rc;
}

static void inc_update(struct dehb *d, int which, const struct dehb_job *j,
		       double fit, const double *x)
{
	struct dehb_inc *in = &d->inc[which];

	if (!(fit < in->v.loss))
		return;
	in->v.valid = 1;
	in->v.loss = fit;
	in->v.fidelity = j->fidelity;
	in->v.level = j->level;
	in->v.job_id = j->id;
	in->v.config_id = j->config_id;
	memcpy(in->x, x, (size_t)d->p.dim * sizeof(double));
}

int dehb_tell(struct dehb *d, uint64_t job_id, enum dehb_status status,
	      double loss, double cost)
{
	struct dehb_fl *e = dehb_fl_find(d, job_id);
	struct dehb_bracket *b = NULL;
	const struct dehb_job *j;
	int dim = d->p.dim;
	double fit;

	if (!e)
		return job_id < (uint64_t)d->asked ? DEHBQ_ESTATE
						   : DEHBQ_ENOENT;
	if ((unsigned)status > DEHB_FAILED || !isfinite(cost) || cost < 0)
		return DEHBQ_EINVAL;
	if (status == DEHB_OK && loss == -INFINITY)
		return DEHBQ_EINVAL;
	fit = (status == DEHB_FAILED || isnan(loss)) ? INFINITY : loss;
	j = &e->job;
	if (dehb_uses_brackets(d) && !e->reopened) {
		b = bracket_find(d, j->bracket);
		if (!b)
			return DEHBQ_ESTATE; /* cannot happen */
		if (dehb_uses_brackets(d) == 2 && j->rung + 1 < b->hb.nrungs) {
			int q = b->hb.done[j->rung];

			b->rloss[j->rung][q] = fit;
			b->rcid[j->rung][q] = j->config_id;
			b->rjob[j->rung][q] = (int64_t)j->id;
			memcpy(b->rx[j->rung] + (size_t)q * dim, e->x,
			       (size_t)dim * sizeof(double));
		}
		hb_bracket_complete(&b->hb, j->rung);
	}
	if (d->p.optimizer == DEHB_OPT_DEHB || d->p.optimizer == DEHB_OPT_DE) {
		struct dehb_pop *P = &d->pop[j->level];
		int s = j->slot;

		if (fit <= P->fit[s]) {
			memcpy(P->x + (size_t)s * dim, e->x,
			       (size_t)dim * sizeof(double));
			P->fit[s] = fit;
			P->cid[s] = j->config_id;
			P->job[s] = (int64_t)j->id;
		}
	}
	inc_update(d, DEHB_INC_ANY, j, fit, e->x);
	if (j->level == d->nlevels - 1)
		inc_update(d, DEHB_INC_MAX, j, fit, e->x);
	d->told++;
	if (status == DEHB_FAILED || isnan(loss))
		d->failed++;
	if (b && hb_bracket_done(&b->hb)) {
		int i = (int)(b - d->br);

		dehb_bracket_release(b);
		memmove(d->br + i, d->br + i + 1,
			(size_t)(d->nbr - i - 1) * sizeof(*d->br));
		d->nbr--;
	}
	fl_remove(d, e);
	return DEHBQ_OK;
}

int dehb_reopen(struct dehb *d, const struct dehb_job *job, const double *vec)
{
	struct dehb_fl *e;
	double *x;
	int i, n;

	if (job->id >= (uint64_t)d->asked)
		return DEHBQ_ENOENT;
	if (dehb_fl_find(d, job->id) || d->failed < 1 || d->told < 1)
		return DEHBQ_ESTATE;
	if (job->level < 0 || job->level >= d->nlevels ||
	    (unsigned)job->kind > DEHB_KIND_RANDOM || job->config_id < 0 ||
	    job->config_id >= d->next_cid || job->parent_job >= d->asked)
		return DEHBQ_EINVAL;
	n = d->pop[job->level].n;
	if (d->p.optimizer == DEHB_OPT_DEHB || d->p.optimizer == DEHB_OPT_DE) {
		if (job->slot < 0 || job->slot >= n)
			return DEHBQ_EINVAL;
	}
	for (i = 0; i < d->p.dim; i++)
		if (!(vec[i] >= 0 && vec[i] <= 1))
			return DEHBQ_EINVAL;
	if (!(x = malloc((size_t)d->p.dim * sizeof(*x))))
		return DEHBQ_ENOMEM;
	memcpy(x, vec, (size_t)d->p.dim * sizeof(*x));
	if (dehb_fl_insert(d, job, x)) {
		free(x);
		return DEHBQ_ENOMEM;
	}
	e = dehb_fl_find(d, job->id);
	e->job.fidelity = d->fid[job->level];
	e->reopened = 1;
	d->told--;
	d->failed--;
	return DEHBQ_OK;
}

int dehb_job_get(const struct dehb *d, uint64_t job_id, struct dehb_job *job,
		 double *vec)
{
	const struct dehb_fl *e = dehb_fl_find(d, job_id);

	if (!e)
		return DEHBQ_ENOENT;
	if (job)
		*job = e->job;
	if (vec)
		memcpy(vec, e->x, (size_t)d->p.dim * sizeof(double));
	return DEHBQ_OK;
}

const struct dehb_params *dehb_get_params(const struct dehb *d)
{
	return &d->p;
}

void dehb_get_counts(const struct dehb *d, struct dehb_counts *c)
{
	c->asked = d->asked;
	c->told = d->told;
	c->failed = d->failed;
	c->inflight = (int64_t)d->flcount;
	c->brackets = d->next_bracket;
}

int dehb_incumbent(const struct dehb *d, enum dehb_inc_which which,
		   struct dehb_incumbent *inc, double *vec)
{
	const struct dehb_inc *in;

	if ((unsigned)which > DEHB_INC_MAX)
		return DEHBQ_EINVAL;
	in = &d->inc[which];
	*inc = in->v;
	if (!in->v.valid)
		return DEHBQ_ENOENT;
	if (vec)
		memcpy(vec, in->x, (size_t)d->p.dim * sizeof(double));
	return DEHBQ_OK;
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

/* ---- enum names ---- */

static const char *const opt_names[] = {"dehb",	     "random", "sh",
					"hyperband", "de",     NULL};
const char *const dehb_mutation_names[] = {
	"rand1", "rand2", "best1", "currenttobest1", "randtobest1", NULL};
const char *const dehb_crossover_names[] = {"bin", "exp", NULL};
const char *const dehb_boundary_names[] = {"random", "clip", NULL};
static const char *const kind_names[] = {"trial", "promotion", "random", NULL};
#define mut_names   dehb_mutation_names
#define cx_names    dehb_crossover_names
#define bound_names dehb_boundary_names

static const char *name_of(const char *const *names, int n, int v)
{
	return v >= 0 && v < n ? names[v] : "unknown";
}

static int parse_name(const char *const *names, int n, const char *s, int *v)
{
	int i;

	for (i = 0; s && i < n; i++) {
		if (!strcmp(s, names[i])) {
			*v = i;
			return DEHBQ_OK;
		}
	}
	return DEHBQ_EINVAL;
}

#define NAMES(a) a, (int)(sizeof(a) / sizeof(a[0])) - 1

const char *dehb_optimizer_name(enum dehb_optimizer o)
{
	return name_of(NAMES(opt_names), (int)o);
}

int dehb_optimizer_parse(const char *s, enum dehb_optimizer *o)
{
	int v, rc = parse_name(NAMES(opt_names), s, &v);

	if (rc == DEHBQ_OK)
		*o = (enum dehb_optimizer)v;
	return rc;
}

const char *dehb_mutation_name(enum dehb_mutation m)
{
	return name_of(NAMES(mut_names), (int)m);
}

int dehb_mutation_parse(const char *s, enum dehb_mutation *m)
{
	int v, rc = parse_name(NAMES(mut_names), s, &v);

	if (rc == DEHBQ_OK)
		*m = (enum dehb_mutation)v;
	return rc;
}

const char *dehb_crossover_name(enum dehb_crossover c)
{
	return name_of(NAMES(cx_names), (int)c);
}

int dehb_crossover_parse(const char *s, enum dehb_crossover *c)
{
	int v, rc = parse_name(NAMES(cx_names), s, &v);

	if (rc == DEHBQ_OK)
		*c = (enum dehb_crossover)v;
	return rc;
}

const char *dehb_boundary_name(enum dehb_boundary b)
{
	return name_of(NAMES(bound_names), (int)b);
}

int dehb_boundary_parse(const char *s, enum dehb_boundary *b)
{
	int v, rc = parse_name(NAMES(bound_names), s, &v);

	if (rc == DEHBQ_OK)
		*b = (enum dehb_boundary)v;
	return rc;
}

const char *dehb_kind_name(enum dehb_kind k)
{
	return name_of(NAMES(kind_names), (int)k);
}

int dehb_kind_parse(const char *s, enum dehb_kind *k)
{
	int v, rc = parse_name(NAMES(kind_names), s, &v);

	if (rc == DEHBQ_OK)
		*k = (enum dehb_kind)v;
	return rc;
}
