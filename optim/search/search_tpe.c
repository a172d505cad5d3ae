/*
 * search_tpe.c - owns the TPE searcher, the tree-structured Parzen
 * estimator (Bergstra et al. 2011), with Optuna's univariate defaults
 *
 * The first n_startup_trials (10) results come from uniform samples.  Then
 * the finite results are split by loss: the good set is the best
 * gamma(n) = min(ceil(0.1 n), 25) of them, the bad set the rest.  Each
 * dimension gets two Parzen estimators (parzen1.h), l (good) and g (bad):
 * a mixture of normals truncated to [0, 1], one per point, plus a prior
 * (mean 0.5, sigma 1) of weight prior_weight, or for a parameter of K
 * choices a categorical distribution.  Point weights are 1 while a set
 * has fewer than 25 points; beyond, the oldest get a linear ramp up from
 * 1/n and the newest 25 keep 1.  n_ei_candidates (24) candidates are
 * drawn from l, one
 * dimension at a time, and the one that maximises log l - log g is
 * proposed.  Failures are left out of the fit but count towards the
 * start-up trials.
 *
 * The model is fitted to the results of one fidelity: the highest with
 * n_startup_trials results (search_model_level), so under fifo the
 * maximum, and under ASHA the highest rung that has enough.
 *
 * With multivariate true (off unless set: TPE_MULTI_DEFAULT, as
 * measured), one joint estimator over all dimensions instead (parzen.h):
 * Optuna's TPESampler(multivariate=True).  With hypervolume_weights true
 * (off: measured worse) and the study's selection hypervolume, the good
 * set's weights are MOTPE's (mobj_motpe_weights): Optuna's MOTPE.
 *
 * With constant_liar true (off, as Optuna's), every job in flight
 * (search_ops.issued) at the model's fidelity joins the bad set, after the
 * told results, by job id: Optuna's TPESampler(constant_liar=True), which
 * scores a running trial +inf.  It does not count towards gamma or the
 * start-up.
 *
 * Settings: n_startup_trials, n_ei_candidates, prior_weight, multivariate,
 * hypervolume_weights, constant_liar.
 * Saves only its random stream: the results and the jobs in flight come
 * back through observe and issued at load.
 * Under fifo this is the tpe preset, under asha tpe with multi_fidelity
 * "asha": both propose exactly what the tpe optimiser of 0.3 did.
 */
#include "searcher.h"

#include "err.h"
#include "jsonbuf.h"
#include "mobj.h"
#include "ostate.h"
#include "parzen.h"
#include "parzen1.h"
#include "rng.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TPE_GAMMA_CAP	  25 /* most points in the good set */
#define TPE_FLAT_TAIL	  25 /* newest points that keep weight 1 */
#define TPE_MAX_CAND	  10000
#define TPE_MAX_START	  100000
#define TPE_MULTI_DEFAULT 0 /* a new study's multivariate */

struct tpe {
	int dim, nstart, ncand, multi, hvw;
	double prior_w;
	int *choices; /* per dimension, 0 = continuous */
	struct rng rng;
	size_t n, cap; /* observations, in tell order */
	double *x;     /* n * dim */
	double *loss;  /* n, +inf for failures */
	double *fid;   /* n, the fidelity of each */
	int64_t *job;  /* n, the job of each (-1: replaced by a re-tell) */
	/* scratch for one ask, sized for n */
	size_t *ord;		   /* finite observations, best first */
	double *mu, *sig, *w;	   /* one estimator: up to n + 1 kernels */
	double *srt;		   /* its means, sorted */
	struct parzen1_kern *kern; /* its point kernels, by mean */
	double *cat;		   /* a categorical estimator: max K bins */
	double *cand;		   /* ncand * dim */
	double *score;		   /* ncand */
	/* multivariate: each set's weights (n + 1) and normalisers */
	double *wl, *wg, *nl, *ng; /* nl, ng: (n + 1) * dim */
	/* hypervolume selection: the study's objectives (from the last
	 * rescore, borrowed: the optimiser owns it and this searcher), and
	 * the good set's jobs and MOTPE weights */
	const struct mobj *mo;
	int64_t jmo[TPE_GAMMA_CAP];
	double wmo[TPE_GAMMA_CAP];
	/* jobs in flight, by job id: constant_liar's */
	int liar;
	size_t nbad; /* the last split's bad set, jobs in flight included */
	size_t np, capp;
	int64_t *pjob; /* np */
	double *pfid;  /* np */
	double *px;    /* np * dim */
};

static const char *const tpe_keys[] = {"n_startup_trials",
				       "n_ei_candidates",
				       "prior_weight",
				       "multivariate",
				       "hypervolume_weights",
				       "constant_liar",
				       NULL};

struct tpe_settings {
	int nstart, ncand, multi, hvw, liar;
	double prior_w;
};

/*
 * A study's settings; `multivariate` absent is false, as in 0.4, whose
 * studies have no such member, while a new study's settings get
 * TPE_MULTI_DEFAULT (tpe_settings).
 */
static int read_settings(const cJSON *in, struct tpe_settings *s, char *err)
{
	int rc;

	s->nstart = 10;
	s->ncand = 24;
	s->prior_w = 1.0;
	s->multi = 0;
	s->hvw = 0;
	s->liar = 0;
	if ((rc = ostate_set_keys(in, tpe_keys, "tpe", err)) ||
	    (rc = ostate_set_bool(in, "constant_liar", &s->liar, err)) ||
	    (rc = ostate_set_bool(in, "multivariate", &s->multi, err)) ||
	    (rc = ostate_set_bool(in, "hypervolume_weights", &s->hvw, err)) ||
	    (rc = ostate_set_int(in, "n_startup_trials", 1, TPE_MAX_START,
				 &s->nstart, err)) ||
	    (rc = ostate_set_int(in, "n_ei_candidates", 1, TPE_MAX_CAND,
				 &s->ncand, err)) ||
	    (rc = ostate_set_num(in, "prior_weight", 1e-6, 1e6, &s->prior_w,
				 err)))
		return rc;
	return DEHBQ_OK;
}

static int tpe_settings(const cJSON *in, struct jsonbuf *b, char *err)
{
	struct tpe_settings s;
	int rc = read_settings(in, &s, err);

	if (rc || !b)
		return rc;
	if (!cJSON_GetObjectItemCaseSensitive(in, "multivariate"))
		s.multi = TPE_MULTI_DEFAULT;
	jsonbuf_printf(b,
		       "\"n_startup_trials\":%d,\"n_ei_candidates\":%d,"
		       "\"multivariate\":%s,\"hypervolume_weights\":%s,"
		       "\"constant_liar\":%s,\"prior_weight\":",
		       s.nstart, s.ncand, s.multi ? "true" : "false",
		       s.hvw ? "true" : "false", s.liar ? "true" : "false");
	jsonbuf_num(b, s.prior_w);
	return jsonbuf_failed(b);
}

static void tpe_free(void *st)
{
	struct tpe *t = st;

	if (!t)
		return;
	free(t->choices);
	free(t->x);
	free(t->loss);
	free(t->job);
	free(t->fid);
	free(t->ord);
	free(t->mu);
	free(t->sig);
	free(t->w);
	free(t->srt);
	free(t->kern);
	free(t->cat);
	free(t->cand);
	free(t->score);
	free(t->wl);
	free(t->wg);
	free(t->nl);
	free(t->ng);
	free(t->pjob);
	free(t->pfid);
	free(t->px);
	free(t);
}

static int tpe_open(const struct search_setup *s, void **st, char *err)
{
	struct tpe_settings ts;
	struct tpe *t;
	int i, rc, maxk = 0;

	if ((rc = read_settings(s->settings, &ts, err)))
		return rc;
	if (!(t = calloc(1, sizeof(*t))))
		return DEHBQ_ENOMEM;
	t->dim = s->dim;
	t->nstart = ts.nstart;
	t->ncand = ts.ncand;
	t->prior_w = ts.prior_w;
	t->multi = ts.multi;
	t->hvw = ts.hvw;
	t->liar = ts.liar;
	t->choices = calloc((size_t)s->dim, sizeof(int));
	t->cand = calloc((size_t)ts.ncand * (size_t)s->dim, sizeof(double));
	t->score = calloc((size_t)ts.ncand, sizeof(double));
	for (i = 0; s->choices && i < s->dim; i++)
		if (s->choices[i] > maxk)
			maxk = s->choices[i];
	t->cat = calloc((size_t)maxk + 1, sizeof(double));
	if (!t->choices || !t->cand || !t->score || !t->cat) {
		tpe_free(t);
		return DEHBQ_ENOMEM;
	}
	for (i = 0; s->choices && i < s->dim; i++)
		t->choices[i] = s->choices[i];
	rng_seed(&t->rng, s->seed);
	*st = t;
	return DEHBQ_OK;
}

/* Room for `need` observations, scratch included (constant_liar's jobs in
 * flight take rows after the observations during an ask). */
static int reserve_rows(struct tpe *t, size_t need)
{
	size_t c = t->cap ? t->cap : 64, d = (size_t)t->dim;
	double *x, *l, *f, *mu, *sig, *w, *srt;
	struct parzen1_kern *kern;
	int64_t *jb;
	size_t *ord;

	if (need <= t->cap)
		return DEHBQ_OK;
	while (c < need)
		c *= 2;
	if (!(x = realloc(t->x, c * d * sizeof(double))))
		return DEHBQ_ENOMEM;
	t->x = x;
	if (!(l = realloc(t->loss, c * sizeof(double))))
		return DEHBQ_ENOMEM;
	t->loss = l;
	if (!(jb = realloc(t->job, c * sizeof(int64_t))))
		return DEHBQ_ENOMEM;
	t->job = jb;
	if (!(f = realloc(t->fid, c * sizeof(double))))
		return DEHBQ_ENOMEM;
	t->fid = f;
	if (!(ord = realloc(t->ord, c * sizeof(size_t))))
		return DEHBQ_ENOMEM;
	t->ord = ord;
	if (!(mu = realloc(t->mu, (c + 1) * sizeof(double))))
		return DEHBQ_ENOMEM;
	t->mu = mu;
	if (!(sig = realloc(t->sig, (c + 1) * sizeof(double))))
		return DEHBQ_ENOMEM;
	t->sig = sig;
	if (!(w = realloc(t->w, (c + 1) * sizeof(double))))
		return DEHBQ_ENOMEM;
	t->w = w;
	if (!(srt = realloc(t->srt, (c + 1) * sizeof(double))))
		return DEHBQ_ENOMEM;
	t->srt = srt;
	if (!(kern = realloc(t->kern, (c + 1) * sizeof(*kern))))
		return DEHBQ_ENOMEM;
	t->kern = kern;
	if (t->multi) {
		if (!(w = realloc(t->wl, (c + 1) * sizeof(double))))
			return DEHBQ_ENOMEM;
		t->wl = w;
		if (!(w = realloc(t->wg, (c + 1) * sizeof(double))))
			return DEHBQ_ENOMEM;
		t->wg = w;
		if (!(w = realloc(t->nl, (c + 1) * d * sizeof(double))))
			return DEHBQ_ENOMEM;
		t->nl = w;
		if (!(w = realloc(t->ng, (c + 1) * d * sizeof(double))))
			return DEHBQ_ENOMEM;
		t->ng = w;
	}
	t->cap = c;
	return DEHBQ_OK;
}

/* Room for one more observation. */
static int reserve(struct tpe *t)
{
	return reserve_rows(t, t->n + 1 + (t->liar ? t->np : 0));
}

/* Record job id's result; reserve(t) came first.  A requeued job's
 * failed result stays, as +inf, where no rescore reaches it any more (a
 * multi-objective score given to it since its tell is dropped: a
 * snapshot's replay never saw that score). */
static void record(struct tpe *t, const double *vec, double loss, double fid,
		   int64_t id)
{
	size_t i;

	for (i = t->n; i-- > 0;)
		if (t->job[i] == id) {
			t->job[i] = -1;
			t->loss[i] = INFINITY;
			break;
		}
	memcpy(t->x + t->n * (size_t)t->dim, vec,
	       (size_t)t->dim * sizeof(double));
	t->fid[t->n] = fid;
	t->job[t->n] = id;
	t->loss[t->n++] = loss;
}

/* ---- one Parzen estimator over one dimension ---- */

static int cmp_loss(const void *a, const void *b, void *ctx)
{
	const double *loss = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	double x = loss[i], y = loss[j];

	if (x != y)
		return x < y ? -1 : 1;
	return i < j ? -1 : i > j; /* ties: the older first */
}

/* Point weights of a set of m points in tell order (Optuna's ramp). */
static double ramp(size_t k, size_t m)
{
	size_t nr;

	if (m < TPE_FLAT_TAIL || k + TPE_FLAT_TAIL >= m)
		return 1.0;
	nr = m - TPE_FLAT_TAIL; /* linspace(1/m, 1, nr) */
	return nr == 1 ? 1.0 / (double)m
		       : 1.0 / (double)m + (1.0 - 1.0 / (double)m) * (double)k /
						   (double)(nr - 1);
}

static int cmp_idx(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	return i < j ? -1 : i > j;
}

/*
 * Fit e, the estimator of dimension d over points set[0..m-1]
 * (observation indices, in tell order), weighed pw[i] (NULL: the ramp),
 * in t's scratch.
 */
static void build(struct tpe *t, int d, const size_t *set, size_t m,
		  const double *pw, struct parzen1 *e)
{
	struct parzen1_buf b = {t->mu, t->sig, t->w, t->srt, t->cat, t->kern};
	size_t i;

	for (i = 0; i < m; i++) {
		b.mu[i] = t->x[set[i] * (size_t)t->dim + d];
		b.w[i] = pw ? pw[i] : ramp(i, m);
	}
	parzen1_fit(e, &b, t->choices[d], m, t->prior_w);
}

/*
 * The results at fidelity level: *nall of them, and the good set (the best
 * gamma(n) finite ones) and the bad set, each in tell order.
 */
static void split(struct tpe *t, double level, size_t *nall, size_t *nf,
		  size_t *ngood)
{
	size_t i, f = 0, g;

	*nall = *nf = *ngood = 0;
	t->nbad = 0;
	for (i = 0; i < t->n; i++)
		if (t->fid[i] == level) {
			++*nall;
			if (isfinite(t->loss[i]))
				t->ord[f++] = i;
		}
	if (!f)
		return;
	qsort_r(t->ord, f, sizeof(size_t), cmp_loss, t->loss);
	g = (size_t)ceil(0.1 * (double)f);
	if (g > TPE_GAMMA_CAP)
		g = TPE_GAMMA_CAP;
	/* each set back to tell order, for the weights */
	qsort(t->ord, g, sizeof(size_t), cmp_idx);
	qsort(t->ord + g, f - g, sizeof(size_t), cmp_idx);
	*nf = f;
	*ngood = g;
	t->nbad = f - g;
	for (i = 0; t->liar && i < t->np; i++) { /* rows n.. (reserve_rows) */
		size_t row = t->n + t->nbad - (f - g);

		if (t->pfid[i] != level)
			continue;
		memcpy(t->x + row * (size_t)t->dim, t->px + i * (size_t)t->dim,
		       (size_t)t->dim * sizeof(double));
		t->ord[g + t->nbad++] = row;
	}
}

/* The candidate of best score. */
static size_t argmax(const double *score, size_t n)
{
	size_t c, best = 0;

	for (c = 1; c < n; c++)
		if (score[c] > score[best])
			best = c;
	return best;
}

/*
 * The joint estimator of the m observations set[] (in tell order) into p:
 * Optuna's weights (pw[i], NULL: the ramp; then prior_weight, normalised
 * into w) and normalisers nrm ((m + 1) * dim).
 */
static void joint(struct tpe *t, const size_t *set, size_t m, const double *pw,
		  double *w, double *nrm, struct parzen *p)
{
	double tot = 0;
	size_t i;

	for (i = 0; i < m; i++)
		tot += w[i] = pw ? pw[i] : ramp(i, m);
	tot += w[m] = t->prior_w;
	for (i = 0; i <= m; i++)
		w[i] /= tot;
	p->dim = t->dim;
	p->choices = t->choices;
	p->x = t->x;
	p->set = set;
	p->m = m;
	p->w = w;
	p->sigma = parzen_bandwidth(m, t->dim);
	p->cat = t->prior_w / (double)(m + 1);
	p->lognorm = nrm;
	parzen_fit(p);
}

/* Multivariate TPE: candidates from the good set's joint estimator, the
 * one that maximises log l - log g into vec. */
static void propose_joint(struct tpe *t, size_t ng, const double *pw,
			  double *vec)
{
	struct parzen l, g;
	size_t c, d = (size_t)t->dim;

	joint(t, t->ord, ng, pw, t->wl, t->nl, &l);
	joint(t, t->ord + ng, t->nbad, NULL, t->wg, t->ng, &g);
	for (c = 0; c < (size_t)t->ncand; c++) {
		double *v = t->cand + c * d;

		parzen_sample(&l, &t->rng, v);
		t->score[c] =
			parzen_log_density(&l, v) - parzen_log_density(&g, v);
	}
	c = argmax(t->score, (size_t)t->ncand);
	memcpy(vec, t->cand + c * d, d * sizeof(double));
}

/* A proposal from the results at fidelity level. */
static int propose(struct tpe *t, double level, double *vec,
		   enum trial_kind *kind)
{
	size_t na, nf, ng, c;
	const double *pw = NULL;
	struct parzen1 l, g;
	int d, rc;

	split(t, level, &na, &nf, &ng);
	if (na < (size_t)t->nstart || nf < 2) {
		for (d = 0; d < t->dim; d++)
			vec[d] = rng_uniform(&t->rng);
		*kind = TRIAL_KIND_RANDOM;
		return DEHBQ_OK;
	}
	if (t->mo) {
		for (c = 0; c < ng; c++)
			t->jmo[c] = t->job[t->ord[c]];
		if ((rc = mobj_motpe_weights(t->mo, t->jmo, ng, t->wmo)))
			return rc;
		pw = t->wmo;
	}
	*kind = TRIAL_KIND_TRIAL;
	if (t->multi) {
		propose_joint(t, ng, pw, vec);
		return DEHBQ_OK;
	}
	for (c = 0; c < (size_t)t->ncand; c++)
		t->score[c] = 0;
	/* one dimension at a time: l's draws, then log l - log g of each */
	for (d = 0; d < t->dim; d++) {
		build(t, d, t->ord, ng, pw, &l);
		for (c = 0; c < (size_t)t->ncand; c++) {
			double v = parzen1_sample(&l, &t->rng);

			t->cand[c * (size_t)t->dim + (size_t)d] = v;
			t->score[c] +=
				log(fmax(parzen1_density(&l, v), 1e-300));
		}
		build(t, d, t->ord + ng, t->nbad, NULL, &g);
		for (c = 0; c < (size_t)t->ncand; c++)
			t->score[c] -= log(fmax(
				parzen1_density(&g, t->cand[c * (size_t)t->dim +
							    (size_t)d]),
				1e-300));
	}
	c = argmax(t->score, (size_t)t->ncand);
	memcpy(vec, t->cand + c * (size_t)t->dim,
	       (size_t)t->dim * sizeof(double));
	return DEHBQ_OK;
}

/* Room for one more job in flight, and for the rows an ask then takes. */
static int reserve_pending(struct tpe *t)
{
	size_t c = t->capp ? 2 * t->capp : 16;
	int64_t *j;
	double *f, *x;

	if (t->np == t->capp) {
		if (!(j = realloc(t->pjob, c * sizeof(*j))))
			return DEHBQ_ENOMEM;
		t->pjob = j;
		if (!(f = realloc(t->pfid, c * sizeof(*f))))
			return DEHBQ_ENOMEM;
		t->pfid = f;
		if (!(x = realloc(t->px, c * (size_t)t->dim * sizeof(*x))))
			return DEHBQ_ENOMEM;
		t->px = x;
		t->capp = c;
	}
	return reserve_rows(t, t->n + t->np + 1);
}

static int tpe_propose(void *st, double fidelity, double *vec,
		       enum trial_kind *kind)
{
	struct tpe *t = st;
	int rc;

	if (t->liar && (rc = reserve_pending(t)))
		return rc;
	return propose(t,
		       search_model_level(t->fid, t->loss, t->n, fidelity,
					  (size_t)t->nstart),
		       vec, kind);
}

/* constant_liar: job is in flight at fidelity (a second issue of it is a
 * no-op).  Kept by job id, the order a load's replay issues them in. */
static int tpe_issued(void *st, int64_t job, const double *vec, double fidelity)
{
	struct tpe *t = st;
	size_t i;
	int rc;

	if (!t->liar)
		return DEHBQ_OK;
	for (i = 0; i < t->np; i++)
		if (t->pjob[i] == job)
			return DEHBQ_OK;
	if ((rc = reserve_pending(t)))
		return rc;
	for (i = t->np; i > 0 && t->pjob[i - 1] > job; i--) {
		t->pjob[i] = t->pjob[i - 1];
		t->pfid[i] = t->pfid[i - 1];
		memcpy(t->px + i * (size_t)t->dim,
		       t->px + (i - 1) * (size_t)t->dim,
		       (size_t)t->dim * sizeof(double));
	}
	t->pjob[i] = job;
	t->pfid[i] = fidelity;
	memcpy(t->px + i * (size_t)t->dim, vec,
	       (size_t)t->dim * sizeof(double));
	t->np++;
	return DEHBQ_OK;
}

static int tpe_observe(void *st, int64_t job, const double *vec,
		       double fidelity, double loss)
{
	struct tpe *t = st;
	size_t i;
	int rc;

	if ((rc = reserve(t)))
		return rc;
	record(t, vec, loss, fidelity, job);
	for (i = 0; i < t->np; i++) /* no longer in flight, order kept */
		if (t->pjob[i] == job) {
			memmove(t->pjob + i, t->pjob + i + 1,
				(t->np - i - 1) * sizeof(*t->pjob));
			memmove(t->pfid + i, t->pfid + i + 1,
				(t->np - i - 1) * sizeof(*t->pfid));
			memmove(t->px + i * (size_t)t->dim,
				t->px + (i + 1) * (size_t)t->dim,
				(t->np - i - 1) * (size_t)t->dim *
					sizeof(*t->px));
			t->np--;
			break;
		}
	return DEHBQ_OK;
}

/* Multi-objective: every observation's loss is its job's score now; with
 * hypervolume selection and hypervolume_weights, the good set weighs as
 * MOTPE's. */
static int tpe_rescore(void *st, const struct mobj *mo)
{
	struct tpe *t = st;
	size_t i;
	double v;

	t->mo = t->hvw && mobj_mode(mo) == MOBJ_HYPERVOLUME ? mo : NULL;
	for (i = 0; i < t->n; i++)
		if (t->job[i] >= 0 && !isnan(v = mobj_score(mo, t->job[i])))
			t->loss[i] = v;
	return DEHBQ_OK;
}

static int tpe_save(const void *st, struct jsonbuf *b)
{
	jsonbuf_puts(b, "{\"rng\":");
	ostate_put_rng(b, &((const struct tpe *)st)->rng);
	jsonbuf_put(b, "}", 1);
	return jsonbuf_failed(b);
}

/* state: an object with member "rng" (the tpe optimiser's own state of
 * 0.3, which also held "asha", loads this way) */
static int tpe_load(const struct search_setup *s, const cJSON *state, void **st,
		    char *err)
{
	struct tpe *t;
	int rc;

	if ((rc = tpe_open(s, (void **)&t, err)))
		return rc;
	if ((rc = ostate_get_rng(state, "rng", &t->rng, err))) {
		tpe_free(t);
		return rc;
	}
	*st = t;
	return DEHBQ_OK;
}

static int tpe_describe(const void *st, struct jsonbuf *b)
{
	const struct tpe *t = st;

	jsonbuf_printf(b,
		       "\"observations\":%zu,\"n_startup_trials\":%d,"
		       "\"multivariate\":%s",
		       t->n, t->nstart, t->multi ? "true" : "false");
	return jsonbuf_failed(b);
}

const struct search_ops search_tpe_ops = {
	.name = "tpe",
	.summary = "TPE, Optuna's defaults (univariate, or multivariate)",
	.caps = SEARCH_CAP_LEARNS,
	.settings = tpe_settings,
	.open = tpe_open,
	.propose = tpe_propose,
	.observe = tpe_observe,
	.issued = tpe_issued,
	.rescore = tpe_rescore,
	.save = tpe_save,
	.load = tpe_load,
	.describe = tpe_describe,
	.free = tpe_free,
};
