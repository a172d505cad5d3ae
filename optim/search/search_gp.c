/*
 * search_gp.c - owns the GP searcher, Bayesian optimisation with a
 * Gaussian process: its settings, the observations, the jobs in flight,
 * save and load; its proposals (the fit window, the refit schedule, the
 * believers and the acquisition: expected improvement, Thompson sampling
 * or UCB) are search_gp_model.c's
 *
 * The first n_startup_trials results come from uniform samples.  Then each
 * ask fits the model of gp.c (Matern-5/2 ARD, type-II maximum likelihood)
 * to the finite results, outputs standardised (output "standardise") or
 * mapped through the copula psi of copula.c ("copula": the GCP of
 * TRANSFER_SPEC.md), and proposes:
 *   - "ei": the best of n_candidates uniform points by expected
 *     improvement over the best output, then L-BFGS (NLopt) from the best
 *     5 of them over the continuous dimensions;
 *   - "ts": the argmin of one joint posterior draw over n_candidates points;
 *   - "ucb": GP-UCB (Srinivas et al. 2010), the least mu - sqrt(beta_t)
 *     sigma over the candidates, then L-BFGS as for "ei" (acq_lcb).
 * Failures are left out of the fit but count towards the start-up trials.
 * The model is fitted to the results of one fidelity (search_model_level):
 * under fifo the maximum, under ASHA the highest rung with
 * n_startup_trials results; a change of that fidelity forces a refit.
 *
 * Off the hot path.  The hyperparameters are refitted only when the
 * finite results have grown by max(1, floor(min(n, max_points) / 10))
 * since the last fit (every result while n < 20, then every 10 %); between
 * fits the model is only conditioned on the new data with the last
 * hyperparameters (one Cholesky).  Beyond max_points results the model
 * sees a window: the best max_points / 2 and the most recent rest.  So an
 * ask's cost is bounded by max_points, whatever the history, and the model
 * used by an ask is a function of the tell sequence alone.
 *
 * Jobs in flight (search_ops.issued, promotions included): each job not
 * yet observed joins the data (up to max_points / 4 of them, the newest)
 * at the model's mean there, floored at the best output (a kriging
 * believer that never promises an improvement), so that workers asking
 * together are sent to different points; with batch "penalise", local
 * penalisation instead (acq_ei_pen): EI times a soft exclusion ball
 * around each, on a model of the real results only.
 *
 * Settings: acquisition, output, n_startup_trials, n_candidates,
 * max_points, local_fraction, batch, hyperparameters, mcmc_samples,
 * hyperprior.  Saved: the rng, the hyperparameters and
 * the refit schedule; the results and the jobs in flight come back at load.
 * Under fifo this is the gp preset, under asha gp with multi_fidelity "asha":
 * both load the gp optimiser's states of 0.3 ({"rng","fits","next_fit",
 * "fit_level","theta"}, and "asha") and, given its settings (which have
 * neither local_fraction nor hyperprior), propose exactly what it did.
 */
#include "search_gp_impl.h"

#include "acq.h"
#include "err.h"
#include "gp.h"
#include "jsonbuf.h"
#include "mobj.h"
#include "ostate.h"
#include "rng.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const acq_names[] = {"ei", "ts", "ucb", NULL};
static const char *const out_names[] = {"standardise", "copula", NULL};
static const char *const batch_names[] = {"believer", "penalise", NULL};
static const char *const hyp_names[] = {"ml", "mcmc", NULL};
static const char *const prior_names[] = {"none", "gamma", NULL};

static const char *const gp_keys[] = {"acquisition",
				      "output",
				      "n_startup_trials",
				      "n_candidates",
				      "max_points",
				      "local_fraction",
				      "batch",
				      "hyperparameters",
				      "mcmc_samples",
				      "hyperprior",
				      NULL};

struct gp_settings {
	int acq, out, nstart, ncand, maxp, batch, hyp, nmc, prior;
	double local;
};

/*
 * A study's settings; `local_fraction` absent is 0, as in 0.4, whose
 * studies have no such member, while a new study's settings get
 * GPO_LOCAL_DEFAULT (gpo_settings); so `hyperprior` absent is "none" (the
 * studies before 2026-11-29), and a new study's is "gamma".
 */
static int read_settings(const cJSON *in, struct gp_settings *s, char *err)
{
	int rc;

	s->acq = ACQ_EI;
	s->out = OUT_STANDARD;
	s->nstart = 10;
	s->ncand = 2000;
	s->maxp = 200;
	s->local = 0;
	s->batch = BATCH_BELIEVER;
	s->hyp = HYP_ML;
	s->nmc = 10;
	s->prior = 0;
	if ((rc = ostate_set_keys(in, gp_keys, "gp", err)) ||
	    (rc = ostate_set_choice(in, "hyperprior", prior_names, &s->prior,
				    err)) ||
	    (rc = ostate_set_choice(in, "hyperparameters", hyp_names, &s->hyp,
				    err)) ||
	    (rc = ostate_set_int(in, "mcmc_samples", 1, GPO_MCMC_MAX, &s->nmc,
				 err)) ||
	    (rc = ostate_set_choice(in, "batch", batch_names, &s->batch,
				    err)) ||
	    (rc = ostate_set_num(in, "local_fraction", 0, 1, &s->local, err)) ||
	    (rc = ostate_set_choice(in, "acquisition", acq_names, &s->acq,
				    err)) ||
	    (rc = ostate_set_choice(in, "output", out_names, &s->out, err)) ||
	    (rc = ostate_set_int(in, "n_startup_trials", 2, GPO_MAX_START,
				 &s->nstart, err)) ||
	    (rc = ostate_set_int(in, "n_candidates", 1, GPO_MAX_CAND, &s->ncand,
				 err)) ||
	    (rc = ostate_set_int(in, "max_points", 8, GPO_MAX_POINTS, &s->maxp,
				 err)))
		return rc;
	if (s->batch == BATCH_PENALISE && s->acq != ACQ_EI)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "gp: 'batch' 'penalise' penalises expected "
				  "improvement: set 'acquisition' to 'ei' or "
				  "'batch' to 'believer'");
	if (s->hyp == HYP_MCMC &&
	    (s->acq != ACQ_EI || s->batch != BATCH_BELIEVER))
		return dehbq_errf(
			err, DEHBQ_EINVAL,
			"gp: 'hyperparameters' 'mcmc' averages "
			"expected improvement over a kriging believer: "
			"set 'acquisition' to 'ei' and 'batch' to "
			"'believer', or 'hyperparameters' to 'ml'");
	return DEHBQ_OK;
}

static int gpo_settings(const cJSON *in, struct jsonbuf *b, char *err)
{
	struct gp_settings s;
	int rc = read_settings(in, &s, err);

	if (rc || !b)
		return rc;
	if (!cJSON_GetObjectItemCaseSensitive(in, "local_fraction"))
		s.local = GPO_LOCAL_DEFAULT;
	if (!cJSON_GetObjectItemCaseSensitive(in, "hyperprior"))
		s.prior = GPO_PRIOR_DEFAULT;
	jsonbuf_printf(b,
		       "\"acquisition\":\"%s\",\"output\":\"%s\","
		       "\"n_startup_trials\":%d,\"n_candidates\":%d,"
		       "\"max_points\":%d,\"batch\":\"%s\",\"local_fraction\":",
		       acq_names[s.acq], out_names[s.out], s.nstart, s.ncand,
		       s.maxp, batch_names[s.batch]);
	jsonbuf_num(b, s.local);
	jsonbuf_printf(b,
		       ",\"hyperparameters\":\"%s\",\"mcmc_samples\":%d,"
		       "\"hyperprior\":\"%s\"",
		       hyp_names[s.hyp], s.nmc, prior_names[s.prior]);
	return jsonbuf_failed(b);
}

static void gpo_free(void *st)
{
	struct gpo *g = st;
	size_t i;

	if (!g)
		return;
	for (i = 0; i < g->npend; i++)
		free(g->pend[i].x);
	free(g->pend);
	gp_free(g->gp);
	for (i = 0; g->mc && i <= (size_t)g->nmc; i++)
		gp_free(g->mc[i]);
	free(g->mc);
	free(g->choices);
	free(g->x);
	free(g->loss);
	free(g->job);
	free(g->fid);
	free(g->win);
	free(g->fx);
	free(g->fy);
	free(g->z);
	free(g->cand);
	free(g->var);
	free(g->cont);
	free(g->spare);
	free(g);
}

static int gpo_open(const struct search_setup *s, void **st, char *err)
{
	struct gp_settings gs;
	struct gpo *g;
	size_t nc, m;
	int i, rc;

	if ((rc = read_settings(s->settings, &gs, err)))
		return rc;
	if (s->dim > SEARCH_MAX_DIM)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "gp: at most %d dimensions", SEARCH_MAX_DIM);
	if (!(g = calloc(1, sizeof(*g))))
		return DEHBQ_ENOMEM;
	g->fit_level = s->max_fidelity;
	g->dim = s->dim;
	g->acq = gs.acq;
	g->out = gs.out;
	g->nstart = gs.nstart;
	g->ncand = gs.ncand;
	g->maxp = gs.maxp;
	g->batch = gs.batch;
	g->hyp = gs.hyp;
	g->nmc = gs.nmc;
	g->prior = gs.prior;
	g->nlocal = (int)lround(gs.local * gs.ncand);
	nc = (size_t)gs.ncand;
	m = (size_t)gs.maxp + (size_t)gs.maxp / 4;
	g->choices = calloc((size_t)s->dim, sizeof(int));
	g->cand = calloc(nc * (size_t)s->dim, sizeof(double));
	g->var = calloc(m, sizeof(double)); /* the believers' */
	g->fx = calloc(m * (size_t)s->dim, sizeof(double));
	g->fy = calloc(m, sizeof(double));
	g->cont = calloc((size_t)s->dim, sizeof(int));
	if (!g->choices || !g->cand || !g->var || !g->fx || !g->fy ||
	    !g->cont) {
		gpo_free(g);
		return DEHBQ_ENOMEM;
	}
	for (i = 0; s->choices && i < s->dim; i++)
		g->choices[i] = s->choices[i];
	for (i = 0; i < s->dim; i++)
		if (g->choices[i] <= 1)
			g->cont[g->ncont++] = i;
	if ((rc = gp_new(s->dim, g->choices, &g->gp))) {
		gpo_free(g);
		return rc;
	}
	rng_seed(&g->rng, s->seed);
	*st = g;
	return DEHBQ_OK;
}

/* ---- observations and asks in flight ---- */

/* Room for one more result (so that observe cannot fail). */
static int reserve(struct gpo *g)
{
	if (g->n == g->cap) {
		size_t c = g->cap ? g->cap * 2 : 64;
		double *x, *l, *f, *z;
		int64_t *jb;
		size_t *w;

		if (!(x = realloc(g->x, c * (size_t)g->dim * sizeof(double))))
			return DEHBQ_ENOMEM;
		g->x = x;
		if (!(l = realloc(g->loss, c * sizeof(double))))
			return DEHBQ_ENOMEM;
		g->loss = l;
		if (!(jb = realloc(g->job, c * sizeof(int64_t))))
			return DEHBQ_ENOMEM;
		g->job = jb;
		if (!(f = realloc(g->fid, c * sizeof(double))))
			return DEHBQ_ENOMEM;
		g->fid = f;
		if (!(z = realloc(g->z, c * sizeof(double))))
			return DEHBQ_ENOMEM;
		g->z = z;
		if (!(w = realloc(g->win, c * sizeof(size_t))))
			return DEHBQ_ENOMEM;
		g->win = w;
		g->cap = c;
	}
	return DEHBQ_OK;
}

/* Record job id's result; reserve(g) came first.  A re-run's first
 * result (only a failed job is re-run: dehbq requeue refuses an ok one)
 * stays beside it as the failure it was (+inf), out of rescore's
 * reach, as tpe.c's does: a multi-objective score given to it since its
 * tell is dropped, since a snapshot's replay never saw that score. */
static void record(struct gpo *g, const double *vec, double loss, double fid,
		   int64_t id)
{
	size_t i;

	for (i = g->n; i-- > 0;)
		if (g->job[i] == id) {
			g->job[i] = -1;
			g->loss[i] = INFINITY;
			break;
		}
	memcpy(g->x + g->n * (size_t)g->dim, vec,
	       (size_t)g->dim * sizeof(double));
	g->fid[g->n] = fid;
	g->job[g->n] = id;
	g->loss[g->n++] = loss;
}

/* Room for one more job in flight (so that pend_add cannot fail). */
static int pend_reserve(struct gpo *g)
{
	if (!g->spare && !(g->spare = malloc((size_t)g->dim * sizeof(double))))
		return DEHBQ_ENOMEM;
	if (g->npend == g->cappend) {
		size_t c = g->cappend ? g->cappend * 2 : 16;
		struct pend *p = realloc(g->pend, c * sizeof(*p));

		if (!p)
			return DEHBQ_ENOMEM;
		g->pend = p;
		g->cappend = c;
	}
	return DEHBQ_OK;
}

/* Put job id in flight, kept in id order; pend_reserve came first. */
static void pend_add(struct gpo *g, int64_t id, const double *vec)
{
	double *x = g->spare;
	size_t i;

	g->spare = NULL;
	memcpy(x, vec, (size_t)g->dim * sizeof(double));
	for (i = g->npend; i > 0 && g->pend[i - 1].id > id; i--)
		g->pend[i] = g->pend[i - 1];
	g->pend[i].id = id;
	g->pend[i].x = x;
	g->npend++;
}

static void pend_del(struct gpo *g, int64_t id)
{
	size_t i;

	for (i = 0; i < g->npend && g->pend[i].id != id; i++)
		;
	if (i == g->npend)
		return;
	free(g->pend[i].x);
	memmove(g->pend + i, g->pend + i + 1,
		(g->npend - i - 1) * sizeof(*g->pend));
	g->npend--;
}

static int gpo_propose(void *st, double fidelity, double *vec,
		       enum trial_kind *kind)
{
	struct gpo *g = st;
	int rc;

	if ((rc = pend_reserve(g))) /* room for the issued that follows */
		return rc;
	return search_gp_propose_at(g,
				    search_model_level(g->fid, g->loss, g->n,
						       fidelity,
						       (size_t)g->nstart),
				    vec, kind);
}

/* A job in flight (its result not yet observed): a believer. */
static int gpo_issued(void *st, int64_t job, const double *vec, double fidelity)
{
	struct gpo *g = st;
	int rc;

	(void)fidelity;
	if ((rc = pend_reserve(g)))
		return rc;
	pend_add(g, job, vec);
	return DEHBQ_OK;
}

/* A result: observed (a re-run's too, beside the first), and no more in
 * flight. */
static int gpo_observe(void *st, int64_t job, const double *vec,
		       double fidelity, double loss)
{
	struct gpo *g = st;
	int rc;

	if ((rc = reserve(g)))
		return rc;
	record(g, vec, loss, fidelity, job);
	pend_del(g, job);
	return DEHBQ_OK;
}

/* Multi-objective: every observation's loss is its job's score now; the
 * next ask's outputs (standardised or psi) follow. */
static int gpo_rescore(void *st, const struct mobj *mo)
{
	struct gpo *g = st;
	size_t i;
	double v;

	for (i = 0; i < g->n; i++)
		if (g->job[i] >= 0 && !isnan(v = mobj_score(mo, g->job[i])))
			g->loss[i] = v;
	return DEHBQ_OK;
}

static int gpo_save(const void *st, struct jsonbuf *b)
{
	const struct gpo *g = st;
	double th[SEARCH_MAX_DIM + 2];

	gp_get_theta(g->gp, th);
	jsonbuf_puts(b, "{\"rng\":");
	ostate_put_rng(b, &g->rng);
	jsonbuf_printf(b, ",\"fits\":%lld,\"next_fit\":%zu,\"fit_level\":",
		       (long long)g->nfits, g->next_fit);
	jsonbuf_num(b, g->fit_level);
	jsonbuf_puts(b, ",\"theta\":");
	ostate_put_dbls(b, th, (size_t)g->dim + 2);
	jsonbuf_put(b, "}", 1);
	return jsonbuf_failed(b);
}

/* state: the gp optimiser's of 0.3 loads too (its "asha" is not read) */
static int gpo_load(const struct search_setup *s, const cJSON *state, void **st,
		    char *err)
{
	double th[SEARCH_MAX_DIM + 2];
	struct gpo *g;
	int64_t nx;
	int rc;

	if ((rc = gpo_open(s, st, err)))
		return rc;
	g = *st;
	if ((rc = ostate_get_rng(state, "rng", &g->rng, err)) ||
	    (rc = ostate_get_i64(state, "fits", 0, INT64_MAX / 2, &g->nfits,
				 err)) ||
	    (rc = ostate_get_i64(state, "next_fit", 0, INT64_MAX / 2, &nx,
				 err)) ||
	    (rc = ostate_get_dbl(state, "fit_level", &g->fit_level, err)) ||
	    (rc = ostate_get_dbls(state, "theta", (size_t)s->dim + 2, th, 0, 0,
				  err)))
		goto fail;
	g->next_fit = (size_t)nx;
	if (gp_set_theta(g->gp, th)) {
		rc = dehbq_errf(err, DEHBQ_EINVAL,
				"snapshot: 'theta' is outside the model's box");
		goto fail;
	}
	return DEHBQ_OK;
fail:
	gpo_free(g);
	*st = NULL;
	return rc;
}

/*
 * A fit at nf results of a level sets next_fit to nf + max(1, min(nf,
 * max_points) / 10), and nf never exceeds the observations, which only
 * grow: so next_fit <= n + max(1, max_points / 10) at any later time.
 * (fits only counts, for the every-GPO_FULL_EVERY full restart, and is
 * bounded by nothing else: a failed fit counts too.)
 */
static int next_fit_ok(const struct gpo *g)
{
	size_t step = (size_t)g->maxp / 10;

	return g->next_fit <= g->n + (step > 1 ? step : 1);
}

/* Every result and job in flight is back: the schedule must fit them. */
static int gpo_loaded(void *st)
{
	return next_fit_ok(st) ? DEHBQ_OK : DEHBQ_EINVAL;
}

static int gpo_describe(const void *st, struct jsonbuf *b)
{
	const struct gpo *g = st;
	double th[SEARCH_MAX_DIM + 2];

	gp_get_theta(g->gp, th);
	jsonbuf_printf(b,
		       "\"observations\":%zu,\"n_startup_trials\":%d,"
		       "\"acquisition\":\"%s\",\"output\":\"%s\","
		       "\"fits\":%lld,\"noise\":",
		       g->n, g->nstart, acq_names[g->acq], out_names[g->out],
		       (long long)g->nfits);
	jsonbuf_num(b, exp(th[g->dim + 1]));
	return jsonbuf_failed(b);
}

const struct search_ops search_gp_ops = {
	.name = "gp",
	.summary = "GP-based BO (Matern-5/2 ARD; EI, Thompson sampling or UCB)",
	.caps = SEARCH_CAP_LEARNS,
	.settings = gpo_settings,
	.open = gpo_open,
	.propose = gpo_propose,
	.observe = gpo_observe,
	.issued = gpo_issued,
	.rescore = gpo_rescore,
	.loaded = gpo_loaded,
	.save = gpo_save,
	.load = gpo_load,
	.describe = gpo_describe,
	.free = gpo_free,
};
