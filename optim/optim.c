/*
 * optim.c - owns the books every optimiser shares (optim.h): the in-flight
 * jobs, the budget, the incumbents and the snapshot envelope.  Backends
 * only propose and learn.  The table is optim_table.c's; checking a
 * setup before open is optim_setup.c's.
 */
#include "optim.h"
#include "optim_impl.h"

#include "err.h"
#include "jsonbuf.h"
#include "mobj.h"
#include "ostate.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct optim *optim_alloc(const struct optim_ops *entry,
			  const struct optim_ops *ops,
			  const struct optim_setup *s)
{
	struct optim *o = calloc(1, sizeof(*o));
	int i;

	if (!o)
		return NULL;
	o->name = entry->name;
	o->ops = ops;
	o->dim = s->dim;
	o->min_f = s->min_fidelity;
	o->max_f = s->max_fidelity;
	o->eta = s->eta;
	o->seed = s->seed;
	o->lim = s->lim;
	o->feasible = s->feasible;
	o->feasible_arg = s->feasible_arg;
	jsonbuf_init(&o->hist);
	o->keeps_history =
		s->nobj > 0 ||
		(ops->replay && (!ops->history || ops->history(s->settings)));
	if (s->nobj &&
	    mobj_new(s->nobj, s->obj_weights, s->scalarise, s->seed, &o->mo)) {
		optim_free(o);
		return NULL;
	}
	for (i = 0; i < 2; i++)
		if (!(o->inc[i].x = calloc((size_t)s->dim, sizeof(double)))) {
			optim_free(o);
			return NULL;
		}
	return o;
}

int optim_open(const char *name, const struct optim_setup *s,
	       struct optim **out, char *err)
{
	const struct optim_ops *entry, *ops;
	struct optim_setup su = *s;
	cJSON *composed = NULL;
	struct optim *o = NULL;
	int rc;

	*out = NULL;
	if ((rc = optim_find_ops(name, &entry, err)) ||
	    (rc = optim_setup_check(s, err)) ||
	    (rc = optim_preset_resolve(entry, s->settings, &ops, &composed,
				       err)))
		return rc;
	if (composed)
		su.settings = composed;
	if ((rc = optim_fidelity_check(entry, ops, s, err)))
		;
	else if (s->nobj && !ops->rescore)
		rc = dehbq_errf(err, DEHBQ_EUNSUP,
				"objectives: the %s optimizer cannot run a "
				"multi-objective study",
				entry->name);
	else if (!(o = optim_alloc(entry, ops, &su)))
		rc = dehbq_errf(err, DEHBQ_ENOMEM, "out of memory");
	else if ((rc = ops->open(&su, &o->st, err))) {
		optim_free(o);
		o = NULL;
	}
	cJSON_Delete(composed);
	*out = o;
	return rc;
}

void optim_free(struct optim *o)
{
	size_t i;

	if (!o)
		return;
	if (o->st)
		o->ops->free(o->st);
	for (i = 0; i < o->nfl; i++)
		free(o->fl[i].x);
	free(o->fl);
	free(o->inc[0].x);
	free(o->inc[1].x);
	jsonbuf_free(&o->hist);
	mobj_free(o->mo);
	free(o);
}

const char *optim_name(const struct optim *o)
{
	return o->name;
}

int optim_dim(const struct optim *o)
{
	return o->dim;
}

/* Index of id in the in-flight table, or where it would go (*found 0). */
static size_t fl_search(const struct optim *o, uint64_t id, int *found)
{
	size_t lo = 0, hi = o->nfl;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->fl[mid].job.id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < o->nfl && o->fl[lo].job.id == id;
	return lo;
}

/* Insert a copy of job and vec, keeping ids ascending. */
/* Room for one more job in flight; nothing changes on failure. */
static int fl_reserve(struct optim *o)
{
	size_t cap = o->capfl ? o->capfl * 2 : 16;
	struct optim_fl *n;

	if (o->nfl < o->capfl)
		return DEHBQ_OK;
	if (!(n = realloc(o->fl, cap * sizeof(*n))))
		return DEHBQ_ENOMEM;
	o->fl = n;
	o->capfl = cap;
	return DEHBQ_OK;
}

/* Insert job with x (taken over), room reserved, id not in flight. */
static void fl_put(struct optim *o, const struct optim_job *job, double *x)
{
	int found;
	size_t at = fl_search(o, job->id, &found);

	memmove(o->fl + at + 1, o->fl + at, (o->nfl - at) * sizeof(*o->fl));
	o->fl[at].job = *job;
	o->fl[at].x = x;
	o->fl[at].job.reopened = 0;
	o->fl[at].reported = 0;
	o->fl[at].last = NAN;
	o->fl[at].stop = 0;
	o->fl[at].reports = 0;
	o->nfl++;
}

struct optim_fl *optim_fl_find(const struct optim *o, uint64_t id)
{
	int found;
	size_t at = fl_search(o, id, &found);

	return found ? &o->fl[at] : NULL;
}

int optim_fl_insert(struct optim *o, const struct optim_job *job,
		    const double *vec)
{
	double *x;
	int found, rc;

	fl_search(o, job->id, &found);
	if (found)
		return DEHBQ_ESTATE;
	if ((rc = fl_reserve(o)))
		return rc;
	if (!(x = malloc((size_t)o->dim * sizeof(double))))
		return DEHBQ_ENOMEM;
	memcpy(x, vec, (size_t)o->dim * sizeof(double));
	fl_put(o, job, x);
	return DEHBQ_OK;
}

static void fl_remove(struct optim *o, size_t at)
{
	free(o->fl[at].x);
	memmove(o->fl + at, o->fl + at + 1, (o->nfl - at - 1) * sizeof(*o->fl));
	o->nfl--;
}

/*
 * The cost charged in advance for the jobs in flight: each at its fidelity
 * (the unit the benchmarks' costs use) until its tell replaces the charge
 * with the real cost.  Summed in id order, so the figure depends only on
 * which jobs are in flight (a save and load give the same bits).
 */
static double inflight_charge(const struct optim *o)
{
	double c = 0;
	size_t i;

	for (i = 0; i < o->nfl; i++)
		c += o->fl[i].job.fidelity;
	return c;
}

int optim_exhausted(const struct optim *o)
{
	const struct optim_limits *l = &o->lim;

	if (l->fevals > 0 && o->asked - o->forbidden >= l->fevals)
		return 1;
	if (l->cost > 0 && o->cost + inflight_charge(o) >= l->cost)
		return 1;
	if (l->walltime > 0 && o->elapsed >= l->walltime)
		return 1;
	if (l->brackets > 0 && !o->ops->brackets &&
	    o->asked - o->forbidden >= l->brackets)
		return 1;
	return o->ops->done && o->ops->done(o->st);
}

int optim_finished(const struct optim *o)
{
	return optim_exhausted(o) && o->nfl == 0;
}

/* One limit of optim_extend: 0 stays 0, a set one may only grow. */
static int extend_ok(const char *what, double old, double new, char *err)
{
	if (!(isfinite(new) && new >= 0 && new <= (double)OPTIM_MAX_ID))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "%s: must be finite, >= 0 and below 2^53",
				  what);
	if (old == 0 && new != 0)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "%s: the study has no such limit; extend "
				  "the limit it has",
				  what);
	if (old != 0 && new < old)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "%s: %.17g is below the current %.17g (a "
				  "limit only grows; dehbq stop ends a study)",
				  what, new, old);
	return DEHBQ_OK;
}

int optim_extend(struct optim *o, const struct optim_limits *lim, char *err)
{
	int rc;

	if ((rc = extend_ok("fevals", (double)o->lim.fevals,
			    (double)lim->fevals, err)) ||
	    (rc = extend_ok("brackets", (double)o->lim.brackets,
			    (double)lim->brackets, err)) ||
	    (rc = extend_ok("total_cost", o->lim.cost, lim->cost, err)) ||
	    (rc = extend_ok("walltime", o->lim.walltime, lim->walltime, err)))
		return rc;
	if (o->ops->limits && (rc = o->ops->limits(o->st, lim)))
		return dehbq_errf(err, rc,
				  "%s: the optimizer cannot take the "
				  "new limits",
				  o->name);
	o->lim = *lim;
	return DEHBQ_OK;
}

void optim_limits(const struct optim *o, struct optim_limits *lim)
{
	*lim = o->lim;
}

void optim_set_elapsed(struct optim *o, double seconds)
{
	if (isfinite(seconds) && seconds >= 0)
		o->elapsed = seconds;
}

static int vec_ok(const double *v, int dim)
{
	int i;

	for (i = 0; i < dim; i++)
		if (!(v[i] >= 0 && v[i] <= 1))
			return 0;
	return 1;
}

#define OPTIM_FORBIDDEN_RUN 100 /* refused proposals per optim_ask call */

static int ask_one(struct optim *o, struct optim_job *job, double *vec);

/*
 * A proposal that feasible() refuses is told to the backend as failed,
 * at once and never run (its history record too, so a load replays it),
 * and the backend is asked again.  It takes an id but counts for no
 * limit.  After OPTIM_FORBIDDEN_RUN in a row the caller gets EAGAIN and
 * comes back later, so a space that forbids nearly everything slows a
 * study down rather than hanging the orchestrator.
 */
int optim_ask(struct optim *o, struct optim_job *job, double *vec)
{
	int rc, k;

	for (k = 0; k < OPTIM_FORBIDDEN_RUN; k++) {
		if ((rc = ask_one(o, job, vec)))
			return rc;
		if (!o->feasible || o->feasible(o->feasible_arg, vec))
			return DEHBQ_OK;
		if ((rc = o->mo ? optim_tell_obj(o, job->id, OPTIM_FAILED, NULL,
						 0)
				: optim_tell(o, job->id, OPTIM_FAILED, INFINITY,
					     0)))
			return rc;
		o->forbidden++;
	}
	return DEHBQ_EAGAIN;
}

static int ask_one(struct optim *o, struct optim_job *job, double *vec)
{
	double *x;
	int rc;

	if (optim_exhausted(o) || o->asked >= OPTIM_MAX_ID)
		return DEHBQ_EDONE;
	memset(job, 0, sizeof(*job));
	job->id = (uint64_t)o->asked;
	job->parent = -1;
	/* everything that can fail before the backend commits to the job */
	if ((rc = fl_reserve(o)) || (rc = optim_mo_rescore(o)))
		return rc;
	if (!(x = malloc((size_t)o->dim * sizeof(double))))
		return DEHBQ_ENOMEM;
	if ((rc = o->ops->ask(o->st, job, vec))) {
		free(x);
		return rc;
	}
	/* a backend bug must not reach a trial file */
	if (job->id != (uint64_t)o->asked || !isfinite(job->fidelity) ||
	    job->fidelity <= 0 || !vec_ok(vec, o->dim) ||
	    !memchr(job->state, 0, sizeof(job->state))) {
		free(x);
		return DEHBQ_ESTATE;
	}
	memcpy(x, vec, (size_t)o->dim * sizeof(double));
	fl_put(o, job, x);
	o->asked++;
	return DEHBQ_OK;
}

static void inc_update(struct optim *o, int which, const struct optim_job *j,
		       const double *x, double loss)
{
	struct optim_inc *in = &o->inc[which];

	if (which == OPTIM_BEST_MAX && j->fidelity != o->max_f)
		return;
	if (in->b.valid && !(loss < in->b.loss))
		return;
	in->b.valid = 1;
	in->b.loss = loss;
	in->b.fidelity = j->fidelity;
	in->b.job_id = j->id;
	memcpy(in->x, x, (size_t)o->dim * sizeof(double));
}

int optim_mo_rescore(struct optim *o)
{
	uint64_t epoch;
	int changed = 0, rc;

	if (!o->mo)
		return DEHBQ_OK;
	epoch = o->ops->brackets ? (uint64_t)o->ops->brackets(o->st)
				 : (uint64_t)o->asked;
	if ((rc = mobj_score_all(o->mo, epoch, &changed)) || !changed)
		return rc;
	return o->ops->rescore(o->st, o->mo);
}

/* optim_tell and optim_tell_obj; y only in a multi-objective study;
 * stopped: OPTIM_STOPPED, loss finite. */
static int tell(struct optim *o, uint64_t id, double loss, const double *y,
		double cost, int stopped)
{
	struct optim_fl *e;
	struct jsonbuf rec;
	size_t at;
	int found, rc;

	at = fl_search(o, id, &found);
	if (!found)
		return id < (uint64_t)o->asked ? DEHBQ_ESTATE : DEHBQ_ENOENT;
	e = &o->fl[at];
	if (o->mo) { /* the scores with this result in */
		if ((rc = mobj_reserve(o->mo, (int64_t)id)))
			return rc;
		mobj_put(o->mo, (int64_t)id, e->job.fidelity, y);
		if ((rc = optim_mo_rescore(o))) {
			mobj_drop(o->mo, (int64_t)id);
			return rc;
		}
		loss = mobj_score(o->mo, (int64_t)id);
	}
	jsonbuf_init(&rec);
	if (optim_keeps_history(o)) { /* made before anything changes */
		optim_history_record(&rec, &e->job, e->x, o->dim,
				     e->job.reopened | stopped << 1, loss, y,
				     o->mo ? mobj_count(o->mo) : 0, cost);
		if ((rc = jsonbuf_failed(&rec)) ||
		    (rc = jsonbuf_reserve(&o->hist, rec.len)))
			goto fail;
	}
	if ((rc = o->ops->tell(o->st, &e->job, e->x,
			       stopped		? OPTIM_STOPPED
			       : isfinite(loss) ? OPTIM_OK
						: OPTIM_FAILED,
			       loss, cost)))
		goto fail;
	o->told++;
	if (!isfinite(loss))
		o->failed++;
	o->cost += cost;
	if (isfinite(loss) && !stopped) {
		inc_update(o, OPTIM_BEST_ANY, &e->job, e->x, loss);
		inc_update(o, OPTIM_BEST_MAX, &e->job, e->x, loss);
	}
	if (optim_keeps_history(o)) {
		jsonbuf_put(&o->hist, rec.p,
			    rec.len); /* reserved: cannot fail */
		o->nhist++;
	}
	jsonbuf_free(&rec);
	fl_remove(o, at);
	return DEHBQ_OK;
fail:
	jsonbuf_free(&rec);
	if (o->mo)
		mobj_drop(o->mo, (int64_t)id);
	return rc;
}

int optim_tell(struct optim *o, uint64_t id, enum optim_status status,
	       double loss, double cost)
{
	int rc;

	if (status != OPTIM_OK && status != OPTIM_FAILED &&
	    status != OPTIM_STOPPED)
		return DEHBQ_EINVAL;
	if (!isfinite(cost) || cost < 0 || o->mo)
		return DEHBQ_EINVAL;
	if (status == OPTIM_STOPPED)
		return (rc = optim_stopped_loss(o, id, &loss))
			       ? rc
			       : tell(o, id, loss, NULL, cost, 1);
	if (status == OPTIM_OK && loss == -INFINITY)
		return DEHBQ_EINVAL;
	if (status == OPTIM_FAILED || isnan(loss))
		loss = INFINITY;
	return tell(o, id, loss, NULL, cost, 0);
}

int optim_tell_obj(struct optim *o, uint64_t id, enum optim_status status,
		   const double *y, double cost)
{
	int l;

	if (status != OPTIM_OK && status != OPTIM_FAILED)
		return DEHBQ_EINVAL;
	if (!isfinite(cost) || cost < 0 || !o->mo)
		return DEHBQ_EINVAL;
	for (l = 0; y && status == OPTIM_OK && l < mobj_count(o->mo); l++) {
		if (isnan(y[l]))
			y = NULL; /* counts as a failure */
		else if (!isfinite(y[l]))
			return DEHBQ_EINVAL;
	}
	return tell(o, id, 0, status == OPTIM_OK ? y : NULL, cost, 0);
}

int optim_objectives(const struct optim *o)
{
	return o->mo ? mobj_count(o->mo) : 0;
}

double optim_score(const struct optim *o, int64_t id)
{
	return o->mo ? mobj_score(o->mo, id) : NAN;
}

int optim_reopen(struct optim *o, const struct optim_job *job,
		 const double *vec)
{
	int found, rc;

	if (job->id >= (uint64_t)o->asked)
		return DEHBQ_ENOENT;
	fl_search(o, job->id, &found);
	if (found || o->failed <= 0)
		return DEHBQ_ESTATE;
	if (!vec_ok(vec, o->dim) || !isfinite(job->fidelity) ||
	    job->fidelity <= 0 || !memchr(job->state, 0, sizeof(job->state)))
		return DEHBQ_EINVAL;
	if ((rc = optim_fl_insert(o, job, vec)))
		return rc;
	if ((rc = o->ops->reopen(o->st, job, vec))) {
		fl_remove(o, fl_search(o, job->id, &found));
		return rc;
	}
	o->fl[fl_search(o, job->id, &found)].job.reopened = 1;
	o->told--;
	o->failed--;
	return DEHBQ_OK;
}

int optim_job(const struct optim *o, uint64_t id, struct optim_job *job,
	      double *vec)
{
	int found;
	size_t at = fl_search(o, id, &found);

	if (!found)
		return DEHBQ_ENOENT;
	if (job)
		*job = o->fl[at].job;
	if (vec)
		memcpy(vec, o->fl[at].x, (size_t)o->dim * sizeof(double));
	return DEHBQ_OK;
}

void optim_counts(const struct optim *o, struct optim_counts *c)
{
	c->asked = o->asked - o->forbidden;
	c->told = o->told - o->forbidden;
	c->failed = o->failed - o->forbidden;
	c->forbidden = o->forbidden;
	c->inflight = (int64_t)o->nfl;
	c->brackets = o->ops->brackets ? o->ops->brackets(o->st) : 0;
	c->total_cost = o->cost;
}

int optim_best(const struct optim *o, enum optim_best_which which,
	       struct optim_best *b, double *vec)
{
	const struct optim_inc *in;

	if (which != OPTIM_BEST_ANY && which != OPTIM_BEST_MAX)
		return DEHBQ_EINVAL;
	in = &o->inc[which];
	*b = in->b;
	if (!in->b.valid)
		return DEHBQ_ENOENT;
	if (vec)
		memcpy(vec, in->x, (size_t)o->dim * sizeof(double));
	return DEHBQ_OK;
}

int optim_describe(const struct optim *o, struct jsonbuf *b)
{
	jsonbuf_puts(b, "\"name\":");
	jsonbuf_str(b, o->name);
	if (o->ops->describe) {
		jsonbuf_put(b, ",", 1);
		return o->ops->describe(o->st, b);
	}
	return jsonbuf_failed(b);
}
