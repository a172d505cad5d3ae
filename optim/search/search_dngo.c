/*
 * search_dngo.c - owns the dngo searcher: DNGO (Snoek et al. 2015), a
 * neural network's last hidden layer as the basis of a Bayesian linear
 * regression, and expected improvement over candidates
 *
 * The first n_startup_trials (10) results come from uniform samples.  Then
 * each ask, on the finite results at the model's fidelity
 * (search_model_level), outputs standardised:
 *   1. takes optim/models/mlp.c's network (3 ReLU layers of `hidden`
 *      units, Adam, one stage of `steps` steps of batches of up to 64)
 *      trained on the first s results, s the last of 2, ..., s + max(1,
 *      floor(retrain_growth s)), ... reached (0.01: every result up to
 *      200, then every 1 %), from a stream seeded by the seed and s: a
 *      function of those s results, kept while they stay as they were
 *      and never saved (a load trains the same one);
 *   2. fits blr.c's Bayesian linear regression on its last layer and a
 *      constant to all the results (evidence-maximising alpha, beta);
 *   3. adds each job in flight at that fidelity (the newest 32) at the
 *      regression's mean there, floored at the best output (GP's kriging
 *      believer, docs/algorithm.md 14), with alpha and beta kept;
 *   4. proposes the best of n_candidates candidates by EI below the best
 *      output: uniform points, local_fraction of them around the best 5
 *      results (acq_local).
 * An ask passes the network over the rows told since the last
 * (features()) and sums over all n (n k), and at a training point takes
 * `steps` Adam steps: near flat in n, with no window on the history.
 * Failures are left out of the fit but count towards the start-up.
 *
 * Settings: n_startup_trials, n_candidates, hidden, steps,
 * local_fraction, retrain_growth.  Saves only its random stream: the
 * results and the jobs in flight come back through observe and issued.
 */
#include "searcher.h"
#include "search_dngo_impl.h"

#include "acq.h"
#include "blr.h"
#include "err.h"
#include "jsonbuf.h"
#include "mlp.h"
#include "mobj.h"
#include "ostate.h"
#include "rng.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const dngo_keys[] = {
	"n_startup_trials", "n_candidates",   "hidden", "steps",
	"local_fraction",   "retrain_growth", NULL};

struct dngo_set {
	int nstart, ncand, hidden, steps;
	double local, growth;
};

static int read_settings(const cJSON *in, struct dngo_set *s, char *err)
{
	int rc;

	s->nstart = 10;
	s->ncand = 2000;
	s->hidden = 50;
	s->steps = 500;
	s->local = 0.5;
	s->growth = 0.01;
	if ((rc = ostate_set_keys(in, dngo_keys, "dngo", err)) ||
	    (rc = ostate_set_int(in, "n_startup_trials", 2, DNGO_MAX_START,
				 &s->nstart, err)) ||
	    (rc = ostate_set_int(in, "n_candidates", 1, DNGO_MAX_CAND,
				 &s->ncand, err)) ||
	    (rc = ostate_set_int(in, "hidden", 2, 1000, &s->hidden, err)) ||
	    (rc = ostate_set_int(in, "steps", 1, 100000, &s->steps, err)) ||
	    (rc = ostate_set_num(in, "local_fraction", 0, 1, &s->local, err)) ||
	    (rc = ostate_set_num(in, "retrain_growth", 0, 10, &s->growth, err)))
		return rc;
	return DEHBQ_OK;
}

static int dngo_settings(const cJSON *in, struct jsonbuf *b, char *err)
{
	struct dngo_set s;
	int rc = read_settings(in, &s, err);

	if (rc || !b)
		return rc;
	jsonbuf_printf(b,
		       "\"n_startup_trials\":%d,\"n_candidates\":%d,"
		       "\"hidden\":%d,\"steps\":%d,\"local_fraction\":",
		       s.nstart, s.ncand, s.hidden, s.steps);
	jsonbuf_num(b, s.local);
	jsonbuf_puts(b, ",\"retrain_growth\":");
	jsonbuf_num(b, s.growth);
	return jsonbuf_failed(b);
}

static void dngo_free(void *st)
{
	struct dngo *d = st;

	if (!d)
		return;
	free(d->cont);
	free(d->x);
	free(d->loss);
	free(d->fid);
	free(d->job);
	free(d->pjob);
	free(d->px);
	free(d->pfid);
	mlp_free(d->net);
	free(d->tx);
	free(d->tz);
	free(d->bx);
	free(d->bphi);
	free(d->bg);
	free(d);
}

static int dngo_open(const struct search_setup *s, void **st, char *err)
{
	struct dngo_set t;
	struct dngo *d;
	int i, rc;

	if ((rc = read_settings(s->settings, &t, err)))
		return rc;
	if (!(d = calloc(1, sizeof(*d))) ||
	    !(d->cont = calloc((size_t)s->dim, sizeof(int)))) {
		free(d);
		return DEHBQ_ENOMEM;
	}
	d->dim = s->dim;
	d->nstart = t.nstart;
	d->ncand = t.ncand;
	d->hidden = t.hidden;
	d->steps = t.steps;
	d->growth = t.growth;
	d->nlocal = (int)lround(t.local * t.ncand);
	d->seed = s->seed;
	for (i = 0; i < s->dim; i++)
		if (!s->choices || s->choices[i] <= 1)
			d->cont[d->ncont++] = i;
	rng_seed(&d->rng, s->seed);
	*st = d;
	return DEHBQ_OK;
}

/* Room for one more observation. */
static int reserve(struct dngo *d)
{
	size_t c = d->cap ? 2 * d->cap : 64, D = (size_t)d->dim;
	void *p;

	if (d->n < d->cap)
		return DEHBQ_OK;
	if (!(p = realloc(d->x, c * D * sizeof(double))))
		return DEHBQ_ENOMEM;
	d->x = p;
	if (!(p = realloc(d->loss, c * sizeof(double))))
		return DEHBQ_ENOMEM;
	d->loss = p;
	if (!(p = realloc(d->fid, c * sizeof(double))))
		return DEHBQ_ENOMEM;
	d->fid = p;
	if (!(p = realloc(d->job, c * sizeof(int64_t))))
		return DEHBQ_ENOMEM;
	d->job = p;
	d->cap = c;
	return DEHBQ_OK;
}

/* Room for one more job in flight. */
static int reserve_pending(struct dngo *d)
{
	size_t c = d->capp ? 2 * d->capp : 16;
	void *p;

	if (d->np < d->capp)
		return DEHBQ_OK;
	if (!(p = realloc(d->pjob, c * sizeof(int64_t))))
		return DEHBQ_ENOMEM;
	d->pjob = p;
	if (!(p = realloc(d->pfid, c * sizeof(double))))
		return DEHBQ_ENOMEM;
	d->pfid = p;
	if (!(p = realloc(d->px, c * (size_t)d->dim * sizeof(double))))
		return DEHBQ_ENOMEM;
	d->px = p;
	d->capp = c;
	return DEHBQ_OK;
}

/* The best of the candidates by EI into vec. */
static int acquire(struct dngo *d, const struct fit *f, double *vec)
{
	struct acq_space sp = {d->dim, d->cont, d->ncont};
	const double *ctr[DNGO_CENTRES];
	size_t c, i, D = (size_t)d->dim, nc = (size_t)d->ncand, chunk = 256;
	double *cand = malloc(nc * D * sizeof(double)),
	       *phi = malloc(chunk * (size_t)f->k * sizeof(double)), mu[256],
	       var[256], best = -1;
	int rc = cand && phi ? DEHBQ_OK : DEHBQ_ENOMEM;

	for (i = 0; !rc && i < nc * D; i++)
		cand[i] = rng_uniform(&d->rng);
	for (i = 0; !rc && i < f->nbest; i++)
		ctr[i] = f->X + f->best[i] * D;
	if (!rc)
		acq_local(ctr, f->nbest, &sp, &d->rng, cand, (size_t)d->nlocal);
	for (c = 0; !rc && c < nc; c += chunk) {
		size_t n = nc - c < chunk ? nc - c : chunk;

		if ((rc = search_dngo_basis(f, cand + c * D, n, phi)) ||
		    (rc = blr_predict(f->reg, phi, n, mu, var)))
			break;
		for (i = 0; i < n; i++) {
			double e = acq_ei_value(f->zmin, mu[i], var[i]);

			if (e > best) {
				best = e;
				memcpy(vec, cand + (c + i) * D,
				       D * sizeof(double));
			}
		}
	}
	free(cand);
	free(phi);
	return rc || best >= 0 ? rc : DEHBQ_EINVAL; /* no finite EI: uniform */
}

static int dngo_propose(void *st, double fidelity, double *vec,
			enum trial_kind *kind)
{
	struct dngo *d = st;
	struct fit f;
	size_t i, na = 0;
	double level;
	int rc;

	if ((rc = reserve_pending(d)))
		return rc;
	level = search_model_level(d->fid, d->loss, d->n, fidelity,
				   (size_t)d->nstart);
	memset(&f, 0, sizeof(f));
	for (i = 0; i < d->n; i++)
		na += d->fid[i] == level;
	rc = DEHBQ_EINVAL;
	if (na >= (size_t)d->nstart &&
	    !(rc = search_dngo_gather(d, level, &f)) && f.m >= 2 &&
	    !(rc = search_dngo_train(d, level, &f)) &&
	    !(rc = search_dngo_believe(d, level, &f)))
		rc = acquire(d, &f, vec);
	else if (!rc)
		rc = DEHBQ_EINVAL; /* fewer than 2 finite results */
	search_dngo_fit_free(&f);
	*kind = TRIAL_KIND_TRIAL;
	if (rc == DEHBQ_ENOMEM)
		return rc;
	if (rc) { /* start-up, or a model that could not be fitted */
		for (i = 0; i < (size_t)d->dim; i++)
			vec[i] = rng_uniform(&d->rng);
		*kind = TRIAL_KIND_RANDOM;
	}
	return DEHBQ_OK;
}

static int dngo_issued(void *st, int64_t job, const double *vec,
		       double fidelity)
{
	struct dngo *d = st;
	size_t i, D;
	int rc;

	for (i = 0; i < d->np; i++)
		if (d->pjob[i] == job)
			return DEHBQ_OK;
	if ((rc = reserve_pending(d)))
		return rc;
	D = (size_t)d->dim;
	for (i = d->np; i > 0 && d->pjob[i - 1] > job; i--) {
		d->pjob[i] = d->pjob[i - 1];
		d->pfid[i] = d->pfid[i - 1];
		memcpy(d->px + i * D, d->px + (i - 1) * D, D * sizeof(double));
	}
	d->pjob[i] = job;
	d->pfid[i] = fidelity;
	memcpy(d->px + i * D, vec, D * sizeof(double));
	d->np++;
	return DEHBQ_OK;
}

/* A result; a re-run's first (failed) result stays as +inf, out of
 * rescore's reach, as tpe's and gp's. */
static int dngo_observe(void *st, int64_t job, const double *vec,
			double fidelity, double loss)
{
	struct dngo *d = st;
	size_t i, D = (size_t)d->dim;
	int rc;

	if ((rc = reserve(d)))
		return rc;
	for (i = d->n; i-- > 0;)
		if (d->job[i] == job) {
			d->job[i] = -1;
			d->loss[i] = INFINITY;
			break;
		}
	memcpy(d->x + d->n * D, vec, D * sizeof(double));
	d->fid[d->n] = fidelity;
	d->job[d->n] = job;
	d->loss[d->n++] = isnan(loss) ? INFINITY : loss;
	for (i = 0; i < d->np; i++)
		if (d->pjob[i] == job) {
			memmove(d->pjob + i, d->pjob + i + 1,
				(d->np - i - 1) * sizeof(int64_t));
			memmove(d->pfid + i, d->pfid + i + 1,
				(d->np - i - 1) * sizeof(double));
			memmove(d->px + i * D, d->px + (i + 1) * D,
				(d->np - i - 1) * D * sizeof(double));
			d->np--;
			break;
		}
	return DEHBQ_OK;
}

static int dngo_rescore(void *st, const struct mobj *mo)
{
	struct dngo *d = st;
	size_t i;
	double v;

	for (i = 0; i < d->n; i++)
		if (d->job[i] >= 0 && !isnan(v = mobj_score(mo, d->job[i])))
			d->loss[i] = v;
	return DEHBQ_OK;
}

static int dngo_save(const void *st, struct jsonbuf *b)
{
	jsonbuf_puts(b, "{\"rng\":");
	ostate_put_rng(b, &((const struct dngo *)st)->rng);
	jsonbuf_put(b, "}", 1);
	return jsonbuf_failed(b);
}

static int dngo_load(const struct search_setup *s, const cJSON *state,
		     void **st, char *err)
{
	int rc = dngo_open(s, st, err);

	if (!rc && (rc = ostate_get_rng(state, "rng",
					&((struct dngo *)*st)->rng, err))) {
		dngo_free(*st);
		*st = NULL;
	}
	return rc;
}

static int dngo_describe(const void *st, struct jsonbuf *b)
{
	const struct dngo *d = st;

	jsonbuf_printf(b,
		       "\"observations\":%zu,\"n_startup_trials\":%d,"
		       "\"fits\":%llu,\"trained_on\":%zu,\"log_alpha\":",
		       d->n, d->nstart, (unsigned long long)d->fits, d->ts);
	jsonbuf_num(b, d->la);
	jsonbuf_puts(b, ",\"log_beta\":");
	jsonbuf_num(b, d->lb);
	return jsonbuf_failed(b);
}

const struct search_ops search_dngo_ops = {
	.name = "dngo",
	.summary = "DNGO: Bayesian linear regression on a neural network's "
		   "last layer, expected improvement",
	.caps = SEARCH_CAP_LEARNS,
	.settings = dngo_settings,
	.open = dngo_open,
	.propose = dngo_propose,
	.observe = dngo_observe,
	.issued = dngo_issued,
	.rescore = dngo_rescore,
	.save = dngo_save,
	.load = dngo_load,
	.describe = dngo_describe,
	.free = dngo_free,
};
