/*
 * search_de.c - owns the de searcher: asynchronous Differential Evolution
 * (Storn and Price 1997; DEHB's DE, ../shared/DEHB_SPEC.md section 4)
 * with one subpopulation per level of the scheduler's ladder.
 *
 * Each level keeps population_size members, drawn uniformly at open from
 * the level's own stream, and a rolling target slot.  A proposal for a
 * level takes the next slot: the slot's initial member the first time
 * round, then a DE trial against the slot's member (mutation of donors
 * drawn from the parent pool, crossover with the target, boundary repair:
 * optim/models/de.h).  Its result replaces the member when it is no worse
 * (selection); a failure counts as +inf.  A job the searcher did not
 * propose (a promotion, a requeued job) takes its level's next slot when
 * it is issued and competes for it likewise, as DEHB's promotions do.
 *
 * The parent pool of a proposal at level k is the highest level at or
 * above k whose members all hold a result (BOHB's rule for a model,
 * applied to DE: under ASHA or a stopping scheduler the base rung's
 * trials learn from what the higher rungs measured), else level k
 * itself; the target is never its own donor.  Under fifo (one level,
 * which takes the stream of the study ladder's top level) it is the `de`
 * preset, and 0.4's de, which ran on the DEHB engine, proposal for
 * proposal; a state of that engine loads through search_de_v04.h.  The
 * best vector of the *best* strategies is the best result at any
 * fidelity.
 *
 * Settings: population_size (20), mutation, crossover, boundary,
 * mutation_factor and crossover_prob (as the de preset's).  The state is
 * bounded, levels x population_size members plus the jobs in flight, and
 * saved whole (SEARCH_CAP_KEEPS).
 */
#include "search_de_impl.h"

#include "de.h"
#include "err.h"
#include "hb.h"
#include "jsonbuf.h"
#include "mobj.h"
#include "ostate.h"
#include "rng.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const de_keys[] = {"population_size", "mutation",
				      "crossover",	 "boundary",
				      "mutation_factor", "crossover_prob",
				      "prior_mutants",	 "prior_candidates",
				      "prior_steps",	 NULL};

int des_read(const cJSON *in, struct des_set *s, char *err)
{
	int rc;

	s->pop = 20;
	s->mut = DE_MUT_RAND1;
	s->cx = DE_CX_BIN;
	s->bound = DE_BOUND_RANDOM;
	s->F = 0.5;
	s->CR = 0.5;
	s->prior_k = 8;
	s->prior_cand = 2000;
	s->prior_steps = 1000;
	if ((rc = ostate_set_keys(in, de_keys, "de", err)) ||
	    (rc = ostate_set_int(in, "population_size", 4, DES_MAX_POP, &s->pop,
				 err)) ||
	    (rc = ostate_set_choice(in, "mutation", de_mutation_names, &s->mut,
				    err)) ||
	    (rc = ostate_set_choice(in, "crossover", de_crossover_names, &s->cx,
				    err)) ||
	    (rc = ostate_set_choice(in, "boundary", de_boundary_names,
				    &s->bound, err)) ||
	    (rc = ostate_set_num(in, "mutation_factor", 1e-9, 2, &s->F, err)) ||
	    (rc = ostate_set_num(in, "crossover_prob", 0, 1, &s->CR, err)) ||
	    (rc = ostate_set_int(in, "prior_mutants", 1, DES_MAX_GUIDE_K,
				 &s->prior_k, err)) ||
	    (rc = ostate_set_int(in, "prior_candidates", 1, 100000,
				 &s->prior_cand, err)) ||
	    (rc = ostate_set_int(in, "prior_steps", 1, 100000, &s->prior_steps,
				 err)))
		return rc;
	return DEHBQ_OK;
}

static int des_settings(const cJSON *in, struct jsonbuf *b, char *err)
{
	struct des_set s;
	int rc = des_read(in, &s, err);

	if (rc || !b)
		return rc;
	jsonbuf_printf(b, "\"population_size\":%d,\"mutation\":", s.pop);
	jsonbuf_str(b, de_mutation_names[s.mut]);
	jsonbuf_puts(b, ",\"crossover\":");
	jsonbuf_str(b, de_crossover_names[s.cx]);
	jsonbuf_puts(b, ",\"boundary\":");
	jsonbuf_str(b, de_boundary_names[s.bound]);
	jsonbuf_puts(b, ",\"mutation_factor\":");
	jsonbuf_num(b, s.F);
	jsonbuf_puts(b, ",\"crossover_prob\":");
	jsonbuf_num(b, s.CR);
	jsonbuf_printf(b,
		       ",\"prior_mutants\":%d,\"prior_candidates\":%d,"
		       "\"prior_steps\":%d",
		       s.prior_k, s.prior_cand, s.prior_steps);
	return jsonbuf_failed(b);
}

void des_free(void *st)
{
	struct des *d = st;
	int k;

	if (!d)
		return;
	for (k = 0; d->lv && k < d->L; k++) {
		free(d->lv[k].x);
		free(d->lv[k].fit);
		free(d->lv[k].job);
		free(d->lv[k].cid);
	}
	des_guide_free(d->guide);
	free(d->lv);
	free(d->inc_x);
	free(d->fl);
	free(d->order);
	free(d->pool);
	free(d->glob);
	free(d->fill);
	free(d->mutant);
	free(d->gx);
	free(d);
}

/* Each level's members for setup s and settings t into n (s->levels of
 * them): population_size, or DEHB's sizes when filling.  DEHBQ_ETOOBIG
 * when they do not fit the limits (err names the field). */
static int level_sizes(const struct search_setup *s, const struct des_set *t,
		       int *n, char *err)
{
	long tot = 0;
	int k, rc = DEHBQ_OK;

	if (s->levels < 1 || s->levels > HB_MAX_LEVELS)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "fidelity: %d levels; de runs 1 to %d",
				  s->levels, HB_MAX_LEVELS);
	for (k = 0; k < s->levels; k++)
		n[k] = t->pop;
	if (s->fills && (rc = des_fill_sizes(s, n)))
		return dehbq_errf(err, rc,
				  "eta: DEHB's rungs exceed the limits");
	for (k = 0; k < s->levels; k++)
		tot += n[k];
	if (tot > DES_MAX_TOTPOP || tot * s->dim > DES_MAX_CELLS)
		return dehbq_errf(err, DEHBQ_ETOOBIG,
				  "%s: %ld members over %d levels in %d "
				  "dimensions are too large; use %s",
				  s->fills ? "dim" : "population_size", tot,
				  s->levels, s->dim,
				  s->fills ? "fewer levels (a larger min "
					     "fidelity or eta)"
					   : "a smaller population_size");
	return DEHBQ_OK;
}

int des_new(const struct search_setup *s, const struct des_set *t,
	    struct des **out, char *err)
{
	struct des *d;
	size_t dim = (size_t)s->dim, all;
	int k, rc, n[HB_MAX_LEVELS];

	*out = NULL;
	if ((rc = level_sizes(s, t, n, err)))
		return rc;
	if (!(*out = d = calloc(1, sizeof(*d))))
		return dehbq_errf(err, DEHBQ_ENOMEM, "out of memory");
	d->dim = s->dim;
	d->pop = t->pop;
	d->L = s->levels;
	d->fills = s->fills;
	d->mut = t->mut;
	d->cx = t->cx;
	d->bound = t->bound;
	d->F = t->F;
	d->CR = t->CR;
	d->inc_fit = INFINITY;
	d->inc_job = -1;
	d->pend_level = -1;
	for (k = 0; k < d->L; k++)
		d->totpop += n[k];
	all = (size_t)d->totpop + 1;
	d->lv = calloc((size_t)d->L, sizeof(*d->lv));
	d->inc_x = calloc(dim, sizeof(double));
	d->order = malloc(all * sizeof(int));
	d->pool = malloc((all + DE_MAX_DONORS) * sizeof(*d->pool));
	d->glob = malloc(all * sizeof(*d->glob));
	d->fill = malloc(DE_MAX_DONORS * dim * sizeof(double));
	d->mutant = malloc(dim * sizeof(double));
	if (!d->lv || !d->inc_x || !d->order || !d->pool || !d->glob ||
	    !d->fill || !d->mutant)
		goto fail;
	for (k = 0; k < d->L; k++) {
		struct des_level *P = &d->lv[k];

		P->fid = s->ladder[k];
		P->n = n[k];
		P->x = malloc((size_t)P->n * dim * sizeof(double));
		P->fit = malloc((size_t)P->n * sizeof(double));
		P->job = malloc((size_t)P->n * sizeof(int64_t));
		P->cid = malloc((size_t)P->n * sizeof(int64_t));
		if (!P->x || !P->fit || !P->job || !P->cid)
			goto fail;
	}
	return DEHBQ_OK;
fail:
	des_free(d);
	*out = NULL;
	return dehbq_errf(err, DEHBQ_ENOMEM, "out of memory");
}

static int des_open(const struct search_setup *s, void **st, char *err)
{
	struct des_set t;
	struct des *d;
	struct rng r;
	int rc, k, i, top;

	if ((rc = des_read(s->settings, &t, err)) ||
	    (rc = des_new(s, &t, &d, err)))
		return rc;
	rng_seed(&r, s->seed);
	/* under fifo, the stream of the study ladder's top level */
	if (!s->rungs && s->eta > 1 &&
	    !hb_levels(s->min_fidelity, s->max_fidelity, s->eta, &top))
		for (k = 1; k < top; k++)
			rng_split(&r);
	for (k = 0; k < d->L; k++)
		rng_seed(&d->lv[k].rng, rng_split(&r));
	for (k = 0; k < d->L; k++) {
		struct des_level *P = &d->lv[k];

		for (i = 0; i < P->n * d->dim; i++)
			P->x[i] = rng_uniform(&P->rng);
		for (i = 0; i < P->n; i++) {
			P->fit[i] = INFINITY;
			P->job[i] = -1;
			P->cid[i] = d->next_cid++;
		}
	}
	if ((rc = des_guide_open(d, s, &t, 1, err))) {
		des_free(d);
		return rc;
	}
	*st = d;
	return DEHBQ_OK;
}

/* The level of a job at fidelity f: the highest whose fidelity is <= f. */
int des_level_of(const struct des *d, double f)
{
	int k = d->L - 1;

	while (k > 0 && d->lv[k].fid > f)
		k--;
	return k;
}

/* By fitness, then slot: the order a stable sort gives. */
static int by_fit(const void *a, const void *b, void *arg)
{
	const double *fit = arg;
	int i = *(const int *)a, j = *(const int *)b;

	if (fit[i] < fit[j])
		return -1;
	if (fit[j] < fit[i])
		return 1;
	return (i > j) - (i < j);
}

void des_order(struct des *d, int q)
{
	const struct des_level *Q = &d->lv[q];
	int i;

	for (i = 0; i < Q->n; i++)
		d->order[i] = i;
	qsort_r(d->order, (size_t)Q->n, sizeof(int), by_fit, Q->fit);
}

/* The parent pool's level for a proposal at level k. */
static int pool_level(const struct des *d, int k)
{
	int q;

	for (q = d->L - 1; q > k; q--)
		if (d->lv[q].full)
			return q;
	return k;
}

/*
 * d->pool topped up from np to m donors, as DEHB does: mutants of the
 * members of every level (the target (k, slot) left out), or uniform
 * vectors when even those are too few.  The pool's size.
 */
static int top_up(struct des *d, int k, int slot, const double *best, int np,
		  int m)
{
	struct des_level *P = &d->lv[k];
	const double *target = P->x + (size_t)slot * d->dim;
	const double *don[DE_MAX_DONORS];
	int idx[DE_MAX_DONORS], g = 0, i, t, lv;

	if (np >= m)
		return np;
	for (lv = 0; lv < d->L; lv++)
		for (i = 0; i < d->lv[lv].n; i++)
			if (lv != k || i != slot)
				d->glob[g++] = d->lv[lv].x + (size_t)i * d->dim;
	for (t = np; t < m; t++) {
		double *f = d->fill + (size_t)(t - np) * d->dim;

		if (g >= m) {
			de_sample_distinct(&P->rng, g, m, idx);
			for (i = 0; i < m; i++)
				don[i] = d->glob[idx[i]];
			de_mutate(d->mut, d->F, d->dim, don, best, target, f);
			de_repair(d->bound, &P->rng, d->dim, f);
		} else {
			for (i = 0; i < d->dim; i++)
				f[i] = rng_uniform(&P->rng);
		}
		d->pool[t] = f;
	}
	return m;
}

void des_trial(struct des *d, int k, int slot, int np, double *out)
{
	struct des_level *P = &d->lv[k];
	const double *target = P->x + (size_t)slot * d->dim, *best;
	const double *don[DE_MAX_DONORS];
	int m = de_donors_needed(d->mut), idx[DE_MAX_DONORS], i, t, b = 0;
	int kk = d->guide ? d->guide_k : 1;

	if (d->inc_valid) {
		best = d->inc_x;
	} else {
		for (i = 1; i < P->n; i++)
			if (P->fit[i] < P->fit[b])
				b = i;
		best = P->x + (size_t)b * d->dim;
	}
	np = top_up(d, k, slot, best, np, m);
	for (t = 0; t < kk; t++) {
		double *o = d->guide ? d->gx + (size_t)t * d->dim : out;

		de_sample_distinct(&P->rng, np, m, idx);
		for (i = 0; i < m; i++)
			don[i] = d->pool[idx[i]];
		de_mutate(d->mut, d->F, d->dim, don, best, target, d->mutant);
		de_crossover(d->cx, &P->rng, d->dim, d->CR, target, d->mutant,
			     o);
		de_repair(d->bound, &P->rng, d->dim, o);
	}
	if (d->guide) { /* the guide's pick of its trials */
		t = des_guide_choose(d, &P->rng, d->gx, kk);
		memcpy(out, d->gx + (size_t)t * d->dim,
		       (size_t)d->dim * sizeof(double));
	}
}

/* A DE trial against slot `slot` of level k into out: the pool is the
 * highest full level's members, best first, the target left out. */
static void make_trial(struct des *d, int k, int slot, double *out)
{
	const struct des_level *Q;
	int q = pool_level(d, k), np = 0, i;

	Q = &d->lv[q];
	des_order(d, q);
	for (i = 0; i < Q->n; i++)
		if (q != k || d->order[i] != slot)
			d->pool[np++] = Q->x + (size_t)d->order[i] * d->dim;
	des_trial(d, k, slot, np, out);
}

/* Room for one more job in flight. */
int des_fl_reserve(struct des *d)
{
	struct des_fl *f;
	size_t cap;

	if (d->nfl < d->flcap)
		return DEHBQ_OK;
	cap = d->flcap ? 2 * d->flcap : 16;
	if (!(f = realloc(d->fl, cap * sizeof(*f))))
		return DEHBQ_ENOMEM;
	d->fl = f;
	d->flcap = cap;
	return DEHBQ_OK;
}

struct des_fl *des_fl_find(struct des *d, int64_t job)
{
	size_t i;

	for (i = 0; i < d->nfl; i++)
		if (d->fl[i].job == job)
			return &d->fl[i];
	return NULL;
}

/* The next target slot of level k. */
int des_take_slot(struct des *d, int k)
{
	struct des_level *P = &d->lv[k];
	int s = P->ptr;

	P->ptr = (P->ptr + 1) % P->n;
	P->turns++;
	return s;
}

static int des_propose(void *st, double fidelity, double *vec,
		       enum trial_kind *kind)
{
	struct des *d = st;
	int k = des_level_of(d, fidelity), slot, rc;
	int first = d->lv[k].turns < d->lv[k].n;

	if ((rc = des_fl_reserve(d)))
		return rc;
	slot = des_take_slot(d, k);
	if (first) {
		memcpy(vec, d->lv[k].x + (size_t)slot * d->dim,
		       (size_t)d->dim * sizeof(double));
		*kind = TRIAL_KIND_RANDOM;
	} else {
		make_trial(d, k, slot, vec);
		*kind = TRIAL_KIND_TRIAL;
	}
	d->pend_level = k;
	d->pend_slot = slot;
	d->pend_cid = d->next_cid++;
	d->pend_promo = 0;
	return DEHBQ_OK;
}

static int des_issued(void *st, int64_t job, const double *vec, double fidelity)
{
	struct des *d = st;
	int k = des_level_of(d, fidelity), rc;
	struct des_fl *f;

	(void)vec;
	if (des_fl_find(d, job)) { /* issued twice: a no-op */
		d->pend_level = -1;
		return DEHBQ_OK;
	}
	if ((rc = des_fl_reserve(d)))
		return rc;
	f = &d->fl[d->nfl++];
	f->job = job;
	f->level = k;
	f->cid = d->pend_cid;
	f->promo = d->pend_promo;
	if (d->pend_level == k) { /* the proposal just made */
		f->slot = d->pend_slot;
	} else { /* a promotion or a requeued job: the level's next slot */
		f->slot = des_take_slot(d, k);
		f->cid = d->next_cid++;
		f->promo = 0;
	}
	d->pend_level = -1;
	return DEHBQ_OK;
}

static void inc_update(struct des *d, int64_t job, const double *vec,
		       double loss)
{
	if (!(loss < d->inc_fit))
		return;
	d->inc_valid = 1;
	d->inc_fit = loss;
	d->inc_job = job;
	memcpy(d->inc_x, vec, (size_t)d->dim * sizeof(double));
}

/* 1 when every member of level P holds a result. */
int des_level_full(const struct des *d, const struct des_level *P)
{
	int i;

	(void)d;
	for (i = 0; i < P->n; i++)
		if (P->job[i] < 0)
			return 0;
	return 1;
}

static int des_observe(void *st, int64_t job, const double *vec,
		       double fidelity, double loss)
{
	struct des *d = st;
	struct des_fl *f = des_fl_find(d, job);

	(void)fidelity;
	if (isnan(loss))
		loss = INFINITY;
	if (f) {
		struct des_level *P = &d->lv[f->level];
		int s = f->slot;

		if (loss <= P->fit[s]) {
			memcpy(P->x + (size_t)s * d->dim, vec,
			       (size_t)d->dim * sizeof(double));
			P->fit[s] = loss;
			P->job[s] = job;
			P->cid[s] = f->cid;
			P->full = P->full || des_level_full(d, P);
		}
		*f = d->fl[--d->nfl];
	}
	inc_update(d, job, vec, loss);
	return DEHBQ_OK;
}

/* A multi-objective study's scores moved: every member's fitness, and the
 * best result, which a member holds unless it came from a job that
 * competed for no slot. */
static int des_rescore(void *st, const struct mobj *mo)
{
	struct des *d = st;
	double v;
	int k, i;

	if (d->inc_valid && !isnan(v = mobj_score(mo, d->inc_job)))
		d->inc_fit = v;
	for (k = 0; k < d->L; k++) {
		struct des_level *P = &d->lv[k];

		for (i = 0; i < P->n; i++) {
			if (P->job[i] < 0 ||
			    isnan(v = mobj_score(mo, P->job[i])))
				continue;
			P->fit[i] = v;
			if (v < d->inc_fit) {
				d->inc_fit = v;
				d->inc_job = P->job[i];
				memcpy(d->inc_x, P->x + (size_t)i * d->dim,
				       (size_t)d->dim * sizeof(double));
			}
		}
	}
	return DEHBQ_OK;
}

static int des_describe(const void *st, struct jsonbuf *b)
{
	const struct des *d = st;
	int k;

	if (d->fills) { /* DEHB's sizes, one a level */
		jsonbuf_puts(b, "\"sizes\":[");
		for (k = 0; k < d->L; k++)
			jsonbuf_printf(b, "%s%d", k ? "," : "", d->lv[k].n);
		jsonbuf_printf(b, "],\"levels\":%d", d->L);
	} else {
		jsonbuf_printf(b, "\"population_size\":%d,\"levels\":%d",
			       d->pop, d->L);
	}
	if (d->inc_valid) {
		jsonbuf_puts(b, ",\"best\":");
		jsonbuf_num(b, d->inc_fit);
	}
	if (jsonbuf_failed(b))
		return DEHBQ_ENOMEM;
	return des_guide_describe(d, b);
}

const struct search_ops search_de_ops = {
	.name = "de",
	.summary = "differential evolution: a subpopulation per fidelity "
		   "level, trials against a rolling target",
	.caps = SEARCH_CAP_LEARNS | SEARCH_CAP_KEEPS | SEARCH_CAP_FILLS,
	.open = des_open,
	.propose = des_propose,
	.propose_at = des_propose_at,
	.observe = des_observe,
	.issued = des_issued,
	.save = des_save,
	.load = des_load,
	.describe = des_describe,
	.free = des_free,
	.settings = des_settings,
	.rescore = des_rescore,
};
