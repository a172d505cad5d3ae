/*
 * optim_cts.c - owns copula Thompson sampling (Salinas, Shen and Perrone,
 * ICML 2020, Algorithm 1; TRANSFER_SPEC.md "CTS"): each ask draws
 * n_candidates uniform configurations, samples z ~ N(mu(x), sigma(x)^2)
 * from the transfer prior (prior.h) at each, and proposes the argmin, at
 * the maximum fidelity.  It ignores the current task's results, except to
 * report the prior's centred RMSE on them (describe: "prior_rmse";
 * prior.h says why centred).
 *
 * The prior is fitted at open and again at load, from the study's seed and
 * the transfer data (setup.transfer, required), so a resumed study has the
 * same prior.  State: the rng; the results are its history (replay).
 * Per-trial state "".
 */
#include "optim.h"

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
	double max_f;
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

	if (rc)
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

static int cts_open(const struct optim_setup *s, void **st, char *err)
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

static int cts_ask(void *st, struct optim_job *job, double *vec)
{
	struct cts *c = st;
	int rc = prior_thompson(c->prior, &c->rng, c->choices, c->dim, c->ncand,
				vec);

	if (rc)
		return rc;
	job->fidelity = c->max_f;
	job->bracket = (int64_t)job->id;
	job->kind = OPTIM_KIND_PRIOR;
	return DEHBQ_OK;
}

static int cts_tell(void *st, const struct optim_job *job, const double *vec,
		    enum optim_status status, double loss, double cost)
{
	(void)job, (void)cost;
	return prior_obs_add(&((struct cts *)st)->obs, vec,
			     status == OPTIM_OK ? loss : INFINITY);
}

static int cts_reopen(void *st, const struct optim_job *job, const double *vec)
{
	const struct cts *c = st;

	(void)vec;
	return job->fidelity == c->max_f && !job->state[0] ? DEHBQ_OK
							   : DEHBQ_EINVAL;
}

static int cts_replay(void *st, const struct optim_job *job, const double *vec,
		      int told, int reopened, enum optim_status status,
		      double loss)
{
	(void)reopened;
	if (!job || !told)
		return DEHBQ_OK;
	return prior_obs_add(&((struct cts *)st)->obs, vec,
			     status == OPTIM_OK ? loss : INFINITY);
}

/* CTS ignores the results: nothing to rescore but its RMSE's input. */
static int cts_rescore(void *st, double (*score)(void *arg, int64_t job),
		       void *arg)
{
	(void)st, (void)score, (void)arg;
	return DEHBQ_OK;
}

static int cts_save(const void *st, struct jsonbuf *b)
{
	jsonbuf_puts(b, "{\"rng\":");
	ostate_put_rng(b, &((const struct cts *)st)->rng);
	jsonbuf_put(b, "}", 1);
	return jsonbuf_failed(b);
}

static int cts_load(const struct optim_setup *s, const cJSON *state, void **st,
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

const struct optim_ops optim_cts_ops = {
	.name = "cts",
	.summary = "copula Thompson sampling from a prior fitted on earlier "
		   "studies (needs --transfer-from)",
	.caps = OPTIM_CAP_TRANSFER | OPTIM_CAP_NEEDS_TRANSFER,
	.settings = cts_settings,
	.open = cts_open,
	.ask = cts_ask,
	.tell = cts_tell,
	.reopen = cts_reopen,
	.save = cts_save,
	.load = cts_load,
	.describe = cts_describe,
	.replay = cts_replay,
	.rescore = cts_rescore,
	.free = cts_free,
};
