/*
 * search_gcp.c - owns the GCP searcher: the Gaussian copula process, with
 * the transfer prior when the study has earlier tasks (GCP+prior; Salinas,
 * Shen and Perrone, ICML 2020, Algorithm 2; TRANSFER_SPEC.md) and without
 * it otherwise (plain GCP: mu = 0, sigma = 1).  Under fifo (one level,
 * the maximum fidelity) it is the gcp preset; under asha (gcp with
 * multi_fidelity "asha"; TRANSFER_SPEC.md "ASHA/Hyperband + GCP") it
 * proposes the new rung-0 configurations, fitted on the results of the
 * highest rung with n_startup_trials of them, 2 finite.  With a
 * prior, only the top rung's: the prior models the earlier tasks' top
 * fidelity, so below it the new configurations are CTS draws (fitted on
 * a lower rung, GCP+prior followed its losses away from the prior and did
 * no better than ASHA; bench/README.md).
 *
 * Each ask after the warm start (n_startup asks: CTS draws from the
 * prior, uniform without one):
 *   z = psi(y) over this study's results (a failure at the top);
 *   r = (z - mu(x)) / sigma(x), the prior's residuals;
 *   a GP (gp.h, Matern-5/2 ARD) on (x, r) of at most max_points results
 *   (the best half by z, then the most recent), the newest max_points / 4
 *   jobs in flight told the largest r (a constant liar, so that parallel
 *   asks spread out); its
 *   hyperparameters by type-II ML (3 restarts) when the results have grown
 *   by a fifth since the last fit, else the last fit's, kept in the state;
 *   at n_candidates uniform candidates and as many around the best result
 *   (Gaussian steps of 0.05), the predictive mean m = mu_r sigma + mu and
 *   sd s = sigma_r sigma; the candidate of largest EI below min z,
 *   EI = s (v Phi(v) + phi(v)), v = (min z - m) / s.
 * Deviation from the paper: EI is maximised over the candidates only (no
 * gradient refinement, since mu and sigma vary with x).
 *
 * State: the rng, theta, the next refit and the level it was fitted at;
 * the results and jobs in flight come back at load.  The prior is fitted
 * at open and at load (prior.h).  The gcp optimiser's state of 0.3 loads
 * (its "asha" member is ASHA's).
 */
#include "searcher.h"

#include "acq.h"
#include "copula.h"
#include "err.h"
#include "gp.h"
#include "hb.h"
#include "jsonbuf.h"
#include "mobj.h"
#include "ostate.h"
#include "prior.h"
#include "rng.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GCP_STEP     0.05 /* local candidates: Gaussian steps */
#define GCP_RESTARTS 3
#define GCP_MAX_ID   ((int64_t)1 << 53) /* OPTIM_MAX_ID */

struct gcp {
	int dim, ncand, nstart, maxpts;
	double theta[SEARCH_MAX_DIM + 2]; /* the last fit's hyperparameters */
	int64_t next_fit;		  /* refit at this many results */
	int64_t nfits;			  /* refits so far (status) */
	int *choices;
	struct rng rng;
	struct prior *prior; /* NULL: plain GCP */
	struct gp *gp;
	struct prior_obs lv[HB_MAX_LEVELS]; /* results per level, tell order */
	int64_t *job[HB_MAX_LEVELS];	    /* each result's job, likewise */
	size_t capj[HB_MAX_LEVELS];
	double ladder[HB_MAX_LEVELS]; /* the fidelity levels, ascending */
	int L;
	double fit_level; /* the level theta was last fitted at */
	int mf;		  /* several levels: ASHA schedules */
	int64_t *pid;	  /* jobs in flight */
	double *px;
	size_t np, capp;
};

static const char *const gcp_keys[] = {"n_candidates", "n_startup_trials",
				       "max_points", "prior_steps", NULL};

struct gcp_set {
	int ncand, nstart, maxpts, steps;
};

static int gcp_read(const cJSON *in, struct gcp_set *s, char *err)
{
	s->ncand = 2000;
	s->nstart = 5;
	s->maxpts = 200;
	s->steps = 1000;
	return ostate_set_keys(in, gcp_keys, "gcp", err) ||
			       ostate_set_int(in, "n_candidates", 1, 100000,
					      &s->ncand, err) ||
			       ostate_set_int(in, "n_startup_trials", 1, 100000,
					      &s->nstart, err) ||
			       ostate_set_int(in, "max_points", 8, 4000,
					      &s->maxpts, err) ||
			       ostate_set_int(in, "prior_steps", 1, 100000,
					      &s->steps, err)
		       ? DEHBQ_EINVAL
		       : DEHBQ_OK;
}

static int gcp_settings(const cJSON *in, struct jsonbuf *b, char *err)
{
	struct gcp_set s;
	int rc = gcp_read(in, &s, err);

	if (rc || !b)
		return rc;
	jsonbuf_printf(b,
		       "\"n_candidates\":%d,\"n_startup_trials\":%d,"
		       "\"max_points\":%d,\"prior_steps\":%d",
		       s.ncand, s.nstart, s.maxpts, s.steps);
	return jsonbuf_failed(b);
}

static void gcp_free(void *st)
{
	struct gcp *c = st;
	int l;

	if (!c)
		return;
	for (l = 0; l < HB_MAX_LEVELS; l++) {
		prior_obs_free(&c->lv[l]);
		free(c->job[l]);
	}
	prior_free(c->prior);
	gp_free(c->gp);
	free(c->choices);
	free(c->pid);
	free(c->px);
	free(c);
}

static int gcp_open(const struct search_setup *s, void **st, char *err)
{
	struct gcp_set set;
	struct gcp *c;
	int rc, k;

	*st = NULL;
	if ((rc = gcp_read(s->settings, &set, err)))
		return rc;
	if (s->dim > SEARCH_MAX_DIM || s->levels < 1 ||
	    s->levels > HB_MAX_LEVELS ||
	    s->ladder[s->levels - 1] != s->max_fidelity)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "gcp: a ladder of 1..%d fidelities up to "
				  "the maximum, and at most %d dimensions",
				  HB_MAX_LEVELS, SEARCH_MAX_DIM);
	if (!(c = calloc(1, sizeof(*c))))
		return DEHBQ_ENOMEM;
	c->L = s->levels;
	c->mf = s->rungs;
	for (k = 0; k < c->L; k++) {
		c->ladder[k] = s->ladder[k];
		c->lv[k].dim = s->dim;
	}
	c->fit_level = s->max_fidelity;
	c->ncand = set.ncand;
	c->nstart = set.nstart;
	c->maxpts = set.maxpts;
	c->next_fit = set.nstart;
	gp_default_theta(s->dim, c->theta);
	c->dim = s->dim;
	rng_seed(&c->rng, s->seed);
	if (!(c->choices = calloc((size_t)s->dim, sizeof(int))) ||
	    (rc = gp_new(s->dim, s->choices, &c->gp))) {
		gcp_free(c);
		return DEHBQ_ENOMEM;
	}
	for (k = 0; s->choices && k < s->dim; k++)
		c->choices[k] = s->choices[k];
	if (s->transfer && s->transfer->ntasks > 0) {
		if ((rc = prior_fit(s->transfer, s->dim, s->seed, set.steps,
				    &c->prior, err))) {
			gcp_free(c);
			return rc;
		}
	}
	*st = c;
	return DEHBQ_OK;
}

/* The level of fidelity f, -1 for none. */
static int level_of(const struct gcp *c, double f)
{
	int l;

	for (l = 0; l < c->L; l++)
		if (c->ladder[l] == f)
			return l;
	return -1;
}

/* mu and sigma of the prior at n points (0 and 1 without one). */
static int prior_at(const struct gcp *c, const double *x, size_t n, double *mu,
		    double *sg)
{
	size_t i;

	if (c->prior)
		return prior_predict(c->prior, x, n, mu, sg);
	for (i = 0; i < n; i++) {
		mu[i] = 0;
		sg[i] = 1;
	}
	return DEHBQ_OK;
}

/* Warm start: CTS's draw, or a uniform one without a prior. */
static int warm(struct gcp *c, double *vec)
{
	if (!c->prior) {
		prior_uniform(&c->rng, c->choices, c->dim, 1, vec);
		return DEHBQ_OK;
	}
	return prior_thompson(c->prior, &c->rng, c->choices, c->dim, c->ncand,
			      vec);
}

static int by_z(const void *a, const void *b, void *ctx)
{
	const double *z = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (z[i] != z[j])
		return z[i] < z[j] ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* The window (ascending): every result, or the best half by z and the
 * most recent others. */
static size_t window(const struct gcp *c, const struct prior_obs *o,
		     const double *z, size_t *win)
{
	size_t n = o->n, k, i, half = (size_t)c->maxpts / 2, w = half;
	unsigned char *in;

	for (i = 0; i < n; i++)
		win[i] = i;
	if (n <= (size_t)c->maxpts || !(in = calloc(n, 1)))
		return n;
	qsort_r(win, n, sizeof(size_t), by_z, (void *)z);
	for (k = 0; k < half; k++)
		in[win[k]] = 1;
	for (i = n; i-- > 0 && w < (size_t)c->maxpts;)
		if (!in[i]) {
			in[i] = 1;
			w++;
		}
	for (i = w = 0; i < n; i++)
		if (in[i])
			win[w++] = i;
	free(in);
	return w;
}

/* The GP on the residuals of o's window (results at fidelity f) and the
 * liars in flight (the newest max_points / 4 of them: a thousand workers
 * must not make the GP a thousand points larger). */
static int fit(struct gcp *c, const struct prior_obs *o, double f, double *gx,
	       double *gr, double *gmin, size_t *best)
{
	size_t n = o->n, i, d = (size_t)c->dim, w, m, *win;
	size_t nl =
		c->np < (size_t)c->maxpts / 4 ? c->np : (size_t)c->maxpts / 4;
	double *z = gr + 2 * (n + c->np), rmax = -INFINITY;
	struct gp_fit_params fp = {GCP_RESTARTS, 100, 1e-6, 0};
	int rc;

	if (!(win = malloc(n * sizeof(size_t))))
		return DEHBQ_ENOMEM;
	if ((rc = copula_psi(o->y, n, z))) {
		free(win);
		return rc;
	}
	*gmin = INFINITY;
	for (i = 0; i < n; i++)
		if (z[i] < *gmin) {
			*gmin = z[i];
			*best = i;
		}
	w = window(c, o, z, win);
	m = w + nl;
	for (i = 0; i < w; i++)
		memcpy(&gx[i * d], &o->x[win[i] * d], d * sizeof(double));
	if (nl) /* px is NULL until a job was in flight */
		memcpy(gx + w * d, c->px + (c->np - nl) * d,
		       nl * d * sizeof(double));
	if ((rc = prior_at(c, gx, w, gr, gr + m))) {
		free(win);
		return rc;
	}
	for (i = 0; i < w; i++) {
		gr[i] = (z[win[i]] - gr[i]) / gr[m + i];
		rmax = fmax(rmax, gr[i]);
	}
	free(win);
	for (i = w; i < m; i++)
		gr[i] = rmax; /* constant liar */
	if ((rc = gp_set_theta(c->gp, c->theta)))
		return rc;
	if ((int64_t)n < c->next_fit && f == c->fit_level)
		return gp_condition(c->gp, gx, gr, m);
	c->next_fit = (int64_t)n + (int64_t)n / 5 + 1;
	c->fit_level = f;
	c->nfits++;
	if ((rc = gp_fit(c->gp, gx, gr, m, &c->rng, &fp)))
		return rc;
	gp_get_theta(c->gp, c->theta);
	return DEHBQ_OK;
}

static int model_ask(struct gcp *c, const struct prior_obs *o, double f,
		     double *vec)
{
	size_t m = o->n + c->np, nc = 2 * (size_t)c->ncand, d = (size_t)c->dim;
	size_t i, best = 0, arg = 0;
	double *gx = malloc(m * d * sizeof(double));
	double *gr = malloc((2 * m + o->n) * sizeof(double));
	double *cand = malloc(nc * d * sizeof(double));
	double *buf = malloc(4 * nc * sizeof(double)), gmin, bei = -1;
	int rc = gx && gr && cand && buf ? DEHBQ_OK : DEHBQ_ENOMEM;

	if (!rc)
		rc = fit(c, o, f, gx, gr, &gmin, &best);
	if (!rc) {
		prior_uniform(&c->rng, c->choices, c->dim, nc / 2, cand);
		for (i = nc / 2 * d; i < nc * d; i++) { /* around the best */
			double u = o->x[best * d + i % d];
			int K = c->choices[i % d];

			u += GCP_STEP * rng_normal(&c->rng);
			u = u < 0 ? 0 : u > 1 ? 1 : u;
			cand[i] = prior_snap(u, K);
		}
		rc = gp_predict(c->gp, cand, nc, buf, buf + nc);
	}
	if (!rc)
		rc = prior_at(c, cand, nc, buf + 2 * nc, buf + 3 * nc);
	for (i = 0; !rc && i < nc; i++) {
		double mu = buf[i] * buf[3 * nc + i] + buf[2 * nc + i];
		double s = sqrt(fmax(buf[nc + i], 0)) * buf[3 * nc + i];
		double ei = acq_ei_value(gmin, mu, s * s);

		if (ei > bei) {
			bei = ei;
			arg = i;
		}
	}
	if (!rc)
		memcpy(vec, &cand[arg * d], d * sizeof(double));
	free(gx);
	free(gr);
	free(cand);
	free(buf);
	return rc;
}

/* Jobs in flight in ascending ids, so that a load, which replays them in
 * id order, builds the same model. */
/* Room for one more job in flight. */
static int pend_reserve(struct gcp *c)
{
	size_t d = (size_t)c->dim;

	if (c->np == c->capp) {
		size_t cap = c->capp ? 2 * c->capp : 16;
		void *p = realloc(c->pid, cap * sizeof(*c->pid));

		if (!p)
			return DEHBQ_ENOMEM;
		c->pid = p;
		if (!(p = realloc(c->px, cap * d * sizeof(double))))
			return DEHBQ_ENOMEM;
		c->px = p;
		c->capp = cap;
	}
	return DEHBQ_OK;
}

/* Put job id in flight, in id order (it cannot fail after a reserve). */
static int pend_add(struct gcp *c, int64_t id, const double *vec)
{
	size_t i, d = (size_t)c->dim;
	int rc;

	if ((rc = pend_reserve(c)))
		return rc;
	for (i = c->np; i > 0 && c->pid[i - 1] > id; i--) {
		c->pid[i] = c->pid[i - 1];
		memcpy(&c->px[i * d], &c->px[(i - 1) * d], d * sizeof(double));
	}
	c->pid[i] = id;
	memcpy(&c->px[i * d], vec, d * sizeof(double));
	c->np++;
	return DEHBQ_OK;
}

static void pend_del(struct gcp *c, int64_t id)
{
	size_t i, d = (size_t)c->dim;

	for (i = 0; i < c->np && c->pid[i] != id; i++)
		;
	if (i == c->np)
		return;
	c->np--;
	memmove(&c->pid[i], &c->pid[i + 1], (c->np - i) * sizeof(*c->pid));
	memmove(&c->px[i * d], &c->px[(i + 1) * d],
		(c->np - i) * d * sizeof(double));
}

/* The finite results of o. */
static size_t n_finite(const struct prior_obs *o)
{
	size_t i, n = 0;

	for (i = 0; i < o->n; i++)
		n += isfinite(o->y[i]) != 0;
	return n;
}

/* A new configuration from the results at level l: CTS's (uniform
 * without a prior) until there are n_startup_trials of them, then the
 * model's.  Alone, the jobs in flight count towards the start-up. */
static int propose(struct gcp *c, int l, double *vec, enum trial_kind *kind)
{
	const struct prior_obs *o = &c->lv[l];

	if (c->mf ? o->n < (size_t)c->nstart || n_finite(o) < 2
		  : o->n + c->np < (size_t)c->nstart || !o->n) {
		*kind = c->prior ? TRIAL_KIND_PRIOR : TRIAL_KIND_RANDOM;
		return warm(c, vec);
	}
	*kind = TRIAL_KIND_TRIAL;
	return model_ask(c, o, c->ladder[l], vec);
}

/*
 * Alone, the model of the maximum fidelity; under ASHA, of the highest
 * rung with n_startup_trials results, 2 of them finite (else rung 0,
 * where it starts up).
 */
static int gcp_propose(void *st, double fidelity, double *vec,
		       enum trial_kind *kind)
{
	struct gcp *c = st;
	int l, rc;

	(void)fidelity;
	if ((rc = pend_reserve(c))) /* room for the issued that follows */
		return rc;
	if (!c->mf)
		return propose(c, c->L - 1, vec, kind);
	for (l = c->L - 1; l > 0; l--)
		if (c->lv[l].n >= (size_t)c->nstart && n_finite(&c->lv[l]) >= 2)
			break;
	if (c->prior && l < c->L - 1) { /* the prior models the top rung */
		*kind = TRIAL_KIND_PRIOR;
		return warm(c, vec);
	}
	return propose(c, l, vec, kind);
}

static int gcp_issued(void *st, int64_t job, const double *vec, double fidelity)
{
	(void)fidelity;
	return pend_add(st, job, vec);
}

/* A result into its level's results. */
static int gcp_observe(void *st, int64_t job, const double *vec,
		       double fidelity, double loss)
{
	struct gcp *c = st;
	int l = level_of(c, fidelity), rc;
	size_t i;

	if (l < 0)
		return DEHBQ_EINVAL;
	if (c->lv[l].n == c->capj[l]) {
		size_t cap = c->capj[l] ? 2 * c->capj[l] : 32;
		int64_t *j = realloc(c->job[l], cap * sizeof(*j));

		if (!j)
			return DEHBQ_ENOMEM;
		c->job[l] = j;
		c->capj[l] = cap;
	}
	if ((rc = prior_obs_add(&c->lv[l], vec, loss)))
		return rc;		   /* it changed nothing */
	for (i = c->lv[l].n - 1; i-- > 0;) /* a re-run: its failure, as gp's */
		if (c->job[l][i] == job) {
			c->job[l][i] = -1;
			c->lv[l].y[i] = INFINITY;
			break;
		}
	c->job[l][c->lv[l].n - 1] = job;
	pend_del(c, job);
	return DEHBQ_OK;
}

/* A multi-objective study's scores moved: every result's loss. */
static int gcp_rescore(void *st, const struct mobj *mo)
{
	struct gcp *c = st;
	size_t i;
	double v;
	int l;

	for (l = 0; l < c->L; l++)
		for (i = 0; i < c->lv[l].n; i++)
			if (c->job[l][i] >= 0 &&
			    !isnan(v = mobj_score(mo, c->job[l][i])))
				c->lv[l].y[i] = v;
	return DEHBQ_OK;
}

static int gcp_save(const void *st, struct jsonbuf *b)
{
	const struct gcp *c = st;

	jsonbuf_puts(b, "{\"rng\":");
	ostate_put_rng(b, &c->rng);
	jsonbuf_puts(b, ",\"theta\":");
	ostate_put_dbls(b, c->theta, (size_t)c->dim + 2);
	jsonbuf_printf(b, ",\"next_fit\":%lld,\"fits\":%lld,\"fit_level\":",
		       (long long)c->next_fit, (long long)c->nfits);
	jsonbuf_num(b, c->fit_level);
	jsonbuf_put(b, "}", 1);
	return jsonbuf_failed(b);
}

static int gcp_load(const struct search_setup *s, const cJSON *state, void **st,
		    char *err)
{
	struct gcp *c;
	int rc;

	if ((rc = gcp_open(s, st, err)))
		return rc;
	c = *st;
	if ((rc = ostate_get_rng(state, "rng", &c->rng, err)) ||
	    (rc = ostate_get_dbls(state, "theta", (size_t)c->dim + 2, c->theta,
				  0, 0, err)) ||
	    (rc = ostate_get_i64(state, "next_fit", 0, GCP_MAX_ID, &c->next_fit,
				 err)) ||
	    /* older snapshots have no "fit_level" (the maximum) or "fits" */
	    (cJSON_GetObjectItemCaseSensitive(state, "fit_level") &&
	     (rc = ostate_get_dbl(state, "fit_level", &c->fit_level, err))) ||
	    (cJSON_GetObjectItemCaseSensitive(state, "fits") &&
	     (rc = ostate_get_i64(state, "fits", 0, GCP_MAX_ID, &c->nfits,
				  err))) ||
	    (rc = gp_set_theta(c->gp, c->theta)
			  ? dehbq_errf(err, DEHBQ_EINVAL,
				       "snapshot: gcp: 'theta' outside its "
				       "box")
			  : DEHBQ_OK)) {
		gcp_free(c);
		*st = NULL;
	}
	return rc;
}

static int gcp_describe(const void *st, struct jsonbuf *b)
{
	const struct gcp *c = st;
	size_t n = 0;
	int l;

	for (l = 0; l < c->L; l++)
		n += c->lv[l].n;
	jsonbuf_printf(b, "\"observations\":%zu,\"fits\":%lld", n,
		       (long long)c->nfits);
	if (c->prior) { /* its RMSE on the results at the maximum fidelity */
		jsonbuf_put(b, ",", 1);
		prior_describe(c->prior, &c->lv[c->L - 1], b);
	}
	return jsonbuf_failed(b);
}

const struct search_ops search_gcp_ops = {
	.name = "gcp",
	.summary = "Gaussian copula process, with the prior of earlier studies "
		   "when given (--transfer-from)",
	.caps = SEARCH_CAP_LEARNS | SEARCH_CAP_TRANSFER,
	.settings = gcp_settings,
	.open = gcp_open,
	.propose = gcp_propose,
	.observe = gcp_observe,
	.issued = gcp_issued,
	.save = gcp_save,
	.load = gcp_load,
	.describe = gcp_describe,
	.free = gcp_free,
	.rescore = gcp_rescore,
};
