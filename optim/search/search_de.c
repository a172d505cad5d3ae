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
#include "searcher.h"

#include "search_de_v04.h"

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

#define DES_MAX_POP 100000

struct des_level {
	double fid;	/* the ladder's fidelity */
	int64_t turns;	/* slots taken (the first round hands out x) */
	int ptr;	/* the next target slot */
	int full;	/* every member holds a result */
	struct rng rng; /* the level's stream */
	double *x;	/* pop * dim */
	double *fit;	/* pop, +inf until a result is accepted */
	int64_t *job;	/* pop, the job a member came from, -1: initial */
};

struct des_fl { /* a job in flight */
	int64_t job;
	int level, slot;
};

struct des {
	int dim, pop, L;
	int mut, cx, bound; /* de.h enums */
	double F, CR;
	struct des_level *lv;
	int inc_valid;
	double inc_fit, *inc_x; /* the best result at any fidelity */
	int64_t inc_job;
	struct des_fl *fl; /* in flight, in issue order */
	size_t nfl, flcap;
	int pend_level, pend_slot; /* the last proposal's, until issued */
	/* scratch */
	int *order;
	const double **pool, **glob;
	double *fill, *mutant;
};

struct des_set {
	int pop, mut, cx, bound;
	double F, CR;
};

static const char *const de_keys[] = {
	"population_size", "mutation",	     "crossover", "boundary",
	"mutation_factor", "crossover_prob", NULL};

static int des_read(const cJSON *in, struct des_set *s, char *err)
{
	int rc;

	s->pop = 20;
	s->mut = DE_MUT_RAND1;
	s->cx = DE_CX_BIN;
	s->bound = DE_BOUND_RANDOM;
	s->F = 0.5;
	s->CR = 0.5;
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
	    (rc = ostate_set_num(in, "crossover_prob", 0, 1, &s->CR, err)))
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
	return jsonbuf_failed(b);
}

static void des_free(void *st)
{
	struct des *d = st;
	int k;

	if (!d)
		return;
	for (k = 0; d->lv && k < d->L; k++) {
		free(d->lv[k].x);
		free(d->lv[k].fit);
		free(d->lv[k].job);
	}
	free(d->lv);
	free(d->inc_x);
	free(d->fl);
	free(d->order);
	free(d->pool);
	free(d->glob);
	free(d->fill);
	free(d->mutant);
	free(d);
}

/* A searcher for setup s with settings t, its members not yet drawn. */
static int des_new(const struct search_setup *s, const struct des_set *t,
		   struct des **out)
{
	struct des *d = calloc(1, sizeof(*d));
	size_t dim = (size_t)s->dim, n = (size_t)t->pop, all;
	int k;

	if (!(*out = d))
		return DEHBQ_ENOMEM;
	d->dim = s->dim;
	d->pop = t->pop;
	d->L = s->levels;
	d->mut = t->mut;
	d->cx = t->cx;
	d->bound = t->bound;
	d->F = t->F;
	d->CR = t->CR;
	d->inc_fit = INFINITY;
	d->inc_job = -1;
	d->pend_level = -1;
	all = (size_t)d->L * n + 1;
	d->lv = calloc((size_t)d->L, sizeof(*d->lv));
	d->inc_x = calloc(dim, sizeof(double));
	d->order = malloc(n * sizeof(int));
	d->pool = malloc((n + DE_MAX_DONORS) * sizeof(*d->pool));
	d->glob = malloc(all * sizeof(*d->glob));
	d->fill = malloc(DE_MAX_DONORS * dim * sizeof(double));
	d->mutant = malloc(dim * sizeof(double));
	if (!d->lv || !d->inc_x || !d->order || !d->pool || !d->glob ||
	    !d->fill || !d->mutant)
		goto fail;
	for (k = 0; k < d->L; k++) {
		struct des_level *P = &d->lv[k];

		P->fid = s->ladder[k];
		P->x = malloc(n * dim * sizeof(double));
		P->fit = malloc(n * sizeof(double));
		P->job = malloc(n * sizeof(int64_t));
		if (!P->x || !P->fit || !P->job)
			goto fail;
	}
	return DEHBQ_OK;
fail:
	des_free(d);
	*out = NULL;
	return DEHBQ_ENOMEM;
}

static int des_open(const struct search_setup *s, void **st, char *err)
{
	struct des_set t;
	struct des *d;
	struct rng r;
	int rc, k, i, top;

	if ((rc = des_read(s->settings, &t, err)) || (rc = des_new(s, &t, &d)))
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

		for (i = 0; i < d->pop * d->dim; i++)
			P->x[i] = rng_uniform(&P->rng);
		for (i = 0; i < d->pop; i++) {
			P->fit[i] = INFINITY;
			P->job[i] = -1;
		}
	}
	*st = d;
	return DEHBQ_OK;
}

/* The level of a job at fidelity f: the highest whose fidelity is <= f. */
static int level_of(const struct des *d, double f)
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
 * Fill d->pool from level q (best first, the target (k, slot) left out),
 * topped up as DEHB does when it holds fewer than m donors: mutants of
 * the members of every level, or uniform vectors.  The pool's size.
 */
static int make_pool(struct des *d, int k, int q, int slot, const double *best,
		     int m)
{
	struct des_level *P = &d->lv[k], *Q = &d->lv[q];
	const double *target = P->x + (size_t)slot * d->dim;
	const double *don[DE_MAX_DONORS];
	int idx[DE_MAX_DONORS], np = 0, g = 0, i, t, lv;

	for (i = 0; i < d->pop; i++)
		d->order[i] = i;
	qsort_r(d->order, (size_t)d->pop, sizeof(int), by_fit, Q->fit);
	for (i = 0; i < d->pop; i++)
		if (q != k || d->order[i] != slot)
			d->pool[np++] = Q->x + (size_t)d->order[i] * d->dim;
	if (np >= m)
		return np;
	for (lv = 0; lv < d->L; lv++)
		for (i = 0; i < d->pop; i++)
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

/* A DE trial against slot `slot` of level k into out. */
static void make_trial(struct des *d, int k, int slot, double *out)
{
	struct des_level *P = &d->lv[k];
	const double *target = P->x + (size_t)slot * d->dim, *best;
	const double *don[DE_MAX_DONORS];
	int m = de_donors_needed(d->mut), idx[DE_MAX_DONORS], np, i, b = 0;

	if (d->inc_valid) {
		best = d->inc_x;
	} else {
		for (i = 1; i < d->pop; i++)
			if (P->fit[i] < P->fit[b])
				b = i;
		best = P->x + (size_t)b * d->dim;
	}
	np = make_pool(d, k, pool_level(d, k), slot, best, m);
	de_sample_distinct(&P->rng, np, m, idx);
	for (i = 0; i < m; i++)
		don[i] = d->pool[idx[i]];
	de_mutate(d->mut, d->F, d->dim, don, best, target, d->mutant);
	de_crossover(d->cx, &P->rng, d->dim, d->CR, target, d->mutant, out);
	de_repair(d->bound, &P->rng, d->dim, out);
}

/* Room for one more job in flight. */
static int fl_reserve(struct des *d)
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

static struct des_fl *fl_find(struct des *d, int64_t job)
{
	size_t i;

	for (i = 0; i < d->nfl; i++)
		if (d->fl[i].job == job)
			return &d->fl[i];
	return NULL;
}

/* The next target slot of level k. */
static int take_slot(struct des *d, int k)
{
	struct des_level *P = &d->lv[k];
	int s = P->ptr;

	P->ptr = (P->ptr + 1) % d->pop;
	P->turns++;
	return s;
}

static int des_propose(void *st, double fidelity, double *vec,
		       enum trial_kind *kind)
{
	struct des *d = st;
	int k = level_of(d, fidelity), slot, rc;
	int first = d->lv[k].turns < d->pop;

	if ((rc = fl_reserve(d)))
		return rc;
	slot = take_slot(d, k);
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
	return DEHBQ_OK;
}

static int des_issued(void *st, int64_t job, const double *vec, double fidelity)
{
	struct des *d = st;
	int k = level_of(d, fidelity), rc;
	struct des_fl *f;

	(void)vec;
	if (fl_find(d, job)) { /* issued twice: a no-op */
		d->pend_level = -1;
		return DEHBQ_OK;
	}
	if ((rc = fl_reserve(d)))
		return rc;
	f = &d->fl[d->nfl++];
	f->job = job;
	f->level = k;
	if (d->pend_level == k) /* the proposal just made */
		f->slot = d->pend_slot;
	else /* a promotion or a requeued job: the level's next slot */
		f->slot = take_slot(d, k);
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
static int level_full(const struct des *d, const struct des_level *P)
{
	int i;

	for (i = 0; i < d->pop; i++)
		if (P->job[i] < 0)
			return 0;
	return 1;
}

static int des_observe(void *st, int64_t job, const double *vec,
		       double fidelity, double loss)
{
	struct des *d = st;
	struct des_fl *f = fl_find(d, job);

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
			P->full = P->full || level_full(d, P);
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

		for (i = 0; i < d->pop; i++) {
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

static int des_save(const void *st, struct jsonbuf *b)
{
	const struct des *d = st;
	size_t i;
	int k;

	jsonbuf_printf(b,
		       "{\"levels\":%d,\"population_size\":%d,\"best\":", d->L,
		       d->pop);
	if (d->inc_valid) {
		jsonbuf_printf(
			b, "{\"job\":%lld,\"loss\":", (long long)d->inc_job);
		ostate_put_dbls(b, &d->inc_fit, 1);
		jsonbuf_puts(b, ",\"x\":");
		ostate_put_dbls(b, d->inc_x, (size_t)d->dim);
		jsonbuf_put(b, "}", 1);
	} else
		jsonbuf_puts(b, "null");
	jsonbuf_puts(b, ",\"level\":[");
	for (k = 0; k < d->L; k++) {
		const struct des_level *P = &d->lv[k];

		jsonbuf_printf(b, "%s{\"turns\":%lld,\"ptr\":%d,\"rng\":",
			       k ? "," : "", (long long)P->turns, P->ptr);
		ostate_put_rng(b, &P->rng);
		jsonbuf_puts(b, ",\"x\":");
		ostate_put_dbls(b, P->x, (size_t)d->pop * (size_t)d->dim);
		jsonbuf_puts(b, ",\"fit\":");
		ostate_put_dbls(b, P->fit, (size_t)d->pop);
		jsonbuf_puts(b, ",\"job\":");
		ostate_put_i64s(b, P->job, (size_t)d->pop);
		jsonbuf_put(b, "}", 1);
	}
	jsonbuf_puts(b, "],\"inflight\":[");
	for (i = 0; i < d->nfl; i++)
		jsonbuf_printf(b, "%s[%lld,%d,%d]", i ? "," : "",
			       (long long)d->fl[i].job, d->fl[i].level,
			       d->fl[i].slot);
	jsonbuf_puts(b, "]}");
	return jsonbuf_failed(b);
}

static int load_best(const cJSON *state, struct des *d, char *err)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(state, "best");
	int rc;

	if (cJSON_IsNull(o))
		return DEHBQ_OK;
	if ((rc = ostate_get_obj(state, "best", &o, err)) ||
	    (rc = ostate_get_i64(o, "job", 0, SEARCH_MAX_JOB, &d->inc_job,
				 err)) ||
	    (rc = ostate_get_dbls(o, "loss", 1, &d->inc_fit, 0, 0, err)) ||
	    (rc = ostate_get_dbls(o, "x", (size_t)d->dim, d->inc_x, 0, 1, err)))
		return rc;
	d->inc_valid = 1;
	return DEHBQ_OK;
}

static int load_level(const cJSON *o, struct des *d, struct des_level *P,
		      char *err)
{
	size_t n = (size_t)d->pop;
	int rc;

	if ((rc = ostate_get_i64(o, "turns", 0, SEARCH_MAX_JOB, &P->turns,
				 err)) ||
	    (rc = ostate_get_int(o, "ptr", 0, d->pop - 1, &P->ptr, err)) ||
	    (rc = ostate_get_rng(o, "rng", &P->rng, err)) ||
	    (rc = ostate_get_dbls(o, "x", n * (size_t)d->dim, P->x, 0, 1,
				  err)) ||
	    (rc = ostate_get_dbls(o, "fit", n, P->fit, 1, 0, err)) ||
	    (rc = ostate_get_i64s(o, "job", n, P->job, -1, SEARCH_MAX_JOB,
				  err)))
		return rc;
	P->full = level_full(d, P);
	return DEHBQ_OK;
}

/* The jobs in flight: [job, level, slot] each, no job twice. */
static int load_inflight(const cJSON *state, struct des *d, char *err)
{
	const cJSON *a, *e;
	int64_t v[3];

	if (ostate_get_arr(state, "inflight", -1, &a, err))
		return DEHBQ_EINVAL;
	cJSON_ArrayForEach(e, a)
	{
		struct des_fl *f;

		if (cJSON_GetArraySize(e) != 3 ||
		    !ostate_int(cJSON_GetArrayItem(e, 0), 0, SEARCH_MAX_JOB,
				&v[0]) ||
		    !ostate_int(cJSON_GetArrayItem(e, 1), 0, d->L - 1, &v[1]) ||
		    !ostate_int(cJSON_GetArrayItem(e, 2), 0, d->pop - 1,
				&v[2]) ||
		    fl_find(d, v[0]))
			return dehbq_errf(
				err, DEHBQ_EINVAL,
				"snapshot: 'inflight' must hold "
				"distinct [job, level, slot] entries");
		if (fl_reserve(d))
			return DEHBQ_ENOMEM;
		f = &d->fl[d->nfl++];
		f->job = v[0];
		f->level = (int)v[1];
		f->slot = (int)v[2];
	}
	return DEHBQ_OK;
}

static int des_load(const struct search_setup *s, const cJSON *state, void **st,
		    char *err)
{
	const cJSON *a, *o;
	struct des_set t;
	struct des *d;
	cJSON *v04;
	int rc, L, k = 0;

	if (de_v04_is_engine(state)) {
		if ((rc = de_v04_convert(state, s->levels, &v04, err)))
			return rc;
		rc = des_load(s, v04, st, err);
		cJSON_Delete(v04);
		return rc;
	}
	if ((rc = des_read(s->settings, &t, err)) ||
	    (rc = ostate_get_int(state, "levels", 1, 1 << 16, &L, err)) ||
	    (rc = ostate_get_int(state, "population_size", 4, DES_MAX_POP,
				 &t.pop, err)))
		return rc;
	if (L != s->levels)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: 'levels' is %d, the scheduler "
				  "runs %d",
				  L, s->levels);
	if ((rc = ostate_get_arr(state, "level", L, &a, err)) ||
	    (rc = des_new(s, &t, &d)))
		return rc;
	cJSON_ArrayForEach(o, a)
	{
		if ((rc = load_level(o, d, &d->lv[k++], err)))
			break;
	}
	if (rc || (rc = load_best(state, d, err)) ||
	    (rc = load_inflight(state, d, err))) {
		des_free(d);
		return rc;
	}
	*st = d;
	return DEHBQ_OK;
}

static int des_describe(const void *st, struct jsonbuf *b)
{
	const struct des *d = st;

	jsonbuf_printf(b, "\"population_size\":%d,\"levels\":%d", d->pop, d->L);
	if (d->inc_valid) {
		jsonbuf_puts(b, ",\"best\":");
		jsonbuf_num(b, d->inc_fit);
	}
	return jsonbuf_failed(b);
}

const struct search_ops search_de_ops = {
	.name = "de",
	.summary = "differential evolution: a subpopulation per fidelity "
		   "level, trials against a rolling target",
	.caps = SEARCH_CAP_LEARNS | SEARCH_CAP_KEEPS,
	.open = des_open,
	.propose = des_propose,
	.observe = des_observe,
	.issued = des_issued,
	.save = des_save,
	.load = des_load,
	.describe = des_describe,
	.free = des_free,
	.settings = des_settings,
	.rescore = des_rescore,
};
