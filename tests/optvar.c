/*
 * optvar.c - owns the contract's variants and its driver (optvar.h)
 */
#include "optvar.h"

#include "err.h"
#include "mobj.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const int ov_choices[DIM] = {0, 4, 0};

/*
 * The contract runs over every optimiser of optim_table, then over these
 * compositions (settings that change how an optimiser schedules), then
 * over multi-objective studies (a scalarisation: two objectives), then
 * over every pair of a scheduler that takes a searcher and a searcher of
 * search_table (ov_pair).
 */
/* DEHB+prior (every variant has earlier tasks but the "no-transfer" ones),
 * its prior's fit short */
#define DEHB_PRIOR "{\"prior_steps\":20,\"prior_candidates\":200}"

static const char *const composed[][3] = {
	{"tpe", "{\"multi_fidelity\":\"asha\"}", NULL},
	{"gp", "{\"multi_fidelity\":\"asha\",\"max_points\":30}", NULL},
	{"gp",
	 "{\"acquisition\":\"ts\",\"output\":\"copula\","
	 "\"n_candidates\":300,\"max_points\":30}",
	 NULL},
	{"gp",
	 "{\"acquisition\":\"ucb\",\"n_candidates\":200,"
	 "\"max_points\":30}",
	 NULL},
	{"gp",
	 "{\"batch\":\"penalise\",\"n_candidates\":200,"
	 "\"max_points\":30}",
	 NULL},
	{"gp",
	 "{\"hyperparameters\":\"mcmc\",\"mcmc_samples\":3,"
	 "\"hyperprior\":\"gamma\",\"n_candidates\":200,\"max_points\":30}",
	 NULL},
	{"tpe", "{\"constant_liar\":true,\"n_startup_trials\":4}", NULL},
	{"dehb", DEHB_PRIOR, "copula"},
	{"dehb", DEHB_PRIOR, "pareto"},
	{"dehb", DEHB_PRIOR, "random-weights"},
	{"hyperband", "{}", "linear"},
	{"sh", "{}", "pareto"},
	{"de", "{}", "random-weights"},
	{"asha", "{}", "copula"},
	{"asha", "{}", "pareto"},
	{"re", "{}", "pareto"},
	{"random", "{}", "copula"},
	{"gcp", "{\"n_candidates\":200,\"max_points\":30}", "no-transfer"},
	{"tpe", "{}", "copula"},
	{"gp", "{\"n_candidates\":200,\"max_points\":30}", "copula"},
	{"gp",
	 "{\"multi_fidelity\":\"asha\",\"n_candidates\":200,"
	 "\"max_points\":30}",
	 "pareto"},
	{"tpe", "{\"multi_fidelity\":\"asha\"}", "pareto"},
	{"dehb", "{}", "no-transfer"},
	{"bohb", "{}", "copula"},
	{"hyperband", "{\"searcher\":\"kde\"}", "pareto"},
	{"gcp", "{\"prior_steps\":20,\"n_candidates\":200,\"max_points\":30}",
	 "copula"},
	{"tpe", "{\"hypervolume_weights\":true}", "hypervolume"},
	{"asha", "{}", "hypervolume"},
	/* PB2's bandit (a population large enough for every budget) */
	{"pbt", "{\"population_size\":24,\"explore\":\"pb2\"}", NULL},
	{"gcp",
	 "{\"multi_fidelity\":\"asha\",\"prior_steps\":20,"
	 "\"n_candidates\":200,\"max_points\":30}",
	 NULL},
};
#define NCOMPOSED ((int)(sizeof(composed) / sizeof(composed[0])))

/* Two earlier tasks for the transfer methods (the others ignore them):
 * the test loss shifted, at 40 fixed points each. */
#define NTR 40
static double tr_x[2 * NTR * DIM], tr_y[2 * NTR];
static const size_t tr_n[2] = {NTR, NTR};
static const struct prior_tasks tr = {2, tr_n, tr_x, tr_y};

static void transfer_init(void)
{
	struct rng r;
	int i, d;

	rng_seed(&r, 99);
	for (i = 0; i < 2 * NTR; i++) {
		for (d = 0; d < DIM; d++)
			tr_x[i * DIM + d] = rng_uniform(&r);
		tr_y[i] =
			(tr_x[i * DIM] - 0.3) * (tr_x[i * DIM] - 0.3) +
			(tr_x[i * DIM + 1] - 0.6) * (tr_x[i * DIM + 1] - 0.6) +
			(i < NTR ? 0 : 0.5);
	}
}

static cJSON *cur_settings; /* the current variant's, for ov_setup */
static int cur_variant = -1;
int ov_mode = -1;
int ov_notransfer;

int ov_table_len(void)
{
	int n = 0;

	while (optim_table[n])
		n++;
	return n;
}

/* The schedulers that take a searcher, times the searchers. */
static int nsearchers(void)
{
	int n = 0;

	while (search_table[n])
		n++;
	return n;
}

int ov_pairs_len(void)
{
	int i, n = 0;

	for (i = 0; optim_table[i]; i++)
		n += (optim_caps(optim_table[i]->name) & OPTIM_CAP_SEARCHER) !=
		     0;
	return n * nsearchers();
}

/* 1 when pair k is one of the sampled ones (optvar.h). */
static int sampled(int k)
{
	const char *sr, *sched = ov_pair(k, &sr);
	int i;

	if (!strcmp(sr, "random") || !strcmp(sr, "tpe"))
		return 1;
	if (optim_caps(sched) & OPTIM_CAP_SEGMENTS) /* pbt: those two */
		return 0;
	if (!(optim_caps(sched) & OPTIM_CAP_STOPS))
		return 1;
	for (i = 0; optim_table[i]; i++) /* the first stopping scheduler */
		if (optim_caps(optim_table[i]->name) & OPTIM_CAP_STOPS)
			return !strcmp(optim_table[i]->name, sched);
	return 1;
}

int ov_sampled_len(void)
{
	int k, n = 0;

	for (k = 0; k < ov_pairs_len(); k++)
		n += sampled(k);
	return n;
}

int ov_sampled(int k)
{
	int p;

	for (p = 0; p < ov_pairs_len(); p++)
		if (sampled(p) && !k--)
			return p;
	ck_abort_msg("no sampled pair %d", k);
	return -1;
}

const char *ov_pair(int k, const char **searcher)
{
	int i, s = nsearchers();

	for (i = 0; optim_table[i]; i++) {
		if (!(optim_caps(optim_table[i]->name) & OPTIM_CAP_SEARCHER))
			continue;
		if (k < s) {
			*searcher = search_table[k]->name;
			return optim_table[i]->name;
		}
		k -= s;
	}
	ck_abort_msg("no scheduler x searcher pair %d", k);
	return NULL;
}

/* A searcher's models kept small in the pairs, as in the table's
 * entries: the contract is not about them.  The table's tpe, gp and re
 * run with 0.4's settings (no member: univariate, no local candidates
 * and no hyperprior, 100 and 10); the pairs run with the new ones. */
static const char *small_search(const char *searcher)
{
	if (!strcmp(searcher, "gp"))
		return ",\"search\":{\"n_candidates\":200,\"max_points\":30,"
		       "\"local_fraction\":0.5,\"hyperprior\":\"gamma\"}";
	if (!strcmp(searcher, "tpe"))
		return ",\"search\":{\"multivariate\":true}";
	if (!strcmp(searcher, "re"))
		return ",\"search\":{\"population_size\":20}";
	if (!strcmp(searcher, "gcp"))
		return ",\"search\":{\"prior_steps\":20,\"n_candidates\":200,"
		       "\"max_points\":30}";
	if (!strcmp(searcher, "dngo"))
		return ",\"search\":{\"hidden\":6,\"steps\":10,"
		       "\"n_candidates\":50,\"retrain_growth\":0.5}";
	if (!strcmp(searcher, "cts"))
		return ",\"search\":{\"prior_steps\":20,\"n_candidates\":200}";
	return "";
}

/* A scheduler's settings in the contract: pbt's population large enough
 * that every member is still training when the tests' budgets run out
 * (it would end on its own, before them). */
static const char *sched_settings(const char *sched)
{
	return !strcmp(sched, "pbt") ? ",\"population_size\":40" : "";
}

/* Variant i's optimiser name; its settings go to every ov_setup. */
const char *ov_name(int i)
{
	int n = ov_table_len();
	const char *sched, *searcher;
	char set[256];

	if (i >= n + NCOMPOSED) {
		sched = ov_pair(i - n - NCOMPOSED, &searcher);
		if (i == cur_variant)
			return sched;
		ov_done();
		cur_variant = i;
		snprintf(set, sizeof(set), "{\"searcher\":\"%s\"%s%s}",
			 searcher, small_search(searcher),
			 sched_settings(sched));
		ck_assert_ptr_nonnull(cur_settings = cJSON_Parse(set));
		return sched;
	}
	if (i == cur_variant)
		return i < n ? optim_table[i]->name : composed[i - n][0];
	cJSON_Delete(cur_settings);
	cur_settings = NULL;
	cur_variant = i;
	ov_mode = -1;
	if (i < n && !strcmp(optim_table[i]->name, "pbt")) {
		cur_settings = cJSON_Parse("{\"population_size\":40}");
		return "pbt";
	}
	if (i < n && (!strcmp(optim_table[i]->name, "cts") ||
		      !strcmp(optim_table[i]->name, "gcp") ||
		      !strcmp(optim_table[i]->name, "gp") ||
		      !strcmp(optim_table[i]->name, "dehb"))) {
		/* the models small and the prior's fit short: the contract
		 * is not about them (gp's window is exercised this way) */
		const char *name = optim_table[i]->name;

		cur_settings = cJSON_Parse(
			!strcmp(name, "gcp")
				? "{\"prior_steps\":20,\"n_candidates\":200,"
				  "\"max_points\":30}"
			: !strcmp(name, "gp")
				? "{\"n_candidates\":200,\"max_points\":30}"
			: !strcmp(name, "dehb")
				? DEHB_PRIOR
				: "{\"prior_steps\":20,\"n_candidates\":200}");
		return name;
	}
	if (i < n)
		return optim_table[i]->name;
	cur_settings = cJSON_Parse(composed[i - n][1]);
	ck_assert_ptr_nonnull(cur_settings);
	ov_notransfer = composed[i - n][2] &&
			!strcmp(composed[i - n][2], "no-transfer");
	if (composed[i - n][2] && !ov_notransfer)
		ck_assert_int_eq(mobj_mode_parse(composed[i - n][2], &ov_mode),
				 DEHBQ_OK);
	return composed[i - n][0];
}

char *ov_label(int i)
{
	const char *name = ov_name(i);
	char *set = cur_settings ? cJSON_PrintUnformatted(cur_settings) : NULL;
	char *out = malloc(strlen(name) + (set ? strlen(set) : 2) + 40);

	ck_assert_ptr_nonnull(out);
	sprintf(out, "%s %s %s", name, set ? set : "{}",
		ov_notransfer  ? "no-transfer"
		: ov_mode >= 0 ? mobj_mode_name(ov_mode)
			       : "-");
	free(set);
	return out;
}

uint64_t ov_hash(const char *p, size_t n)
{
	uint64_t h = 14695981039346656037ULL;

	while (n--)
		h = (h ^ (unsigned char)*p++) * 1099511628211ULL;
	return h;
}

void ov_done(void)
{
	cJSON_Delete(cur_settings);
	cur_settings = NULL;
	cur_variant = -1;
	ov_mode = -1;
	ov_notransfer = 0;
}

void ov_setup(struct optim_setup *u, uint64_t seed, int64_t fevals)
{
	memset(u, 0, sizeof(*u));
	u->settings = cur_settings;
	u->dim = DIM;
	u->min_fidelity = 1;
	u->max_fidelity = 27;
	u->eta = 3;
	u->seed = seed;
	u->lim.fevals = fevals;
	u->choices = ov_choices;
	if (!tr_x[0])
		transfer_init();
	u->transfer = ov_notransfer ? NULL : &tr;
	if (ov_mode >= 0) {
		static const double w[2] = {1, 3};

		u->nobj = 2;
		u->obj_weights = ov_mode == MOBJ_LINEAR ? w : NULL;
		u->scalarise = ov_mode;
	}
}

/*
 * Tell a result; in a multi-objective study as two objectives, the loss
 * and one that conflicts with it (from x when given).
 */
int ov_tell_x(struct optim *o, uint64_t id, enum optim_status st, double loss,
	      const double *x, double cost)
{
	double y[2];

	if (!optim_objectives(o))
		return optim_tell(o, id, st, loss, cost);
	y[0] = loss;
	y[1] = x ? (x[0] - 0.8) * (x[0] - 0.8) + 0.5 * x[2]
		 : 1 / (1 + fabs(loss));
	return optim_tell_obj(o, id, st, y, cost);
}

int ov_tell(struct optim *o, uint64_t id, enum optim_status st, double loss,
	    double cost)
{
	return ov_tell_x(o, id, st, loss, NULL, cost);
}

double ov_loss(const double *x, double fid)
{
	return (x[0] - 0.3) * (x[0] - 0.3) + (x[1] - 0.6) * (x[1] - 0.6) +
	       x[2] * 0.1 + 1.0 / fid;
}

void drv_init(struct drv *d, struct optim *o, int w, uint64_t seed)
{
	memset(d, 0, sizeof(*d));
	d->o = o;
	d->w = w;
	rng_seed(&d->r, seed);
	jsonbuf_init(&d->log);
}

static void log_job(struct drv *d, const struct optim_job *j, const double *x)
{
	int i;

	jsonbuf_printf(&d->log,
		       "%" PRIu64 " %a %" PRId64 " %d %d %" PRId64 " %s", j->id,
		       j->fidelity, j->bracket, j->rung, (int)j->kind,
		       j->parent, j->state);
	for (i = 0; i < DIM; i++)
		jsonbuf_printf(&d->log, " %a", x[i]);
	jsonbuf_put(&d->log, "\n", 1);
}

/* Ask one job; DEHBQ_EAGAIN or DEHBQ_EDONE when there is none now. */
static int drv_ask(struct drv *d)
{
	struct optim_job j;
	double x[DIM];
	int rc, i;

	rc = optim_ask(d->o, &j, x);
	if (rc == DEHBQ_EAGAIN || rc == DEHBQ_EDONE)
		return rc;
	ck_assert_int_eq(rc, DEHBQ_OK);
	for (i = 0; i < DIM; i++)
		ck_assert(x[i] >= 0 && x[i] <= 1);
	ck_assert(j.fidelity >= 1 && j.fidelity <= 27);
	log_job(d, &j, x);
	d->jb[d->n] = j;
	memcpy(d->x[d->n], x, sizeof(x));
	d->rep[d->n] = 0;
	d->stopped[d->n] = 0;
	d->n++;
	return DEHBQ_OK;
}

/* Slot k's entries moved to slot to. */
static void drv_move(struct drv *d, int to, int k)
{
	d->jb[to] = d->jb[k];
	memcpy(d->x[to], d->x[k], sizeof(d->x[to]));
	d->rep[to] = d->rep[k];
	d->stopped[to] = d->stopped[k];
}

/* Tell one job in flight, picked by the driver's rng; one in ten fails
 * (and is remembered for drv_op's requeues). */
static void drv_tell(struct drv *d)
{
	int k = (int)rng_below(&d->r, (uint64_t)d->n);
	const struct optim_job *j = &d->jb[k];

	if (d->stopped[k]) {
		ck_assert_int_eq(
			optim_tell(d->o, j->id, OPTIM_STOPPED, NAN, d->rep[k]),
			DEHBQ_OK);
	} else if (rng_below(&d->r, 10) == 0) {
		ck_assert_int_eq(
			ov_tell(d->o, j->id, OPTIM_FAILED, 0, j->fidelity),
			DEHBQ_OK);
		d->fails++;
		d->failed = *j;
		memcpy(d->fx, d->x[k], sizeof(d->fx));
		d->has_failed = 1;
	} else
		ck_assert_int_eq(ov_tell_x(d->o, j->id, OPTIM_OK,
					   ov_loss(d->x[k], j->fidelity),
					   d->x[k], j->fidelity),
				 DEHBQ_OK);
	/* a second tell of the same job is refused */
	ck_assert_int_eq(ov_tell(d->o, j->id, OPTIM_OK, 1, 1), DEHBQ_ESTATE);
	drv_move(d, k, d->n - 1);
	d->n--;
}

/*
 * An intermediate result of a job in flight, one to three units above its
 * last, below the maximum; the optimiser may stop it.  0: none made.
 */
static int drv_report(struct drv *d)
{
	int k, stop, rc;
	double f;

	if (!d->n || rng_below(&d->r, 2))
		return 0;
	k = (int)rng_below(&d->r, (uint64_t)d->n);
	f = d->rep[k] + 1 + (double)rng_below(&d->r, 3);
	if (d->stopped[k] || f >= d->jb[k].fidelity)
		return 0;
	rc = optim_report(d->o, d->jb[k].id, f, ov_loss(d->x[k], f), &stop);
	ck_assert_int_eq(rc, DEHBQ_OK);
	/* a fidelity that does not go up is refused, as is a report after
	 * a stop */
	ck_assert_int_eq(optim_report(d->o, d->jb[k].id, f, 0, &rc),
			 stop ? DEHBQ_ESTATE : DEHBQ_EINVAL);
	d->rep[k] = f;
	d->stopped[k] = stop;
	d->reports++;
	d->stops += stop;
	return 1;
}

int drv_step(struct drv *d)
{
	int k;

	while (d->n < d->w && drv_ask(d) == DEHBQ_OK)
		;
	if (optim_stops(d->o))
		drv_report(d);
	/* EAGAIN with nothing in flight: a run of forbidden proposals
	 * (optim_ask's cap); the scheduler asks again later, so does this */
	for (k = 0; !d->n && k < 20 && drv_ask(d) == DEHBQ_EAGAIN; k++)
		;
	if (!d->n)
		return !optim_finished(d->o) ? (ck_abort_msg("stuck"), 0) : 0;
	drv_tell(d);
	return 1;
}

/*
 * The last failed job comes back (dehbq requeue) one time in 16; an
 * optimiser may refuse a job that no longer fits it (DEHBQ_EINVAL).
 */
static int drv_requeue(struct drv *d)
{
	int rc;

	if (!d->has_failed || d->n >= d->w || rng_below(&d->r, 16))
		return 0;
	d->has_failed = 0;
	rc = optim_reopen(d->o, &d->failed, d->fx);
	if (rc == DEHBQ_EINVAL)
		return 0;
	ck_assert_int_eq(rc, DEHBQ_OK);
	d->jb[d->n] = d->failed;
	memcpy(d->x[d->n], d->fx, sizeof(d->fx));
	d->rep[d->n] = 0;
	d->stopped[d->n] = 0;
	d->n++;
	d->requeues++;
	return 1;
}

int drv_op(struct drv *d)
{
	if (drv_requeue(d))
		return 1;
	if (optim_stops(d->o) && drv_report(d))
		return 1;
	if (d->n < d->w && !d->blocked) {
		if (drv_ask(d) == DEHBQ_OK)
			return 1;
		d->blocked = 1;
	}
	if (!d->n)
		return !optim_finished(d->o) ? (ck_abort_msg("stuck"), 0) : 0;
	drv_tell(d);
	d->blocked = 0;
	return 1;
}

/* Append the optimiser's new history records to h, as the scheduler. */
void ov_take_history(struct optim *o, struct jsonbuf *h)
{
	const char *t;
	size_t n;

	optim_history_pending(o, &t, &n);
	if (n)
		jsonbuf_put(h, t, n);
	optim_history_written(o);
	ck_assert_int_eq(jsonbuf_failed(h), DEHBQ_OK);
}

char *ov_save_text(const struct optim *o)
{
	struct jsonbuf b;

	jsonbuf_init(&b);
	ck_assert_int_eq(optim_save(o, &b), DEHBQ_OK);
	return jsonbuf_take(&b);
}

struct optim *ov_open(int i, uint64_t seed, int64_t fevals)
{
	struct optim_setup u;
	struct optim *o;
	char err[DEHBQ_ERRLEN];
	const char *name = ov_name(i);

	ov_setup(&u, seed, fevals);
	ck_assert_msg(optim_open(name, &u, &o, err) == DEHBQ_OK, "%s: %s", name,
		      err);
	return o;
}

int ov_composed_len(void)
{
	return NCOMPOSED;
}

int ov_count(void)
{
	return ov_table_len() + NCOMPOSED + ov_pairs_len();
}
