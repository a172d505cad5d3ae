/*
 * optim_asha.c - owns ASHA, asynchronous successive halving (Li et al.,
 * MLSys 2020; syne-tune's promotion-based ASHA, Optuna's
 * SuccessiveHalvingPruner, Ray Tune's ASHAScheduler).
 *
 * Rungs k = 0..L-1 run at the study's ladder max * eta^-(L-1-k).  An ask
 * looks at the rungs from the top down: a configuration of rung k that is
 * among the best floor(n_k / eta) results rung k has so far, and not yet
 * promoted, is promoted to rung k+1 (its work directory is the parent of
 * the new trial's, so a trainer can continue from its checkpoint).
 * Otherwise the searcher proposes a new configuration for rung 0 (setting
 * "searcher", searcher.h; random by default, the uniform draws ASHA always
 * made), and observes every rung's results.  Nothing ever waits for a rung
 * to fill.  Ranking is by (loss, job id); failures rank last and are never
 * promoted.
 *
 * Eta and the ladder are the study's.  Per-trial state {"config":C}, the
 * configuration's number.  ASHA keeps its history (every rung result and
 * every configuration's vector) in memory, but saves only its
 * configuration count and its searcher's state: the rest comes back at
 * load from the history records (optim_ops.replay), which the searcher
 * observes again, so a save is O(1), not O(n).  A state saved before the
 * searcher interface ({"configs","rng"}) loads as the random searcher's, and
 * tpe's with multi_fidelity "asha" ({"rng","asha":{"configs"}}) as the
 * tpe searcher's.
 */
#include "held.h"
#include "optim.h"

#include "err.h"
#include "hb.h"
#include "jsonbuf.h"
#include "mobj.h"
#include "ostate.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rec {
	double loss;  /* +inf for a failure */
	int64_t job;  /* job that produced it */
	int64_t cfg;  /* configuration */
	int promoted; /* promoted to the next rung */
};

struct rung {
	struct rec *r;
	size_t n, cap;
};

struct asha {
	int dim, L;
	double eta, fid[HB_MAX_LEVELS];
	int64_t ncfg;  /* configurations sampled */
	size_t capcfg; /* vectors allocated */
	double *x;     /* ncfg * dim */
	struct rung rung[HB_MAX_LEVELS];
	int64_t *reopened; /* jobs put back in flight by a requeue */
	size_t nre, capre;
	int64_t *parents; /* replay: jobs whose configuration went up */
	size_t npar, cappar;
	struct held h; /* the searcher */
};

static const char *const as_keys[] = {"searcher", "search", NULL};

static int as_settings(const cJSON *in, struct jsonbuf *b, char *err)
{
	int rc;

	if ((rc = ostate_set_keys(in, as_keys, "asha", err)))
		return rc;
	return held_settings(in, b, err);
}

static void as_free(void *st)
{
	struct asha *a = st;
	int k;

	if (!a)
		return;
	for (k = 0; k < a->L; k++)
		free(a->rung[k].r);
	free(a->x);
	free(a->reopened);
	free(a->parents);
	held_free(&a->h);
	free(a);
}

static int as_new(const struct optim_setup *s, struct asha **out)
{
	struct asha *a = calloc(1, sizeof(*a));

	if (!a)
		return DEHBQ_ENOMEM;
	a->dim = s->dim;
	a->eta = s->eta;
	if (hb_levels(s->min_fidelity, s->max_fidelity, s->eta, &a->L)) {
		free(a);
		return DEHBQ_EINVAL;
	}
	hb_fidelities(s->max_fidelity, s->eta, a->L, a->fid);
	*out = a;
	return DEHBQ_OK;
}

static int as_open(const struct optim_setup *s, void **st, char *err)
{
	struct asha *a;
	int rc;

	if ((rc = as_settings(s->settings, NULL, err)) || (rc = as_new(s, &a)))
		return rc;
	if ((rc = held_open(s, a->fid, a->L, 1, NULL, NULL, &a->h, err))) {
		as_free(a);
		return rc;
	}
	*st = a;
	return DEHBQ_OK;
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 16;
	void *n;

	if (need <= *cap)
		return DEHBQ_OK;
	while (c < need) {
		if (c > SIZE_MAX / 2 / size)
			return DEHBQ_ENOMEM;
		c *= 2;
	}
	if (!(n = realloc(*p, c * size)))
		return DEHBQ_ENOMEM;
	*p = n;
	*cap = c;
	return DEHBQ_OK;
}

static int rec_before(const struct rec *a, const struct rec *b)
{
	return a->loss < b->loss || (a->loss == b->loss && a->job < b->job);
}

/* The record of rung k to promote, or -1. */
static long promotable(const struct asha *a, int k)
{
	const struct rung *g = &a->rung[k];
	size_t i, quota = (size_t)floor((double)g->n / a->eta), rank = 0;
	long best = -1;

	if (!quota)
		return -1;
	for (i = 0; i < g->n; i++)
		if (!g->r[i].promoted && isfinite(g->r[i].loss) &&
		    (best < 0 || rec_before(&g->r[i], &g->r[best])))
			best = (long)i;
	if (best < 0)
		return -1;
	for (i = 0; i < g->n && rank < quota; i++)
		rank += rec_before(&g->r[i], &g->r[best]);
	return rank < quota ? best : -1;
}

static int as_ask(void *st, struct optim_job *job, double *vec)
{
	struct asha *a = st;
	enum trial_kind tk;
	int64_t cfg;
	int k, rc;

	for (k = a->L - 2; k >= 0; k--) {
		long p = promotable(a, k);
		struct rec *r;

		if (p < 0)
			continue;
		r = &a->rung[k].r[p];
		cfg = r->cfg;
		job->fidelity = a->fid[k + 1];
		job->rung = k + 1;
		job->kind = OPTIM_KIND_PROMOTION;
		job->parent = r->job;
		if ((rc = held_issued(&a->h, job,
				      a->x + (size_t)cfg * (size_t)a->dim)))
			return rc;
		r->promoted = 1;
		goto fill;
	}
	if ((rc = grow((void **)&a->x, &a->capcfg,
		       ((size_t)a->ncfg + 1) * (size_t)a->dim, sizeof(double))))
		return rc;
	cfg = a->ncfg;
	if ((rc = a->h.so->propose(a->h.ss, a->fid[0],
				   a->x + (size_t)cfg * (size_t)a->dim, &tk)))
		return rc;
	job->kind = (enum optim_kind)tk;
	job->fidelity = a->fid[0];
	job->rung = 0;
	if ((rc = held_issued(&a->h, job, a->x + (size_t)cfg * (size_t)a->dim)))
		return rc;
	a->ncfg++;
fill:
	job->bracket = cfg;
	memcpy(vec, a->x + (size_t)cfg * (size_t)a->dim,
	       (size_t)a->dim * sizeof(double));
	snprintf(job->state, sizeof(job->state), "{\"config\":%" PRId64 "}",
		 cfg);
	return DEHBQ_OK;
}

/* The configuration a job's state names, checked against this ASHA. */
static int job_cfg(const struct asha *a, const struct optim_job *job,
		   int64_t *cfg)
{
	static const char pre[] = "{\"config\":";
	char *end;
	long long v;

	if (strncmp(job->state, pre, sizeof(pre) - 1))
		return DEHBQ_EINVAL;
	errno = 0;
	v = strtoll(job->state + sizeof(pre) - 1, &end, 10);
	if (errno || strcmp(end, "}") || v < 0 || v >= a->ncfg ||
	    job->rung < 0 || job->rung >= a->L ||
	    job->fidelity != a->fid[job->rung])
		return DEHBQ_EINVAL;
	*cfg = v;
	return DEHBQ_OK;
}

static int as_tell(void *st, const struct optim_job *job, const double *vec,
		   enum optim_status status, double loss, double cost)
{
	struct asha *a = st;
	struct rung *g;
	struct rec *r;
	int64_t cfg;
	size_t i, k;
	int rc;

	(void)cost;
	if ((rc = job_cfg(a, job, &cfg)))
		return rc;
	g = &a->rung[job->rung];
	if ((rc = grow((void **)&g->r, &g->cap, g->n + 1, sizeof(*g->r))) ||
	    (rc = held_observe(&a->h, job, vec,
			       status == OPTIM_OK ? loss : INFINITY)))
		return rc; /* first: nothing below can fail */
	for (k = 0; k < a->nre; k++)
		if (a->reopened[k] == (int64_t)job->id)
			break;
	if (k < a->nre) { /* a requeued job: its failed record is replaced */
		a->reopened[k] = a->reopened[--a->nre];
		for (i = 0; i < g->n && g->r[i].job != (int64_t)job->id; i++)
			;
		if (i < g->n) {
			g->r[i].loss = status == OPTIM_OK ? loss : INFINITY;
			return DEHBQ_OK;
		}
	}
	r = &g->r[g->n++];
	r->loss = status == OPTIM_OK ? loss : INFINITY;
	r->job = (int64_t)job->id;
	r->cfg = cfg;
	r->promoted = 0;
	return DEHBQ_OK;
}

static int as_rescore(void *st, const struct mobj *mo)
{
	struct asha *a = st;
	size_t i;
	double v;
	int k;

	for (k = 0; k < a->L; k++)
		for (i = 0; i < a->rung[k].n; i++)
			if (!isnan(v = mobj_score(mo, a->rung[k].r[i].job)))
				a->rung[k].r[i].loss = v;
	return held_rescore(&a->h, mo);
}

static int as_reopen(void *st, const struct optim_job *job, const double *vec)
{
	struct asha *a = st;
	int64_t cfg;
	int rc;

	if ((rc = job_cfg(a, job, &cfg)) ||
	    (rc = grow((void **)&a->reopened, &a->capre, a->nre + 1,
		       sizeof(int64_t))) ||
	    (rc = held_issued(&a->h, job, vec)))
		return rc;
	a->reopened[a->nre++] = (int64_t)job->id;
	return DEHBQ_OK;
}

static int as_save(const void *st, struct jsonbuf *b)
{
	const struct asha *a = st;
	int rc = 0;

	jsonbuf_printf(b, "{\"configs\":%" PRId64 ",", a->ncfg);
	rc = held_save(&a->h, b);
	jsonbuf_put(b, "}", 1);
	return rc ? rc : jsonbuf_failed(b);
}

/*
 * The configurations and the searcher.  A state of 0.3 held the
 * configurations beside the random searcher's rng, or (tpe, gp or gcp
 * with multi_fidelity "asha") under "asha" beside the model's state.
 */
static int as_load(const struct optim_setup *s, const cJSON *state, void **st,
		   char *err)
{
	const cJSON *books = state;
	struct asha *a;
	int64_t n;
	int rc;

	if ((rc = as_settings(s->settings, NULL, err)))
		return rc;
	if (!cJSON_GetObjectItemCaseSensitive(state, "configs") &&
	    cJSON_GetObjectItemCaseSensitive(state, "asha") &&
	    (rc = ostate_get_obj(state, "asha", &books, err)))
		return rc;
	if ((rc = as_new(s, &a)))
		return rc;
	/* every configuration was asked at least once */
	if ((rc = ostate_get_i64(books, "configs", 0, s->asked, &n, err)) ||
	    (rc = grow((void **)&a->x, &a->capcfg,
		       (size_t)n * (size_t)a->dim + 1, sizeof(double))) ||
	    (rc = held_open(s, a->fid, a->L, 1, NULL, state, &a->h, err))) {
		as_free(a);
		return rc;
	}
	a->ncfg = n;
	*st = a;
	return DEHBQ_OK;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t u = *(const int64_t *)x, v = *(const int64_t *)y;

	return u < v ? -1 : u > v;
}

/* The history is all in: mark the results whose configuration went up. */
static int settle_promotions(struct asha *a)
{
	int k;

	if (a->npar)
		qsort(a->parents, a->npar, sizeof(*a->parents), cmp_i64);
	for (k = 0; k < a->L; k++) {
		struct rung *g = &a->rung[k];
		size_t i;

		for (i = 0; i < g->n; i++)
			g->r[i].promoted =
				a->npar &&
				bsearch(&g->r[i].job, a->parents, a->npar,
					sizeof(int64_t), cmp_i64) != NULL;
	}
	free(a->parents);
	a->parents = NULL;
	a->npar = a->cappar = 0;
	return DEHBQ_OK;
}

/*
 * A history record (told 1, 2) or a job in flight (told 0) back into the
 * rungs, in the order the live run saw them; job NULL: the end.
 */
static int as_replay(void *st, const struct optim_job *job, const double *vec,
		     int told, int reopened, enum optim_status status,
		     double loss)
{
	struct asha *a = st;
	int64_t cfg;
	int rc;

	if (!job)
		return (rc = settle_promotions(a)) ? rc
						   : held_replay(&a->h, NULL);
	held_replay(&a->h, job);
	if ((rc = job_cfg(a, job, &cfg)))
		return rc;
	memcpy(a->x + (size_t)cfg * (size_t)a->dim, vec,
	       (size_t)a->dim * sizeof(double));
	if (job->kind == OPTIM_KIND_PROMOTION && job->parent >= 0 &&
	    told != 2) {
		if ((rc = grow((void **)&a->parents, &a->cappar, a->npar + 1,
			       sizeof(int64_t))))
			return rc;
		a->parents[a->npar++] = job->parent;
	}
	if (told == 2 || (told == 0 && reopened)) { /* a requeued job */
		if ((rc = as_reopen(a, job, vec)))
			return rc;
	} else if (!told && (rc = held_issued(&a->h, job, vec))) {
		return rc;
	}
	return told ? as_tell(a, job, vec, status, loss, 0) : DEHBQ_OK;
}

static int as_describe(const void *st, struct jsonbuf *b)
{
	const struct asha *a = st;
	int k;

	if (held_describe(&a->h, b))
		return DEHBQ_ENOMEM;
	jsonbuf_put(b, ",", 1);
	jsonbuf_printf(b, "\"configs\":%" PRId64 ",\"rungs\":[", a->ncfg);
	for (k = 0; k < a->L; k++) {
		size_t i, p = 0;

		for (i = 0; i < a->rung[k].n; i++)
			p += (size_t)a->rung[k].r[i].promoted;
		jsonbuf_printf(b, "%s{\"fidelity\":", k ? "," : "");
		jsonbuf_num(b, a->fid[k]);
		jsonbuf_printf(b, ",\"results\":%zu,\"promoted\":%zu}",
			       a->rung[k].n, p);
	}
	jsonbuf_put(b, "]", 1);
	return jsonbuf_failed(b);
}

const struct optim_ops optim_asha_ops = {
	.name = "asha",
	.summary = "asynchronous successive halving of a searcher's proposals",
	.caps = OPTIM_CAP_SEARCHER | OPTIM_CAP_RUNGS,
	.settings = as_settings,
	.open = as_open,
	.ask = as_ask,
	.tell = as_tell,
	.reopen = as_reopen,
	.save = as_save,
	.load = as_load,
	.describe = as_describe,
	.replay = as_replay,
	.rescore = as_rescore,
	.free = as_free,
};
