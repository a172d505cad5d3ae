/*
 * search_re.c - owns the re searcher, regularized evolution (Real et al.,
 * AAAI 2019; the DEHB supplement's D.1 baseline).  The preset re runs it
 * under fifo, at the maximum fidelity; under a multi-fidelity scheduler
 * its population holds results of every fidelity, in tell order.
 *
 * The first population_size proposals are uniform samples.  Then each ask
 * draws sample_size distinct members of the population uniformly, takes
 * the best, and mutates one dimension of it: a continuous dimension is
 * redrawn uniformly, a parameter of K choices moves to a different bin
 * (the paper's "one edge or operator" mutation, generalised).  Each tell
 * adds its configuration to the population and, once it is full, removes
 * the oldest member (ageing follows tell order), never the worst.  While
 * the population is still empty (every initial sample in flight) a
 * proposal samples uniformly rather than wait.
 *
 * Settings: population_size (20) and sample_size (10), a new study's
 * defaults (dehbq init writes them).  A study.json without them (0.4's)
 * has the paper's 100 and 10, which made RE a random search at the budgets
 * most studies run (bench/README.md).  The state is bounded and saved
 * whole: the population, not the history (SEARCH_CAP_KEEPS); 0.3's re
 * saved the same object.
 */
#include "searcher.h"

#include "err.h"
#include "jsonbuf.h"
#include "mobj.h"
#include "ostate.h"
#include "rng.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RE_MAX_POP 100000
#define RE_NEW_POP 20 /* a new study's population_size */

struct re {
	int dim, pop, sample;
	int *choices; /* per dimension, 0 = continuous */
	struct rng rng;
	int64_t seeded; /* initial uniform samples asked */
	int n, head;	/* members, index of the oldest */
	double *x;	/* pop * dim */
	double *loss;	/* pop, +inf for failures */
	int64_t *job;	/* pop, the job that produced each member */
	int *idx;	/* scratch for the tournament, pop */
};

static const char *const re_keys[] = {"population_size", "sample_size", NULL};

/* A study's settings: absent members are 0.4's 100 and 10. */
static int re_read(const cJSON *in, int *pop, int *sample, char *err)
{
	int rc;

	*pop = 100;
	*sample = 10;
	if ((rc = ostate_set_keys(in, re_keys, "re", err)) ||
	    (rc = ostate_set_int(in, "population_size", 2, RE_MAX_POP, pop,
				 err)) ||
	    (rc = ostate_set_int(in, "sample_size", 1, RE_MAX_POP, sample,
				 err)))
		return rc;
	if (*sample > *pop)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "optimizer.sample_size: must be <= "
				  "population_size (%d)",
				  *pop);
	return DEHBQ_OK;
}

/*
 * Validate (b NULL: a study's settings, absent members 0.4's) or fill a
 * new study's settings into b: population_size absent is then RE_NEW_POP,
 * or sample_size when that is larger.
 */
static int re_settings(const cJSON *in, struct jsonbuf *b, char *err)
{
	int pop, sample, rc = re_read(in, &pop, &sample, err);

	if (rc || !b)
		return rc;
	if (!cJSON_GetObjectItemCaseSensitive(in, "population_size"))
		pop = sample > RE_NEW_POP ? sample : RE_NEW_POP;
	jsonbuf_printf(b, "\"population_size\":%d,\"sample_size\":%d", pop,
		       sample);
	return jsonbuf_failed(b);
}

static void re_free(void *st)
{
	struct re *r = st;

	if (!r)
		return;
	free(r->choices);
	free(r->x);
	free(r->loss);
	free(r->job);
	free(r->idx);
	free(r);
}

static int re_new(const struct search_setup *s, int pop, int sample,
		  struct re **out)
{
	struct re *r = calloc(1, sizeof(*r));
	int i;

	*out = NULL;
	if (!r)
		return DEHBQ_ENOMEM;
	r->dim = s->dim;
	r->pop = pop;
	r->sample = sample;
	r->choices = calloc((size_t)s->dim, sizeof(int));
	r->x = calloc((size_t)pop * (size_t)s->dim, sizeof(double));
	r->loss = calloc((size_t)pop, sizeof(double));
	r->job = calloc((size_t)pop, sizeof(int64_t));
	r->idx = calloc((size_t)pop, sizeof(int));
	if (!r->choices || !r->x || !r->loss || !r->job || !r->idx) {
		re_free(r);
		return DEHBQ_ENOMEM;
	}
	for (i = 0; s->choices && i < s->dim; i++)
		r->choices[i] = s->choices[i];
	rng_seed(&r->rng, s->seed);
	*out = r;
	return DEHBQ_OK;
}

static int re_open(const struct search_setup *s, void **st, char *err)
{
	int pop, sample, rc = re_read(s->settings, &pop, &sample, err);

	if (rc)
		return rc;
	return re_new(s, pop, sample, (struct re **)st);
}

/* The tournament winner: best of `sample` distinct members (ties: drawn
 * first). */
static const double *tournament(struct re *r)
{
	int i, k = r->sample < r->n ? r->sample : r->n, best = -1;

	for (i = 0; i < r->n; i++)
		r->idx[i] = i;
	for (i = 0; i < k; i++) {
		int j = i + (int)rng_below(&r->rng, (uint64_t)(r->n - i));
		int t = r->idx[i];

		r->idx[i] = r->idx[j];
		r->idx[j] = t;
		if (best < 0 || r->loss[r->idx[i]] < r->loss[best])
			best = r->idx[i];
	}
	return r->x + (size_t)best * (size_t)r->dim;
}

static void mutate(struct re *r, double *vec)
{
	int d = (int)rng_below(&r->rng, (uint64_t)r->dim), K = r->choices[d];

	if (K > 1) {
		int b = (int)floor(vec[d] * K);

		if (b > K - 1)
			b = K - 1;
		b = (b + 1 + (int)rng_below(&r->rng, (uint64_t)(K - 1))) % K;
		vec[d] = (b + 0.5) / K;
	} else
		vec[d] = rng_uniform(&r->rng);
}

static int re_propose(void *st, double fidelity, double *vec,
		      enum trial_kind *kind)
{
	struct re *r = st;
	int i;

	(void)fidelity;
	if (r->seeded < r->pop || r->n == 0) {
		for (i = 0; i < r->dim; i++)
			vec[i] = rng_uniform(&r->rng);
		if (r->seeded < r->pop)
			r->seeded++;
		*kind = TRIAL_KIND_RANDOM;
		return DEHBQ_OK;
	}
	memcpy(vec, tournament(r), (size_t)r->dim * sizeof(double));
	mutate(r, vec);
	*kind = TRIAL_KIND_TRIAL;
	return DEHBQ_OK;
}

/* A result joins the population; once it is full, the oldest leaves. */
static int re_observe(void *st, int64_t job, const double *vec, double fidelity,
		      double loss)
{
	struct re *r = st;
	int at;

	(void)fidelity;
	if (r->n < r->pop)
		at = (r->head + r->n++) % r->pop;
	else {
		at = r->head;
		r->head = (r->head + 1) % r->pop;
	}
	memcpy(r->x + (size_t)at * (size_t)r->dim, vec,
	       (size_t)r->dim * sizeof(double));
	r->loss[at] = loss;
	r->job[at] = job;
	return DEHBQ_OK;
}

static int re_rescore(void *st, const struct mobj *mo)
{
	struct re *r = st;
	double v;
	int i;

	for (i = 0; i < r->n; i++)
		if (!isnan(v = mobj_score(mo, r->job[i])))
			r->loss[i] = v;
	return DEHBQ_OK;
}

static int re_save(const void *st, struct jsonbuf *b)
{
	const struct re *r = st;

	jsonbuf_printf(b,
		       "{\"population_size\":%d,\"sample_size\":%d,\"seeded\":"
		       "%lld,\"n\":%d,\"head\":%d,\"rng\":",
		       r->pop, r->sample, (long long)r->seeded, r->n, r->head);
	ostate_put_rng(b, &r->rng);
	jsonbuf_puts(b, ",\"x\":");
	ostate_put_dbls(b, r->x, (size_t)r->n * (size_t)r->dim);
	jsonbuf_puts(b, ",\"loss\":");
	ostate_put_dbls(b, r->loss, (size_t)r->n);
	jsonbuf_puts(b, ",\"job\":");
	ostate_put_i64s(b, r->job, (size_t)r->n);
	jsonbuf_put(b, "}", 1);
	return jsonbuf_failed(b);
}

/* The members' jobs; a snapshot from before they were kept has none
 * (-1: a member no multi-objective rescore can reach, none there is). */
static int load_jobs(const cJSON *state, struct re *r, char *err)
{
	int i;

	if (cJSON_GetObjectItemCaseSensitive(state, "job"))
		return ostate_get_i64s(state, "job", (size_t)r->n, r->job, -1,
				       SEARCH_MAX_JOB, err);
	for (i = 0; i < r->n; i++)
		r->job[i] = -1;
	return DEHBQ_OK;
}

static int re_load(const struct search_setup *s, const cJSON *state, void **st,
		   char *err)
{
	struct re *r = NULL;
	int pop, sample, n, head, rc;
	int64_t seeded;

	if ((rc = ostate_get_int(state, "population_size", 2, RE_MAX_POP, &pop,
				 err)) ||
	    (rc = ostate_get_int(state, "sample_size", 1, pop, &sample, err)) ||
	    (rc = ostate_get_int(state, "n", 0, pop, &n, err)) ||
	    (rc = ostate_get_int(state, "head", 0, pop - 1, &head, err)) ||
	    (rc = ostate_get_i64(state, "seeded", 0, pop, &seeded, err)))
		return rc;
	if (n < pop && head != 0)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: 'head' must be 0 until the "
				  "population is full");
	if ((rc = re_new(s, pop, sample, &r)))
		return rc;
	r->n = n;
	r->head = head;
	r->seeded = seeded;
	if ((rc = ostate_get_rng(state, "rng", &r->rng, err)) ||
	    (rc = ostate_get_dbls(state, "x", (size_t)n * (size_t)s->dim, r->x,
				  0, 1, err)) ||
	    (rc = ostate_get_dbls(state, "loss", (size_t)n, r->loss, 1, 0,
				  err)) ||
	    (rc = load_jobs(state, r, err))) {
		re_free(r);
		return rc;
	}
	*st = r;
	return DEHBQ_OK;
}

static int re_describe(const void *st, struct jsonbuf *b)
{
	const struct re *r = st;

	jsonbuf_printf(b, "\"population\":%d,\"population_size\":%d", r->n,
		       r->pop);
	return jsonbuf_failed(b);
}

const struct search_ops search_re_ops = {
	.name = "re",
	.summary = "regularized evolution: mutations of tournament winners "
		   "from a population of the latest results",
	.caps = SEARCH_CAP_LEARNS | SEARCH_CAP_KEEPS,
	.open = re_open,
	.propose = re_propose,
	.observe = re_observe,
	.save = re_save,
	.load = re_load,
	.describe = re_describe,
	.free = re_free,
	.settings = re_settings,
	.rescore = re_rescore,
};
