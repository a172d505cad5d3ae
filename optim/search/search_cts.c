/*
 * search_cts.c - owns the cts searcher, copula Thompson sampling (Salinas,
 * Shen and Perrone, ICML 2020, Algorithm 1; TRANSFER_SPEC.md "CTS"): each
 * proposal draws n_candidates uniform configurations, samples
 * z ~ N(mu(x), sigma(x)^2) from the transfer prior (prior.h) at each, and
 * proposes the argmin, as kind prior.  It ignores the current task's
 * results, except to report the prior's centred RMSE on them (describe:
 * "prior_rmse"; prior.h says why centred).  The preset cts runs it under
 * fifo: every proposal at the maximum fidelity.
 *
 * The prior is fitted at open and again at load, from the study's seed and
 * the earlier tasks (search_setup.transfer, required), so a resumed study
 * has the same prior.  State: the rng; the results come back through
 * observe.
 */
#include "searcher.h"

#include "err.h"
#include "jsonbuf.h"
#include "ostate.h"
#include "prior.h"
#include "rng.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct cts {
	int dim, ncand;
	double max_f; /* the prior's fidelity: the RMSE takes results there */
	int *choices; /* per dimension, 0 = continuous */
	struct rng rng;
	struct prior *prior;
	struct prior_obs obs; /* this task's results (for the RMSE) */
};

static const char *const cts_keys[] = {"n_candidates", "prior_steps", NULL};

static int cts_read(const cJSON *in, int *ncand, int *steps, char *err)
{
	*ncand = 10000;
	*steps = 1000;
	return ostate_set_keys(in, cts_keys, "cts", err) ||
			       ostate_set_int(in, "n_candidates", 1, 1000000,
					      ncand, err) ||
			       ostate_set_int(in, "prior_steps", 1, 100000,
					      steps, err)
		       ? DEHBQ_EINVAL
		       : DEHBQ_OK;
}

static int cts_settings(const cJSON *in, struct jsonbuf *b, char *err)
{
	int ncand, steps, rc = cts_read(in, &ncand, &steps, err);

	if (rc || !b)
		return rc;
	jsonbuf_printf(b, "\"n_candidates\":%d,\"prior_steps\":%d", ncand,
		       steps);
	return jsonbuf_failed(b);
}

static void cts_free(void *st)
{
	struct cts *c = st;

	if (!c)
		return;
	prior_free(c->prior);
	free(c->choices);
	prior_obs_free(&c->obs);
	free(c);
}

static int cts_open(const struct search_setup *s, void **st, char *err)
{
	struct cts *c;
	int steps, rc, k;

	*st = NULL;
	if ((rc = cts_read(s->settings, &k, &steps, err)))
		return rc;
	if (!s->transfer || s->transfer->ntasks < 1)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "cts: needs earlier studies (dehbq init "
				  "--transfer-from)");
	if (!(c = calloc(1, sizeof(*c))))
		return DEHBQ_ENOMEM;
	c->dim = s->dim;
	c->obs.dim = s->dim;
	c->ncand = k;
	c->max_f = s->max_fidelity;
	rng_seed(&c->rng, s->seed);
	c->choices = calloc((size_t)s->dim, sizeof(int));
	if (!c->choices) {
		cts_free(c);
		return DEHBQ_ENOMEM;
	}
	for (k = 0; s->choices && k < s->dim; k++)
		c->choices[k] = s->choices[k];
	if ((rc = prior_fit(s->transfer, s->dim, s->seed, steps, &c->prior,
			    err))) {
		cts_free(c);
		return rc;
	}
	*st = c;
	return DEHBQ_OK;
}

static int cts_propose(void *st, double fidelity, double *vec,
		       enum trial_kind *kind)
{
	struct cts *c = st;

	(void)fidelity;
	*kind = TRIAL_KIND_PRIOR;
	return prior_thompson(c->prior, &c->rng, c->choices, c->dim, c->ncand,
			      vec);
}

/* A result: only for the prior's RMSE, at the earlier tasks' fidelity
 * (under a multi-fidelity scheduler, the maximum only). */
static int cts_observe(void *st, int64_t job, const double *vec,
		       double fidelity, double loss)
{
	struct cts *c = st;

	(void)job;
	if (fidelity != c->max_f)
		return DEHBQ_OK;
	return prior_obs_add(&c->obs, vec, loss);
}

static int cts_save(const void *st, struct jsonbuf *b)
{
	jsonbuf_puts(b, "{\"rng\":");
	ostate_put_rng(b, &((const struct cts *)st)->rng);
	jsonbuf_put(b, "}", 1);
	return jsonbuf_failed(b);
}

static int cts_load(const struct search_setup *s, const cJSON *state, void **st,
		    char *err)
{
	int rc;

	if ((rc = cts_open(s, st, err)))
		return rc;
	if ((rc = ostate_get_rng(state, "rng", &((struct cts *)*st)->rng,
				 err))) {
		cts_free(*st);
		*st = NULL;
	}
	return rc;
}

static int cts_describe(const void *st, struct jsonbuf *b)
{
	const struct cts *c = st;

	return prior_describe(c->prior, &c->obs, b);
}

const struct search_ops search_cts_ops = {
	.name = "cts",
	.summary = "copula Thompson sampling from a prior fitted on earlier "
		   "studies (needs --transfer-from)",
	.caps = SEARCH_CAP_TRANSFER | SEARCH_CAP_NEEDS_TRANSFER,
	.open = cts_open,
	.propose = cts_propose,
	.observe = cts_observe,
	.save = cts_save,
	.load = cts_load,
	.describe = cts_describe,
	.free = cts_free,
	.settings = cts_settings,
};
