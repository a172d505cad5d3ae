/*
 * search_gp.c - owns the GP searcher, Bayesian optimisation with a
 * Gaussian process: the observations, the fit window, the refit
 * schedule, the believers and the acquisition (expected improvement or
 * Thompson sampling)
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
 * together are sent to different points.
 *
 * Settings: acquisition, output, n_startup_trials, n_candidates,
 * max_points, local_fraction.  Saved: the rng, the hyperparameters and the
 * refit schedule; the results and the jobs in flight come back at load.  Under
 * fifo this is the gp preset, under asha gp with multi_fidelity "asha":
 * both propose exactly what the gp optimiser of 0.3 did, and load its
 * states ({"rng","fits","next_fit","fit_level","theta"}, and "asha").
 */
#include "searcher.h"

#include "acq.h"
#include "copula.h"
#include "err.h"
#include "gp.h"
#include "jsonbuf.h"
#include "ostate.h"
#include "rng.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GPO_MAX_CAND	  100000
#define GPO_MAX_START	  100000
#define GPO_MAX_POINTS	  4000
#define GPO_RESTARTS	  5   /* L-BFGS runs of a full fit */
#define GPO_FULL_EVERY	  10  /* every 10th fit is full; the others warm */
#define GPO_LOCAL_CENTRES 5   /* local candidates perturb the best 5 */
#define GPO_LOCAL_DEFAULT 0.5 /* a new study's local_fraction */

enum { ACQ_EI, ACQ_TS, ACQ_UCB };
enum { OUT_STANDARD, OUT_COPULA };
static const char *const acq_names[] = {"ei", "ts", "ucb", NULL};
static const char *const out_names[] = {"standardise", "copula", NULL};

struct pend {
	int64_t id;
	double *x;
};

struct gpo {
	int dim, acq, out, nstart, ncand, maxp;
	int nlocal;	  /* candidates around the best results */
	double fit_level; /* the fidelity of the last fit's results */
	int *choices;
	struct rng rng;
	struct gp *gp;
	int64_t nfits;	   /* hyperparameter fits so far */
	size_t next_fit;   /* refit when this many finite results */
	size_t n, cap;	   /* observations, in tell order */
	double *x, *loss;  /* n * dim, n (+inf failures) */
	int64_t *job;	   /* n: the job of each (-1: a re-run's first) */
	double *fid;	   /* n, the fidelity of each */
	struct pend *pend; /* in flight, by id */
	size_t npend, cappend;
	/* scratch for one ask */
	size_t *win;	     /* window: observation indices */
	double *fx, *fy, *z; /* the model's data, n + believers */
	double *cand;	     /* ncand * dim */
	double *var;	     /* the believers' variances */
	int *cont, ncont;    /* the continuous dimensions */
	double *spare;	     /* dim: the next pending vector */
};

static const char *const gp_keys[] = {"acquisition",
				      "output",
				      "n_startup_trials",
				      "n_candidates",
				      "max_points",
				      "local_fraction",
				      NULL};

struct gp_settings {
	int acq, out, nstart, ncand, maxp;
	double local;
};

/*
 * A study's settings; `local_fraction` absent is 0, as in 0.4, whose
 * studies have no such member, while a new study's settings get
 * GPO_LOCAL_DEFAULT (gpo_settings).
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
	if ((rc = ostate_set_keys(in, gp_keys, "gp", err)) ||
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
	jsonbuf_printf(b,
		       "\"acquisition\":\"%s\",\"output\":\"%s\","
		       "\"n_startup_trials\":%d,\"n_candidates\":%d,"
		       "\"max_points\":%d,\"local_fraction\":",
		       acq_names[s.acq], out_names[s.out], s.nstart, s.ncand,
		       s.maxp);
	jsonbuf_num(b, s.local);
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

/* ---- the model's data: window, outputs, believers ---- */

static int by_loss(const void *a, const void *b, void *ctx)
{
	const double *loss = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (loss[i] != loss[j])
		return loss[i] < loss[j] ? -1 : 1;
	return i < j ? -1 : i > j;
}

static int by_index(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	return i < j ? -1 : i > j;
}

/* Failed results count too: at the worst loss (outputs()), so that a
 * failing or forbidden region is learnt, not proposed again. */
static int at(const struct gpo *g, size_t i, double level)
{
	return g->fid[i] == level;
}

/*
 * The window into g->win (observation indices, ascending): every result
 * at fidelity level, or beyond max_points the best half and the most
 * recent rest.  Returns its size; *nf the results at the level.
 */
static size_t window(struct gpo *g, double level, size_t *nf)
{
	size_t i, f = 0, h, w;

	for (i = 0; i < g->n; i++)
		if (at(g, i, level))
			g->win[f++] = i;
	*nf = f;
	if (f <= (size_t)g->maxp)
		return f;
	qsort_r(g->win, f, sizeof(size_t), by_loss, g->loss);
	h = (size_t)g->maxp / 2;
	qsort(g->win, h, sizeof(size_t), by_index);
	w = h;
	for (i = g->n; i-- > 0 && w < (size_t)g->maxp;)
		if (at(g, i, level) &&
		    !bsearch(&i, g->win, h, sizeof(size_t), by_index))
			g->win[w++] = i;
	qsort(g->win, w, sizeof(size_t), by_index);
	return w;
}

/* The window's outputs into g->fy, standardised or through psi. */
static int outputs(struct gpo *g, double level, size_t w, size_t nf)
{
	size_t i, k;
	double m = 0, v = 0, sd, worst = -INFINITY;
	int rc;

	if (g->out == OUT_COPULA) { /* psi puts a failure at the top */
		double *fl = malloc(nf * sizeof(double));
		size_t *fi = malloc(nf * sizeof(size_t));

		rc = DEHBQ_ENOMEM;
		if (fl && fi) {
			for (i = k = 0; i < g->n; i++)
				if (at(g, i, level)) {
					fi[k] = i;
					fl[k++] = g->loss[i];
				}
			if (!(rc = copula_psi(fl, nf, g->z)))
				/* the window is a subsequence of fi */
				for (i = k = 0; i < w; i++) {
					while (fi[k] != g->win[i])
						k++;
					g->fy[i] = g->z[k];
				}
		}
		free(fl);
		free(fi);
		return rc;
	}
	for (i = 0; i < w; i++) /* a failure counts as the worst result */
		worst = fmax(worst, isfinite(g->loss[g->win[i]])
					    ? g->loss[g->win[i]]
					    : -INFINITY);
	if (!isfinite(worst))
		worst = 0; /* nothing succeeded: all equal */
	for (i = 0; i < w; i++)
		g->fy[i] = isfinite(g->loss[g->win[i]]) ? g->loss[g->win[i]]
							: worst;
	for (i = 0; i < w; i++)
		m += g->fy[i];
	m /= (double)w;
	for (i = 0; i < w; i++)
		v += (g->fy[i] - m) * (g->fy[i] - m);
	sd = w > 1 ? sqrt(v / (double)(w - 1)) : 0;
	if (!(sd > 1e-12) || !isfinite(sd))
		sd = 1;
	for (i = 0; i < w; i++)
		g->fy[i] = (g->fy[i] - m) / sd;
	return DEHBQ_OK;
}

/* Fit (on schedule) and condition the model on the window w. */
static int model(struct gpo *g, double level, size_t nf, size_t w)
{
	struct gp_fit_params fp = {GPO_RESTARTS, 500, 1e-6};
	size_t i, nl = g->npend, lim = (size_t)g->maxp / 4, D = (size_t)g->dim;
	double ymin = INFINITY;
	int rc;

	for (i = 0; i < w; i++)
		memcpy(g->fx + i * D, g->x + g->win[i] * D, D * sizeof(double));
	if ((rc = outputs(g, level, w, nf)))
		return rc;
	if (nf >= g->next_fit || level != g->fit_level) {
		size_t c = nf < (size_t)g->maxp ? nf : (size_t)g->maxp;

		if (g->nfits % GPO_FULL_EVERY)
			fp.restarts = 1; /* from the last fit's theta */
		rc = gp_fit(g->gp, g->fx, g->fy, w, &g->rng, &fp);
		g->next_fit = nf + (c / 10 > 1 ? c / 10 : 1);
		g->fit_level = level;
		g->nfits++;
		if (rc)
			return rc;
	}
	if (nl > lim)
		nl = lim;
	if (!nl)
		return gp_condition(g->gp, g->fx, g->fy, w);
	/* the kriging believer: each pending point at the real data's mean */
	for (i = 0; i < nl; i++)
		memcpy(g->fx + (w + i) * D, g->pend[g->npend - nl + i].x,
		       D * sizeof(double));
	if ((rc = gp_condition(g->gp, g->fx, g->fy, w)) ||
	    (rc = gp_predict(g->gp, g->fx + w * D, nl, g->fy + w, g->var)))
		return rc;
	for (i = 0; i < w; i++)
		ymin = fmin(ymin, g->fy[i]);
	for (i = 0; i < nl; i++) /* never below the best: EI there is 0 */
		g->fy[w + i] = fmax(g->fy[w + i], ymin);
	return gp_condition(g->gp, g->fx, g->fy, w + nl);
}

static void uniform(struct gpo *g, double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n * (size_t)g->dim; i++)
		v[i] = rng_uniform(&g->rng);
}

/*
 * The first nlocal candidates around the best GPO_LOCAL_CENTRES finite
 * results of the window w (acq_local): local search, where uniform
 * candidates thin out with the dimension.
 */
static void local(struct gpo *g, size_t w)
{
	struct acq_space sp = {g->dim, g->cont, g->ncont};
	const double *ctr[GPO_LOCAL_CENTRES];
	size_t top[GPO_LOCAL_CENTRES], nt = 0, i, k;

	for (i = 0; i < w; i++) { /* the best few, best first */
		double l = g->loss[g->win[i]];

		if (!isfinite(l))
			continue;
		k = nt < GPO_LOCAL_CENTRES ? nt++ : GPO_LOCAL_CENTRES;
		if (k == GPO_LOCAL_CENTRES &&
		    !(l < g->loss[g->win[top[k - 1]]]))
			continue;
		if (k == GPO_LOCAL_CENTRES)
			k--;
		for (; k > 0 && l < g->loss[g->win[top[k - 1]]]; k--)
			top[k] = top[k - 1];
		top[k] = i;
	}
	for (i = 0; i < nt; i++)
		ctr[i] = g->x + g->win[top[i]] * (size_t)g->dim;
	acq_local(ctr, nt, &sp, &g->rng, g->cand, (size_t)g->nlocal);
}

/* The acquisition's choice among fresh candidates (acq.c). */
static int acquire(struct gpo *g, size_t w, double *vec)
{
	struct acq_space sp = {g->dim, g->cont, g->ncont};
	double ymin = INFINITY;
	size_t i;

	if (g->acq == ACQ_TS)
		return acq_ts(g->gp, g->cand, (size_t)g->ncand, &sp, &g->rng,
			      vec);
	if (g->acq == ACQ_UCB) /* the window's results are t - 1 */
		return acq_lcb(g->gp, g->cand, (size_t)g->ncand, &sp,
			       acq_ucb_kappa((size_t)g->ncand, w + 1), vec);
	for (i = 0; i < w; i++)
		ymin = fmin(ymin, g->fy[i]);
	return acq_ei(g->gp, g->cand, (size_t)g->ncand, &sp, ymin, vec);
}

/* A proposal from the results at fidelity level. */
static int propose(struct gpo *g, double level, double *vec,
		   enum trial_kind *kind)
{
	size_t nf, na = 0, i, w = 0;
	int rc = DEHBQ_EINVAL;

	*kind = TRIAL_KIND_TRIAL;
	for (i = 0; i < g->n; i++)
		na += g->fid[i] == level;
	if (na >= (size_t)g->nstart)
		w = window(g, level, &nf);
	if (w >= 2) {
		uniform(g, g->cand, (size_t)g->ncand);
		local(g, w);
		if (!(rc = model(g, level, nf, w)))
			rc = acquire(g, w, vec);
		if (rc == DEHBQ_ENOMEM)
			return rc;
	}
	if (rc) { /* start-up, or a model that could not be factored */
		uniform(g, vec, 1);
		*kind = TRIAL_KIND_RANDOM;
	}
	return DEHBQ_OK;
}

static int gpo_propose(void *st, double fidelity, double *vec,
		       enum trial_kind *kind)
{
	struct gpo *g = st;
	int rc;

	if ((rc = pend_reserve(g))) /* room for the issued that follows */
		return rc;
	return propose(g,
		       search_model_level(g->fid, g->loss, g->n, fidelity,
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
static int gpo_rescore(void *st, double (*score)(void *arg, int64_t job),
		       void *arg)
{
	struct gpo *g = st;
	size_t i;
	double v;

	for (i = 0; i < g->n; i++)
		if (g->job[i] >= 0 && !isnan(v = score(arg, g->job[i])))
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
